"""C32 in MiniLM: the subject's query finds its verb's key. The pieces of issue 33's rule on
known answers (the Wilson interval, the equivalence bound, the planted override, the sentence
sets; for the measurement v2 the word-piece sums, the excluded query word and its neighbours,
the fitted rules' ties, the template-robust standard error, the template-then-sentence draws
that keep each body's count, the plant in the weights at exactly 75 % under both picks, the
design's rule shares), and the recorded counts nest as their definitions say, whatever the
outcome."""

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))
from explainer.equivalence import paired_upper_bound  # noqa: E402
from explainer.head_picks import nearest, top_among  # noqa: E402
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
    n = r.number
    assert 0 <= n("c32_subject_verb_verified_heads") <= n("c32_subject_verb_clear_heads") \
        <= n("c32_subject_verb_beats_rules_heads") <= HEADS
    assert n("c32_subject_verb_verified_heads") <= min(n("c32_relative_clear_heads"), n("c32_inner_clear_heads"))
    for key in ("c32_subject_verb_rule_nearest", "c32_subject_verb_rule_offset", "c32_subject_verb_rule_last",
                "c32_subject_verb_rule_ordinal", "c32_subject_verb_rule_adjacent",
                "c32_subject_verb_rule_nearest_relative", "c32_subject_verb_rule_offset_relative",
                "c32_subject_verb_rule_last_relative", "c32_subject_verb_rule_ordinal_relative",
                "c32_subject_verb_rule_adjacent_relative", "planted_detection_share",
                "c32_share_verb_not_final", "c32_inner_best_share", "c32_inner_main_share"):
        assert 0 <= n(key) <= 1, key
    assert n("c32_inner_best_share") + n("c32_inner_main_share") <= 1
    assert n("n_items") == n("c32_n_sentences") == 24 * (n("c32_n_sentences") // 24)
    # the plant is exact by construction (plant_in_weights asserts it in every draw)
    assert n("c32_planted_head_share") == n("c32_planted_head_share_relaxed") == pytest.approx(0.75)


# ------------------------------------------------------------------ version 2 (issue 33)

from explainer.subject_verb_sets import BODIES, SHARED_VERBS, subject_verb_items_v2  # noqa: E402
from explainer.template_robust import stratified_cluster_draws, t_quantile, template_ends, template_se  # noqa: E402
from explainer.word_picks import (adjacent_verb, allowed_words, best_offset_rule, best_verb_ordinal,  # noqa: E402
                                  last_verb, plant_in_weights, verb_ordinal_picks, word_index, word_matrix,
                                  word_rows)


def test_word_pieces_sum_into_their_word():
    tokens = ["[CLS]", "the", "play", "##ful", "dog", ".", "[SEP]"]
    assert word_index(tokens) == [0, 1, 2, 2, 3, 4, 5]
    rows = torch.tensor([[[0.1, 0.1, 0.2, 0.3, 0.1, 0.1, 0.1]]])        # (1 sentence, 1 head, 7 tokens)
    words = word_rows(rows, [tokens])
    assert words[0, 0].tolist() == pytest.approx([0.1, 0.1, 0.5, 0.1, 0.1, 0.1])
    assert float(words.sum()) == pytest.approx(float(rows.sum()))        # a sum, nothing lost


def test_allowed_words_leave_out_the_query_and_non_words():
    tokens = ["[CLS]", "the", "old", "man", "'", "s", "dog", "left", ".", "[SEP]"]
    # words: 0 [CLS], 1 the, 2 old, 3 man, 4 ', 5 s, 6 dog, 7 left, 8 ., 9 [SEP]
    assert allowed_words(tokens, 3) == [1, 2, 6, 7]                     # no query, 's, punctuation, specials
    assert allowed_words(tokens, 3, relaxed=True) == [1, 6, 7]           # and not the query's neighbours
    assert 3 not in allowed_words(tokens, 3)


def test_fitted_rules_break_ties_as_the_rule_says():
    # offsets in words: +2, +2, -2, -2 (tie between +2 and -2: the positive one); tokens: +3 x 4
    q, t = np.array([5, 5, 5, 5]), np.array([7, 7, 3, 3])
    assert best_offset_rule(q, t).tolist() == [True, True, False, False]
    # in tokens +3 everywhere beats any word offset
    assert best_offset_rule(q, t, np.zeros(4), np.full(4, 3)).all()
    # a tie between words (+2, right in items 0 and 1) and tokens (+2, right in items 2 and 3): words first
    assert best_offset_rule(q, t, np.zeros(4), np.array([9, 9, 2, 2])).tolist() == [True, True, False, False]
    verbs = [[3, 6, 9], [6, 9], [4, 5]]
    assert verb_ordinal_picks(2, verbs[0]) == [3, 6, 9, 9, 6, 3]
    assert verb_ordinal_picks(5, verbs[1]) == [6, 9, -1, 9, 6, -1]
    # targets 6, 6, 5 from queries 2, 5, 3: "2nd to the right" is right in items 0 and 2, "second-last"
    # in items 0 and 1 (two items each): the tie goes to the one listed first, the 2nd to the right
    assert best_verb_ordinal([2, 5, 3], [6, 6, 5], verbs).tolist() == [True, False, True]
    assert last_verb([9, 6, 5], verbs).tolist() == [True, False, True]
    assert adjacent_verb([5, 9, 5], [[4, 5, 9], [6, 9], [4, 5]]).tolist() == [True, False, True]


def test_template_se_on_hand_made_numbers():
    # two strata of two templates of two items; template means 1, 0 | 0.5, 0.5
    x = np.array([1, 1, 0, 0, 1, 0, 0, 1], dtype=float)
    templates, strata = np.repeat([0, 1, 2, 3], 2), np.repeat([0, 0, 1, 1], 2)
    se, df = template_se(x, templates, strata)
    # stratum 0: (1/2)^2 * 1/(2*1) * (0.25 + 0.25) = 0.0625; stratum 1: 0
    assert se == pytest.approx(0.25) and df == 2
    low, high = template_ends(x, templates, strata)
    assert low == pytest.approx(0.5 - t_quantile(2) * 0.25) and high == pytest.approx(0.5 + t_quantile(2) * 0.25)
    assert t_quantile(16) == pytest.approx(2.4729, abs=1e-3) and t_quantile(8) == pytest.approx(2.7515, abs=1e-3)


def test_template_draws_keep_strata_and_templates():
    bodies, templates = np.repeat(list("ab"), 6), np.repeat([0, 1, 2, 3], 3)     # 2 bodies x 2 templates x 3
    draws = stratified_cluster_draws(bodies, templates, draws=200, seed=4)
    assert draws.shape == (200, 12)
    assert (bodies[draws] == bodies).all()                                   # every body keeps its count
    slots = templates[draws].reshape(200, 4, 3)
    assert (slots == slots[:, :, :1]).all()                                   # a slot holds one template
    assert (draws == stratified_cluster_draws(bodies, templates, draws=200, seed=4)).all()
    assert len({tuple(d) for d in draws}) > 100                              # sentences redrawn too


def test_template_se_counts_a_repeated_template_twice():
    x = np.array([1, 1, 0, 0], dtype=float)
    once = template_se(x, [0, 0, 1, 1], [0, 0, 0, 0])[0]
    assert template_se(np.array([1, 1, 1, 1.0]), [0, 0, 1, 1], [0, 0, 0, 0])[0] == 0   # the same draw twice
    assert once == pytest.approx(0.5)


def test_planted_head_picks_the_verb_in_exactly_the_chosen_items_under_both_picks():
    gen = torch.Generator().manual_seed(5)
    tokens = [["[CLS]", "the", "man", "whom", "they", "saw", "left", "at", "the", "big", "##gest", "gate", ".",
               "[SEP]"]] * 12
    to_word = word_matrix(tokens, 14)
    rows = torch.rand(12, 14, generator=gen)
    rows[:3, 6] = 5.0                                                        # the verb already top in three
    rows = rows / rows.sum(dim=1, keepdim=True)
    allowed = [allowed_words(t, 2) for t in tokens]
    relaxed = [allowed_words(t, 2, relaxed=True) for t in tokens]
    chosen = planted_items(12, 0.75, np.random.default_rng(2))
    verb_w, verb_tok = np.full(12, 6), np.full(12, 6)
    planted = plant_in_weights(rows, to_word, allowed, relaxed, chosen, verb_w, verb_tok)
    words = torch.bmm(planted[:, None, :], to_word)
    for pick in (allowed, relaxed):
        assert ((top_among(words, pick)[:, 0] == 6) == chosen).all()
    assert planted.sum(dim=1).tolist() == pytest.approx([1.0] * 12, abs=1e-6)   # still a distribution
    untouched = ~chosen & (top_among(torch.bmm(rows[:, None, :], to_word), relaxed)[:, 0] != 6) \
        & (top_among(torch.bmm(rows[:, None, :], to_word), allowed)[:, 0] != 6)
    assert torch.equal(planted[untouched], rows[untouched])


@pytest.mark.parametrize("n", [168, 240])
def test_v2_set_has_its_design(n):
    from explainer.minilm import Tokenizer
    tokens, items = Tokenizer().tokens, subject_verb_items_v2(n)
    per = n // 24
    assert len(items) == n and len({s.text for s in items}) == n
    assert [s.template for s in items] == [i // per for i in range(n)]       # 24 templates, equal sizes
    assert [s.body for s in items] == [BODIES[i // (3 * per)] for i in range(n)]
    assert sum(s.kind == "object_relative" for s in items) == n // 2
    assert {s.inner_words for s in items[:n // 2]} == {1, 2, 3, 4}
    assert sum(s.verb_final for s in items) == 8 * ((per + 1) // 2)          # half of T0, rounded up
    for s in items:
        t = tokens(s.text)
        marked = [s.subject, *s.verbs, *s.nouns] + ([s.inner_subject] if s.inner_subject else [])
        for word in marked:
            assert t.count(word) == 1, (word, s.text)                      # one WordPiece, once
        assert s.verb in SHARED_VERBS and s.verb in s.verbs
        assert not s.inner_verb or (s.inner_verb in SHARED_VERBS and s.inner_verb != s.verb)
        assert (t.index(s.verb) == len(t) - 3) == s.verb_final, s.text


def test_shared_verbs_are_single_pieces():
    from explainer.minilm import Tokenizer
    tokens = Tokenizer().tokens
    assert len(SHARED_VERBS) >= 6 and all(tokens(v) == ["[CLS]", v, "[SEP]"] for v in SHARED_VERBS)


def _rule_shares(items, tokens):
    toks = [tokens(s.text) for s in items]
    wi = [word_index(t) for t in toks]
    q_tok = np.array([t.index(s.subject) for t, s in zip(toks, items)])
    v_tok = np.array([t.index(s.verb) for t, s in zip(toks, items)])
    q = np.array([w[i] for w, i in zip(wi, q_tok)])
    v = np.array([w[i] for w, i in zip(wi, v_tok)])
    verbs = [[w[t.index(x)] for x in s.verbs] for w, t, s in zip(wi, toks, items)]
    return {"nearest": np.mean([nearest(a, vs) == b for a, vs, b in zip(q, verbs, v)]),
            "offset": best_offset_rule(q, v, q_tok, v_tok).mean(),
            "last": last_verb(v, verbs).mean(), "ordinal": best_verb_ordinal(q, v, verbs).mean(),
            "adjacent": adjacent_verb(v, verbs).mean()}


@pytest.mark.parametrize("n", [168, 240])
def test_v2_position_rules_get_what_the_design_says(n):
    from explainer.minilm import Tokenizer
    items = subject_verb_items_v2(n)
    tokens = Tokenizer().tokens
    assert _rule_shares(items, tokens) == pytest.approx(
        {"nearest": 0.25, "offset": 0.25, "last": 1 / 3, "ordinal": 0.5, "adjacent": 0.25})
    assert _rule_shares(items[:n // 2], tokens) == pytest.approx(
        {"nearest": 0.0, "offset": 0.25, "last": 1 / 3, "ordinal": 0.5, "adjacent": 0.5})
