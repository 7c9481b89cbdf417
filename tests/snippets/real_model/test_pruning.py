"""Pruning MiniLM by the project's yardstick (C13): importance = score drop when a head alone
is removed (ranking topics); heads removed together, least important first; prunable share =
most heads removed while the paraphrase score on the judging topics stays >= 95 % of full.
The verdict is the rule's (docs/claims.yml); these tests check the pruning curve's bookkeeping."""

import pytest


def test_the_full_model_puts_paraphrases_clearly_first(results):
    r = results("real_model.pruning")
    # the paraphrase scores well above the closer distractor
    assert r.number("full_margin") > 0.2


def test_the_prunable_share_agrees_with_the_pruning_curve(results):
    r = results("real_model.pruning")
    heads = r.number("prunable_heads")
    share = r.number("prunable_share")
    assert 0 <= heads <= 72 and share * 72 == pytest.approx(heads)
    assert 0 <= r.number("prunable_heads_random") <= 72
    # Every checked point up to the prunable count keeps 95 % of the full score: a point of
    # the curve below 95 % bounds the count. A quarter, half and all heads are checked points.
    for removed, key in ((18, "margin_quarter_share"), (36, "margin_half_share"),
                         (72, "margin_all_removed_share")):
        assert r.number(key) >= 0.95 or heads < removed, key
    assert r.number("margin_half_share_random") >= 0.95 or r.number("prunable_heads_random") < 36


def test_removing_heads_least_important_first_costs_less_than_in_a_random_order(results):
    r = results("real_model.pruning")
    # half of the heads removed: the importance order keeps more of the full score
    assert r.number("margin_half_share") > r.number("margin_half_share_random")


def test_without_any_head_the_paraphrase_score_falls_far(results):
    r = results("real_model.pruning")
    assert r.number("margin_all_removed_share") < 0.95


def test_the_ranking_topics_are_quadruples_of_distinct_sentences_apart_from_the_judging_ones():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "snippets"))
    from explainer.paraphrase_topics import TOPICS
    from explainer.sample_sentences import SENTENCE_PAIRS

    assert len(TOPICS) >= 6
    assert all(len(topic) == 4 and len(set(topic)) == 4 for topic in TOPICS)
    judging = {s for pair in SENTENCE_PAIRS for s in pair}
    assert not {s for topic in TOPICS for s in topic} & judging


def test_exercise_answers(results):
    r = results("real_model.pruning")
    # 1: a looser yardstick lets at least as many heads go (checked head by head).
    assert r.number("exercise_prunable_heads_at_90") >= r.number("prunable_heads")
    # 2: the order matters: the most important quarter costs more than the least important one.
    assert r.number("exercise_quarter_most_important_removed_share") < r.number("margin_quarter_share")
