"""One head or many at the same width (C08): the computations behind the recorded numbers.

The verdict is the rule's (docs/claims.yml), recomputed by every build; these tests check
that the numbers it reads are computed as the page describes them."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "snippets"))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import numpy as np  # noqa: E402


def test_all_head_counts_have_exactly_the_same_parameter_count(results):
    # The comparison is only fair at equal size: 1, 2, 4 and 8 heads of d_model = 32.
    r = results("many_heads.one_head_or_many")
    assert r.number("parameters_1") == r.number("parameters_2") == r.number("parameters_4") \
        == r.number("parameters_8")


def test_steps_to_95_are_evaluation_steps_or_never(results):
    # Accuracy is evaluated every 40 steps of 400; a seed that never reaches 95 % gets 440.
    r = results("many_heads.one_head_or_many")
    for heads in (1, 2, 4, 8):
        assert set(r.per_seed(f"steps_to_95_{heads}_mean")) <= set(range(0, 441, 40)), heads


def test_the_seed_counts_are_the_per_seed_comparisons_they_describe(results):
    r = results("many_heads.one_head_or_many")
    one, two = r.per_seed("steps_to_95_1_mean"), r.per_seed("steps_to_95_2_mean")
    assert r.per_seed("single_slower_seeds") == [float(a > b) for a, b in zip(one, two)]
    # The snippet compares float32 tensors: so does the test.
    one, two = np.float32(r.per_seed("accuracy_1_mean")), np.float32(r.per_seed("accuracy_2_mean"))
    assert r.per_seed("single_worse_seeds") == (one < two - np.float32(0.01)).astype(float).tolist()
    previous = np.float32(r.per_seed("single_previous_mean"))
    first = np.float32(r.per_seed("single_first_mean"))
    assert r.per_seed("single_averages_seeds") == ((previous >= 0.3) & (first >= 0.3)).astype(float).tolist()


def test_attention_scores_are_shares_of_one_row(results):
    # A query's weights on the previous and on the first position are two parts of one
    # softmax row (position 1's previous IS the first, so they may overlap by one position
    # in ten): their sum stays below 1 + 1/9.
    r = results("many_heads.one_head_or_many")
    for previous, first in zip(r.per_seed("single_previous_mean"), r.per_seed("single_first_mean")):
        assert 0 <= previous <= 1 and 0 <= first <= 1 and previous + first <= 1 + 1 / 9 + 1e-6


def test_exercise_answers_remove_one_head_of_two(results):
    # Removing a head can only be scored on the same test set: accuracies are shares.
    r = results("many_heads.one_head_or_many")
    assert 0 <= r.number("exercise_pair_without_far_head_mean") <= 1
    assert 0 <= r.number("exercise_pair_without_near_head_mean") <= 1


# --- C08's control and planted single head (explainer/token_knockout.py) -------------------
