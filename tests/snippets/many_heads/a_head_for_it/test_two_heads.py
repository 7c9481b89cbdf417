"""A head for "it": do two heads of one layer divide a positional and an entity job? Over seeds.
The computations behind the numbers; the verdicts are the rules' (docs/claims.yml)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "snippets"))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import numpy as np  # noqa: E402


def f32(values) -> np.ndarray:
    return np.float32(values)          # the snippet compares float32 tensors: so does the test


def test_a_same_layer_split_needs_both_roles(results):
    # One head positional AND another entity head: a split seed has each role.
    r = results("many_heads.a_head_for_it.two_heads")
    for split, positional, entity in zip(r.per_seed("same_layer_split_seeds"),
                                         r.per_seed("positional_head_seeds"), r.per_seed("entity_head_seeds")):
        assert split <= min(positional, entity)
    assert r.number("same_layer_split_at_adverbs_seeds") <= r.number("entity_head_seeds")


def test_the_seed_counts_are_per_seed_comparisons_of_the_recorded_values(results):
    r = results("many_heads.a_head_for_it.two_heads")
    single, two = f32(r.per_seed("single_accuracy_mean")), f32(r.per_seed("two_head_accuracy_mean"))
    assert r.per_seed("two_heads_better_seeds") == (two >= single + np.float32(0.02)).astype(float).tolist()


def test_scores_and_shares_are_attention_weights(results):
    r = results("many_heads.a_head_for_it.two_heads")
    for key in ("positional_previous_mean", "entity_antecedent_mean",
                "single_accuracy_mean", "two_head_accuracy_mean"):
        assert all(-1e-6 <= v <= 1 + 1e-6 for v in r.per_seed(key)), key


def test_the_top_pick_split_needs_both_top_pick_roles(results):
    # One definition for the toy and MiniLM (C07): a split seed has a head of each role.
    r = results("many_heads.a_head_for_it.two_heads")
    for split, previous, entity in zip(r.per_seed("same_layer_split_top_pick_seeds"),
                                       r.per_seed("previous_role_top_pick_seeds"),
                                       r.per_seed("entity_role_top_pick_seeds")):
        assert split <= min(previous, entity)
    for key in ("previous_role_top_pick_share_mean", "entity_role_top_pick_share_mean"):
        assert 0 <= r.number(key) <= 1, key


def test_c08s_counts_are_the_per_seed_comparisons_they_describe(results):
    r = results("many_heads.a_head_for_it.two_heads")
    v = {key: f32(r.per_seed(key)) for key in (
        "single_accuracy_mean", "two_head_accuracy_mean", "single_previous_mean", "single_antecedent_mean",
        "single_accuracy_long_mean", "antecedent_accuracy_mean", "it_without_before_mean", "it_without_animal_mean")}
    fails = (v["single_accuracy_mean"] < np.float32(0.8)) & (v["two_head_accuracy_mean"] >= np.float32(0.95)) \
        & (v["single_previous_mean"] >= np.float32(0.3)) & (v["single_antecedent_mean"] >= np.float32(0.3)) \
        & (v["single_accuracy_long_mean"] < np.float32(0.8))
    assert r.per_seed("single_fails_seeds") == fails.astype(float).tolist()
    no_cost = v["single_accuracy_mean"] >= v["two_head_accuracy_mean"] - np.float32(0.01)
    assert r.per_seed("no_cost_seeds") == no_cost.astype(float).tolist()
    # the control scores the prediction at "it" alone: the 2-head model's is antecedent_accuracy
    both = (v["antecedent_accuracy_mean"] >= np.float32(0.95)) & (v["it_without_before_mean"] < np.float32(0.8)) \
        & (v["it_without_animal_mean"] < np.float32(0.8))
    assert r.per_seed("needs_both_seeds") == both.astype(float).tolist()


def test_a_planted_detection_needs_a_valid_seed_and_the_long_run_doubles_the_steps(results):
    r = results("many_heads.a_head_for_it.two_heads")
    # valid: the two heads name the animal after "it" in at least 0.95 of the probe sentences
    for detected, a2 in zip(r.per_seed("c08_planted_detected_seeds"), f32(r.per_seed("antecedent_accuracy_mean"))):
        assert not detected or a2 >= np.float32(0.95)
    assert r.number("steps_long") == 2 * 300                                  # train_and_watch's 300
    for key in ("single_accuracy_long_mean", "it_without_before_mean", "it_without_animal_mean"):
        assert all(0 <= v <= 1 for v in r.per_seed(key)), key


def test_the_key_mask_at_it_removes_one_key_per_sentence():
    import torch
    from explainer.pronoun_language import probe_set
    from explainer.token_knockout import key_mask

    _, _, (it_at, animal_at, _), _, _ = probe_set(size=5)
    mask = key_mask(5, 14, it_at[:, None], animal_at[:, None])
    assert mask.sum() == 5
    assert mask[0, torch.arange(5), it_at, animal_at].all()
