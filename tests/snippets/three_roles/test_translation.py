"""Translating 猫追逐激光点 (C17): the computations behind the numbers; the verdict is the
rule's (docs/claims.yml)."""

import functools
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "snippets"))
sys.path.insert(0, str(ROOT))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from tools.running import notebooks  # noqa: E402

SNIPPET = ROOT / "snippets" / "three_roles" / "translation.py"
DEFINITIONS = {"corpora", "model", "stacked", "measures"}   # the cells that define, not train


@functools.lru_cache(maxsize=None)
def toy() -> dict:
    """The snippet's corpora, model, stacked pass and measures, run without any training."""
    return notebooks.run_tagged(SNIPPET, DEFINITIONS)


def untrained(seeds=(0, 1)):
    t = toy()
    params, _, arm_of = t["make_models"](list(seeds))
    return t, params, arm_of, t["model_targets"](arm_of)


def test_only_the_forced_arm_reads_only_the_verb():
    t, _, arm_of, tgt = untrained()
    forced = arm_of == list(t["ARMS"]).index("forced")
    assert forced.sum() == 2
    assert tgt[2][forced].tolist() == [[False, True, False]] * 2
    assert tgt[2][~forced].all()


def test_the_forced_decoder_sees_the_encoder_only_at_the_verb():
    t, params, arm_of, tgt = untrained()
    forced = arm_of == list(t["ARMS"]).index("forced")
    rows = list(range(6))
    tgt_in, _ = t["batch_targets"](tgt, rows)
    with torch.no_grad():
        memory, _ = t["encode"](params, t["src_all"][rows])               # (M, B, 3, C)
        logits, cross = t["decode"](params, memory, tgt_in, reads=tgt[2])
        others = memory.clone()
        others[:, :, [t["SUBJECT_POS"], t["OBJECT_POS"]]] += torch.randn_like(others[:, :, [0, 2]])
        moved, _ = t["decode"](params, others, tgt_in, reads=tgt[2])
        verb = memory.clone()
        verb[:, :, t["VERB_POS"]] += torch.randn_like(verb[:, :, 1])
        moved_verb, _ = t["decode"](params, verb, tgt_in, reads=tgt[2])
    assert torch.equal(logits[forced], moved[forced])                     # subject and object unseen
    assert not torch.allclose(logits[~forced], moved[~forced])            # the full models see them
    assert not torch.allclose(logits[forced], moved_verb[forced])         # the verb is seen
    assert torch.equal(cross[forced][..., t["VERB_POS"]], torch.ones_like(cross[forced][..., 1]))


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


def test_the_stacked_models_are_the_translator_model_by_model(results):
    assert results("three_roles.translation").number("stacked_vs_module_error") < 1e-5


def test_the_link_counts_are_their_parts_seed_by_seed(results):
    r = results("three_roles.translation")
    for prefix in ("", "object_dependent_", "forced_"):
        link = np.array(r.per_seed(f"{prefix}link_seeds"))
        assert r.number(f"{prefix}link_seeds") == link.sum()
        assert np.all(link <= np.array(r.per_seed(f"{prefix}link_attention_seeds")))
        assert np.all(link <= np.array(r.per_seed(f"{prefix}link_breaks_seeds")))
        assert np.all(np.array(r.per_seed(f"{prefix}link_breaks_seeds"))
                      <= np.array(r.per_seed(f"{prefix}correct_seeds")))


def test_a_link_is_a_weight_of_at_least_one_half_per_seed(results):
    r = results("three_roles.translation")
    for prefix in ("", "object_dependent_", "forced_"):
        for when in ("", "_start"):
            weight = np.float32(r.per_seed(f"{prefix}chase_laser_weight{when}_mean"))
            assert r.per_seed(f"{prefix}chase_laser_linked{when}_seeds") == (weight >= 0.5).astype(float).tolist()
            assert all(0 <= w <= 1 for w in weight)                      # one softmax weight


def test_exercise_answers(results):
    # 2: in greedy decoding the next word is read at the last position, which sees every
    #    earlier word with or without the causal mask: the translations cannot change.
    r = results("three_roles.translation")
    assert r.number("exercise_unmasked_decoding_held_out_exact") == r.number("held_out_exact_mean")


def test_the_cut_off_exercise_is_a_share_of_sentences(results):
    assert 0 <= results("three_roles.translation").number("exercise_no_cross_attention_held_out_exact") <= 1
