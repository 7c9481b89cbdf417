"""The ant colony, what the queries, keys and values became (C26's note, C16's keys and values):
the computations behind the numbers; the verdicts are the rules' (docs/claims.yml)."""

import numpy as np


def test_the_seed_count_applies_the_bar_set_before_the_run(results):
    r = results("three_roles.ant_colony.what_each_role_became")
    gap = np.float32(r.per_seed("query_cosine_gap_mean"))
    assert r.per_seed("query_same_class_seeds") == (gap >= np.float32(r.number("query_gap_bar"))).astype(float).tolist()


def test_the_gap_is_same_kind_minus_other_kind_colony_by_colony(results):
    r = results("three_roles.ant_colony.what_each_role_became")
    same = np.float32(r.per_seed("query_cosine_same_class_mean"))
    other = np.float32(r.per_seed("query_cosine_other_class_mean"))
    assert np.allclose(np.float32(r.per_seed("query_cosine_gap_mean")), same - other, atol=1e-6)


def test_probe_accuracies_are_shares_of_twelve_verbs(results):
    r = results("three_roles.ant_colony.what_each_role_became")
    for key in ("query_probe_accuracy_mean", "query_probe_accuracy_start_mean"):
        assert all(abs(v * 12 - round(v * 12)) < 1e-5 and 0 <= v <= 1 for v in r.per_seed(key)), key
    assert r.number("query_probe_chance") == 0.25


def test_the_own_kind_count_is_a_count_of_the_twelve_verbs(results):
    n = results("three_roles.ant_colony.what_each_role_became").number("own_kind_top_verbs")
    assert n == int(n) and 0 <= n <= 12
