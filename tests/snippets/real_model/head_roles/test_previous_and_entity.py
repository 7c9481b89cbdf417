"""C07 in MiniLM: a previous-token head and an entity head in one layer. The counts nest as
their definitions say, whatever the outcome; the verdict is the rule's."""

LAYERS, HEADS = 6, 72          # MiniLM: 6 layers x 12 heads


def test_c07_split_layers_need_a_head_of_each_role(results):
    r = results("real_model.head_roles.previous_and_entity")
    for role in ("previous_token", "entity"):
        assert 0 <= r.number(f"c07_{role}_clear_heads") <= r.number(f"c07_{role}_heads") \
            <= r.number(f"c07_{role}_possible_heads") <= HEADS
    layers = [r.number(f"c07_minilm_split_layers{k}") for k in ("_clear", "", "_possible")]
    assert layers == sorted(layers) and layers[-1] <= LAYERS
    if layers[1] >= 1:
        assert r.number("c07_previous_token_heads") >= 1 and r.number("c07_entity_heads") >= 1
