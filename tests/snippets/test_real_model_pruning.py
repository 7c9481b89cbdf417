"""Pruning MiniLM: a large share of heads can go, if they are the right ones."""


def test_the_full_model_ranks_every_paraphrase_first(results):
    r = results("real_model_pruning")
    assert r.number("full_paraphrase_first") == 1.0
    assert r.number("full_mean_paraphrase") > r.number("full_mean_unrelated") + 0.4  # 0.74 vs 0.01


def test_a_third_of_the_heads_can_go_in_importance_order(results):
    r = results("real_model_pruning")
    # 27 of 72 heads (38%) keep Spearman >= 0.9 and every pair within 0.1
    assert r.number("prunable_heads") >= 72 / 3  # the page says "about a third"
    assert r.verdict("C13") == "verified"


def test_the_order_matters_random_pruning_breaks_sooner(results):
    r = results("real_model_pruning")
    # random order: 9 heads
    assert r.number("prunable_heads_random") < r.number("prunable_heads")


def test_without_any_attention_single_similarities_move_a_lot(results):
    r = results("real_model_pruning")
    # all 72 heads removed: ranking still 0.88 (easy pairs) but one pair moves by 0.65
    assert r.number("worst_all_removed") > 0.3
    assert r.number("rho_all_removed") < 1.0
