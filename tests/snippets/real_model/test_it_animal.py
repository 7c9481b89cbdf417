"""Does "it" look at the animal? MiniLM's attention and hidden states, checked for consistency;
the verdicts on C03 are the rule's (docs/claims.yml)."""

import pytest


def test_a_head_looks_from_it_to_animal_on_the_source_sentence(results):
    r = results("real_model.it_animal")
    # the head that looks most from it to animal on the source sentence
    assert r.number("source_best_to_animal") > 0.5
    assert r.number("source_best_to_street") < 0.1


def test_that_head_keeps_looking_at_animal_when_it_is_the_street(results):
    r = results("real_model.it_animal")
    # "...too wide": the same head still prefers animal
    assert r.number("source_best_wide_to_animal") > 2 * r.number("source_best_wide_to_street")


def test_most_heads_prefer_the_same_noun_whatever_it_refers_to(results):
    r = results("real_model.it_animal")
    # most heads prefer the same noun with "tired" and with "wide"
    assert r.number("source_heads_same_preference") > r.number("n_heads_total") / 2


def test_the_best_referent_head_is_the_one_the_head_roles_page_tests(results):
    r, roles = results("real_model.it_animal"), results("real_model.head_roles.roles")
    assert r.number("resolver_layer") == roles.number("coreference_best_layer")
    assert r.number("resolver_head") == roles.number("coreference_best_head")
    assert r.number("resolver_accuracy") == roles.number("coreference_best_accuracy")


def test_the_resolving_head_barely_attends_to_the_referent(results):
    r = results("real_model.it_animal")
    # the head that picks the referent most often gives it only a small part of its attention
    assert r.number("resolver_to_right_mean") < 0.2


def test_the_value_share_is_a_mean_over_sentences(results):
    r = results("real_model.it_animal")
    # C03 part 1: the share of v(referent) in the head's output, averaged over the sentences,
    # is at most its largest value
    mean_share = r.number("value_share_mean")
    assert mean_share <= r.number("value_share_max") + 1e-9


def test_the_lean_statistics_are_consistent(results):
    r = results("real_model.it_animal")
    # C03 part 2. The sign-flip p-value counts the observed shift among the 20 000 flips:
    # between 1/20001 and 1.
    p = r.number("lean_p_value")
    assert 1 / 20001 - 1e-12 <= p <= 1
    # A shift is the difference of two leans, so its mean size is at most twice the mean
    # size of a lean (triangle inequality).
    shift = r.number("lean_shift_mean")
    assert abs(shift) <= 2 * r.number("lean_typical_gap") + 1e-9
    # the peak is the largest mean shift over the layers, the last layer's included
    assert shift <= r.number("lean_peak_shift") + 1e-9
    assert 0 <= r.number("lean_pairs_right") <= r.number("n_pairs")


def test_the_embeddings_carry_no_lean(results):
    # Before layer 1 a token's vector depends on its word and position only, and the two
    # sentences of a pair keep "it" and both nouns at the same positions: no shift at all.
    assert abs(results("real_model.it_animal").number("lean_shift_embeddings")) < 1e-6


def test_exercise_answers(results):
    r = results("real_model.it_animal")
    # 1: the pairs swap the referent and keep the positions, so a rule that ignores
    #    meaning is right in exactly one sentence of every pair.
    assert r.number("exercise_first_noun_rule_accuracy") == 0.5
    assert r.number("exercise_first_noun_rule_pairs_both_right") == 0
    # 2: on the source pair alone, a head is "right" only if it changes its preference; most
    #    heads keep theirs, so fewer pass than the 72/4 that coin-flipping heads would give.
    resolvers = r.number("exercise_source_pair_resolvers")
    assert resolvers <= r.number("n_heads_total") - r.number("source_heads_same_preference")
    assert resolvers < r.number("n_heads_total") / 4


