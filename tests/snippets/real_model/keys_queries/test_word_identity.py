"""Keys, queries and values in MiniLM (3), C20: how much of Q, K and V is which word.
The computations behind the numbers; the verdict is the rule's (docs/claims.yml)."""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))
from explainer.noun_identity import identity_r2  # noqa: E402
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


def _identity_r2_frame_by_frame(vectors):
    """The page's computation (word_identity.py, identity_readback), one frame at a time."""
    n, F = vectors.shape[:2]
    error_word, error_mean = 0, 0
    for frame in range(F):
        others = torch.cat([vectors[:, :frame], vectors[:, frame + 1:]], dim=1)
        prototypes = others.mean(dim=1)
        held_out = vectors[:, frame]
        error_word = error_word + ((held_out - prototypes) ** 2).sum(dim=(0, 2))
        error_mean = error_mean + ((held_out - prototypes.mean(dim=0)) ** 2).sum(dim=(0, 2))
    return 1 - error_word / error_mean


def test_identity_r2_of_the_nouns_as_they_are_is_the_pages_frame_by_frame_r2():
    vectors = torch.randn(2, 7, 4, 3, 5, dtype=torch.float64) + 10      # (L, n, F, nh, hs)
    ones = identity_r2(vectors, np.ones((1, 7)))[0]                      # (L, nh)
    for layer in range(2):
        assert torch.allclose(ones[layer], _identity_r2_frame_by_frame(vectors[layer]))


def test_identity_r2_of_a_resampling_is_that_of_the_repeated_nouns():
    vectors = torch.randn(1, 5, 3, 2, 4, dtype=torch.float64)
    items = np.array([0, 0, 3, 4, 4, 4])
    counts = np.bincount(items, minlength=5)[None]
    assert torch.allclose(identity_r2(vectors, counts)[0, 0], _identity_r2_frame_by_frame(vectors[0, items]))


def test_identity_r2_is_one_when_the_word_fixes_the_vector():
    word = torch.randn(1, 6, 1, 2, 3).expand(1, 6, 4, 2, 3)              # the same vector in every frame
    assert torch.allclose(identity_r2(word, np.ones((1, 6))), torch.ones(1, 1, 2, dtype=torch.float64))
