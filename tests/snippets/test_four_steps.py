"""Self-attention in four steps: what the page claims, asserted on the snippet's run."""


def test_qkv_are_linear_projections_equal_to_torch_linear(results):
    r = results("four_steps")
    assert r.number("projection_error") < 1e-12


def test_query_of_it_matches_key_of_animal_not_street(results):
    r = results("four_steps")
    assert r.number("score_it_animal") > 0 > r.number("score_it_street")


def test_it_puts_most_of_its_attention_on_animal(results):
    r = results("four_steps")
    assert r.number("weight_it_animal") >= 0.8
    assert r.number("weight_it_street") < 0.01
    assert r.number("weight_it_other") < r.number("weight_it_animal") / 10


def test_output_at_it_is_mostly_the_value_of_animal(results):
    r = results("four_steps")
    assert r.number("cos_output_animal") > 0.95
    assert abs(r.number("cos_output_street")) < 0.1
    assert r.number("output_it_animate") > 0.8 > 0.05 > r.number("output_it_place")


def test_four_steps_by_hand_equal_fused_attention(results):
    r = results("four_steps")
    assert r.number("fused_error") < 1e-12


def test_exercise_answers(results):
    r = results("four_steps")
    # 1: without the division the scores are sqrt(2) times larger, so the softmax is sharper
    #    but still short of 1.
    assert r.number("weight_it_animal") < r.number("exercise_unscaled_weight_it_animal") < 1
    # 2: a street that can get tired takes weight from the animal; "not a place" keeps the
    #    animal ahead.
    assert r.number("exercise_tired_street_weight_street") > 10 * r.number("weight_it_street")
    assert r.number("exercise_tired_street_weight_animal") > r.number("exercise_tired_street_weight_street")
    # 3: with the place question gone both keys answer the same: a tie.
    assert abs(r.number("exercise_no_place_weight_street")
               - r.number("exercise_no_place_weight_animal")) < 1e-9
    assert r.number("exercise_no_place_weight_street") > 0.4


def test_entropy_of_the_row_of_it_is_that_of_the_hand_set_scores(results):
    # Known answer: q(it) = [3, -1], k(animal) = [2, 0], k(street) = [0, 2], every other key 0,
    # so the scaled scores of it are 6/sqrt(2) at animal, -2/sqrt(2) at street and 0 at the
    # nine other tokens.
    import math
    scaled = [6 / math.sqrt(2), -2 / math.sqrt(2)] + [0.0] * 9
    z = sum(math.exp(s) for s in scaled)
    expected = -sum(math.exp(s) / z * math.log2(math.exp(s) / z) for s in scaled)
    r = results("four_steps")
    assert abs(r.number("entropy_it_bits") - expected) < 1e-12
    # Concentrated: below the even spread over the 11 tokens.
    assert 0 < r.number("entropy_it_bits") < math.log2(11)
