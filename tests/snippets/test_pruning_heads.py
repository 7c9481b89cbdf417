"""Are sixteen heads better than one? Ablation and progressive pruning."""


def test_trained_model_is_near_perfect(results):
    r = results("pruning_heads")
    assert r.number("full_accuracy") > 0.98   # measured 1.000, loss 0.0012


def test_almost_every_head_is_harmless_alone(results):
    r = results("pruning_heads")
    # Measured 14 of 16 heads cost <= 0.01 when removed alone; one costs 0.07.
    assert r.number("harmless_heads") >= r.number("heads") / 2
    assert r.number("essential_heads") <= 3


def test_together_only_some_can_go(results):
    r = results("pruning_heads")
    # Measured 25% removable within 0.02 (damage order), 0.90 accuracy at half,
    # 0.14 with one head left: redundant one at a time, not all at once.
    assert 0.1 <= r.number("removable_damage") < 0.5
    assert r.number("accuracy_all_but_one_damage") < 0.5


def test_order_matters_random_pruning_is_worse(results):
    r = results("pruning_heads")
    # Measured 0.90 (damage order) vs 0.64 (random, mean of 10) at half.
    assert r.number("accuracy_half_damage") > r.number("accuracy_half_random") + 0.1
    assert r.number("removable_random") < r.number("removable_damage")


def test_gradient_importance_is_a_poor_guide_at_near_zero_loss(results):
    r = results("pruning_heads")
    # Measured rank correlation 0.26 with ablation damage; at half the heads the
    # gradient order keeps 0.62, no better than random (0.64) + 0.1.
    assert r.number("full_loss") < 0.01
    assert r.number("rank_correlation") < 0.6
    assert r.number("accuracy_half_gradient") < r.number("accuracy_half_random") + 0.1
    # ...though it does rank the one essential head last (most important).
    assert r.number("essential_lowest_gradient_rank") >= r.number("heads") - 2


def test_verdict_on_c13(results):
    assert results("pruning_heads").verdict("C13") == "nuanced"
