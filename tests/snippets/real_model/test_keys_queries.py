"""Keys, queries and values in MiniLM: what each carries (C18, C20, C28).

The verdicts are the rules' (docs/claims.yml); these tests check the word lists and that the
counts, medians and AUCs behind the verdicts are computed consistently, whatever the outcome."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "snippets"))
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
    assert results("real_model.keys_queries").number("nouns_found") == 1.0


def test_the_keys_wider_count_agrees_with_its_layers_and_its_median(results):
    r = results("real_model.keys_queries")
    heads, wider = r.number("n_heads"), r.number("keys_wider_heads")
    assert heads == 6 * 12
    assert wider == sum(r.number(f"keys_wider_heads_layer{layer}") for layer in range(1, 7))
    assert 0 <= wider <= heads
    median = r.number("pr_ratio_median")
    assert 0 < r.number("pr_ratio_min") <= median <= r.number("pr_ratio_max")
    # a median ratio below 1 leaves at least half the heads with ratio below 1, above 1
    # at least half above it
    assert median >= 1 or wider <= heads / 2
    assert median <= 1 or wider >= heads / 2


def test_the_v_most_specific_count_agrees_with_its_layers(results):
    r = results("real_model.keys_queries")
    heads, v_most = r.number("n_heads"), r.number("v_most_specific_heads")
    assert v_most == sum(r.number(f"v_most_specific_heads_layer{layer}") for layer in range(1, 7))
    assert v_most + r.number("q_or_k_most_specific_heads") == heads
    lowest = r.number("identity_min")
    assert all(lowest <= r.number(f"identity_{name}_median") for name in "qkv")


def test_v_is_the_most_word_specific_of_q_k_v_at_the_median(results):
    r = results("real_model.keys_queries")
    assert r.number("identity_v_median") > max(r.number("identity_q_median"),
                                               r.number("identity_k_median"))


def test_the_best_aucs_are_the_largest_and_beyond_chance_means_above_the_null(results):
    r = results("real_model.keys_queries")
    spaces = r.number("n_spaces")
    assert spaces == 2 * 72  # every head's query space and key space
    for tag in ("coordinate", "direction"):
        best, beyond = r.number(f"{tag}_auc_best"), r.number(f"{tag}_heads_beyond_chance")
        assert r.number(f"{tag}_auc_median") <= best <= 1
        assert 0 <= beyond <= spaces
        # some space beats the null exactly when the best one does
        assert (beyond >= 1) == (best > r.number(f"{tag}_null_p95")), tag
    coordinate_best = r.number("coordinate_auc_best")
    assert r.number("coordinate_auc_in_best_direction_space") <= coordinate_best


def test_in_almost_every_head_a_direction_separates_food_better_than_any_single_coordinate(results):
    r = results("real_model.keys_queries")
    assert r.number("direction_wins_spaces") >= 0.9 * r.number("n_spaces")
    assert r.number("direction_auc_median") > r.number("coordinate_auc_median")
    # "some of them": a coordinate comes within 0.05 AUC of the direction in a few spaces
    near = r.number("coordinate_near_direction_spaces")
    assert 1 <= near < 0.5 * r.number("n_spaces")
    # where the direction does not win, the coordinate is at least as good: those spaces count
    assert near >= r.number("n_spaces") - r.number("direction_wins_spaces")


def test_exercise_answers(results):
    r = results("real_model.keys_queries")
    # 1: a round cloud of thousands of 32-dimensional vectors spans nearly all 32 directions
    #    (sampling shrinks it a little): far more than the heads' keys or queries.
    round_cloud = r.number("exercise_pr_round_cloud")
    assert 28 < round_cloud <= 32
    assert round_cloud > 2 * max(r.number("pr_keys_median"), r.number("pr_queries_median"))
    # 2: with the nouns shuffled, "the same word" predicts nothing: R² at or below 0,
    #    far below the real V's.
    assert r.number("exercise_identity_v_shuffled_median") < 0.05 < r.number("identity_v_median")


def test_exercise_answers_of_the_edible_page(results):
    r = results("real_model.keys_queries")
    # 1: choosing the best of 32 coordinates and scoring it on the same words flatters it.
    assert r.number("exercise_coordinate_auc_in_sample_median") > r.number("coordinate_auc_median")
    # 2: a discriminant in 32 dimensions fitted on 80 words (40 per class) overfits without shrinkage.
    assert r.number("exercise_direction_auc_median_no_shrinkage") < r.number("direction_auc_median")


def test_the_sense_probe_numbers_are_shares_of_the_sentences_and_layer_1_is_blind(results):
    r = results("real_model.keys_queries")
    n = 2 * r.number("sense_words") * r.number("sense_frames")          # sentences
    for key in ("sense_best_accuracy", "sense_layer1_best", "sense_best_k_accuracy",
                "sense_k_best_accuracy"):
        share = r.number(key)
        assert 0 <= share <= 1 and abs(share * n - round(share * n)) < 1e-6, key
    # (that the context-free layer-1 value gives exactly one half is the probe's own test,
    # tests/snippets/real_model/test_centroid_probe.py; the rule reads that number)
    # the best head is the best of layers 2-6
    assert 2 <= r.number("sense_best_layer") <= 6 and 1 <= r.number("sense_best_head") <= 12
    assert r.number("sense_best_low") <= r.number("sense_best_high")
    assert r.number("sense_v_median_accuracy") <= r.number("sense_best_accuracy")
    assert r.number("sense_k_best_accuracy") >= r.number("sense_best_k_accuracy")
    assert 0 <= r.number("sense_heads_passing") <= 60
