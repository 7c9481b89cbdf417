"""The frame language (C26, C31): the language's invariants, the probe on planted data, the
random-projection baseline on a known case, and the run's counts recomputed from its per-seed
numbers. The verdicts are the rules' (docs/claims.yml)."""

import functools
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "snippets"))
sys.path.insert(0, str(ROOT))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer import frame_language_toy  # noqa: E402
from tools.running import notebooks  # noqa: E402

SNIPPET = ROOT / "snippets" / "three_roles" / "ant_colony" / "frame_language.py"
DEFINITIONS = {"language", "model", "causal"}   # the cells that import the toy and define the causal check


@functools.lru_cache(maxsize=None)
def toy() -> dict:
    """The toy's language, model, probe and baseline (explainer/frame_language_toy.py) and the
    snippet's causal check, run without any training."""
    return vars(frame_language_toy) | notebooks.run_tagged(SNIPPET, DEFINITIONS)


def test_each_frame_has_as_many_verbs_and_transitive_equals_intransitive():
    t = toy()
    per_frame = np.bincount(t["frame_label"].numpy(), minlength=len(t["FRAMES"]))
    assert per_frame.tolist() == [6] * 4
    assert int(t["transitive_label"].sum()) == int((1 - t["transitive_label"]).sum()) == 12
    assert len(set(t["frame_verbs"])) == len(t["frame_verbs"]) == 24
    assert len(set(t["lexicon"])) == len(t["lexicon"])


def test_object_kinds_cross_the_two_transitive_frames():
    t = toy()
    for kind in t["things"]:
        frames = [t["frame_of"][v] for v in t["frame_verbs"] if t["takes_kind"][v] == kind]
        assert sorted(frames) == ["object", "object", "two_objects", "two_objects"], kind
    assert all(t["takes_kind"][v] is None for v in t["frame_verbs"] if not t["TRANSITIVE"][t["frame_of"][v]])


def test_the_theme_is_in_its_sentence_once_and_from_the_frames_pool():
    t = toy()
    pools = {"none": t["animals"], "place": t["places"], "object": t["all_things"], "two_objects": t["people"]}
    for verb in t["frame_verbs"]:
        frame, kind = t["frame_of"][verb], t["takes_kind"][verb]
        pool = pools[frame] if frame != "object" else t["things"][kind]   # an object: of the verb's kind
        for words, theme in t["table"][verb]:
            assert words[t["VERB_AT"]] == verb and theme in pool
            assert sum(w in pool for w in words) == 1                     # no other noun of that pool
            if frame != "none":
                assert words[0] in t["animals"] and all(w not in t["animals"] for w in words[1:3])
            if frame == "two_objects":
                given = [w for w in words if w in t["all_things"]]
                assert len(given) == 1 and t["thing_kind"][given[0]] == kind


def test_which_pools_a_sentence_holds_does_not_give_its_frame():
    # The non-subject pools (places, things, people) appear in sentences of several frames:
    # a query that ranks the pools the same way for every verb cannot name every theme.
    t = toy()
    seen = {}
    for verb in t["frame_verbs"]:
        for words, _ in t["table"][verb]:
            for pool in ("places", "all_things", "people"):
                if any(w in t[pool] for w in words):
                    seen.setdefault(pool, set()).add(t["frame_of"][verb])
    assert seen["places"] == {"none", "place", "object"}
    assert seen["people"] == {"none", "place", "object", "two_objects"}
    assert seen["all_things"] == {"none", "place", "object", "two_objects"}


def test_the_table_holds_every_sentence_once():
    t = toy()
    for verb in t["frame_verbs"]:
        rows = t["table"][verb]
        assert len(set(rows)) == len(rows)
    assert int(t["COUNTS"].sum()) == sum(len(rows) for rows in t["table"].values())


def test_a_planted_frame_direction_is_read_perfectly_and_noise_near_chance():
    t = toy()
    g = torch.Generator().manual_seed(0)
    labels = t["frame_label"]
    noise = torch.randn(50, 24, 32, generator=g)                             # 50 sets of 24 verbs
    planted = noise.clone()
    planted[..., :4] += 20 * torch.nn.functional.one_hot(labels, 4).float()
    assert t["held_out_accuracy"](planted, labels).min() == 1.0
    chance = t["held_out_accuracy"](noise, labels).mean()
    assert abs(chance - 0.25) < 0.05
    assert abs(t["held_out_accuracy"](noise, t["transitive_label"]).mean() - 0.5) < 0.07


def test_the_percentile_of_projections_on_a_known_case():
    # Inputs hold the frame in their first four coordinates only. A projection that keeps the
    # first 32 coordinates reads it perfectly; one that keeps the last 32 sees only noise.
    t = toy()
    g = torch.Generator().manual_seed(1)
    labels = t["frame_label"]
    C, hs = t["WIDTH"], t["D_HEAD"]
    inputs = torch.randn(1, 24, C, generator=g)
    inputs[..., :4] += 20 * torch.nn.functional.one_hot(labels, 4).float()
    first, last = torch.eye(C)[:, :hs], torch.eye(C)[:, -hs:]
    projections = torch.stack([first] * 10 + [last] * 10)                    # (20, C, hs)
    p95, accuracies = t["projection_percentile"](inputs, labels, projections)
    noise_only = t["held_out_accuracy"](inputs[0] @ last, labels)
    assert accuracies[0, :10].tolist() == [1.0] * 10
    assert torch.allclose(accuracies[0, 10:], noise_only.expand(10))
    assert p95.item() == 1.0
    assert torch.allclose(accuracies.quantile(0.25, dim=-1), noise_only)


def test_the_verbs_own_query_gives_the_same_pass_and_removal_leaves_no_component():
    t = toy()
    p = t["make_models"]([0, 1])
    tokens, _ = t["batch"](torch.Generator().manual_seed(0), 16)
    with torch.no_grad():
        logits, weights = t["forward"](p, tokens)
        q = t["verb_inputs"](p) @ p["W_Q"]                                   # (M, 24, hs)
        rows = torch.tensor([t["frame_verbs"].index(t["lexicon"][i]) for i in tokens[:, t["VERB_AT"]].tolist()])
        again, _ = t["forward"](p, tokens, query=q[:, rows])
    assert torch.allclose(logits, again, atol=1e-5)
    assert torch.allclose(weights.sum(-1), torch.ones(2, 16))
    directions = torch.randn(2, t["D_HEAD"], 3, generator=torch.Generator().manual_seed(2))
    stripped = t["without"](q.detach(), directions)
    assert (stripped @ directions).abs().max() < 1e-4


def test_counts_are_recomputed_from_the_per_seed_accuracies(results):
    r = results("three_roles.ant_colony.frame_language")
    bar, ceiling = np.float32(r.number("pass_bar")), np.float32(r.number("ceiling_bar"))
    for task in ("frame", "transitive"):
        query, p95 = np.float32(r.per_seed(f"{task}_query_mean")), np.float32(r.per_seed(f"{task}_p95_mean"))
        assert r.per_seed(f"{task}_beats_seeds") == (query > p95).astype(float).tolist()
        assert r.per_seed(f"{task}_pass_seeds") == ((query >= bar) & (query > p95)).astype(float).tolist()
        assert r.per_seed(f"{task}_ceiling_seeds") == (p95 >= ceiling).astype(float).tolist()
        assert all(0 <= a <= 1 for a in r.per_seed(f"{task}_query_mean") + r.per_seed(f"{task}_p95_mean"))
    assert r.number("n_transitive") == r.number("n_intransitive")