def test_c03_numbers_of_every_pair_once_are_the_pages_and_a_draw_repeats_pairs():
    import numpy as np
    from explainer.it_animal_resampling import c03_numbers
    rng = np.random.default_rng(5)
    correct = np.zeros((8, 2, 3), dtype=bool)                            # 4 pairs, 2 layers, 3 heads
    correct[:, 0, 0] = [1, 0, 1, 0, 0, 0, 0, 0]
    correct[:, 1, 2] = [1, 1, 1, 0, 1, 1, 0, 0]                          # the best head (five rows right)
    shares, shift = rng.random((8, 2, 3)), np.array([0.3, -0.1, 0.2, 0.4])
    got = c03_numbers(correct, shares, shift, np.arange(4), n_flips=20000, seed=0)
    assert got["value_share"] == shares[:, 1, 2].mean() and got["shift"] == shift.mean()
    signs = np.random.default_rng(0).choice([-1.0, 1.0], size=(20000, 4))   # the page's test
    assert got["p"] == (1 + ((signs * shift).mean(axis=1) >= shift.mean() - 1e-12).sum()) / 20001
    again = c03_numbers(correct, shares, shift, np.array([0, 0, 1, 3]), n_flips=100, seed=1)
    assert again["shift"] == np.mean(shift[[0, 0, 1, 3]])               # pairs 0,0,1,3: the best head
    assert again["value_share"] == shares[[0, 1, 0, 1, 2, 3, 6, 7], 1, 2].mean()   # is still 1-2 (five rows right)


def test_resolver_shares_pick_the_head_c03_numbers_picks_and_read_its_share():
    import numpy as np
    from explainer.it_animal_resampling import c03_numbers, resolver_shares
    rng = np.random.default_rng(7)
    correct = rng.random((12, 2, 3)) < 0.5                               # 6 pairs, 2 layers, 3 heads
    shares, shift = rng.random((12, 2, 3)), rng.random(6)
    draws = rng.integers(0, 6, size=(25, 6))
    values, chosen = resolver_shares(correct, shares, draws)
    for drawn, value, head in zip(draws, values, chosen):
        rows = np.stack([2 * drawn, 2 * drawn + 1], axis=1).ravel()
        assert head == correct[rows].mean(axis=0).argmax()              # first head in index order on ties
        assert value == pytest.approx(c03_numbers(correct, shares, shift, drawn, 10, seed=0)["value_share"])


def test_the_upper_end_is_the_97_5th_percentile():
    import numpy as np
    from explainer.it_animal_resampling import upper_end
    assert upper_end(np.arange(1001)) == pytest.approx(975.0)
    assert upper_end([0.2] * 50) == pytest.approx(0.2)


def test_a_planted_resolver_is_seen_when_it_always_wins_and_never_when_another_head_does():
    import numpy as np
    from explainer.it_animal_resampling import planted_share_detection
    correct = np.zeros((20, 1, 3), dtype=bool)                           # 10 pairs, 3 heads
    shares = np.full((20, 1, 3), 0.25)
    correct[:, 0, 1] = True                                              # head 1 is right everywhere
    # planted in head 1: every share moves from 0.25 to exactly 0.5, so every draw reads 0.5
    detected, chosen = planted_share_detection(correct, shares, 1, 0.5, outer=20, inner=100, seed=0)
    assert (detected, chosen) == (1.0, 1.0)
    # planted in head 2, which never wins the argmax: head 1's shares (0.25) are read instead
    detected, chosen = planted_share_detection(correct, shares, 2, 0.5, outer=20, inner=100, seed=0)
    assert (detected, chosen) == (0.0, 0.0)


def test_the_planted_check_is_a_share_of_its_draws(results):
    r = results("real_model.it_animal")
    assert 0 <= r.number("planted_detection_share") <= 1 and 0 <= r.number("planted_chosen_share") <= 1
    draws = r.number("planted_draws")
    assert r.number("planted_detection_share") * draws == pytest.approx(round(r.number("planted_detection_share") * draws))
