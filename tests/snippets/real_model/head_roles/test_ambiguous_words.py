"""C21 in MiniLM: a head that resolves an ambiguous word, and one that settles its sense.
The counts nest as their definitions say, whatever the outcome; the verdict is the rule's."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))
from explainer.planted_gaps import planted_hits, planted_probability  # noqa: E402

LAYERS, HEADS = 6, 72          # MiniLM: 6 layers x 12 heads


def test_c21_counts_nest_and_the_best_difference_is_its_two_accuracies_apart(results):
    r = results("real_model.head_roles.ambiguous_words")
    ambiguity, settling, both = (r.number(k) for k in ("c21_ambiguity_heads", "c21_settling_heads", "c21_both_heads"))
    assert 0 <= both <= min(ambiguity, settling) and ambiguity <= HEADS
    assert settling <= LAYERS                                 # at most one head per layer has the largest drop
    assert r.number("c21_max_difference") == pytest.approx(
        r.number("c21_best_ambiguous") - r.number("c21_best_plain"))
    assert (settling > 0) <= (r.number("c21_max_drop") >= 0.1)
    assert -1 <= r.number("c21_max_drop") <= r.number("c21_probe_accuracy") <= 1
    assert 0 < r.number("c21_best_p") <= 1
    assert r.number("c21_position_rule_max") == max(r.number("c21_rule_fixed_offset"),
                                                    r.number("c21_rule_nearest_word"))
    assert r.number("c21_source_frames") <= r.number("c21_n_frames")


def test_the_planted_probability_gives_the_gap_in_expectation():
    # own hits 0.2 from the ambiguous word, 0.1 from the plain noun: p (1 - 0.2) + 0.1 = 0.25
    p = planted_probability(0.2, 0.1, 0.25)
    assert p == pytest.approx(0.1875) and p * (1 - 0.2) + 0.2 - 0.1 == pytest.approx(0.25)
    assert planted_probability(0.5, 0.1, 0.25) == 0.0                # already there: taken as it is
    assert planted_probability(0.9, 0.8, 0.25) > 1                   # cannot carry it: drawn again
    assert planted_probability(1.0, 0.9, 0.25) == float("inf")
    own = np.zeros(4000, dtype=int)
    drawn = planted_hits(own, 0.3, np.random.default_rng(0))
    assert abs(drawn.mean() - 0.3) < 0.03


def test_a_head_planted_in_every_frame_lifts_the_largest_gap_and_none_leaves_it():
    own = np.zeros((50, 3), dtype=int)                               # no head ever hits
    plain = np.zeros((50, 3), dtype=int)
    rng = np.random.default_rng(1)
    for probability, detected in ((1.0, True), (0.0, False)):
        planted = own.copy()
        planted[:, 1] = planted_hits(own[:, 1], probability, rng)
        assert ((planted[:, 1] == 1).all() if detected else (planted == own).all())
        assert ((planted - plain).mean(axis=0).max() >= 0.1) == detected
