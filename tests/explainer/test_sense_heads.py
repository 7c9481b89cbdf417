"""C21's frames and tests (snippets/explainer/sense_heads.py): the sentence set, the sign-flip
max statistic over heads, the held-out sense probe and the "settles the sense" rule."""

import ast
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "snippets"))
from explainer.role_sentences import context_words  # noqa: E402
from explainer.sense_heads import (EXPLORER_BANK, EXPLORER_BANK_INDEX, FRAMES, PLAIN, SENSES,  # noqa: E402
                                   SOURCE_CUES, ambiguity_test, centroid_probe, fold_of, position_rules, probe_accuracy,
                                   probe_predict, sense_frames, settling_heads)


@pytest.fixture(scope="module")
def tokens():
    from explainer.minilm import Tokenizer
    return Tokenizer().tokens


# ------------------------------------------------------------------ the frames

def test_at_least_sixty_frames_and_bank_has_interest_and_loan():
    frames = sense_frames()
    assert len(frames) == len(SENSES) * len(FRAMES) * 2 >= 60
    assert set(SOURCE_CUES) <= set(SENSES["bank"][0])
    assert {f.cue for f in frames if f.word == "bank" and f.sense == 0} >= set(SOURCE_CUES)
    assert len({f.text for f in frames}) == len(frames)


def test_every_word_cue_and_plain_noun_is_one_wordpiece_and_the_plain_noun_is_no_cue(tokens):
    cues = {c for pair in SENSES.values() for sense in pair for c in sense}
    for word, (first, second) in SENSES.items():
        assert not set(first) & set(second), word
        assert PLAIN[word] not in cues and PLAIN[word] not in SENSES, word
        for w in (word, PLAIN[word], *first, *second):
            assert tokens(w) == ["[CLS]", w, "[SEP]"], w


def test_the_plain_twin_differs_only_at_the_word(tokens):
    for f in sense_frames():
        a, b = tokens(f.text), tokens(f.plain)
        assert len(a) == len(b) and a.count(f.word) == 1
        assert [i for i, (x, y) in enumerate(zip(a, b)) if x != y] == [a.index(f.word)]
        assert b[a.index(f.word)] == PLAIN[f.word]


def test_no_position_only_rule_finds_the_cue_in_more_than_half_the_frames(tokens):
    word_pos, cue_pos, candidates, offsets, nearest = [], [], [], Counter(), 0
    for f in sense_frames():
        t = tokens(f.text)
        w, c = t.index(f.word), t.index(f.cue)
        content = context_words(t, w)
        word_pos.append(w), cue_pos.append(c), candidates.append(content)
        offsets[c - w] += 1
        nearest += min(content, key=lambda i: (abs(i - w), i)) == c      # counted by hand
    rules = position_rules(word_pos, cue_pos, candidates)
    assert rules["fixed_offset"] == max(offsets.values()) / len(word_pos)
    assert rules["nearest_word"] == nearest / len(word_pos)
    assert max(rules.values()) <= 0.5


def test_position_rules_on_a_known_case():
    # item 1: the cue at +2, nearest is +1; item 2: the cue at +1 and nearest; item 3: cue at -1, tie
    # between -1 and +1 goes to the left, so nearest finds it.
    rules = position_rules([1, 1, 3], [3, 2, 2], [[2, 3], [2, 5], [2, 4]])
    assert rules == {"fixed_offset": 1 / 3, "nearest_word": 2 / 3}


def old_position_rules(word_pos, cue_pos, candidates) -> dict[str, float]:
    """position_rules as it was before it took head_picks.best_fixed_offset (frozen copy)."""
    offsets = np.asarray(cue_pos) - np.asarray(word_pos)
    fixed = max(float(np.mean(offsets == o)) for o in set(offsets.tolist()))
    nearest = float(np.mean([min(c, key=lambda i: (abs(i - w), i)) == cue
                             for c, w, cue in zip(candidates, word_pos, cue_pos)]))
    return {"fixed_offset": fixed, "nearest_word": nearest}


