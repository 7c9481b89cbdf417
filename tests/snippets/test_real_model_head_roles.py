"""Head roles in MiniLM: named metrics over the shipped sentences, asserted."""


def test_a_previous_token_head_and_a_next_token_head_exist(results):
    r = results("real_model_head_roles")
    # head 1-3 puts 1.00 on the previous token; head 2-9 puts 0.62 on the next one
    assert r.number("top_previous") > 0.9
    assert r.number("top_next") > 0.5
    assert r.number("count_previous") >= 1 and r.number("count_next") >= 1


def test_the_commonest_role_is_parking_attention_on_cls(results):
    r = results("real_model_head_roles")
    # 26 of 72 heads put more than half of their attention on [CLS]; none on [SEP]
    assert r.number("count_cls") > 72 / 4
    assert r.number("count_cls") > r.number("count_previous") + r.number("count_next")
    assert r.number("count_sep") == 0
    assert r.number("sep_max_layer_share") < 0.2  # measured 0.08; BERT-base: over 0.5
    assert r.verdict("C07") == "nuanced"


def test_broad_heads_sit_in_the_first_layer(results):
    r = results("real_model_head_roles")
    # 8 of the 9 broad heads are in layer 1; layer 1 broadness 0.75 vs 0.45 at its lowest
    assert r.number("broad_first_layer") > r.number("count_broad") / 2
    assert r.number("broadness_first_layer") > r.number("broadness_min_layer") + 0.15


def test_every_head_has_exactly_one_role(results):
    r = results("real_model_head_roles")
    roles = ["previous", "next", "current", "cls", "sep", "punctuation", "broad", "mixed"]
    assert sum(r.number(f"count_{role}") for role in roles) == 72
