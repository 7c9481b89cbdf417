"""C32 in MiniLM: the subject's query finds its verb's key. The counts nest as their
definitions say, whatever the outcome; the verdict is the rule's."""

HEADS = 72


def test_c32_heads_that_pass_beat_both_rules(results):
    r = results("real_model.head_roles.subject_verb")
    for d in ("subject_verb", "verb_subject"):
        clear, heads = r.number(f"c32_{d}_clear_heads"), r.number(f"c32_{d}_heads")
        possible, beats = r.number(f"c32_{d}_possible_heads"), r.number(f"c32_{d}_beats_rules_heads")
        assert 0 <= clear <= heads <= possible <= beats <= HEADS, d
        assert 0 <= r.number(f"c32_{d}_rule_nearest") <= 1 and 0 <= r.number(f"c32_{d}_rule_offset") <= 1
