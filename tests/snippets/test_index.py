"""The home page's picture: the hand-built layer sends the attention of "it" to "animal"."""


def test_it_puts_most_of_its_attention_on_animal_and_almost_none_on_street(results):
    r = results("index")
    assert r.number("weight_it_animal") >= 0.8
    assert r.number("weight_it_street") < 0.01
