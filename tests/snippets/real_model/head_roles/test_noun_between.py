"""C22 in MiniLM: a head that links a verb to its object across another noun. The counts
nest as their definitions say, whatever the outcome; the verdict is the rule's."""

import pytest

HEAD_DIRECTIONS = 2 * 72       # each head read from the verb and from the object
POSITION_RULES = 6             # the position-only rules the snippet tries at least


def test_c22_clear_passing_possible_heads_nest_and_intervals_hold_their_shares(results):
    r = results("real_model.head_roles.noun_between")
    # clear (whole interval past each threshold) ⊆ passes (the shares past them) ⊆ possible
    assert 0 <= r.number("c22_clear_heads") <= r.number("c22_heads") <= r.number("c22_possible_heads") <= HEAD_DIRECTIONS
    assert r.number("c22_best_pick_low") <= r.number("c22_best_pick") <= 1
    assert r.number("c22_best_prefer_low") <= r.number("c22_best_prefer") <= 1
    rules = [r.number(k) for k in r.data["numbers"] if k.startswith("c22_rule_")]
    assert len(rules) >= POSITION_RULES and max(rules) == pytest.approx(r.number("c22_position_rule_max"))
