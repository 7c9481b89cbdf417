"""Head roles in MiniLM, each against chance corrected for 72 heads: what the page says, asserted."""

ROLES = ["previous_token", "next_token", "cls_sink", "sep_sink", "verb_object", "object_verb",
         "coreference", "coreference_clark", "disambiguation"]


def test_one_head_takes_the_previous_token_and_one_the_next_beyond_chance(results):
    r = results("real_model_head_roles")
    # head 1-3 picks the previous token for 100 % of queries; one next-token head (2-9, 74 %)
    assert r.number("previous_token_heads") >= 1 and r.number("next_token_heads") >= 1
    assert r.number("previous_token_best_accuracy") > 0.9
    assert r.number("previous_token_best_p") < 0.05


def test_most_heads_park_their_top_weight_on_cls_and_none_on_sep(results):
    r = results("real_model_head_roles")
    # 62 of 72 heads: [CLS] is the top key for most queries; no head does that with [SEP]
    assert r.number("cls_sink_heads") > 72 / 2
    assert r.number("sep_sink_heads") == 0
    assert r.number("sep_weight_max_layer") < 0.2  # measured 0.08; BERT-base: over 0.5 (Clark et al.)


def test_a_head_links_a_verb_to_its_object_across_three_adjectives(results):
    r = results("real_model_head_roles")
    # C22's numbers: 4 verb->object heads; the best (4-2) 98 % overall, 100 % with 3 adjectives,
    # against 33 % for the best fixed offset
    assert r.number("verb_object_heads") >= 1
    assert r.number("verb_object_best_accuracy_3adj") >= 0.75
    assert r.number("verb_object_best_accuracy") > r.number("verb_object_position_baseline")


def test_few_heads_pick_the_referent_of_it_and_none_does_it_well(results):
    r = results("real_model_head_roles")
    # C02's numbers: 2 heads beat the best-of-72 chance level, the best right in 65 % of 40
    # sentences (p = 0.045 corrected); by Clark's measure (of three nouns) no head passes
    assert 1 <= r.number("coreference_heads") <= 5
    assert r.number("coreference_best_accuracy") < 0.75
    assert r.number("coreference_clark_heads") == 0


def test_ambiguous_word_heads_pass_but_most_also_pick_the_cue_after_a_plain_noun(results):
    r = results("real_model_head_roles")
    # C21's numbers: 27 heads pass, the best (3-10) 98 % against a position-only rule's 35 %;
    # yet 18 of the 27 also pass when the ambiguous word is replaced by a plain noun
    assert r.number("disambiguation_heads") >= 1
    assert r.number("disambiguation_best_accuracy") >= 0.75
    assert r.number("disambiguation_best_accuracy") > r.number("disambiguation_position_baseline")
    assert r.number("disambiguation_heads_also_on_control") >= r.number("disambiguation_heads") / 2
    # the best head itself drops to 60 % on the control: it does react to the ambiguous word
    assert r.number("disambiguation_best_control_accuracy") < r.number("disambiguation_best_accuracy")


def test_the_cosine_not_the_key_length_decides_which_key_wins(results):
    r = results("real_model_head_roles")
    # C23's numbers: the cosine alone picks the winner in 98 % / 96 % of sentences, the key
    # length alone in 42 % / 9 %
    for head in ("coreference", "verb_object"):
        assert r.number(f"direction_{head}_cos_share") >= 0.75
        assert r.number(f"direction_{head}_cos_share") > r.number(f"direction_{head}_norm_share")
        # the largest q.k is the most attended candidate: the decomposition reads the real scores
        assert r.number(f"direction_{head}_score_matches_attention") == 1


def test_yet_the_winning_angle_is_far_from_small(results):
    r = results("real_model_head_roles")
    # mean angle between q and the winning k: 78 and 67 degrees
    for head in ("coreference", "verb_object"):
        assert r.number(f"direction_{head}_winner_angle") > 45


def test_role_counts_are_counts_of_72_heads(results):
    r = results("real_model_head_roles")
    for role in ROLES:
        assert 0 <= r.number(f"{role}_heads") <= r.number(f"{role}_heads_significant") <= 72
