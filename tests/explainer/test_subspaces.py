"""The subspace overlap behind C35 (snippets/explainer/subspaces.py), on inputs with known answers."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))

import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer.subspaces import (covariance_root, head_read_bases, head_write_bases,  # noqa: E402
                                 null_overlaps, orthonormal_basis, pair_overlaps,
                                 subspace_overlap)


def test_a_subspace_overlaps_itself_fully_and_an_orthogonal_one_not_at_all():
    eye = torch.eye(6, dtype=torch.float64)
    a, b = eye[:, :2], eye[:, 2:4]                      # span(e0, e1), span(e2, e3)
    assert subspace_overlap(a, a) == pytest.approx(1.0)
    assert subspace_overlap(a, b) == pytest.approx(0.0)
    # span(e0, e2) shares one of two directions with span(e0, e1): cos² = 1 and 0
    assert subspace_overlap(a, eye[:, [0, 2]]) == pytest.approx(0.5)


def test_the_overlap_is_the_mean_squared_cosine_of_the_principal_angles():
    # in R^3: span(e0, e1) against span(e0, cos t e1 + sin t e2); principal angles 0 and t
    t = 0.3
    a = torch.eye(3, dtype=torch.float64)[:, :2]
    b = torch.tensor([[1, 0], [0, torch.cos(torch.tensor(t))], [0, torch.sin(torch.tensor(t))]],
                     dtype=torch.float64)
    expected = (1 + torch.cos(torch.tensor(t, dtype=torch.float64)) ** 2) / 2
    assert subspace_overlap(a, b) == pytest.approx(float(expected))


def test_the_overlap_depends_on_the_subspace_not_on_the_spanning_vectors():
    generator = torch.Generator().manual_seed(1)
    vectors = torch.randn(10, 3, generator=generator, dtype=torch.float64)
    mixed = vectors @ torch.randn(3, 3, generator=generator, dtype=torch.float64)  # same span
    other = orthonormal_basis(torch.randn(10, 3, generator=generator, dtype=torch.float64))
    assert subspace_overlap(orthonormal_basis(vectors), orthonormal_basis(mixed)) == pytest.approx(1.0)
    assert subspace_overlap(orthonormal_basis(vectors), other) == pytest.approx(
        subspace_overlap(orthonormal_basis(mixed), other))


def test_heads_read_the_row_spaces_of_their_slices_and_write_the_column_spaces():
    # a (4, 6) weight (C_out = 4, C_in = 6) of two heads of size 2: head 0's rows read
    # span(e0, e1) of R^6, head 1's read span(e0, e5): one shared direction of two
    weight = torch.zeros(4, 6, dtype=torch.float64)
    weight[0, 0], weight[0, 1], weight[1, 1] = 2.0, 1.0, 3.0
    weight[2, 0], weight[3, 5] = 1.0, 5.0
    reads = head_read_bases(weight, 2)
    assert pair_overlaps(reads).tolist() == pytest.approx([0.5])
    assert subspace_overlap(reads[0], torch.eye(6, dtype=torch.float64)[:, :2]) == pytest.approx(1.0)
    # head 1's columns of W_O write into e0: the same direction as head 0's first column
    w_o = torch.zeros(4, 4, dtype=torch.float64)
    w_o[0, 0], w_o[1, 1], w_o[0, 2], w_o[3, 3] = 1.0, 1.0, 1.0, 1.0
    writes = head_write_bases(w_o, 2)
    assert pair_overlaps(writes).tolist() == pytest.approx([0.5])


def test_isotropic_random_subspaces_overlap_by_k_over_d_on_average():
    overlaps = null_overlaps(48, 4, 400, torch.Generator().manual_seed(0))
    assert float(overlaps.mean()) == pytest.approx(4 / 48, abs=0.01)


def test_subspaces_drawn_from_a_low_rank_covariance_lie_inside_its_span():
    # samples spanning only 4 directions of R^12: any 4 draws from their covariance span
    # those 4 directions, so two such subspaces coincide
    generator = torch.Generator().manual_seed(0)
    directions = torch.randn(4, 12, generator=generator, dtype=torch.float64)
    samples = torch.randn(500, 4, generator=generator, dtype=torch.float64) @ directions  # (500, 12)
    root = covariance_root(samples)
    assert torch.allclose(root @ root, torch.cov(samples.T), atol=1e-9)
    overlaps = null_overlaps(12, 4, 20, generator, root)
    assert float(overlaps.min()) == pytest.approx(1.0, abs=1e-6)


def test_the_recorded_shares_are_pair_counts(results):
    r = results("real_model.weights")
    pairs = r.number("subspace_pairs")
    # 66 pairs in each of the 6 layers
    assert pairs == 6 * 12 * 11 / 2
    for key in ("subspace_below_both_share", "subspace_above_both_share"):
        share = r.number(key)
        assert 0 <= share <= 1 and abs(share * pairs - round(share * pairs)) < 1e-6, key
    # a pair cannot lie below the 5th and above the 95th percentile of the same nulls
    assert r.number("subspace_below_both_share") + r.number("subspace_above_both_share") <= 1
    # the isotropic null's band holds its expectation k / d
    assert r.number("null_isotropic_p5") < r.number("null_isotropic_expected") < r.number("null_isotropic_p95")
    assert r.number("null_isotropic_expected") == pytest.approx(32 / 384, abs=5e-4)
