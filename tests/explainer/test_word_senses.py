"""The two-sense sentence set of C36 (snippets/explainer/word_senses.py).

A sense read from a word's value means something only if the two senses' sentences differ
in the cue alone (so the layer-1 value, context-free, is the same for both), and if no
positional habit (a fixed offset, the nearest noun) would find the cue most of the time.
"""

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))
from explainer.role_sentences import context_words  # noqa: E402
from explainer.word_senses import FRAMES, SENSES, sense_sentences  # noqa: E402


@pytest.fixture(scope="module")
def tokens():
    from explainer.minilm import Tokenizer
    return Tokenizer().tokens


def test_at_least_five_words_and_twenty_frames_per_sense():
    sentences = sense_sentences()
    assert len(SENSES) >= 5 and len(FRAMES) >= 20
    per_sense = Counter((s.word, s.sense) for s in sentences)
    assert set(per_sense.values()) == {len(FRAMES)} and len(per_sense) == 2 * len(SENSES)
    assert len({s.text for s in sentences}) == len(sentences)


def test_every_word_and_cue_is_one_token_and_the_cues_of_two_senses_differ(tokens):
    for word, (first, second) in SENSES.items():
        assert not set(first) & set(second), word
        for w in (word, *first, *second):
            assert tokens(w) == ["[CLS]", w, "[SEP]"], w


def test_a_frame_is_a_minimal_pair_with_the_word_at_the_same_place(tokens):
    by_pair = {}
    for s in sense_sentences():
        by_pair.setdefault((s.word, s.frame), []).append(s)
    for (word, _), (a, b) in by_pair.items():
        ta, tb = tokens(a.text), tokens(b.text)
        assert {a.sense, b.sense} == {0, 1}
        assert len(ta) == len(tb) and ta.index(word) == tb.index(word)
        assert ta.count(word) == 1
        assert [i for i, (x, y) in enumerate(zip(ta, tb)) if x != y] == [ta.index(a.cue)]


def test_no_fixed_offset_and_no_nearest_word_rule_finds_the_cue_in_more_than_half(tokens):
    offsets, nearest_is_cue, positions = Counter(), 0, Counter()
    sentences = sense_sentences()
    for s in sentences:
        t = tokens(s.text)
        word, cue = t.index(s.word), t.index(s.cue)
        offsets[cue - word] += 1
        positions[word] += 1
        content = context_words(t, word)
        nearest_is_cue += min(content, key=lambda i: (abs(i - word), i)) == cue
    assert max(offsets.values()) <= len(sentences) / 2
    assert nearest_is_cue <= len(sentences) / 2
    assert max(positions.values()) <= len(sentences) / 2
