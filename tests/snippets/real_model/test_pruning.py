"""Pruning MiniLM by the project's yardstick (C37, the replication of C13): importance = score
drop when a head alone is removed (on one half of the items); heads removed together, least
important first; prunable share = most heads removed while the paraphrase score on the other
half stays >= 95 % of full, both ways round. The verdict is the rule's (docs/claims.yml); these
tests check the items, the split into halves and the pruning curve's bookkeeping."""

import statistics

import pytest

HEADS = 72  # MiniLM: 6 layers x 12 heads


def test_the_full_model_puts_paraphrases_clearly_first(results):
    r = results("real_model.pruning")
    # the paraphrase scores well above the closer distractor
    assert r.number("full_margin") > 0.2


def test_the_prunable_share_agrees_with_the_pruning_curve_and_the_two_halves(results):
    r = results("real_model.pruning")
    a, b = r.number("prunable_heads_half_a"), r.number("prunable_heads_half_b")
    assert 0 <= a <= 72 and 0 <= b <= 72
    assert r.number("prunable_share_half_a") * HEADS == pytest.approx(a)
    assert r.number("prunable_share_half_b") * HEADS == pytest.approx(b)
    assert r.number("prunable_share") == pytest.approx(statistics.mean([a, b]) / HEADS)
    assert r.number("split_half_difference") == pytest.approx(abs(a - b) / 72)
    assert r.number("n_items") == r.number("n_half_items") + r.number("n_half_items")
    assert 0 <= r.number("prunable_heads_random") <= 72
    # Every checked point up to the prunable count keeps 95 % of the full score on half B: a
    # point of the curve below 95 % bounds the count. A quarter, half and all heads are checked.
    for removed, key in ((18, "margin_quarter_share"), (36, "margin_half_share"),
                         (72, "margin_all_removed_share")):
        assert r.number(key) >= 0.95 or b < removed, key
    assert r.number("margin_half_share_random") >= 0.95 or r.number("prunable_heads_random") < 36
    assert -1 <= r.number("importance_rank_correlation") <= 1


def test_removing_heads_least_important_first_costs_less_than_in_a_random_order(results):
    r = results("real_model.pruning")
    # half of the heads removed: the importance order keeps more of the full score
    assert r.number("margin_half_share") > r.number("margin_half_share_random")


def test_without_any_head_the_paraphrase_score_falls_far(results):
    r = results("real_model.pruning")
    assert r.number("margin_all_removed_share") < 0.95


def _items():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "snippets"))
    from explainer import paraphrase_topics
    return paraphrase_topics


def test_the_items_are_quadruples_of_distinct_sentences_and_the_halves_share_none():
    topics = _items()
    items = topics.ITEMS
    assert len(items) == len(topics.SUBJECTS) * len(topics.EVENTS)
    assert all(len(item) == 4 and len(set(item)) == 4 for item in items)
    assert len({item[0] for item in items}) == len(items)          # one item per anchor
    half = len(items) // 2
    sentences = [{s for item in part for s in item} for part in (items[:half], items[half:])]
    assert not sentences[0] & sentences[1]
    # A set of items needs only its anchors and paraphrases: the related and unrelated
    # sentences are anchors of the same half, with another subject.
    anchors = {item[0] for item in items[:half]}
    for anchor, _, related, unrelated in items[:half]:
        assert related in anchors and unrelated in anchors
        assert related.split()[:2] != anchor.split()[:2] != unrelated.split()[:2]


def test_a_related_sentence_takes_the_paired_event():
    topics = _items()
    # Known answer: subject 0 with event 0 ("bought a new car.") borrows event 1 from subject 1.
    anchor, paraphrase, related, unrelated = topics.ITEMS[0]
    assert anchor == "The doctor bought a new car."
    assert paraphrase == "The physician purchased a new vehicle."
    assert related == "My neighbour sold an old bike."
    assert unrelated == "The teacher " + topics.EVENTS[6][0]


def test_exercise_answers(results):
    r = results("real_model.pruning")
    # 1: a looser yardstick lets at least as many heads go (checked head by head).
    assert r.number("exercise_prunable_heads_at_90") >= r.number("prunable_heads_half_b")
    # 2: the order matters: the most important quarter costs more than the least important one.
    assert r.number("exercise_quarter_most_important_removed_share") < r.number("margin_quarter_share")
