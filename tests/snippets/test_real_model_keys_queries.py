"""Keys, queries and values in MiniLM: what each carries (C18, C20, C28).

Thresholds come from the registry's rules (docs/claims.yml); the measured values are in
the comments (672 sentences, 5727 tokens, 72 heads, 100 nouns in 6 frames)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))
from explainer.minilm import Tokenizer  # noqa: E402
from explainer.noun_classes import FOOD_NOUNS, FRAMES, OTHER_NOUNS, framed_sentences  # noqa: E402


def test_the_noun_classes_are_two_disjoint_lists_of_at_least_30_single_token_nouns():
    assert len(FOOD_NOUNS) >= 30 and len(OTHER_NOUNS) >= 30
    assert len(set(FOOD_NOUNS)) == len(FOOD_NOUNS) and len(set(OTHER_NOUNS)) == len(OTHER_NOUNS)
    assert not set(FOOD_NOUNS) & set(OTHER_NOUNS)
    tokenizer = Tokenizer()
    for noun in FOOD_NOUNS + OTHER_NOUNS:
        assert tokenizer.tokens(noun) == ["[CLS]", noun, "[SEP]"], noun


def test_the_frames_are_neutral_and_hold_each_noun_once():
    words = {w.strip(".,").lower() for frame in FRAMES for w in frame.split()}
    assert not words & set(FOOD_NOUNS + OTHER_NOUNS)
    tokenizer = Tokenizer()
    for sentence, noun, _ in framed_sentences():
        assert tokenizer.tokens(sentence).count(noun) == 1, sentence


def test_every_framed_noun_was_measured(results):
    assert results("real_model_keys_queries").number("nouns_found") == 1.0


def test_keys_do_not_span_more_directions_than_queries_in_most_heads(results):
    r = results("real_model_keys_queries")
    # keys wider in 28 of 72 heads; median keys/queries ratio 0.92 (0.42 to 1.31)
    assert r.number("keys_wider_heads") <= 0.5 * r.number("n_heads")
    assert r.number("pr_ratio_median") < 1.5
    assert r.number("pr_ratio_median") < 1  # the page: "at the median, slightly fewer"


def test_v_is_the_most_word_specific_of_q_k_v_in_most_heads_but_not_three_quarters(results):
    r = results("real_model_keys_queries")
    # V above both Q and K in 52 of 72 heads; identity R² medians Q 0.86, K 0.85, V 0.94
    assert r.number("v_most_specific_heads") > r.number("n_heads") / 2   # the page: "most heads"
    assert r.number("v_most_specific_heads") < 0.75 * r.number("n_heads")
    assert r.number("identity_v_median") > max(r.number("identity_q_median"),
                                               r.number("identity_k_median"))


def test_a_single_coordinate_separates_food_nouns_beyond_chance_nearly_as_well_as_a_direction(results):
    r = results("real_model_keys_queries")
    # best coordinate AUC 0.97 (query, layer 2 head 3) vs best direction 1.00; chance 0.75
    assert r.number("coordinate_heads_beyond_chance") >= 1
    assert r.number("coordinate_auc_best") >= r.number("direction_auc_best") - 0.05


def test_in_almost_every_head_a_direction_separates_food_better_than_any_single_coordinate(results):
    r = results("real_model_keys_queries")
    # direction wins in 143 of 144 spaces; medians 0.97 vs 0.83
    assert r.number("direction_wins_spaces") >= 0.9 * r.number("n_spaces")
    assert r.number("direction_auc_median") > r.number("coordinate_auc_median")
    # a coordinate within 0.05 AUC of the direction in 21 of 144 spaces ("some of them")
    assert 1 <= r.number("coordinate_near_direction_spaces") < 0.5 * r.number("n_spaces")
