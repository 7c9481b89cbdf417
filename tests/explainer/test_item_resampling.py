"""G2's draws of a real model's items (snippets/explainer/item_resampling.py): whole clusters."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))
from explainer.item_resampling import cluster_draws  # noqa: E402


def test_a_cluster_draw_takes_every_item_of_each_drawn_cluster():
    clusters = np.array([2, 0, 1, 0, 2, 1])                   # three clusters of two, interleaved
    draws = cluster_draws(clusters, draws=200, seed=4)
    assert draws.shape == (200, 6)
    for items in draws:
        drawn = clusters[items].reshape(3, 2)
        assert (drawn[:, 0] == drawn[:, 1]).all()             # a cluster's two items together
    assert len({tuple(clusters[d][::2]) for d in draws}) > 10  # clusters drawn with replacement
    assert (draws == cluster_draws(clusters, draws=200, seed=4)).all()


def test_clusters_of_different_sizes_are_refused():
    with pytest.raises(ValueError):
        cluster_draws([0, 0, 1])
