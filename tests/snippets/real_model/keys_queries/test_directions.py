"""Keys, queries and values in MiniLM (1), a note beside C18: how many directions keys and queries span.
The computations behind the numbers; the verdicts are the rules' (docs/claims.yml)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))


def test_the_keys_wider_count_agrees_with_its_layers_and_its_median(results):
    r = results("real_model.keys_queries.directions")
    heads, wider = r.number("n_heads"), r.number("keys_wider_heads")
    assert heads == 6 * 12
    assert wider == sum(r.number(f"keys_wider_heads_layer{layer}") for layer in range(1, 7))
    assert 0 <= wider <= heads
    median = r.number("pr_ratio_median")
    assert 0 < r.number("pr_ratio_min") <= median <= r.number("pr_ratio_max")
    # a median ratio below 1 leaves at least half the heads with ratio below 1, above 1
    # at least half above it
    assert median >= 1 or wider <= heads / 2
    assert median <= 1 or wider >= heads / 2


def test_exercise_answer_a_round_cloud_spans_nearly_every_direction(results):
    r = results("real_model.keys_queries.directions")
    # 1: a round cloud of thousands of 32-dimensional vectors spans nearly all 32 directions
    #    (sampling shrinks it a little): far more than the heads' keys or queries.
    round_cloud = r.number("exercise_pr_round_cloud")
    assert 28 < round_cloud <= 32
    assert round_cloud > 2 * max(r.number("pr_keys_median"), r.number("pr_queries_median"))
