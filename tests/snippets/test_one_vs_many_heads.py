"""One head or many at the same width, on a task that needs a near and a far token."""


def test_all_models_have_the_same_parameter_count(results):
    # The snippet asserts equal sizes while training; the count is d_model = 32's.
    assert results("one_vs_many_heads").number("parameters") > 0


def test_single_head_splits_its_attention_between_near_and_far(results):
    r = results("one_vs_many_heads")
    # Measured 0.52 / 0.53; a head that picked one position would score <= ~0.11
    # on the other (only t = 1, where both coincide, out of nine positions).
    assert r.number("single_previous") > 0.3
    assert r.number("single_first") > 0.3


def test_single_head_still_solves_the_sum_and_the_ordered_pair(results):
    r = results("one_vs_many_heads")
    # Measured 0.996 and 1.000; chance is 0.1 and 0.01.
    assert r.number("accuracy_1") > 0.95
    assert r.number("pair_accuracy_1") > 0.95
    # On the ordered pair the split is uneven (measured 0.68 first vs 0.37 previous):
    # the weights themselves tell the two tokens apart.
    assert r.number("pair_first") - r.number("pair_previous") > 0.1


def test_two_heads_divide_the_ordered_pair_between_them(results):
    r = results("one_vs_many_heads")
    # Measured 1.00 and 1.00: one pure previous-token head, one pure first-token head.
    assert r.number("pair_two_near_previous") > 0.9
    assert r.number("pair_two_far_first") > 0.9
    assert r.number("pair_accuracy_2") > 0.95


def test_more_heads_learn_faster_not_better(results):
    r = results("one_vs_many_heads")
    for heads in (2, 4, 8):
        assert r.number(f"accuracy_{heads}") > 0.95
        # Measured: 95% at step 320 for one head vs 200, 160, 200 for 2, 4, 8 heads
        # (evaluated every 40 steps, so a gap of >= 80 steps is two evaluations).
        assert r.number("steps_to_95_1") - r.number(f"steps_to_95_{heads}") >= 80


def test_verdict_on_c08_is_refuted(results):
    assert results("one_vs_many_heads").verdict("C08") == "refuted"
