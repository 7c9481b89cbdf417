"""One coordinate where "eat" meets "apple"? (C28). The computations behind the verdict, on
small hand-made inputs: the word lists, the coordinate AUC, the shared-coordinate statistic,
the rotations that leave every q·k unchanged, and the share of the score advantage."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "snippets"))
from explainer.coordinates import (advantage_terms, coordinate_auc, coordinate_share,  # noqa: E402
                                   random_rotations, scaled_advantage, shared_coordinate)
from explainer.minilm import Tokenizer  # noqa: E402
from explainer.noun_classes import FOOD_NOUNS, OTHER_NOUNS  # noqa: E402
from explainer.verb_classes import EATING_VERBS, FRAMES, OBJECTS, OTHER_VERBS, verb_sentences  # noqa: E402


# --- the word lists ---------------------------------------------------------------------------

def test_the_verb_classes_are_two_disjoint_lists_of_at_least_15_verbs():
    assert len(EATING_VERBS) >= 15 and len(OTHER_VERBS) >= 15
    assert len(set(EATING_VERBS + OTHER_VERBS)) == len(EATING_VERBS) + len(OTHER_VERBS)


def test_every_verb_sentence_holds_the_verb_once_and_the_objects_are_no_test_noun():
    assert not set(OBJECTS) & set(FOOD_NOUNS + OTHER_NOUNS)
    tokenizer = Tokenizer()
    items = verb_sentences()
    assert len(items) == len(EATING_VERBS + OTHER_VERBS) * len(FRAMES) * len(OBJECTS)
    for sentence, verb, _, _ in items:
        tokens, pieces = tokenizer.tokens(sentence), tokenizer.tokens(verb)[1:-1]
        starts = [t for t in range(len(tokens)) if tokens[t:t + len(pieces)] == pieces]
        assert len(starts) == 1, sentence


def test_no_fixed_position_or_offset_finds_the_verb_or_its_object_in_most_sentences():
    tokenizer = Tokenizer()
    positions, offsets = [], []
    for sentence, verb, _, obj in verb_sentences():
        tokens = tokenizer.tokens(sentence)
        pieces = tokenizer.tokens(verb)[1:-1]
        start = next(t for t in range(len(tokens)) if tokens[t:t + len(pieces)] == pieces)
        positions.append(start)
        offsets.append(tokens.index(obj) - start)
    for values in (positions, offsets):
        assert max(np.unique(values, return_counts=True)[1]) <= len(values) / 2


# --- the coordinate statistic -------------------------------------------------------------------

def test_coordinate_auc_is_1_0_and_a_half_on_known_orders():
    X = np.array([[3.0, 0.0, 1.0], [4.0, 1.0, 0.0], [1.0, 2.0, 1.0], [2.0, 3.0, 0.0]])  # (n=4, d=3)
    positive = np.array([True, True, False, False])
    auc = coordinate_auc(X, positive)
    assert auc[0] == 1.0 and auc[1] == 0.0
    assert auc[2] == 0.25     # ties count as not larger: (1>1 no, 1>0 yes, 0>1 no, 0>0 no)


def planted(rng, d=32, n_q=40, n_k=60, direction=None, strength=3.0):
    """Queries and keys of one head, the classes apart along ``direction`` (a unit vector)."""
    direction = np.eye(d)[5] if direction is None else direction
    q_class, k_class = np.arange(n_q) < n_q // 2, np.arange(n_k) < n_k // 2
    queries = rng.standard_normal((1, n_q, d)) + strength * q_class[None, :, None] * direction
    keys = rng.standard_normal((1, n_k, d)) + strength * k_class[None, :, None] * direction
    return queries, keys, q_class, k_class


def test_the_statistic_finds_a_planted_coordinate_and_loses_it_after_a_rotation():
    rng = np.random.default_rng(0)
    queries, keys, q_class, k_class = planted(rng)
    statistic, coordinate = shared_coordinate(queries, keys, q_class, k_class)
    assert coordinate[0] == 5 and statistic[0] > 0.95
    R = random_rotations(1, 32, np.random.default_rng(1))
    rotated, _ = shared_coordinate(queries @ R, keys @ R, q_class, k_class)
    assert rotated[0] < statistic[0] - 0.1


def test_a_planted_direction_spread_over_all_coordinates_is_not_one_coordinate():
    rng = np.random.default_rng(0)
    spread = np.ones(32) / np.sqrt(32)
    queries, keys, q_class, k_class = planted(rng, direction=spread)
    statistic, _ = shared_coordinate(queries, keys, q_class, k_class)
    aligned, _ = shared_coordinate(*planted(np.random.default_rng(0)))
    assert statistic[0] < aligned[0] - 0.1


def test_the_statistic_needs_the_same_sign_on_both_sides():
    rng = np.random.default_rng(0)
    queries, keys, q_class, k_class = planted(rng)
    flipped_keys = keys.copy()
    flipped_keys[..., 5] *= -1                    # food high on the queries' side, low on the keys'
    statistic, _ = shared_coordinate(queries, flipped_keys, q_class, k_class)
    both_low, _ = shared_coordinate(-queries, flipped_keys, q_class, k_class)
    assert statistic[0] < 0.8 < both_low[0]


# --- rotations --------------------------------------------------------------------------------

def test_random_rotations_are_orthogonal_and_leave_every_score_unchanged():
    rng = np.random.default_rng(0)
    R = random_rotations(5, 32, rng)
    assert np.allclose(R @ R.transpose(0, 2, 1), np.eye(32), atol=1e-12)
    q, k = rng.standard_normal((5, 7, 32)), rng.standard_normal((5, 9, 32))
    before = np.einsum("hvd,hnd->hvn", q, k)
    after = np.einsum("hvd,hnd->hvn", q @ R, k @ R)
    assert np.abs(after - before).max() < 1e-10


def test_random_rotations_have_no_favourite_coordinate():
    # Haar: every entry has mean 0 and variance 1/d, and the draws differ
    R = random_rotations(5000, 8, np.random.default_rng(0))
    assert abs(R.mean()) < 0.01
    assert np.allclose((R ** 2).mean(axis=0), 1 / 8, atol=0.015)
    assert not np.allclose(R[0], R[1])


# --- the share of the advantage ---------------------------------------------------------------

def test_the_terms_sum_to_the_mean_score_advantage():
    rng = np.random.default_rng(0)
    query, keys = rng.standard_normal((3, 8)), rng.standard_normal((3, 10, 8))
    food = np.arange(10) < 4
    scores = np.einsum("hd,hnd->hn", query, keys)
    advantage = scores[:, food].mean(axis=1) - scores[:, ~food].mean(axis=1)
    assert np.allclose(advantage_terms(query, keys, food).sum(axis=1), advantage)


def test_the_share_is_1_when_only_coordinate_i_differs_between_the_classes():
    rng = np.random.default_rng(0)
    keys = np.tile(rng.standard_normal((1, 1, 8)), (1, 10, 1))       # every noun the same key
    food = np.arange(10) < 5
    keys[0, food, 2] += 1.5                                         # food differs on coordinate 2 only
    query = rng.standard_normal((1, 8))
    query[0, 2] = 2.0
    terms = advantage_terms(query, keys, food)
    assert coordinate_share(terms, np.array([2]))[0] == pytest.approx(1.0)
    assert coordinate_share(terms, np.array([3]))[0] == pytest.approx(0.0)


def test_the_share_is_0_when_there_is_no_advantage_to_carry():
    terms = np.array([[1.0, -2.0, 0.5]])                            # the sum is negative
    assert coordinate_share(terms, np.array([0]))[0] == 0.0


def test_the_scaled_advantage_takes_one_label_set_or_many():
    scaled = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 2.0, 1.0, 1.0]])  # (heads=2, n=4)
    labels = np.array([True, True, False, False])
    assert np.allclose(scaled_advantage(scaled, labels), [1.0, 0.0])
    many = np.array([labels, ~labels])
    assert np.allclose(scaled_advantage(scaled, many), [[1.0, 0.0], [-1.0, 0.0]])


# --- the recorded numbers ---------------------------------------------------------------------

def test_the_recorded_counts_and_p_values_are_consistent(results):
    r = results("real_model.dimensions")
    assert r.number("n_eating_verbs") == len(EATING_VERBS) and r.number("n_other_verbs") == len(OTHER_VERBS)
    assert r.number("n_food") == len(FOOD_NOUNS) and r.number("n_other") == len(OTHER_NOUNS)
    n = r.number("n_rotations")
    p = r.number("coordinate_rotation_p")
    assert 1 / (1 + n) <= p <= 1                       # (1 + draws reaching it) / (1 + draws)
    heads = r.number("n_heads")
    assert r.number("coordinate_heads_passing") <= r.number("coordinate_heads_beating_rotations") <= heads
    assert 0 <= r.number("advantage_heads_beyond_chance") <= heads
    assert 1 <= r.number("advantage_coordinates_for_half") <= 32
    assert r.number("rotation_qk_change") < 1e-8       # a rotation changes no score
    assert 0.5 <= r.number("coordinate_statistic") <= min(r.number("coordinate_auc_q"),
                                                          r.number("coordinate_auc_k"))


def test_the_exercise_answers_are_recorded(results):
    r = results("real_model.dimensions")
    assert 0.5 <= r.number("exercise_rotated_statistic") <= 1
    assert 0 <= r.number("exercise_all_verbs_heads") <= r.number("n_heads")
