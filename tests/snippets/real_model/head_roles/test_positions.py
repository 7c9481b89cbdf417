"""Head roles in MiniLM, each against chance corrected for 72 heads: the neighbours and the
sinks (positions.py; the roles about content: test_roles.py).

The verdicts are the rules' (docs/claims.yml); these tests check that the counts, accuracies
and p-values behind them are computed consistently, whatever the outcome."""

ROLES = ["previous_token", "next_token", "cls_sink", "sep_sink"]
MAJORITY = 0.5  # a head has a role only if the target is its top pick in half the items


def test_each_role_has_a_best_head_an_accuracy_and_a_p_value_in_range(results):
    r = results("real_model.head_roles.positions")
    for role in ROLES:
        accuracy, p = r.number(f"{role}_best_accuracy"), r.number(f"{role}_best_p")
        assert 0 <= accuracy <= 1 and 0 < p <= 1, role
        assert 1 <= r.number(f"{role}_best_layer") <= 6 and 1 <= r.number(f"{role}_best_head") <= 12
        # a passing head has the majority, and the best head is the most accurate one
        assert r.number(f"{role}_heads") == 0 or accuracy >= MAJORITY, role


def test_one_head_takes_the_next_token(results):
    r = results("real_model.head_roles.positions")
    assert r.number("next_token_heads") >= 1


def test_most_heads_park_their_top_weight_on_cls_and_none_on_sep(results):
    r = results("real_model.head_roles.positions")
    # [CLS] is the top key for most queries in most heads; no head does that with [SEP]
    assert r.number("cls_sink_heads") > 72 / 2
    assert r.number("sep_sink_heads") == 0


def test_role_counts_are_counts_of_72_heads(results):
    r = results("real_model.head_roles.positions")
    assert r.number("heads_measured") == 72
    for role in ROLES:
        assert 0 <= r.number(f"{role}_heads") <= r.number(f"{role}_heads_significant") <= 72
