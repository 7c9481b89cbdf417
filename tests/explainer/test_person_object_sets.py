"""C22's second sentence set (snippets/explainer/person_object_sets.py), issue 33: perception
and social verbs, person objects, half of them compounds or possessives, an artefact in a
following prepositional phrase, 0-3 adjectives; a noun between verb and object in every
sentence, and no position-only rule right in more than half (computed here from the tokens,
independently of the snippet)."""

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))
from explainer import head_role_sets  # noqa: E402
from explainer.person_object_sets import (ARTEFACTS, KINDS, PERSON_NOUNS, PREPOSITIONS,  # noqa: E402
                                          VERBS, PersonObjectSentence, checked,
                                          person_object_sentences)


@pytest.fixture(scope="module")
def tokens():
    from explainer.minilm import Tokenizer
    return Tokenizer().tokens


@pytest.fixture(scope="module")
def sentences():
    return person_object_sentences()


def test_counts_and_design(sentences):
    assert len(sentences) >= 192 and len({s.text for s in sentences}) == len(sentences)
    assert Counter(s.kind for s in sentences) == dict(KINDS)
    assert sum(s.object_form != "plain" for s in sentences) == len(sentences) / 2    # half
    assert {s.object_form for s in sentences} == {"plain", "compound", "possessive"}
    assert {s.n_adjectives for s in sentences} == {0, 1, 2, 3}
    assert sum(s.n_adjectives >= 2 for s in sentences) >= len(sentences) / 3
    # a vocabulary of its own: no verb of the first set's transfer verbs
    assert not set(VERBS) & set(head_role_sets.GIVE_VERBS)
    assert {s.verb for s in sentences} <= set(VERBS)


def test_every_marked_word_is_one_token_found_once(sentences, tokens):
    assert checked(sentences, tokens) is sentences          # raises otherwise
    for s in sentences:
        t = tokens(s.text)
        for word in [s.verb, s.object, *s.between, *s.nouns]:
            assert t.count(word) == 1 and tokens(word)[1:-1] == [word], (word, s.text)


def test_checked_fails_loudly_on_a_word_of_several_pieces_or_found_twice(tokens):
    split = PersonObjectSentence("The girl met the zorblatter with a hat.", "plain", "met", "zorblatter", ["girl"], 0)
    twice = PersonObjectSentence("The girl met the girl with a hat.", "plain", "met", "girl", ["hat"], 0)
    for bad in (split, twice):
        with pytest.raises(ValueError):
            checked([bad], tokens)


def test_the_object_is_a_person_compound_or_possessive_as_labelled(sentences, tokens):
    for s in sentences:
        t = tokens(s.text)
        assert s.object in PERSON_NOUNS and s.object not in ARTEFACTS, s.text
        o = t.index(s.object)
        if s.object_form == "compound":               # the modifier noun right before the head
            assert t[o - 1] == s.between[-1], s.text
        elif s.object_form == "possessive":           # possessor ' s [adjectives] head
            p = t.index(s.between[-1])
            assert t[p + 1:p + 3] == ["'", "s"] and o - (p + 3) == s.n_adjectives, s.text
        else:
            assert t[o - 1 - s.n_adjectives] == "the", s.text


def test_a_noun_between_and_an_artefact_after_in_a_prepositional_phrase(sentences, tokens):
    for s in sentences:
        t = tokens(s.text)
        verb, obj = t.index(s.verb), t.index(s.object)
        assert s.between and all(verb < t.index(w) < obj for w in s.between), s.text
        artefact = s.nouns[-1]
        a = t.index(artefact)
        assert artefact in ARTEFACTS and a > obj, s.text
        assert t[obj + 1] in PREPOSITIONS and obj + 1 < a <= obj + 4, s.text    # prep det [adj] artefact


def test_no_position_rule_is_right_in_more_than_half(sentences, tokens):
    offsets, second, nearest_left, next_noun = Counter(), 0, 0, 0
    for s in sentences:
        t = tokens(s.text)
        verb, obj = t.index(s.verb), t.index(s.object)
        nouns = sorted(t.index(w) for w in s.nouns)
        after = [i for i in nouns if i > verb]
        verbs = [verb] + ([t.index(s.clause_verb)] if s.clause_verb else [])
        offsets[obj - verb] += 1
        second += after[1] == obj
        next_noun += after[0] == obj
        nearest_left += max(v for v in verbs if v < obj) == verb
    n = len(sentences)
    assert max(offsets.values()) / n <= 0.5 and second / n <= 0.5 and next_noun == 0
    assert nearest_left / n <= 0.5
