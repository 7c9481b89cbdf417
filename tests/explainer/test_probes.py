"""The held-out word probe behind C29 (snippets/explainer/probes.py), on inputs with known answers."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))

import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer.probes import group_folds, nearest_word, ridge_fit, word_probe_correct  # noqa: E402


def test_all_items_of_a_group_share_a_fold_and_every_fold_is_used():
    groups = np.array([3, 3, 7, 1, 1, 1, 9, 7, 4])
    folds = group_folds(groups, 3)
    for g in np.unique(groups):
        assert len(set(folds[groups == g])) == 1
    assert set(folds) == {0, 1, 2}


def test_ridge_with_a_tiny_penalty_recovers_an_exact_linear_map():
    generator = torch.Generator().manual_seed(0)
    X = torch.randn(50, 4, generator=generator, dtype=torch.float64)
    A = torch.randn(4, 3, generator=generator, dtype=torch.float64)
    Y = X @ A + torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)      # with an intercept
    X_new = torch.randn(7, 4, generator=generator, dtype=torch.float64)
    predict, = ridge_fit(X, Y, [1e-9])
    assert torch.allclose(predict(X_new), X_new @ A + torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64),
                          atol=1e-6)
    # a huge penalty leaves only the intercept: the training mean of Y
    flat, = ridge_fit(X, Y, [1e12])
    assert torch.allclose(flat(X_new), Y.mean(dim=0).expand(7, 3), atol=1e-4)


def test_the_nearest_word_is_chosen_by_cosine():
    # a long word vector does not win by its length: [3, 1] is nearest [1, 0] by angle
    words = torch.tensor([[1.0, 0.0], [0.0, 5.0], [-1.0, 0.0]])
    predictions = torch.tensor([[3.0, 1.0], [0.1, 0.3], [-0.2, -0.1]])
    assert nearest_word(predictions, words).tolist() == [0, 1, 2]


def test_a_probe_names_every_word_when_the_features_are_a_linear_image_of_it():
    generator = torch.Generator().manual_seed(0)
    words = torch.randn(20, 6, generator=generator, dtype=torch.float64)   # 20 candidate words
    targets = np.arange(200) % 20
    mixing = torch.randn(6, 8, generator=generator, dtype=torch.float64)
    X = words[targets] @ mixing                                             # (200, 8)
    groups = np.arange(200) // 10                                           # 20 "sentences"
    assert word_probe_correct(X, targets, groups, words).mean() == 1.0


def test_what_only_identifies_a_group_cannot_be_read_on_held_out_groups():
    # each group has its own word, and the features say only which group an item is in:
    # a probe fitted on other groups has never seen that group's feature, so it names nothing
    # (a split that leaked groups across folds would name every word)
    n_groups, per_group = 20, 5
    groups = np.repeat(np.arange(n_groups), per_group)
    targets = groups.copy()
    X = torch.eye(n_groups, dtype=torch.float64)[groups]                    # one-hot of the group
    words = torch.randn(n_groups, 6, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    assert word_probe_correct(X, targets, groups, words).mean() == 0.0
