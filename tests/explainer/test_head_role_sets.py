"""The sentence sets of issue 19's head rules (snippets/explainer/head_role_sets.py).

Each marked word is one WordPiece token, found once where the template puts it, and the
sets are built so that a rule looking only at positions is right in at most half the items
(computed here independently of the snippet, from the tokens)."""

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))
from explainer.head_role_sets import (  # noqa: E402
    subject_verb_sentences, two_word_names, verb_object_sentences)


@pytest.fixture(scope="module")
def tokens():
    from explainer.minilm import Tokenizer
    return Tokenizer().tokens


def best_offset_share(pairs) -> float:
    offsets = Counter(target - query for query, target in pairs)
    return max(offsets.values()) / len(pairs)


def test_verb_object_words_are_single_tokens_found_once_and_positions_vary(tokens):
    sentences = verb_object_sentences()
    pairs, second_noun = [], []
    for s in sentences:
        t = tokens(s.text)
        for word in [s.verb, s.object, *s.between]:
            assert t.count(word) == 1, (word, s.text)
        verb, obj = t.index(s.verb), t.index(s.object)
        between = [t.index(w) for w in s.between]
        assert all(verb < b < obj for b in between), s.text     # the other noun stands in between
        pairs.append((verb, obj))
    assert len(sentences) >= 48 and len({s.text for s in sentences}) == len(sentences)
    assert best_offset_share(pairs) <= 0.5
    assert sum(s.n_adjectives >= 2 for s in sentences) >= len(sentences) / 3
    # the nearest verb to the left of the object is the clause verb in at least half of them
    assert sum(s.clause_verb is not None for s in sentences) >= len(sentences) / 2


def test_subject_verb_sets_have_half_object_relatives_and_no_winning_position_rule(tokens):
    sentences = subject_verb_sentences()
    assert len(sentences) >= 48
    assert sum(s.kind == "object_relative" for s in sentences) >= len(sentences) / 2
    pairs, nearest_right = [], 0
    for s in sentences:
        t = tokens(s.text)
        for word in [s.subject, s.verb, *s.other_verbs]:
            assert t.count(word) == 1, (word, s.text)
        subject, verb = t.index(s.subject), t.index(s.verb)
        verbs = [verb] + [t.index(w) for w in s.other_verbs]
        nearest_right += min(verbs, key=lambda i: (abs(i - subject), i)) == verb
        pairs.append((subject, verb))
    assert best_offset_share(pairs) <= 0.5
    assert nearest_right / len(sentences) <= 0.5


def test_two_word_names_are_two_tokens_side_by_side(tokens):
    names = two_word_names()
    assert len(names) >= 40 and len({(n.first, n.second) for n in names}) == len(names)
    for n in names:
        t = tokens(n.text)
        assert t.count(n.second) == 1 and t[t.index(n.second) - 1] == n.first, n.text
