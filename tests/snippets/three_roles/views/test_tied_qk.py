"""Three views (2), C34: tie W_Q = W_K and see what breaks. The computations behind the
numbers; the verdict is the rule's (docs/claims.yml)."""


def test_the_tasks_make_the_targets_they_promise(results):
    r = results("three_roles.views.tied_qk")
    # Previous token: every target is the token before, position 0 has none. Partner: every
    # group appears exactly twice and every target comes from the position's own group.
    assert r.number("previous_target_errors") == 0
    assert r.number("partner_group_sizes_wrong") == 0
    assert r.number("partner_target_errors") == 0


def test_tied_scores_are_symmetric_and_separate_ones_are_not(results):
    r = results("three_roles.views.tied_qk")
    # score(i, j) = x_i W . x_j W = score(j, i) when one matrix makes queries and keys and no
    # bias enters: the same products summed, so not a single bit may differ.
    assert r.number("tied_score_asymmetry") == 0
    assert r.number("separate_score_asymmetry") > 1e-2


def test_costs_and_counts_are_recomputed_from_per_seed_accuracies(results):
    r = results("three_roles.views.tied_qk")
    separate, tied = r.per_seed("accuracy_previous_separate_mean"), r.per_seed("accuracy_previous_tied_mean")
    partner_separate, partner_tied = r.per_seed("accuracy_partner_separate_mean"), r.per_seed("accuracy_partner_tied_mean")
    cost_previous = [s - t for s, t in zip(separate, tied)]
    cost_partner = [s - t for s, t in zip(partner_separate, partner_tied)]
    assert all(abs(a - b) < 1e-6 for a, b in zip(cost_previous, r.per_seed("cost_previous_mean")))
    assert all(abs(a - b) < 1e-6 for a, b in zip(cost_partner, r.per_seed("cost_partner_mean")))
    margin = [float(p - q >= 0.05) for p, q in zip(r.per_seed("cost_previous_mean"), r.per_seed("cost_partner_mean"))]
    assert r.per_seed("asymmetric_margin_seeds") == margin
    assert r.per_seed("tied_harmless_seeds") == [float(p < 0.01) for p in r.per_seed("cost_previous_mean")]
    assert r.number("asymmetric_margin_seeds") == sum(margin)
    assert all(0 <= a <= 1 for a in separate + tied + partner_separate + partner_tied)


def test_attention_shares_are_shares(results):
    r = results("three_roles.views.tied_qk")
    for model in ("separate", "tied"):
        back, ahead = r.per_seed(f"back_{model}_mean"), r.per_seed(f"ahead_{model}_mean")
        assert all(0 <= b and 0 <= a and a + b <= 1 + 1e-6 for a, b in zip(ahead, back))


def test_causal_models_never_look_at_themselves_or_ahead(results):
    r = results("three_roles.views.tied_qk")
    # Masked keys get exactly zero weight (exp(-inf) = 0); the first token's own key excepted.
    assert r.number("causal_attention_leak") == 0


def test_causal_costs_are_recomputed_from_per_seed_accuracies(results):
    r = results("three_roles.views.tied_qk")
    for task in ("previous", "partner"):
        separate = r.per_seed(f"accuracy_{task}_separate_causal_mean")
        tied = r.per_seed(f"accuracy_{task}_tied_causal_mean")
        cost = r.per_seed(f"cost_{task}_causal_mean")
        assert all(abs(s - t - c) < 1e-6 for s, t, c in zip(separate, tied, cost))
    harmless = [float(c < 0.01) for c in r.per_seed("cost_previous_causal_mean")]
    assert r.per_seed("causal_tied_harmless_seeds") == harmless
