"""A head for "it": do two heads of one layer divide a positional and an entity job? Over seeds.
The computations behind the numbers; the verdicts are the rules' (docs/claims.yml)."""

import numpy as np


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
