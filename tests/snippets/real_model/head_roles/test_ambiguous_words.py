"""C21 in MiniLM: a head that resolves an ambiguous word, and one that settles its sense.
The counts nest as their definitions say, whatever the outcome; the verdict is the rule's."""

import pytest

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
