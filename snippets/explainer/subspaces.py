"""Subspaces of the residual stream that heads read, and how much two of them overlap.

A head's slice of W_Q (hs rows of the (C, C) weight) reads the hs-dimensional row space
of that slice from the C-dimensional stream. Two such subspaces overlap by the mean
squared cosine of their principal angles: 1 for the same subspace, 0 for orthogonal
ones, k / C on average for two random k-dimensional subspaces drawn isotropically.
"""

from __future__ import annotations

import torch


def orthonormal_basis(vectors: torch.Tensor) -> torch.Tensor:
    """(C, k) spanning vectors in columns -> (C, k) orthonormal basis of their span."""
    basis, _ = torch.linalg.qr(vectors)
    return basis


def head_read_bases(weight: torch.Tensor, n_heads: int) -> list[torch.Tensor]:
    """nn.Linear weight (C_out, C_in) -> per head, an orthonormal basis (C_in, hs) of the
    row space of its hs output rows: the directions of the stream the head reads."""
    head_size = weight.shape[0] // n_heads
    return [orthonormal_basis(weight[h * head_size:(h + 1) * head_size].T)   # (C_in, hs)
            for h in range(n_heads)]


def head_write_bases(weight: torch.Tensor, n_heads: int) -> list[torch.Tensor]:
    """W_O's weight (C_out, C_in) -> per head, an orthonormal basis (C_out, hs) of the
    column space of its hs input columns: the directions of the stream the head writes."""
    head_size = weight.shape[1] // n_heads
    return [orthonormal_basis(weight[:, h * head_size:(h + 1) * head_size])  # (C_out, hs)
            for h in range(n_heads)]


def subspace_overlap(a: torch.Tensor, b: torch.Tensor) -> float:
    """Mean squared cosine of the principal angles between span(a) and span(b), both
    orthonormal (C, k): the cosines are the singular values of aᵀb."""
    return float((a.T @ b).pow(2).sum() / a.shape[1])


def pair_overlaps(bases: list[torch.Tensor]) -> torch.Tensor:
    """Overlap of every unordered pair of bases, in the order (0,1), (0,2), …, (n-2, n-1)."""
    n = len(bases)
    return torch.tensor([subspace_overlap(bases[i], bases[j])
                         for i in range(n) for j in range(i + 1, n)])


def random_subspace(dim: int, k: int, generator: torch.Generator,
                    covariance_root: torch.Tensor | None = None) -> torch.Tensor:
    """The span of k random vectors in R^dim, as an orthonormal (dim, k) basis: isotropic
    Gaussian vectors, or vectors drawn from N(0, Σ) when covariance_root = Σ^{1/2}."""
    vectors = torch.randn(dim, k, generator=generator, dtype=torch.float64)   # (dim, k)
    if covariance_root is not None:
        vectors = covariance_root @ vectors
    return orthonormal_basis(vectors)


def covariance_root(x: torch.Tensor) -> torch.Tensor:
    """(N, C) samples -> the symmetric square root (C, C) of their covariance."""
    covariance = torch.cov(x.T.double())                                  # (C, C)
    eigenvalues, eigenvectors = torch.linalg.eigh(covariance)
    return eigenvectors @ torch.diag(eigenvalues.clamp(min=0).sqrt()) @ eigenvectors.T


def null_overlaps(dim: int, k: int, n_draws: int, generator: torch.Generator,
                  covariance_root: torch.Tensor | None = None) -> torch.Tensor:
    """Overlaps of n_draws pairs of random k-dimensional subspaces (the null)."""
    return torch.tensor([subspace_overlap(random_subspace(dim, k, generator, covariance_root),
                                          random_subspace(dim, k, generator, covariance_root))
                         for _ in range(n_draws)])
