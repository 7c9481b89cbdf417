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


def test_the_asymmetry_needed_is_the_cost_of_symmetric_scores_beyond_the_control():
    from explainer.symmetric_plant import asymmetry_needed
    # Symmetric scores cost the previous-token model 0.4 and the partner model 0.1: m = 0.3.
    m = asymmetry_needed([0.9, 1.0], [0.5, 1.0], [1.0, 0.8], [0.9, 0.9])
    assert m.dtype.is_floating_point and m.tolist() == [0.9 - 0.5 - (1.0 - 0.9), 0.0 - (0.8 - 0.9)]


def test_the_planted_share_of_symmetrised_sequences_gives_the_margin_on_average():
    import torch
    from explainer.symmetric_plant import symmetrised_sequences
    # m below the margin: the plant cannot be built (an invalid draw).
    assert symmetrised_sequences(0.04, 0.05, 100, 0) is None
    # m at the margin: f = 1, every sequence is symmetrised.
    assert symmetrised_sequences(0.05, 0.05, 100, 0).all()
    # m = 0.2: f = 1/4 of the sequences, each drawn on its own; the same seed draws the same ones.
    chosen = symmetrised_sequences(0.2, 0.05, 40_000, 800)
    assert chosen.dtype == torch.bool and abs(chosen.double().mean().item() - 0.25) < 0.01
    assert torch.equal(chosen, symmetrised_sequences(0.2, 0.05, 40_000, 800))
    assert not torch.equal(chosen, symmetrised_sequences(0.2, 0.05, 40_000, 801))


def test_the_joint_count_needs_both_conditions_on_the_same_seed(results):
    r = results("three_roles.views.tied_qk")
    needed = [float(m >= 0.05) for m in r.per_seed("symmetrised_margin_mean")]
    assert r.per_seed("separate_needs_asymmetry_seeds") == needed
    harmless = r.per_seed("tied_harmless_seeds")
    joint = [float(h and s) for h, s in zip(harmless, needed)]
    assert r.per_seed("tied_harmless_needed_seeds") == joint
    assert r.number("tied_harmless_needed_seeds") == sum(joint)
    assert r.number("tied_harmless_needed_seeds") <= min(r.number("tied_harmless_seeds"),
                                                         r.number("separate_needs_asymmetry_seeds"))
