"""Keys, queries and values in MiniLM (3), C20: how much of Q, K and V is which word.
The computations behind the numbers; the verdict is the rule's (docs/claims.yml)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))
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
    assert results("real_model.keys_queries.word_identity").number("nouns_found") == 1.0


def test_the_v_most_specific_count_agrees_with_its_layers(results):
    r = results("real_model.keys_queries.word_identity")
    heads, v_most = r.number("n_heads"), r.number("v_most_specific_heads")
    assert v_most == sum(r.number(f"v_most_specific_heads_layer{layer}") for layer in range(1, 7))
    assert v_most + r.number("q_or_k_most_specific_heads") == heads
    lowest = r.number("identity_min")
    assert all(lowest <= r.number(f"identity_{name}_median") for name in "qkv")


def test_v_is_the_most_word_specific_of_q_k_v_at_the_median(results):
    r = results("real_model.keys_queries.word_identity")
    assert r.number("identity_v_median") > max(r.number("identity_q_median"),
                                               r.number("identity_k_median"))


def test_exercise_answer_shuffled_nouns_predict_nothing(results):
    r = results("real_model.keys_queries.word_identity")
    # 2: with the nouns shuffled, "the same word" predicts nothing: R² at or below 0,
    #    far below the real V's.
    assert r.number("exercise_identity_v_shuffled_median") < 0.05 < r.number("identity_v_median")
