"""Why heads differ (4): heads forced to share weights vs free heads."""


def test_shared_heads_really_attend_alike(results):
    assert results("shared_heads").number("shared_pattern_gap") == 0.0


def test_identical_heads_do_not_always_lose(results):
    r = results("shared_heads")
    # Measured: free heads lower in 1 of 3 seeds; the lowest loss of all (0.0011)
    # came from shared weights, the best free model reached 0.0496.
    assert r.number("free_wins") < r.number("seeds")
    assert r.number("best_loss_shared") < r.number("best_loss_free")


def test_verdict_on_c12_is_not_verified(results):
    assert results("shared_heads").verdict("C12") in ("nuanced", "refuted")
