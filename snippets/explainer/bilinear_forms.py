"""Heads as bilinear forms (C35): what a head matches on, and how much two heads share it.

A head scores query token i against key token j by x_i W_Q W_Kᵀ x_jᵀ (biases aside): the
bilinear form W_Q W_Kᵀ, of rank hs, is what it matches on. Computed on the covariance Σ of
the layer's input: in coordinates where that input is white (x = z Σ^{1/2}), the form is
M = Σ^{1/2} W_Q W_Kᵀ Σ^{1/2}, and its SVD M = U S Vᵀ gives the query-side directions (U),
the key-side directions (V) and how much each pair of directions moves the scores on real
inputs (the singular values S). A cosine between two such directions is the correlation,
over the inputs, of the two features they read.
"""

from __future__ import annotations

import torch


def head_forms(w_q: torch.Tensor, w_k: torch.Tensor, root: torch.Tensor):
    """Forms on the input covariance, batched: w_q, w_k (…, C, hs) the heads' columns of W_Q
    and W_K (x @ w_q is a head's query), root = Σ^{1/2} (C, C). Returns U (…, C, hs),
    s (…, hs) in decreasing order and V (…, C, hs), with U diag(s) Vᵀ = root w_q w_kᵀ root."""
    Q_q, R_q = torch.linalg.qr(root @ w_q)             # root w_q = Q_q R_q, (…, C, hs)
    Q_k, R_k = torch.linalg.qr(root @ w_k)
    u, s, vh = torch.linalg.svd(R_q @ R_k.transpose(-1, -2))   # the small (hs, hs) middle
    return Q_q @ u, s, Q_k @ vh.transpose(-1, -2)


def weighted_mean(cos2: torch.Tensor, s_a: torch.Tensor, s_b: torch.Tensor) -> torch.Tensor:
    """Squared cosines (…, k, m) between two heads' directions, averaged with the weights
    s_a,i s_b,j: Σ_ij s_a,i s_b,j cos²_ij / (‖s_a‖ ‖s_b‖). s_a (…, k), s_b (…, m)."""
    weighted = (s_a.unsqueeze(-2) @ cos2 @ s_b.unsqueeze(-1))[..., 0, 0]
    return weighted / (s_a.norm(dim=-1) * s_b.norm(dim=-1))


def weighted_overlap(a: torch.Tensor, s_a: torch.Tensor, b: torch.Tensor, s_b: torch.Tensor) -> torch.Tensor:
    """The mean squared cosine of the principal angles between span(a) and span(b), each
    direction weighted by its singular value. a (…, C, k) and b (…, C, m) orthonormal
    columns. With equal weights and k = m it is the plain mean squared cosine of the
    principal angles: 1 = the same subspace, 0 = orthogonal."""
    return weighted_mean((a.transpose(-1, -2) @ b).pow(2), s_a, s_b)


def form_overlap(head_a, head_b) -> torch.Tensor:
    """A pair's overlap: the mean of its query-side (U) and key-side (V) weighted overlaps.
    Each head is (U, s, V) as head_forms returns it."""
    (U_a, s_a, V_a), (U_b, s_b, V_b) = head_a, head_b
    return (weighted_overlap(U_a, s_a, U_b, s_b) + weighted_overlap(V_a, s_a, V_b, s_b)) / 2


def share_top(U_a: torch.Tensor, U_b: torch.Tensor, n: int) -> torch.Tensor:
    """U_b with its first n directions replaced by U_a's first n; its other directions are
    U_b's own, made orthogonal to those (Gram-Schmidt in order). (…, C, k) -> (…, C, k)."""
    shared = U_a[..., :n]
    rest = U_b[..., n:] - shared @ (shared.transpose(-1, -2) @ U_b[..., n:])
    frame, _ = torch.linalg.qr(torch.cat([shared, rest], dim=-1))   # first n columns: ± U_a's
    return frame
