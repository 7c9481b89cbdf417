"""The same numbers on every machine, checked (tools/running/fingerprints.py): each run's
recorded numbers hash to the committed fingerprints of the same code under the pinned kernels."""

import math

from tools.running import fingerprints


def results_of(**numbers):
    return {"numbers": {key: {"value": value} for key, value in numbers.items()}}


def test_a_number_hashes_by_its_exact_value():
    a = fingerprints.number_hashes(results_of(x=0.1 + 0.2, y=math.nan, n=3))
    assert a == fingerprints.number_hashes(results_of(x=0.1 + 0.2, y=math.nan, n=3.0))
    assert a["x"] != fingerprints.number_hashes(results_of(x=0.3))["x"]   # 0.30000000000000004
    assert a["y"] == fingerprints.number_hashes(results_of(y=float("nan")))["y"]


def test_the_comparison_names_each_run_and_how_many_numbers_differ():
    committed = {
        "a": {"code": "c1", "numbers": fingerprints.number_hashes(results_of(x=1.0, y=2.0, z=3.0))},
        "b": {"code": "c2", "numbers": fingerprints.number_hashes(results_of(x=1.0))},
        "c": {"code": "c3", "numbers": fingerprints.number_hashes(results_of(x=1.0))},
    }
    measured = {
        "a": {"code": "c1", "numbers": fingerprints.number_hashes(results_of(x=1.0, y=2.5, z=3.0))},
        "b": {"code": "c2-edited", "numbers": fingerprints.number_hashes(results_of(x=1.0))},
        "c": {"code": "c3", "numbers": fingerprints.number_hashes(results_of(x=1.0))},
        "d": {"code": "c4", "numbers": {}},
    }
    comparison = fingerprints.compare(committed, measured)
    assert comparison.differ == {"a": (1, 3)}
    assert comparison.stale == ["b"] and comparison.missing == ["d"] and comparison.same == 1
    assert not comparison.ok
    assert "a: 1 of 3 numbers differ" in "\n".join(comparison.lines())
    assert fingerprints.compare(committed, {"c": measured["c"]}).ok


def test_a_number_recorded_only_on_one_side_counts_as_differing():
    committed = {"a": {"code": "c", "numbers": {"x": "1"}}}
    assert fingerprints.compare(committed, {"a": {"code": "c", "numbers": {"x": "1", "y": "2"}}}).differ == {"a": (1, 2)}


def test_every_run_of_this_build_records_the_committed_numbers(snippet_outcomes):
    comparison = fingerprints.compare(fingerprints.load(), fingerprints.of_cache())
    assert comparison.ok, "\n".join(comparison.lines())
