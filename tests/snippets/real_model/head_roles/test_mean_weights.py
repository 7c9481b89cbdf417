"""Where each layer's attention goes in MiniLM, by mean weight (the by-layer figure and the
page's second exercise)."""


def test_sep_gets_a_small_share_of_every_layer(results):
    r = results("real_model.head_roles.mean_weights")
    assert r.number("sep_weight_max_layer") < 0.2  # BERT-base: over 0.5 (Clark et al.)
    assert 0 <= r.number("cls_weight_max_layer") <= 1


def test_the_top_heads_are_heads_of_the_model(results):
    r = results("real_model.head_roles.mean_weights")
    for name in ("previous", "next"):
        assert 0 <= r.number(f"top_{name}") <= 1
        assert 1 <= r.number(f"top_{name}_layer") <= 6 and 1 <= r.number(f"top_{name}_head") <= 12


def test_exercise_answer(results):
    r, roles = results("real_model.head_roles.mean_weights"), results("real_model.head_roles.positions")
    # 2: a head that gives the previous token more than half its weight on average beats
    #    chance (1 key in ~14) by far.
    mean_weight_heads = r.number("exercise_previous_token_mean_weight_heads")
    assert 1 <= mean_weight_heads <= roles.number("previous_token_heads_significant")
