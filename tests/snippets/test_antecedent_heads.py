"""A head for "it": one positional head and one content-based head in a toy language."""


def test_model_learns_agreement_and_antecedent(results):
    r = results("antecedent_heads")
    assert r.number("verb_accuracy") >= 0.95        # measured 1.00
    assert r.number("antecedent_accuracy") >= 0.95  # measured 1.00


def test_one_head_is_positional(results):
    r = results("antecedent_heads")
    # Measured 0.53 over all positions (0.17 at init) and 1.00 at the adverbs,
    # where agreement needs the previous word.
    assert r.number("positional_previous") >= 0.4
    assert r.number("positional_at_adverbs") >= 0.9
    assert r.number("positional_antecedent") < 0.1


def test_the_other_head_finds_the_antecedent_by_content(results):
    r = results("antecedent_heads")
    # Measured 0.90 on the animal, 0.002 on the thing (0.12 / 0.14 at init).
    assert r.number("content_antecedent") >= 0.6
    assert r.number("content_to_thing") < 0.05
    assert r.number("antecedent_at_init") < 0.3


def test_query_of_it_matches_key_of_animal_in_a_trained_head(results):
    r = results("antecedent_heads")
    # Measured 11.6 vs -3.5; the animal wins in 91% of sentences, 100% outside
    # the one animal word the head learnt to answer by elimination.
    assert r.number("qk_animal") > r.number("qk_thing") + 5
    assert r.number("qk_animal_wins_others") > 0.95
    assert r.number("ignored_named_correctly") > 0.95
    assert r.number("cos_output_animal") > 0.8 > 0.3 > r.number("cos_output_thing")


def test_verdicts(results):
    r = results("antecedent_heads")
    assert r.verdict("C07") == "verified"
    # Whether the head needs every animal word is a measured detail: nuanced or verified.
    assert r.verdict("C02") in ("verified", "nuanced")
    assert r.verdict("C03") == "verified"
