"""C22 in MiniLM: a head that links a verb to its object across another noun, on two sentence
sets. The per-set test (explainer/noun_between_heads.py) on small hand-made attention with a
known answer; the recorded counts nest as their definitions say, whatever the outcome; the
verdict is the rule's."""

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))
from explainer.noun_between_heads import c22_test, planted_detection, position_rules, preferences  # noqa: E402

HEAD_DIRECTIONS = 2 * 72       # each head read from the verb and from the object
POSITION_RULES = 6             # the position-only rules the snippet tries at least

# [CLS] the man met the bus driver with a hat . [SEP]: verb 3, between 5 (bus), object 6
TOKENS = ["[CLS]", "the", "man", "met", "the", "bus", "driver", "with", "a", "hat", ".", "[SEP]"]
VERB, BETWEEN, OBJECT, HAT = 3, 5, 6, 9


def hand_made(n: int) -> list[torch.Tensor]:
    """n sentences, one layer, two heads. Head 0: the verb attends to the object, the object
    and the intervening noun to the verb and the hat respectively; head 1: uniform."""
    out = []
    for _ in range(n):
        a = torch.full((1, 2, 12, 12), 1 / 12)
        a[0, 0] = 0.01
        a[0, 0, :, 0] = 1 - 0.01 * 11          # every other row on [CLS]
        a[0, 0, VERB] = 0.01
        a[0, 0, VERB, OBJECT] = 0.89
        a[0, 0, OBJECT] = 0.01
        a[0, 0, OBJECT, VERB] = 0.89
        a[0, 0, BETWEEN] = 0.01
        a[0, 0, BETWEEN, HAT] = 0.89
        out.append(a)
    return out


def run(n: int, **kw):
    return c22_test(hand_made(n), [TOKENS] * n, [VERB] * n, [OBJECT] * n, [[BETWEEN]] * n, n_draws=500, **kw)


def test_a_head_that_links_verb_and_object_passes_both_directions_and_the_uniform_one_does_not():
    r = run(20)
    # head-directions: 0 = verb → object head 0, 1 = head 1; 2 = object → verb head 0, 3 = head 1
    assert r["pick"][[0, 2]].tolist() == [1.0, 1.0]
    assert r["prefer_share"].tolist() == [1.0, 0.0, 1.0, 0.0]        # uniform: ties, sign 0
    assert r["between_verb"].tolist() == [0.0, 0.0, 0.0, 0.0]        # from bus head 0 picks hat
    assert r["prefer_p"][0] < 0.05 and r["prefer_p"][2] < 0.05
    assert r["passes"].tolist() == [True, False, True, False]
    # right every time, many sentences: the Wilson interval starts past the bar: clear
    assert r["pick_low"][0] == pytest.approx(0.8389, abs=1e-4)
    assert r["clear"].tolist() == [True, False, True, False]
    assert r["beats_half"].tolist() == [True, False, True, False]
    assert r["best"] in (0, 2)


def test_eight_sentences_may_pass_but_not_clearly():
    r = run(8)        # right every time, few sentences: the interval starts below the bar
    assert r["passes"][0] and not r["clear"][0] and r["possible"][0]


def test_the_preference_counts_the_stronger_of_two_intervening_nouns():
    a = hand_made(1)
    a[0][0, 0, VERB, HAT] = 0.95                 # the verb now attends more to the second one
    prefer = preferences(a, [VERB], [OBJECT], [[BETWEEN, HAT]])
    assert prefer[0, 0] == -1
    assert preferences(a, [VERB], [OBJECT], [[BETWEEN]])[0, 0] == 1


def test_a_planted_head_at_three_quarters_is_found_and_at_a_quarter_is_not():
    n = 20
    attention = hand_made(n)
    prefer = preferences(attention, [VERB] * n, [OBJECT] * n, [[BETWEEN]] * n)
    args = (attention, [VERB] * n, [OBJECT] * n, [[BETWEEN]] * n, prefer, 1)   # plant the uniform head
    assert planted_detection(*args, share=0.75, draws=20, n_draws=500) == 1.0
    assert planted_detection(*args, share=0.25, draws=20, n_draws=500) == 0.0


def test_position_rules_on_two_hand_made_sentences():
    # sentence 1: subject 1, verb 2, between 4, object 5, artefact 8; sentence 2: verb 2, object 4
    rules = position_rules([2, 2], [5, 4], [[1, 4, 5, 8], [1, 4, 6]], [[2, 3], [2]])
    assert rules["verb_object_next_noun"] == 0.5          # right only in sentence 2
    assert rules["verb_object_nearest_noun"] == 0.0       # the subject, one token away
    assert rules["verb_object_second_noun"] == 0.5        # right only in sentence 1
    assert rules["verb_object_last_noun"] == 0.0
    assert rules["verb_object_fixed_offset"] == 0.5       # offsets 3 and 2
    assert rules["object_verb_nearest_verb_left"] == 0.5  # sentence 1: the clause verb at 3


def test_c22_clear_passing_possible_heads_nest_and_intervals_hold_their_shares(results):
    r = results("real_model.head_roles.noun_between")
    for prefix in ("c22_", "c22_people_"):
        # clear (whole interval past each threshold) ⊆ passes (the shares past them) ⊆ possible
        assert (0 <= r.number(f"{prefix}clear_heads") <= r.number(f"{prefix}heads")
                <= r.number(f"{prefix}possible_heads") <= HEAD_DIRECTIONS)
        assert r.number(f"{prefix}best_pick_low") <= r.number(f"{prefix}best_pick") <= 1
        assert r.number(f"{prefix}best_prefer_low") <= r.number(f"{prefix}best_prefer") <= 1
        rules = [r.number(k) for k in r.data["numbers"]
                 if k.startswith(f"{prefix}rule_") and (prefix == "c22_people_" or "people" not in k)]
        assert len(rules) >= POSITION_RULES and max(rules) == pytest.approx(r.number(f"{prefix}position_rule_max"))
        assert 0 <= r.number(f"{prefix}planted_detection_share") <= 1
    # the same head-direction on both sets: no more than on either
    assert r.number("c22_both_clear_heads") <= min(r.number("c22_clear_heads"), r.number("c22_people_clear_heads"))
    assert r.number("c22_both_clear_heads") <= r.number("c22_both_possible_heads")
    assert r.number("c22_planted_detection_min") == min(r.number("c22_planted_detection_share"),
                                                        r.number("c22_people_planted_detection_share"))


def test_the_decision_on_every_sentence_is_c22_test_and_a_repeated_sentence_counts_twice():
    from explainer.noun_between_heads import c22_decision, top_picks
    attention = hand_made(6)
    attention[5][0, 0, VERB] = 1 / 12                                 # sentence 5: head 0 uniform from the verb
    args = (attention, [TOKENS] * 6, [VERB] * 6, [OBJECT] * 6, [[BETWEEN]] * 6)
    whole = c22_test(*args, n_draws=500)
    hit = {name: top == targets[:, None] for name, (top, targets, _) in top_picks(*args).items()}
    prefer = preferences(*args[:1], *args[2:])
    again = c22_decision(hit, prefer, np.arange(6), n_draws=500)
    for key in ("pick", "prefer_share", "prefer_p", "passes", "clear", "possible", "beats_half"):
        assert (again[key] == whole[key]).all(), key
    twice = c22_decision(hit, prefer, np.array([5, 5, 0, 1]), n_draws=500)
    assert twice["n"] == 4 and twice["pick"][0] == 0.5              # sentence 5 (a miss) drawn twice
    assert twice["prefer_share"][0] == 0.5
