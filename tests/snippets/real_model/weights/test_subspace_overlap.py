"""C35 on the real model's forms (snippets/real_model/weights/subspace_overlap.py): invariants of
the recorded numbers; the overlap itself is tested on known answers in test_bilinear_forms.py."""


def test_every_within_layer_pair_is_counted_once(results):
    r = results("real_model.weights.subspace_overlap")
    assert r.number("pairs") == 6 * 12 * 11 / 2                # 66 pairs in each of 6 layers


def test_apart_and_together_cannot_overlap(results):
    r = results("real_model.weights.subspace_overlap")
    # apart: at or below the null's median; together: above its 95th percentile
    assert r.number("null_median") <= r.number("null_p95")
    assert r.number("apart_share") + r.number("together_share") <= 1
    for key in ("apart_share", "together_share", "planted_detection_share", "top_weight_share"):
        assert 0 <= r.number(key) <= 1


def test_overlaps_are_weighted_mean_squared_cosines(results):
    r = results("real_model.weights.subspace_overlap")
    for key in ("overlap_median", "null_median", "null_p95", "planted_overlap_median"):
        assert 0 <= r.number(key) <= 1
    assert r.number("n_random_heads") == 1000
    assert r.number("shared_directions") == 4
