"""Translating 猫追逐激光点 (C17): the computations behind the numbers; the verdict is the
rule's (docs/claims.yml)."""

import numpy as np


def test_the_stacked_models_are_the_translator_model_by_model(results):
    assert results("three_roles.translation").number("stacked_vs_module_error") < 1e-5


def test_a_link_is_a_weight_of_at_least_one_half_per_seed(results):
    r = results("three_roles.translation")
    for prefix in ("", "object_dependent_"):
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
