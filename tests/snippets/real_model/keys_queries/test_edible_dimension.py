"""Keys, queries and values in MiniLM (4), C28: a coordinate or a direction for "edible".
The computations behind the numbers; the verdict is the rule's (docs/claims.yml)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))


def test_every_framed_noun_was_measured(results):
    assert results("real_model.keys_queries.edible_dimension").number("nouns_found") == 1.0


def test_the_best_aucs_are_the_largest_and_beyond_chance_means_above_the_null(results):
    r = results("real_model.keys_queries.edible_dimension")
    spaces = r.number("n_spaces")
    assert spaces == 2 * 72  # every head's query space and key space
    for tag in ("coordinate", "direction"):
        best, beyond = r.number(f"{tag}_auc_best"), r.number(f"{tag}_heads_beyond_chance")
        assert r.number(f"{tag}_auc_median") <= best <= 1
        assert 0 <= beyond <= spaces
        # some space beats the null exactly when the best one does
        assert (beyond >= 1) == (best > r.number(f"{tag}_null_p95")), tag
    coordinate_best = r.number("coordinate_auc_best")
    assert r.number("coordinate_auc_in_best_direction_space") <= coordinate_best


def test_in_almost_every_head_a_direction_separates_food_better_than_any_single_coordinate(results):
    r = results("real_model.keys_queries.edible_dimension")
    assert r.number("direction_wins_spaces") >= 0.9 * r.number("n_spaces")
    assert r.number("direction_auc_median") > r.number("coordinate_auc_median")
    # "some of them": a coordinate comes within 0.05 AUC of the direction in a few spaces
    near = r.number("coordinate_near_direction_spaces")
    assert 1 <= near < 0.5 * r.number("n_spaces")
    # where the direction does not win, the coordinate is at least as good: those spaces count
    assert near >= r.number("n_spaces") - r.number("direction_wins_spaces")


def test_exercise_answers_of_the_edible_page(results):
    r = results("real_model.keys_queries.edible_dimension")
    # 1: choosing the best of 32 coordinates and scoring it on the same words flatters it.
    assert r.number("exercise_coordinate_auc_in_sample_median") > r.number("coordinate_auc_median")
    # 2: a discriminant in 32 dimensions fitted on 80 words (40 per class) overfits without shrinkage.
    assert r.number("exercise_direction_auc_median_no_shrinkage") < r.number("direction_auc_median")
