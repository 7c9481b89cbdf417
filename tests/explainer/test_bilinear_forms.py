"""The overlap of two heads' bilinear forms behind C35 (snippets/explainer/bilinear_forms.py),
on inputs with known answers."""

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))

import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer.bilinear_forms import (form_overlap, head_forms, share_top,  # noqa: E402
                                      weighted_overlap)
from explainer.subspaces import covariance_root, subspace_overlap  # noqa: E402

EYE = torch.eye(6, dtype=torch.float64)


def test_identical_subspaces_overlap_fully_and_orthogonal_ones_not_at_all():
    s = torch.tensor([3.0, 1.0], dtype=torch.float64)
    a, b = EYE[:, :2], EYE[:, 2:4]
    assert float(weighted_overlap(a, s, a, s)) == pytest.approx(1.0)
    assert float(weighted_overlap(a, s, b, s)) == pytest.approx(0.0)
    head = (a, s, b)
    assert float(form_overlap(head, head)) == pytest.approx(1.0)
    assert float(form_overlap(head, (b, s, a))) == pytest.approx(0.0)


def test_the_weighting_on_a_two_dimensional_case():
    # R²: head a reads e0 with weight 3 and e1 with weight 1; head b reads only e0.
    # Σ_ij s_i s'_j cos²_ij / (‖s‖ ‖s'‖) = 3·1 / (√10 · 1)
    eye = torch.eye(2, dtype=torch.float64)
    s_a = torch.tensor([3.0, 1.0], dtype=torch.float64)
    one = torch.tensor([1.0], dtype=torch.float64)
    assert float(weighted_overlap(eye, s_a, eye[:, :1], one)) == pytest.approx(3 / math.sqrt(10))
    assert float(weighted_overlap(eye, s_a, eye[:, 1:], one)) == pytest.approx(1 / math.sqrt(10))
    # both read the whole plane, with the weights swapped: (3·1 + 1·3) / 10
    assert float(weighted_overlap(eye, s_a, eye[:, [1, 0]], s_a)) == pytest.approx(0.6)
    # one direction each, at an angle t: cos² t whatever the weights
    t = 0.4
    b = torch.tensor([[math.cos(t)], [math.sin(t)]], dtype=torch.float64)
    assert float(weighted_overlap(eye[:, :1], 5 * one, b, 2 * one)) == pytest.approx(math.cos(t) ** 2)


def test_equal_weights_give_the_mean_squared_cosine_of_the_principal_angles():
    generator = torch.Generator().manual_seed(0)
    a, _ = torch.linalg.qr(torch.randn(10, 3, generator=generator, dtype=torch.float64))
    b, _ = torch.linalg.qr(torch.randn(10, 3, generator=generator, dtype=torch.float64))
    ones = torch.ones(3, dtype=torch.float64)
    assert float(weighted_overlap(a, ones, b, ones)) == pytest.approx(subspace_overlap(a, b))


def test_a_head_form_is_the_svd_of_the_whitened_weights():
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(500, 6, generator=generator, dtype=torch.float64) * torch.tensor([3.0, 1, 1, 1, 0.5, 2])
    root = covariance_root(x)
    w_q = torch.randn(2, 6, 2, generator=generator, dtype=torch.float64)   # two heads of size 2
    w_k = torch.randn(2, 6, 2, generator=generator, dtype=torch.float64)
    U, s, V = head_forms(w_q, w_k, root)
    for h in range(2):
        assert torch.allclose(U[h] @ torch.diag(s[h]) @ V[h].T, root @ w_q[h] @ w_k[h].T @ root)
        assert torch.allclose(U[h].T @ U[h], torch.eye(2, dtype=torch.float64))
        assert s[h][0] >= s[h][1] >= 0


def test_on_white_input_a_head_that_reads_e0_for_queries_and_e1_for_keys_has_those_directions():
    w_q, w_k = EYE[:, [0]] * 2, EYE[:, [1]] * 3                  # score = 6 x0 y1
    U, s, V = head_forms(w_q, w_k, EYE)
    assert float(s[0]) == pytest.approx(6.0)
    assert abs(float(U[:, 0] @ EYE[:, 0])) == pytest.approx(1.0)
    assert abs(float(V[:, 0] @ EYE[:, 1])) == pytest.approx(1.0)


def test_random_subspaces_overlap_by_k_over_d_on_average():
    # equal weights on white input: E[mean cos²] = k / d for two random k-dim subspaces
    generator = torch.Generator().manual_seed(2)
    d, k, n = 20, 2, 4000
    a, _ = torch.linalg.qr(torch.randn(n, d, k, generator=generator, dtype=torch.float64))
    b, _ = torch.linalg.qr(torch.randn(n, d, k, generator=generator, dtype=torch.float64))
    ones = torch.ones(k, dtype=torch.float64)
    assert float(weighted_overlap(a, ones, b, ones).mean()) == pytest.approx(k / d, abs=0.005)


def test_sharing_the_top_directions_plants_them_and_keeps_a_frame():
    generator = torch.Generator().manual_seed(3)
    a, _ = torch.linalg.qr(torch.randn(12, 4, generator=generator, dtype=torch.float64))
    b, _ = torch.linalg.qr(torch.randn(12, 4, generator=generator, dtype=torch.float64))
    planted = share_top(a, b, 2)
    assert torch.allclose(planted.T @ planted, torch.eye(4, dtype=torch.float64))
    assert torch.allclose((planted[:, :2].T @ a[:, :2]).abs(), torch.eye(2, dtype=torch.float64))
    # weights only on the shared directions: the overlap is 1
    s = torch.tensor([1.0, 1.0, 0.0, 0.0], dtype=torch.float64)
    assert float(weighted_overlap(a, s, planted, s)) == pytest.approx(1.0)
    # sharing every direction: the same subspace
    ones = torch.ones(4, dtype=torch.float64)
    assert float(weighted_overlap(a, ones, share_top(a, b, 4), ones)) == pytest.approx(1.0)
