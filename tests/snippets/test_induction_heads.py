"""Division of labour: a previous-token head feeds an induction head; one layer cannot."""


def test_a_layer0_head_becomes_a_previous_token_head(results):
    r = results("induction_heads")
    # Measured 0.50 over all positions (0.12 at init) and 0.99 on the first-copy
    # half, where the induction head reads its keys.
    assert r.number("previous_score") >= 0.4
    assert r.number("previous_score_first_half") >= 0.9


def test_a_layer1_head_becomes_an_induction_head(results):
    r = results("induction_heads")
    # Measured 0.84 (0.12 at init, 0.22 for the 1-layer control): 0.6 leaves a
    # margin on both sides.
    assert r.number("induction_score") >= 0.6
    assert r.number("induction_score_layer0") < 0.3


def test_one_layer_control_cannot_do_induction(results):
    r = results("induction_heads")
    # Measured 0.38 vs 0.91 accuracy, induction score 0.22.
    assert r.number("accuracy") >= 0.8
    assert r.number("control_accuracy") <= r.number("accuracy") - 0.3
    assert r.number("control_induction_score") < 0.4


def test_removing_the_previous_token_head_breaks_induction(results):
    r = results("induction_heads")
    # Measured 0.49 without it; 0.91 without the other layer-0 head.
    assert r.number("ablate_previous_head") <= r.number("accuracy") - 0.2
    assert r.number("ablate_other_layer0_head") >= r.number("accuracy") - 0.05


def test_verdict_on_c07(results):
    assert results("induction_heads").verdict("C07") == "verified"
