"""C32 in MiniLM: the subject's query finds its verb's key. The pieces of issue 33's rule on
known answers (the Wilson interval, the equivalence bound, the planted override, the sentence
set), and the recorded counts nest as their definitions say, whatever the outcome."""

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))
from explainer.equivalence import paired_upper_bound  # noqa: E402
from explainer.head_picks import top_among  # noqa: E402
from explainer.item_resampling import stratified_draws  # noqa: E402
from explainer.max_statistic import wilson_interval  # noqa: E402
from explainer.planted_heads import plant_rows, planted_items  # noqa: E402
from explainer.subject_verb_sets import subject_verb_items  # noqa: E402

HEADS = 72


def test_wilson_interval_of_8_in_10():
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)


def test_equivalence_bound_on_hand_made_hits():
    # head 0: hits 1,1,0,0 against the rule's 1,0,0,0: differences 0,1,0,0, mean 0.25,
    # sd 0.5, se 0.25; head 1 equals the rule: every difference 0, bound 0
    hits = np.array([[1, 1], [1, 0], [0, 0], [0, 0]])
    upper = paired_upper_bound(hits, np.array([1, 0, 0, 0]))
    assert upper == pytest.approx([0.25 + 1.959964 * 0.25, 0.0])


def test_planted_override_gives_the_intended_top_picks():
    rows = torch.rand(8, 3, 6)
    targets = np.array([1, 2, 3, 4, 5, 1, 2, 3])
    allowed = [[1, 2, 3, 4, 5]] * 8
    chosen = planted_items(8, 0.75, np.random.default_rng(1))
    assert chosen.sum() == 6
    top, planted = top_among(rows, allowed), top_among(plant_rows(rows, 1, chosen, targets), allowed)
    assert (planted[chosen, 1] == targets[chosen]).all()
    assert (planted[~chosen, 1] == top[~chosen, 1]).all()            # elsewhere its own attention
    assert (planted[:, [0, 2]] == top[:, [0, 2]]).all()               # the other heads untouched


def test_resampling_draws_whole_items_within_their_kind():
    kinds = ["a"] * 5 + ["b"] * 3
    draws = stratified_draws(kinds, draws=50, seed=3)
    assert draws.shape == (50, 8)
    assert (np.array(kinds)[draws] == np.array(sorted(kinds))).all()
    assert (draws == stratified_draws(kinds, draws=50, seed=3)).all()


@pytest.mark.parametrize("n", [168, 240])     # the first look, and the one more look at item_cap
def test_sentence_set_meets_the_rule(n):
    from explainer.minilm import Tokenizer
    tokens, items = Tokenizer().tokens, subject_verb_items(n)
    assert len(items) == n and len({s.text for s in items}) == len(items)
    relative = [s for s in items if s.kind == "object_relative"]
    assert len(relative) >= len(items) / 2
    assert {s.inner_words for s in relative} == {1, 2, 3, 4}
    assert sum(not s.verb_final for s in items) >= len(items) / 2
    for s in items:
        t = tokens(s.text)
        for word in [s.subject, s.verb, *s.other_verbs, *s.nouns]:
            assert t.count(word) == 1, (word, s.text)
        assert (t.index(s.verb) == len(t) - 3) == s.verb_final, s.text   # ... verb . [SEP]


def test_c32_counts_nest(results):
    r = results("real_model.head_roles.subject_verb")
    clear, beats = r.number("c32_subject_verb_clear_heads"), r.number("c32_subject_verb_beats_rules_heads")
    assert 0 <= clear <= beats <= HEADS
    for key in ("c32_subject_verb_rule_nearest", "c32_subject_verb_rule_offset",
                "c32_subject_verb_rule_nearest_relative", "c32_subject_verb_rule_offset_relative",
                "planted_detection_share", "c32_share_verb_not_final"):
        assert 0 <= r.number(key) <= 1, key
    assert r.number("n_items") == r.number("c32_n_sentences")
