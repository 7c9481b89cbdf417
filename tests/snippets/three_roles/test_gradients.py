"""Where the gradients go (C14, C15): what the page claims, asserted on the snippet's run."""


def test_hand_derived_gradients_equal_autograd(results):
    r = results("three_roles.gradients")
    # float64 throughout: 1e-10 leaves room for rounding only.
    assert r.number("autograd_error") < 1e-10
    assert r.number("loss_error") < 1e-10


def test_one_loss_sends_three_different_updates(results):
    r = results("three_roles.gradients")
    # Copies (or near-copies) of one update would have |cosine| near 1.
    assert r.number("largest_abs_cosine") < 0.5
    assert r.number("norm_V") > 1.5 * max(r.number("norm_Q"), r.number("norm_K"))


def test_keys_get_no_gradient_when_nobody_asks(results):
    r = results("three_roles.gradients")
    # With W_Q = 0 the key path dK = dSᵀQ/√d_k is exactly zero; the query path is not.
    assert r.number("norm_K_when_W_Q_is_zero") == 0
    assert r.number("norm_Q_when_W_Q_is_zero") > 1


def test_moving_W_K_changes_the_gradient_of_W_Q(results):
    r = results("three_roles.gradients")
    # Replacing W_K, or moving it a little, changes dW_Q; so does every cross-pair.
    # Non-interfering updates would give 0.
    assert r.number("change_of_dW_Q_when_W_K_moves") > 0.2
    assert r.number("change_of_dW_Q_after_small_move") > 0.01
    assert r.number("smallest_cross_coupling") > 0.1


def test_every_cross_pair_of_gradients_is_coupled(results):
    r = results("three_roles.gradients")
    # Replacing any one matrix changes each other matrix's gradient by at least 10 %.
    assert r.number("smallest_cross_coupling") > 0.1
    assert r.number("largest_cross_coupling") >= r.number("smallest_cross_coupling")


def test_exercise_answers(results):
    r = results("three_roles.gradients")
    # 1: with W_V = 0 the output is 0 whatever the attention, so dP = dO Vᵀ = 0 and no
    #    gradient reaches the scores: W_Q and W_K get exactly nothing, W_V still learns.
    assert r.number("exercise_norm_Q_when_W_V_is_zero") == 0
    assert r.number("exercise_norm_K_when_W_V_is_zero") == 0
    assert r.number("exercise_norm_V_when_W_V_is_zero") > 1
    # 2: the mirror of W_Q = 0: with no keys the query path dS K is zero, the key path is not.
    assert r.number("exercise_norm_Q_when_W_K_is_zero") == 0
    assert r.number("exercise_norm_K_when_W_K_is_zero") > 1


def test_each_update_lands_on_its_own_matrix_and_tied_weights_would_show(results):
    r = results("three_roles.gradients")
    d_model, d_k = 8, 4
    # Known answers. Three separate tensors: no overlap in memory, and a step on one matrix's
    # gradient changes no entry of the other two, while it moves its own (random data leaves
    # no gradient entry exactly zero).
    assert r.number("n_weight_entries") == 3 * d_model * d_k
    assert r.number("shared_storage_pairs") == 0
    assert r.number("entries_changed_by_other_updates") == 0
    assert r.number("own_entries_changed") == r.number("n_weight_entries")
    # Tied weights (W_K is W_Q): one shared pair, and a step on W_Q changes every entry of
    # W_K (and a step on W_K every entry of W_Q) — the check sees a shared parameter.
    assert r.number("tied_shared_storage_pairs") == 1
    assert r.number("tied_entries_changed_by_other_updates") == 2 * d_model * d_k
