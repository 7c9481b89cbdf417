"""Does a head's 32-dimensional query (or key) read a word label better than chance images
of the same input would? A ridge probe held out by word, its balanced accuracy, and two
baselines on the layer's input (C26, C31, C39):

- ``max_projection_null``: the probe on random Gaussian projections of the input to the
  head's size, in sets of as many projections as the layer has heads; each set's best.
  A head beats it when it is above the 95th percentile of those maxima (12 heads are
  tried, so the best of 12 chance images is the fair comparison).
- ``top_components``: the input's top principal components, as many as the head has
  dimensions: the most variance a 32-dimensional linear image can keep.

``planted_detection`` is the power check (G1): a head's vectors with the label's class
means removed, plus one direction that carries the label at a chosen size; how often does
the same test find it?
"""

from __future__ import annotations

import numpy as np
import torch

RIDGE = 1.0          # penalty on standardised features, the same for every probe


def stratified_folds(labels: np.ndarray, n_folds: int, seed: int = 0) -> np.ndarray:
    """(N,) fold of each item: each class shuffled and dealt to the folds in turn, so every
    fold holds about its share of every class. An item is one word, so folds hold out words."""
    labels = np.asarray(labels)
    rng = np.random.default_rng(seed)
    folds = np.empty(labels.size, dtype=int)
    start = 0
    for value in np.unique(labels):
        members = rng.permutation(np.flatnonzero(labels == value))
        folds[members] = (start + np.arange(members.size)) % n_folds
        start += members.size
    return folds


def balanced_accuracy(predicted: torch.Tensor, labels: np.ndarray) -> torch.Tensor:
    """Mean over classes of the share of that class predicted right: (S, N) -> (S,).
    Chance is 1 / classes whatever the class sizes."""
    truth = torch.as_tensor(np.asarray(labels))
    recalls = [(predicted[:, truth == c] == c).double().mean(dim=1) for c in torch.unique(truth)]
    return torch.stack(recalls).mean(dim=0)


def held_out_predictions(X: torch.Tensor, labels: np.ndarray, folds: np.ndarray,
                         ridge: float = RIDGE) -> torch.Tensor:
    """Each word's class as named by a ridge probe that did not see it, for S spaces at once.

    ``X`` (S, N, d): one vector per word; ``labels`` (N,) ints 0 .. c-1; ``folds`` (N,): the
    probe for fold f is a ridge regression on one-hot labels fitted on the other folds
    (features standardised with their mean and spread there); it names the class of fold
    f's words by the largest fitted score. Returns (S, N) class indices."""
    X = X.double()
    labels, folds = np.asarray(labels), np.asarray(folds)
    Y = torch.nn.functional.one_hot(torch.as_tensor(labels)).double()     # (N, c)
    predicted = torch.zeros(X.shape[:2], dtype=torch.long)                 # (S, N)
    eye = torch.eye(X.shape[-1], dtype=X.dtype)
    for fold in np.unique(folds):
        train, test = torch.as_tensor(folds != fold), torch.as_tensor(folds == fold)
        Xtr = X[:, train]                                                  # (S, n_train, d)
        mean = Xtr.mean(dim=1, keepdim=True)                               # (S, 1, d)
        spread = Xtr.std(dim=1, keepdim=True).clamp(min=1e-8)
        Xtr, Xte = (Xtr - mean) / spread, (X[:, test] - mean) / spread
        y_mean = Y[train].mean(dim=0)                                      # (c,)
        W = torch.linalg.solve(Xtr.transpose(1, 2) @ Xtr + ridge * eye,
                               Xtr.transpose(1, 2) @ (Y[train] - y_mean))  # (S, d, c)
        predicted[:, test] = (Xte @ W + y_mean).argmax(dim=-1)
    return predicted


def ridge_balanced_accuracy(X: torch.Tensor, labels: np.ndarray, folds: np.ndarray,
                            ridge: float = RIDGE) -> torch.Tensor:
    """Held-out balanced accuracy of the ridge probe (``held_out_predictions``): ``X``
    (S, N, d) gives (S,), one space (N, d) a 0-d tensor."""
    single = X.dim() == 2
    accuracy = balanced_accuracy(held_out_predictions(X[None] if single else X, labels, folds, ridge),
                                 labels)
    return accuracy[0] if single else accuracy


