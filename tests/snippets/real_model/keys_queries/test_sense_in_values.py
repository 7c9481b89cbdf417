"""Keys, queries and values in MiniLM (5), C36: does a word's value carry its sense?
The computations behind the numbers; the verdict is the rule's (docs/claims.yml)."""

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))


def test_the_sense_probe_numbers_are_shares_of_the_sentences_and_layer_1_is_blind(results):
    r = results("real_model.keys_queries.sense_in_values")
    n = 2 * r.number("sense_words") * r.number("sense_frames")          # sentences
    for key in ("sense_best_accuracy", "sense_layer1_best", "sense_best_k_accuracy",
                "sense_k_best_accuracy"):
        share = r.number(key)
        assert 0 <= share <= 1 and abs(share * n - round(share * n)) < 1e-6, key
    # (that the context-free layer-1 value gives exactly one half is the probe's own test,
    # tests/explainer/test_centroid_probe.py; the rule reads that number)
    # the best head is the best of layers 2-6
    assert 2 <= r.number("sense_best_layer") <= 6 and 1 <= r.number("sense_best_head") <= 12
    assert r.number("sense_best_low") <= r.number("sense_best_high")
    assert r.number("sense_v_median_accuracy") <= r.number("sense_best_accuracy")
    assert r.number("sense_k_best_accuracy") >= r.number("sense_best_k_accuracy")
    assert 0 <= r.number("sense_heads_passing") <= 60


def _sense_design(n_frames=10, n_words=2):
    """Items in the page's layout: every word in every frame, one sentence per sense."""
    frame_ids = np.tile(np.repeat(np.arange(n_frames), 2), n_words)
    word_of = np.repeat(np.arange(n_words), 2 * n_frames)
    truth = np.tile([0, 1], n_frames * n_words)
    return truth, frame_ids, word_of


def test_a_head_that_holds_the_sense_is_read_perfectly_and_layer_1_at_one_half():
    from explainer.sense_resampling import sense_rule_numbers
    truth, frame_ids, word_of = _sense_design()
    vectors = torch.randn(3, truth.size, 2, 4, dtype=torch.float64)
    vectors[0] = torch.randn(truth.size // 2, 2, 4, dtype=torch.float64)[np.arange(truth.size) // 2]
    vectors[2, :, 1, 0] = torch.as_tensor(4.0 * truth - 2.0)        # layer 3, head 2: the sense
    frames = np.array([0, 0, 3, 5, 5, 5, 7, 8, 9, 9])                 # a draw with repeats
    got = sense_rule_numbers(vectors, truth, frame_ids, word_of, frames, n_draws=19, seed=0)
    assert got["best"] == got["low"] == got["high"] == 1.0
    assert got["p"] == 1 / 20                                          # no relabelling reaches 1
    assert got["layer1"] == 0.5                                        # same vector for both senses


def test_drawing_every_frame_once_is_the_probe_on_the_items_as_they_are():
    from explainer.centroid_probe import centroid_probe_correct
    from explainer.sense_resampling import sense_rule_numbers
    truth, frame_ids, word_of = _sense_design()
    vectors = torch.randn(2, truth.size, 3, 4, dtype=torch.float64)
    got = sense_rule_numbers(vectors, truth, frame_ids, word_of, np.arange(10), n_draws=5, seed=0)
    hits = []
    for word in (0, 1):                                                # one probe per word, as the page
        mine = np.flatnonzero(word_of == word)
        seen = vectors[:, mine].permute(1, 0, 2, 3).reshape(len(mine), 6, 4)
        hits.append(centroid_probe_correct(seen, torch.as_tensor(truth[mine])[None], frame_ids[mine], 5)[0])
    accuracy = torch.cat(hits, dim=1).double().mean(-1).view(2, 3)
    assert got["best"] == float(accuracy[1].max()) and got["layer1"] == float(accuracy[0].max())


def _planted_design(n_frames=10, words=("a", "b"), d=6, seed=0):
    """Random vectors for two words x n_frames frames x 2 senses, no sense in them."""
    truth = np.tile(np.repeat([0, 1], n_frames), len(words))
    frame_ids = np.tile(np.tile(np.arange(n_frames), 2), len(words))
    word_of = np.repeat(words, 2 * n_frames)
    vectors = torch.randn(len(truth), d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return vectors, truth, frame_ids, word_of


def test_a_planted_sense_lies_along_u_at_its_size_word_by_word():
    from explainer.planted_senses import planted_senses
    from explainer.projection_baseline import without_class_means
    vectors, truth, _, word_of = _planted_design()
    u = torch.tensor([3.0, 4.0, 0, 0, 0, 0], dtype=torch.float64)   # normalised inside: (0.6, 0.8, 0, ...)
    unit = u / u.norm()
    planted = planted_senses(vectors, truth, word_of, 2.0, u)
    for word in ("a", "b"):
        rows = word_of == word
        base = without_class_means(vectors[rows], truth[rows])
        gap = planted[rows][truth[rows] == 1].mean(0) - planted[rows][truth[rows] == 0].mean(0)
        # the senses differ only along u, by size (2) standard deviations of the word along u
        assert torch.allclose(gap, 2.0 * (base @ unit).std() * unit, atol=1e-10)
    assert torch.allclose(planted_senses(vectors, truth, word_of, 0.0, u).mean(0), vectors.mean(0), atol=1e-10)


def test_a_large_planted_sense_is_read_always_and_the_size_search_finds_the_first_step():
    from explainer.planted_senses import frame_interval, planted_draws, planted_size, probe_hits
    vectors, truth, frame_ids, word_of = _planted_design()
    heads = torch.stack([vectors, vectors.flip(0)])                  # two "heads"
    chosen, hits = planted_draws(heads, truth, frame_ids, word_of, 100.0, 5, np.random.default_rng(0))
    assert chosen.shape == (5,) and set(chosen) <= {0, 1} and bool(hits.all())
    assert frame_interval(hits[0], frame_ids, 10, np.random.default_rng(0)) == (1.0, 1.0)
    assert planted_size(heads, truth, frame_ids, word_of, 0.99, np.array([0.0, 100.0]), 5) == (100.0, 1.0)
    assert probe_hits(vectors[None], truth, frame_ids, word_of).shape == (1, len(truth))
    with pytest.raises(ValueError):
        planted_size(heads, truth, frame_ids, word_of, 1.01, np.array([0.0, 100.0]), 5)
