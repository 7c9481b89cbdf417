"""Pruning a trained 16-head model over seeds: the C37 yardstick (the replication of C13) and source A's backups / noise
smoothing (C25). The computations behind the numbers; the verdicts are the rules'."""


def test_the_prunable_share_is_a_whole_number_of_heads(results):
    # 16 heads per model: a share of removable heads is k / 16.
    r = results("many_heads.pruning")
    for share in r.per_seed("prunable_share_mean"):
        assert 0 <= share <= 1 and abs(share * 16 - round(share * 16)) < 1e-6
    assert r.per_seed("removable_heads_mean") == [share * 16 for share in r.per_seed("prunable_share_mean")]


def test_a_seed_without_removable_heads_shows_neither_backups_nor_smoothing(results):
    r = results("many_heads.pruning")
    for removable, backup, smoothing in zip(r.per_seed("removable_heads_mean"), r.per_seed("backup_seeds"),
                                            r.per_seed("smoothing_seeds")):
        if removable == 0:
            assert backup == 0 and smoothing == 0
    assert r.number("backup_heads") <= r.number("removable_heads_total")


def test_exercise_answers(results):
    r = results("many_heads.pruning")
    # 1: a looser yardstick (90 % instead of 95 % of the full accuracy) removes heads in the
    #    same order and stops later: it can only let more heads go, or as many.
    assert r.number("exercise_prunable_share_at_90_mean") >= r.number("prunable_share_mean")


def test_the_reverse_order_exercise_is_an_accuracy(results):
    assert 0 <= results("many_heads.pruning").number("exercise_accuracy_half_reverse_mean") <= 1