def max_projection_null(X: torch.Tensor, labels: np.ndarray, folds: np.ndarray, n_sets: int = 1000,
                        per_set: int = 12, dim: int = 32, seed: int = 0, chunk: int = 600) -> np.ndarray:
    """Each set's best probe accuracy over ``per_set`` random Gaussian projections of ``X``
    (N, C) to ``dim`` dimensions: (n_sets,)."""
    generator = torch.Generator().manual_seed(seed)
    X = X.double()
    accuracies = []
    for start in range(0, n_sets * per_set, chunk):
        n = min(chunk, n_sets * per_set - start)
        R = torch.randn(n, X.shape[1], dim, generator=generator, dtype=X.dtype)  # (n, C, dim)
        accuracies.append(ridge_balanced_accuracy(X @ R, labels, folds))        # (n,)
    return torch.cat(accuracies).view(n_sets, per_set).amax(dim=1).numpy()


def top_components(X: torch.Tensor, k: int) -> torch.Tensor:
    """``X`` (N, C) projected on its top ``k`` principal directions: (N, k)."""
    centred = X.double() - X.double().mean(dim=0)
    _, _, Vh = torch.linalg.svd(centred, full_matrices=False)              # (min(N, C), C)
    return centred @ Vh[:k].T


def without_class_means(V: torch.Tensor, labels: np.ndarray) -> torch.Tensor:
    """``V`` (..., N, d) with each class's mean moved onto the overall mean: no class
    differs from another on average along any direction."""
    out = V.double().clone()
    overall = out.mean(dim=-2, keepdim=True)
    for c in np.unique(labels):
        members = torch.as_tensor(np.asarray(labels) == c)
        out[..., members, :] += overall - out[..., members, :].mean(dim=-2, keepdim=True)
    return out


def planted(heads: torch.Tensor, labels: np.ndarray, size: float, draws: int,
            generator: torch.Generator) -> torch.Tensor:
    """``draws`` planted heads (draws, N, d). Each: one of ``heads`` (H, N, d) drawn at random,
    its class means removed, plus, along a random unit direction u, ±size/2 standard
    deviations (of the head along u) by the word's class (two classes, 0 and 1)."""
    H, N, d = heads.shape
    base = without_class_means(heads, labels)[torch.randint(H, (draws,), generator=generator)]
    u = torch.nn.functional.normalize(torch.randn(draws, d, generator=generator, dtype=base.dtype), dim=-1)
    along = (base @ u[:, :, None])[..., 0]                                  # (draws, N)
    sign = torch.as_tensor(2.0 * np.asarray(labels) - 1.0, dtype=base.dtype)  # (N,) ±1
    shift = size / 2 * along.std(dim=1, keepdim=True) * sign               # (draws, N)
    return base + shift[..., None] * u[:, None, :]


def planted_size(heads: torch.Tensor, labels: np.ndarray, folds: np.ndarray, bar: float,
                 sizes: np.ndarray, draws: int, seed: int = 0) -> tuple[float, float]:
    """The smallest of ``sizes`` at which planted heads reach ``bar`` balanced accuracy on
    average over ``draws`` (the size at which the claim would be verified), and that mean."""
    for size in sizes:
        generator = torch.Generator().manual_seed(seed)
        mean = float(ridge_balanced_accuracy(planted(heads, labels, size, draws, generator),
                                             labels, folds).mean())
        if mean >= bar:
            return float(size), mean
    raise ValueError(f"no planted size in {sizes[0]:.2f} .. {sizes[-1]:.2f} reaches {bar}")


def planted_detection(heads: torch.Tensor, labels: np.ndarray, folds: np.ndarray, size: float,
                      beats: float, draws: int, seed: int = 1) -> tuple[float, np.ndarray]:
    """Share of ``draws`` planted heads whose probe accuracy is above ``beats`` (the
    baseline: the larger of the null's percentile and the components' accuracy), and
    their accuracies."""
    generator = torch.Generator().manual_seed(seed)
    accuracy = ridge_balanced_accuracy(planted(heads, labels, size, draws, generator), labels, folds)
    return float((accuracy > beats).double().mean()), accuracy.numpy()
