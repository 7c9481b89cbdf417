"""Pruning a trained 16-head model over seeds: the C13 yardstick and source A's backups / noise smoothing (C25)."""


def test_every_seed_is_counted(results):
    assert results("pruning_heads").number("n_seeds") >= 8


def test_trained_models_are_near_perfect(results):
    assert results("pruning_heads").number("full_accuracy_min") > 0.98   # measured 0.99+


def test_prunable_share_by_the_yardstick(results):
    # C13's rule reads prunable_share_mean (toy). Measured 0.38 (0.31-0.50 over seeds):
    # more than a quarter of the heads, far from all of them.
    r = results("pruning_heads")
    assert 0.25 <= r.number("prunable_share_mean") < 0.75
    assert r.number("prunable_share_min") <= r.number("prunable_share_mean") <= r.number("prunable_share_max")


def test_order_matters_random_pruning_removes_fewer(results):
    # Measured 0.17 (random orders) vs 0.38 (least damage first); 0.60 vs 0.88 at half.
    r = results("pruning_heads")
    assert r.number("prunable_share_random_mean") < r.number("prunable_share_mean") - 0.1
    assert r.number("accuracy_half_random_mean") < r.number("accuracy_half_damage_mean") - 0.1


def test_removable_heads_are_not_backups_for_their_twin(results):
    # C25's backup test. Measured: removing the twin first adds only 0.013 to a removable
    # head's cost (0.004 after any other head); 0 of 8 seeds show backups.
    r = results("pruning_heads")
    assert r.number("seeds_with_removable_heads") >= 0.75 * r.number("n_seeds")
    assert r.number("backup_seeds") <= 0.25 * r.number("n_seeds")
    assert r.number("twin_extra_cost_mean") < 0.05


def test_removing_the_removable_heads_costs_more_under_noise(results):
    # C25's smoothing test. Measured noise cost 0.109 for the removable heads vs 0.037
    # for as many random heads; 8 of 8 seeds.
    r = results("pruning_heads")
    assert r.number("smoothing_seeds") >= 0.75 * r.number("n_seeds")
    assert r.number("noise_cost_removable_mean") > r.number("noise_cost_random_mean") + 0.02
