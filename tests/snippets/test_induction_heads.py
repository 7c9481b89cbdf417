"""Division of labour between layers: a previous-token head feeds an induction head, over seeds.

This page is about layers; the same-layer split of C07 is tested in test_antecedent_heads.py."""


def test_every_seed_is_counted(results):
    assert results("induction_heads").number("n_seeds") >= 8


def test_layer0_gets_a_previous_token_head_and_layer1_an_induction_head_in_most_seeds(results):
    # Measured 8 of 8 seeds: first-half previous-token score 0.84 on average (min 0.72,
    # 0.13 at init), induction score 0.76 (min 0.69, 0.11 at init).
    r = results("induction_heads")
    assert r.number("layer_split_seeds") >= 0.75 * r.number("n_seeds")
    assert r.number("induction_score_mean") > r.number("induction_score_at_init_mean") + 0.3
    assert r.number("induction_score_layer0_mean") < 0.3


def test_one_layer_cannot_do_induction(results):
    # Measured 0.35 vs 0.83 accuracy on average, worse by >= 0.3 in 8 of 8 seeds.
    r = results("induction_heads")
    assert r.number("control_worse_seeds") >= 0.75 * r.number("n_seeds")
    assert r.number("control_induction_score_max") < 0.4


def test_removing_the_previous_token_head_breaks_induction_in_most_seeds(results):
    # Measured: 0.39 without it vs 0.82 without the other layer-0 head (means);
    # a loss of >= 0.2 in 8 of 8 seeds.
    r = results("induction_heads")
    assert r.number("previous_head_needed_seeds") >= 0.75 * r.number("n_seeds")
    assert r.number("ablate_other_layer0_head_mean") > r.number("ablate_previous_head_mean") + 0.2
