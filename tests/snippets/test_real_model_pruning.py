"""Pruning MiniLM by the project's yardstick (C13): importance = score drop when a head alone
is removed (ranking topics); heads removed together, least important first; prunable share =
most heads removed while the paraphrase score on the judging topics stays >= 95 % of full.
Measured values in the comments."""


def test_the_full_model_puts_paraphrases_clearly_first(results):
    r = results("real_model_pruning")
    assert r.number("full_margin") > 0.2  # 0.49: paraphrase 0.49 above the closer distractor


def test_only_a_small_share_of_heads_goes_before_the_score_drops_below_95_percent(results):
    r = results("real_model_pruning")
    # 2 of 72 heads (3 %); random order 0
    assert r.number("prunable_share") < 0.10


def test_removing_heads_least_important_first_costs_less_than_in_a_random_order(results):
    r = results("real_model_pruning")
    # half of the heads removed: 84 % of the full score in importance order, 68 % at random
    assert r.number("margin_half_share") > r.number("margin_half_share_random")


def test_without_any_head_the_paraphrase_score_falls_far(results):
    r = results("real_model_pruning")
    assert r.number("margin_all_removed_share") < 0.95  # 30 %


def test_the_ranking_topics_are_quadruples_of_distinct_sentences_apart_from_the_judging_ones():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))
    from explainer.paraphrase_topics import TOPICS
    from explainer.sample_sentences import SENTENCE_PAIRS

    assert len(TOPICS) >= 6
    assert all(len(topic) == 4 and len(set(topic)) == 4 for topic in TOPICS)
    judging = {s for pair in SENTENCE_PAIRS for s in pair}
    assert not {s for topic in TOPICS for s in topic} & judging
