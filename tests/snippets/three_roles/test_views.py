"""Three views of one token (C18): what the page claims, asserted on the snippet's run."""

import pytest


@pytest.mark.parametrize("view", ["tool", "agent", "manner"])
def test_each_query_view_of_drive_lands_on_its_own_word(results, view):
    r = results("three_roles.views")
    # Intended words: 汽车 (tool), 司机 (agent), 快 + 稳 (manner). A view "lands" if its
    # intended word(s) get the majority and every other word gets under a tenth of that.
    on_target = r.number(f"{view}_weight_on_target")
    assert on_target > 0.5
    assert r.number(f"{view}_largest_other") < on_target / 10


def test_manner_view_splits_between_fast_and_steady(results):
    r = results("three_roles.views")
    # Both cards fill the same "manner" field, so the view cannot prefer one: an even split.
    assert r.number("manner_weight_fast") == pytest.approx(r.number("manner_weight_steady"))
    assert r.number("manner_weight_fast") > 0.3


def test_each_view_fetches_the_book_of_its_word(results):
    r = results("three_roles.views")
    # The value is the book: each view's output points the way of its word's value.
    for view in ("tool", "agent", "manner"):
        assert r.number(f"{view}_output_cosine_to_target_value") > 0.95


def test_cards_list_more_fields_than_questions_ask(results):
    r = results("three_roles.views")
    # A content word's card lists several fields; a question asks for exactly one.
    assert r.number("key_fields_per_card") > 1.5
    assert r.number("query_fields_per_view") == pytest.approx(1.0)


def test_one_field_keys_per_head_give_the_same_attention(results):
    r = results("three_roles.views")
    # The rest of a card is invisible to a one-field question: same rows, to rounding.
    assert r.number("per_head_keys_difference") < 1e-12


def test_exercise_answers(results):
    r = results("three_roles.views")
    # 1: a softer question spreads the row: less on 汽车, still more than an even share
    #    of the eleven words.
    assert 1 / 11 < r.number("exercise_soft_ask_tool_weight") < r.number("tool_weight_on_target")
    # 2: asking about "moves" too sharpens the tool view: only the car's card fills both
    #    fields, the driver's fills one.
    assert r.number("exercise_tool_and_moves_weight_car") > r.number("tool_weight_on_target")
    assert r.number("exercise_tool_and_moves_weight_driver") < 0.1
