"""Does 追逐 come to attend to 激光点 (C17): the link of the rule and its parts, on untrained
models of the shared toy (explainer.translation_toy) and on the recorded per-seed values of
three_roles.translation.link; the verdict is the rule's (docs/claims.yml)."""

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "snippets"))
sys.path.insert(0, str(ROOT))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer import translation_toy  # noqa: E402


def untrained(seeds=(0, 1)):
    t = vars(translation_toy)
    params, _, arm_of = t["make_models"](list(seeds))
    return t, params, arm_of, t["model_targets"](arm_of)


def test_removing_an_edge_zeroes_exactly_that_weight_and_renormalises_its_row():
    t, params, _, _ = untrained()
    test = t["sources"].index(t["TEST"])
    src = t["src_all"][[test]]
    with torch.no_grad():
        _, w = t["encode"](params, src)                                   # (M, 1, nh, 3, 3)
        M, n_heads = w.shape[0], w.shape[2]
        for head in range(n_heads):
            cut = t["cut_edge"](M, n_heads, head, t["VERB_POS"], t["OBJECT_POS"])
            assert cut.sum() == M
            _, w_cut = t["encode"](params, src, cut)
            changed = torch.zeros_like(w, dtype=torch.bool)
            changed[:, :, head, t["VERB_POS"]] = True                     # that row, every model
            assert torch.equal(w_cut[~changed], w[~changed])
            row, row_cut = w[:, 0, head, t["VERB_POS"]], w_cut[:, 0, head, t["VERB_POS"]]
            assert torch.all(row_cut[:, t["OBJECT_POS"]] == 0)
            kept = [t["SUBJECT_POS"], t["VERB_POS"]]
            expected = row[:, kept] / (1 - row[:, [t["OBJECT_POS"]]])
            assert torch.allclose(row_cut[:, kept], expected, atol=1e-6)


def test_a_link_needs_the_weights_and_a_cut_that_breaks_a_translation_that_was_exact():
    t, params, _, tgt = untrained()
    link = t["chase_laser_link"](params, tgt)
    exact = t["translate"](params, tgt, [t["sources"].index(t["TEST"])])[:, 0].float()
    assert torch.all(link["link"] <= link["link_attention"])
    assert torch.all(link["link"] <= link["link_breaks"])
    assert torch.all(link["link_breaks"] <= exact)                        # nothing to break otherwise


def test_the_link_counts_are_their_parts_seed_by_seed(results):
    r, learned = results("three_roles.translation.link"), results("three_roles.translation")
    for prefix in ("", "object_dependent_", "forced_"):
        link = np.array(r.per_seed(f"{prefix}link_seeds"))
        assert r.number(f"{prefix}link_seeds") == link.sum()
        assert np.all(link <= np.array(r.per_seed(f"{prefix}link_attention_seeds")))
        assert np.all(link <= np.array(r.per_seed(f"{prefix}link_breaks_seeds")))
        assert np.all(np.array(r.per_seed(f"{prefix}link_breaks_seeds"))
                      <= np.array(learned.per_seed(f"{prefix}correct_seeds")))   # the same seeds


def test_a_link_is_a_weight_of_at_least_one_half_per_seed(results):
    r = results("three_roles.translation.link")
    for prefix in ("", "object_dependent_", "forced_"):
        for when in ("", "_start"):
            weight = np.float32(r.per_seed(f"{prefix}chase_laser_weight{when}_mean"))
            assert r.per_seed(f"{prefix}chase_laser_linked{when}_seeds") == (weight >= 0.5).astype(float).tolist()
            assert all(0 <= w <= 1 for w in weight)                      # one softmax weight
