"""The ant colony, where the verb looks (C16): the computations behind the numbers; the verdict is
the rule's (docs/claims.yml)."""

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
    assert abs(r.number("exercise_reversed_accuracy_mean") - r.number("accuracy_mean")) < 1e-9


def test_exercise_answers_are_accuracies(results):
    # Exercise 1 (attention frozen to an even spread) is scored like the trained colonies.
    assert 0 <= results("three_roles.ant_colony.verb_and_object").number("exercise_even_attention_accuracy_mean") <= 1


def test_spread_gives_each_number_its_value_description_and_per_colony_values():
    values = np.array([0.5, 1.0, 0.25], dtype=np.float32)
    s = spread(values, en="a share", zh="一个比例")
    assert (s["mean"]["value"], s["min"]["value"], s["max"]["value"]) == (pytest.approx(0.5833333), 0.25, 1.0)
    assert s["min"]["of"] == "min" and list(s["max"]["per_seed"]) == [0.5, 1.0, 0.25]
    assert s["mean"]["en"] == "a share (mean over seeds)" and s["max"]["zh"] == "一个比例（最高的种子）"