def test_position_rules_give_the_old_shares_bit_for_bit(tokens):
    # The real frames, a resampling's subsets of them, and random items with tied offsets.
    frames = sense_frames()
    word_pos = [tokens(f.text).index(f.word) for f in frames]
    cue_pos = [tokens(f.text).index(f.cue) for f in frames]
    candidates = [context_words(tokens(f.text), w) for f, w in zip(frames, word_pos)]
    rng = np.random.default_rng(0)
    cases = [(word_pos, cue_pos, candidates)]
    for _ in range(200):
        items = rng.integers(0, len(frames), size=int(rng.integers(1, 2 * len(frames))))
        cases.append(([word_pos[i] for i in items], [cue_pos[i] for i in items], [candidates[i] for i in items]))
        n = int(rng.integers(1, 60))
        words = rng.integers(0, 12, size=n)
        cases.append((words.tolist(), (words + rng.integers(-3, 4, size=n)).tolist(),
                      [rng.integers(0, 15, size=4).tolist() for _ in range(n)]))
    for case in cases:
        new, old = position_rules(*case), old_position_rules(*case)
        assert new == old and all(type(v) is float for v in new.values()), (new, old)


def test_the_folds_keep_a_templates_two_senses_together_and_hold_equal_shares():
    folds = Counter(fold_of(f) for f in range(len(FRAMES)))
    assert len(folds) == 5 and set(folds.values()) == {len(FRAMES) // 5}
    by_frame = {}
    for s in sense_frames():
        by_frame.setdefault((s.word, s.frame), set()).add(fold_of(s.frame))
    assert all(len(v) == 1 for v in by_frame.values())


def test_the_explorer_sentence_for_c21_is_where_the_link_points():
    tree = ast.parse((ROOT / "snippets" / "real_model" / "explorer.py").read_text(encoding="utf-8"))
    sentences = next(ast.literal_eval(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign)
                     and getattr(node.targets[0], "id", None) == "SENTENCES")
    assert sentences[EXPLORER_BANK_INDEX] == EXPLORER_BANK
    assert "bank" in EXPLORER_BANK.split() and all(cue in EXPLORER_BANK for cue in SOURCE_CUES)


# ------------------------------------------------------------------ the ambiguity test

def test_a_planted_head_is_found_and_heads_without_a_difference_are_not():
    rng = np.random.default_rng(1)
    n, heads = 100, 20
    plain = rng.integers(0, 2, size=(n, heads))
    ambiguous = plain.copy()                                     # null heads: no difference at all
    swap = rng.random((n, heads)) < 0.5                          # ... or a symmetric one
    ambiguous[swap] = rng.integers(0, 2, size=swap.sum())
    ambiguous[:, 7], plain[:, 7] = 1, (np.arange(n) % 10 < 6)    # planted: right in 100 % vs 60 %
    gap, p = ambiguity_test(ambiguous, plain, n_draws=1000, seed=0)
    assert gap[7] == pytest.approx(0.4) and p[7] < 0.01
    assert int(np.argmax(gap)) == 7
    assert (p[np.arange(heads) != 7] > 0.05).mean() >= 0.9


def test_a_null_heads_corrected_p_is_roughly_uniform_when_it_is_the_only_head():
    rng = np.random.default_rng(2)
    ps = []
    for _ in range(200):
        d = rng.choice([-1, 0, 1], size=(80, 1), p=[0.3, 0.4, 0.3])
        ambiguous, plain = (d > 0).astype(int), (d < 0).astype(int)
        ps.append(ambiguity_test(ambiguous, plain, n_draws=500, seed=int(rng.integers(1 << 30)))[1][0])
    ps = np.array(ps)
    assert 0.01 <= (ps < 0.05).mean() <= 0.1
    assert 0.4 <= ps.mean() <= 0.6


def test_the_max_over_heads_makes_a_heads_p_no_smaller_than_alone():
    rng = np.random.default_rng(3)
    ambiguous, plain = rng.integers(0, 2, size=(60, 10)), rng.integers(0, 2, size=(60, 10))
    _, together = ambiguity_test(ambiguous, plain, n_draws=1000, seed=0)
    for h in range(10):
        _, alone = ambiguity_test(ambiguous[:, [h]], plain[:, [h]], n_draws=1000, seed=0)
        assert together[h] >= alone[0] - 1e-12


# ------------------------------------------------------------------ the probe and settling

def planted_states(n_frames=20, dims=8, seed=0):
    """Two words x n_frames x 2 senses; the sense is written on dimension 0 (+/-1), noise elsewhere."""
    rng = np.random.default_rng(seed)
    words, senses, frames = [], [], []
    for word in ("a", "b"):
        for f in range(n_frames):
            for sense in (0, 1):
                words.append(word), senses.append(sense), frames.append(f)
    senses = np.array(senses)
    x = rng.normal(0, 0.1, size=(len(senses), dims))
    x[:, 0] += np.where(senses == 1, 1.0, -1.0)
    return x, words, senses, [fold_of(f) for f in frames]


def test_the_probe_is_right_on_clean_states_and_drops_by_half_when_the_sense_is_erased():
    clean, words, senses, folds = planted_states()
    erased = clean.copy()
    erased[:, 0] = 0.0                                           # the "ablation": the sense gone
    shifted = clean + 0.01                                       # harmless change
    accuracy = probe_accuracy(clean, np.stack([clean, erased, shifted]), words, senses, folds)
    assert accuracy[0] == 1.0 and accuracy[2] == 1.0
    assert 0.3 <= accuracy[1] <= 0.7                             # about chance: a drop near 0.5


def test_the_probe_is_tested_only_on_frames_it_was_not_trained_on():
    # Sense readable only from a per-template code: a probe that saw the test template would
    # be right; trained on other templates, it is at chance.
    rng = np.random.default_rng(5)
    n = 20
    frames = np.repeat(np.arange(n), 2)
    senses = np.tile([0, 1], n)
    codes = rng.normal(size=(n, 200))                            # nearly orthogonal per template
    x = codes[frames] * np.where(senses == 1, 1.0, -1.0)[:, None]   # sign flips with the sense
    in_sample = probe_predict(centroid_probe(x, senses), x)
    assert (in_sample == senses).mean() >= 0.95                  # a leak would show
    accuracy = probe_accuracy(x, x[None], ["w"] * len(x), senses, [fold_of(f) for f in frames])
    assert accuracy[0] <= 0.75


def test_a_head_settles_only_with_the_largest_drop_of_its_layer_and_at_least_the_threshold():
    drop = np.array([0.15, 0.05, 0.0,      # layer 1: head 1 settles
                     0.12, 0.12, 0.0,      # layer 2: a tie, neither is larger than the other
                     0.09, 0.0, 0.0,       # layer 3: the largest, but below 0.1
                     0.1, 0.02, 0.03])     # layer 4: exactly the threshold counts
    assert settling_heads(drop, 3).tolist() == [True, False, False, False, False, False,
                                                False, False, False, True, False, False]


def _c21_inputs(seed=0):
    """20 templates x 5 words x 2 senses; 4 heads, head 0 with a real ambiguity difference;
    states whose sense is erased when head 1 (of 2 per layer) is zeroed."""
    rng = np.random.default_rng(seed)
    frames = np.repeat(np.arange(20), 10)
    words, senses = np.tile(np.repeat(np.arange(5), 2), 20), np.tile([0, 1], 100)
    hit_plain = rng.integers(0, 2, (200, 4))
    hit_ambiguous = hit_plain.copy()
    hit_ambiguous[:, 0] = 1
    clean = rng.normal(size=(200, 8)) + 3 * senses[:, None]
    erased = rng.normal(size=(200, 8)) + 1.5
    tested = np.stack([clean, clean, erased, clean, clean])             # unablated, then heads 0..3
    word_pos, cue_pos = list(rng.integers(1, 4, 200)), list(rng.integers(5, 9, 200))
    candidates = [list(range(1, 10))] * 200
    return (hit_ambiguous, hit_plain, word_pos, cue_pos, candidates, clean, tested, words, senses,
            [fold_of(f) for f in frames]), frames


def test_c21_numbers_on_every_frame_are_the_rules_numbers_and_a_draw_keeps_whole_templates():
    from explainer.item_resampling import cluster_draws
    from explainer.sense_heads import c21_numbers
    args, frames = _c21_inputs()
    rule = dict(n_heads=2, gap_min=0.25, drop_min=0.1, alpha=0.05, n_draws=500)
    everything = c21_numbers(np.arange(200), *args, **rule)
    gap, p = ambiguity_test(args[0], args[1], n_draws=500)
    probe = probe_accuracy(*args[5:])
    settles = settling_heads(probe[0] - probe[1:], 2, 0.1)
    assert everything == dict(ambiguity_heads=((gap >= 0.25) & (p < 0.05)).sum(), max_difference=gap.max(),
                              position_rule_max=max(position_rules(*args[2:5]).values()),
                              settling_heads=settles.sum(), both_heads=(settles & (gap >= 0.25) & (p < 0.05)).sum(),
                              max_drop=(probe[0] - probe[1:]).max())
    assert everything["both_heads"] == 0 and everything["settling_heads"] == 1   # head 1 settles, head 0 differs
    for items in cluster_draws(frames, draws=5, seed=1):
        again = c21_numbers(items, *args, **rule)
        assert again["ambiguity_heads"] >= 1 and again["settling_heads"] == 1
