"""C23 in MiniLM: direction or length? The angle between a head's query and its target's key.
The counts nest as their definitions say, whatever the outcome; the verdict is the rule's."""

HEADS = 72


def test_the_largest_score_is_the_most_attended_key_and_the_shares_are_shares(results):
    r = results("real_model.head_roles.angles")
    for head in ("coreference", "verb_object"):
        # softmax is monotone: the largest q.k is the most attended candidate
        assert r.number(f"direction_{head}_score_matches_attention") == 1
        for by in ("cos", "norm"):
            share = r.number(f"direction_{head}_{by}_share")
            assert 0 <= share <= 1, (head, by)


def test_yet_the_winning_angle_is_far_from_small(results):
    r = results("real_model.head_roles.angles")
    for head in ("coreference", "verb_object"):
        assert r.number(f"direction_{head}_winner_angle") > 45


def test_c23_target_shares_are_weights_of_passing_heads(results):
    r = results("real_model.head_roles.angles")
    # the heads angles.py measures again are those that pass C02, C21 and C22 in their own files
    passing = {"c02": results("real_model.head_roles.roles").number("coreference_heads"),
               "c21": results("real_model.head_roles.ambiguous_words").number("c21_ambiguity_heads"),
               "c22": results("real_model.head_roles.noun_between").number("c22_heads")}
    for claim, heads in passing.items():
        at_0_3, largest = r.number(f"c23_{claim}_heads_at_0_3"), r.number(f"c23_{claim}_max_target_weight")
        assert 0 <= at_0_3 <= heads and 0 <= largest <= 1, claim
        assert (at_0_3 > 0) == (largest >= 0.3), claim


def test_c23_counts_only_qualifying_heads_and_its_bands_do_not_overlap(results):
    r = results("real_model.head_roles.angles")
    qualifying = r.number("c23_heads")
    assert qualifying == sum(r.number(f"c23_{claim}_heads_at_0_3") for claim in ("c02", "c21", "c22"))
    # a head cannot be both below the small band and above the large one
    assert r.number("c23_small_heads") + r.number("c23_large_heads") <= qualifying
    if qualifying:
        assert 0 <= r.number("c23_target_angle") <= 180 and 0 <= r.number("c23_others_angle") <= 180
        assert 0 <= r.number("c23_smallest_angle_share") <= 1
    for name in ("coreference", "verb_object"):
        assert 0 <= r.number(f"direction_{name}_cos_heads_75") <= HEADS
