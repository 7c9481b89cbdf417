"""The ant colony, where the verb looks (C16): the computations behind the numbers; the verdict is
the rule's (docs/claims.yml)."""

import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "snippets"))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from explainer.ant_colony_toy import spread  # noqa: E402


def test_the_stacked_model_is_the_colony_model_colony_by_colony(results):
    assert results("three_roles.ant_colony.verb_and_object").number("stacked_vs_module_error") < 1e-5


def test_the_seed_count_applies_the_bar_set_before_the_run(results):
    r = results("three_roles.ant_colony.verb_and_object")
    share = np.float32(r.per_seed("object_first_mean"))
    bar = np.float32(r.number("object_first_bar"))
    assert r.per_seed("object_first_seeds") == (share >= bar).astype(float).tolist()


def test_shares_and_weights_lie_between_zero_and_one(results):
    r = results("three_roles.ant_colony.verb_and_object")
    for key in ("object_first_mean", "object_first_start_mean", "attention_on_object_mean", "accuracy_mean"):
        assert all(-1e-6 <= v <= 1 + 1e-6 for v in r.per_seed(key)), key
    assert r.number("uniform_weight") == 0.2


def test_without_positions_reversing_the_words_changes_nothing(results):
    # Exercise 2: attention without position embeddings is a sum over the words, so
    # reversing them reorders its terms: the logits move by rounding, the answers not at all.
    r = results("three_roles.ant_colony.verb_and_object")
    assert r.number("exercise_reversed_largest_logit_change") < 1e-4
    assert math.isclose(r.number("exercise_reversed_accuracy_mean"), r.number("accuracy_mean"))   # equal but for rounding


def test_exercise_answers_are_accuracies(results):
    # Exercise 1 (attention frozen to an even spread) is scored like the trained colonies.
    assert 0 <= results("three_roles.ant_colony.verb_and_object").number("exercise_even_attention_accuracy_mean") <= 1


def test_spread_gives_each_number_its_value_and_per_colony_values():
    # What each number is lives in the snippet's strings file, not in spread's dicts.
    values = np.array([0.5, 1.0, 0.25], dtype=np.float32)
    s = spread(values)
    assert (s["mean"]["value"], s["min"]["value"], s["max"]["value"]) == (pytest.approx(0.5833333), 0.25, 1.0)
    assert s["min"]["of"] == "min" and list(s["max"]["per_seed"]) == [0.5, 1.0, 0.25]
    assert all(set(s[of]) == {"value", "per_seed", "of"} for of in ("mean", "min", "max"))


def test_the_least_verified_world_makes_the_highest_starts_learn_ties_to_the_lower_seed():
    from explainer.least_verified import least_verified_gains
    # n = 4: ⌈3⌉ = 3 learners, the highest starts 0.6 (seed 2), then 0.5 (seeds 0 and 3).
    gains = least_verified_gains([0.5, 0.4, 0.6, 0.5])
    assert np.allclose(gains, [0.45, -0.4, 0.35, 0.45])
    # n = 5, all tied: ⌈3.75⌉ = 4 learners, seeds 0–3; seed 4 (the highest index) does not learn.
    assert np.allclose(least_verified_gains([0.5] * 5), [0.45] * 4 + [-0.5])


def test_the_detection_share_counts_redraws_whose_upper_end_reaches_the_bar():
    from explainer.least_verified import detection_share
    # Equal gains: every redraw has no spread, so its upper end is the gain itself.
    assert detection_share([0.2] * 6, 0.10, 200, np.random.default_rng(0)) == 1.0
    assert detection_share([0.05] * 6, 0.10, 200, np.random.default_rng(0)) == 0.0
    # Two colonies, one learner (+0.45) and one not (−0.5): a redraw of two non-learners
    # (chance 1/4) has upper end −0.5; any other has an infinite or a wide interval above 0.10.
    share = detection_share([0.45, -0.5], 0.10, 4000, np.random.default_rng(1))
    assert abs(share - 0.75) < 0.03


def test_the_gain_is_the_share_after_training_minus_at_step_0(results):
    r = results("three_roles.ant_colony.verb_and_object")
    gain = np.array(r.per_seed("object_over_distractor_gain_mean"))
    end, start = np.array(r.per_seed("object_over_distractor_mean")), np.array(r.per_seed("object_over_distractor_start_mean"))
    assert np.allclose(gain, end - start)
    assert r.per_seed("object_over_distractor_gain_ci95_high") == r.per_seed("object_over_distractor_gain_mean")
    assert 0 <= r.number("c16_planted_detection_share") <= 1
