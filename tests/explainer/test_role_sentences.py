"""How the sentence sets of the real-model head roles are built (snippets/explainer/role_sentences.py).

A head-role score is only as good as its sentence set: these tests check that each
marked word is where the template says, is one WordPiece token, and that the sets
are balanced so that a head with a fixed habit (the first noun, the nearest noun,
a fixed offset) cannot score well.
"""

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))
from explainer.role_sentences import (  # noqa: E402
    SOURCE_PAIR, ambiguous_word_sentences, context_words, coreference_sentences,
    verb_object_sentences, word_position)


@pytest.fixture(scope="module")
def tokens():
    from explainer.minilm import Tokenizer
    tokenizer = Tokenizer()
    return tokenizer.tokens


def test_each_set_has_at_least_30_sentences_and_no_duplicates():
    for sentences in (verb_object_sentences(), coreference_sentences(), ambiguous_word_sentences()):
        texts = [s.text for s in sentences]
        assert len(texts) >= 30
        assert len(set(texts)) == len(texts)


def test_verb_object_the_object_follows_the_verb_after_the_and_n_adjectives(tokens):
    sentences = verb_object_sentences()
    assert Counter(s.n_adjectives for s in sentences) == {1: 15, 2: 15, 3: 15}
    for s in sentences:
        t = tokens(s.text)
        verb, obj = word_position(t, s.verb), word_position(t, s.object)
        assert t.count(s.verb) == 1 and t.count(s.object) == 1, s.text
        # "verb the adj ... object": the object sits 2 + n tokens after the verb
        assert obj - verb == 2 + s.n_adjectives, (s.text, t)
        assert t[verb + 1] == "the"
        assert obj in context_words(t, verb)


def test_verb_object_no_fixed_offset_finds_the_object_in_more_than_a_third():
    offsets = Counter(2 + s.n_adjectives for s in verb_object_sentences())
    assert max(offsets.values()) / sum(offsets.values()) <= 1 / 3


def test_coreference_pairs_differ_in_one_token_and_it_refers_to_each_noun_once(tokens):
    sentences = coreference_sentences()
    assert len(sentences) == 40
    for a, b in zip(sentences[0::2], sentences[1::2]):
        ta, tb = tokens(a.text), tokens(b.text)
        assert len(ta) == len(tb)
        assert sum(x != y for x, y in zip(ta, tb)) == 1          # only the last word
        assert a.right_is_first and not b.right_is_first
        assert a.right == b.wrong and a.wrong == b.right
    for s in sentences + SOURCE_PAIR:
        t = tokens(s.text)
        for noun in (s.right, s.wrong) + ((s.other,) if s.other else ()):
            assert t.count(noun) == 1, (noun, t)
        assert t.count("it") == 1
        first, second = sorted((word_position(t, s.right), word_position(t, s.wrong)))
        assert first < second < word_position(t, "it")
        assert (word_position(t, s.right) == first) == s.right_is_first
        if s.other:   # Clark's third candidate comes first, in the opening phrase
            assert word_position(t, s.other) < first


def test_the_source_pair_is_source_a_sentence_with_tired_and_wide():
    assert SOURCE_PAIR[0].text == "The animal didn't cross the street because it was too tired."
    assert SOURCE_PAIR[1].text.endswith("too wide.")


def test_ambiguous_words_are_balanced_by_sense_and_by_cue_side(tokens):
    sentences = ambiguous_word_sentences()
    assert Counter(s.sense for s in sentences) == {0: 20, 1: 20}
    assert Counter(s.cue_before for s in sentences) == {True: 20, False: 20}
    for word in {s.word for s in sentences}:
        mine = [s for s in sentences if s.word == word]
        assert Counter((s.sense, s.cue_before) for s in mine) == {
            (0, True): 1, (0, False): 1, (1, True): 1, (1, False): 1}
    for s in sentences:
        t = tokens(s.text)
        assert t.count(s.word) == 1 and t.count(s.cue) == 1, (s.text, t)
        word, cue = word_position(t, s.word), word_position(t, s.cue)
        assert (cue < word) == s.cue_before
        candidates = context_words(t, word)
        assert cue in candidates and len(candidates) >= 3, (s.text, [t[i] for i in candidates])


def test_ambiguous_pairs_differ_only_in_the_cue(tokens):
    sentences = ambiguous_word_sentences()
    for a, b in zip(sentences[0::2], sentences[1::2]):
        ta, tb = tokens(a.text), tokens(b.text)
        assert a.pair == b.pair and a.sense != b.sense
        assert len(ta) == len(tb) and sum(x != y for x, y in zip(ta, tb)) == 1


def test_control_sentences_swap_only_the_ambiguous_word_for_a_one_token_noun(tokens):
    from explainer.role_sentences import control_sentences
    for s, c in zip(ambiguous_word_sentences(), control_sentences()):
        ts, tc = tokens(s.text), tokens(c.text)
        assert len(ts) == len(tc), (s.text, c.text)
        differ = [i for i, (x, y) in enumerate(zip(ts, tc)) if x != y]
        assert differ == [word_position(ts, s.word)] and tc[differ[0]] == c.word
