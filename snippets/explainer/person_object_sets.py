"""C22's second sentence set (issue 33): perception and social verbs with person objects.

The first set (``head_role_sets.verb_object_sentences``) has one vocabulary: eight transfer
verbs and artefact objects. This one changes both. The verbs are perception and social verbs
(saw, met, helped, pushed, called, followed, ...); the direct object is a person, and half of
the objects are compounds ("the bus driver") or possessives ("the owner's son"); an artefact
follows the object in a prepositional phrase ("with a red umbrella"); 0-3 adjectives stand
on the object.

The first set's constraints hold here too. Another noun stands between the verb and its
object in every sentence: the compound's modifier or the possessor, and for a plain object a
clause set off by commas ("met, as the bell rang, the old teacher") or a place phrase before
the object ("met at the station the old teacher"). In more than half of the sentences that
clause puts another verb between the verb and its object, so the nearest verb to the object's
left is not its own; two nouns stand in between in more than half, so "the second noun after
the verb" is wrong there. ``checked`` fails loudly unless every marked word (verb, object,
intervening nouns, clause verb, every noun) is one WordPiece token of all-MiniLM-L6-v2 found
exactly once in its sentence, so a word is a token position.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from explainer.head_role_sets import _articles

VERBS = ["saw", "met", "helped", "pushed", "called", "followed", "watched", "noticed",
         "visited", "thanked", "greeted", "warned"]
SUBJECTS = ["girl", "boy", "student", "tourist", "neighbor", "writer", "cook", "artist"]
PERSONS = ["teacher", "doctor", "soldier", "pilot", "lawyer", "judge", "actor", "stranger",
           "waiter", "nurse", "singer", "dancer"]
COMPOUNDS = [("bus", "driver"), ("taxi", "driver"), ("police", "officer"), ("army", "officer"),
             ("piano", "teacher"), ("prison", "guard"), ("hotel", "manager"), ("bank", "clerk"),
             ("ship", "captain"), ("fire", "chief"), ("shop", "owner"), ("tennis", "coach")]
POSSESSORS = ["owner", "king", "mayor", "farmer", "merchant", "baker", "queen", "priest"]
KIN = ["son", "daughter", "wife", "husband", "brother", "sister", "friend", "uncle", "cousin",
       "servant"]
# every head noun an object can have: the object is a person
PERSON_NOUNS = set(PERSONS) | {head for _, head in COMPOUNDS} | set(KIN)
ADJECTIVES = ["old", "young", "tall", "tired", "friendly", "angry", "quiet", "famous", "rich",
              "kind", "busy", "shy"]
ARTEFACTS = ["umbrella", "bag", "camera", "hat", "lamp", "guitar", "suitcase", "ladder", "radio",
             "basket", "bottle", "violin"]
ARTEFACT_ADJECTIVES = ["red", "heavy", "new", "broken", "black", "small", "wooden", "blue"]
PREPOSITIONS = ["with", "near", "beside", "behind"]
# a clause between verb and object: (conjunction, noun, verb, a noun that can modify the noun)
CLAUSES = [("as", "bell", "rang", "church"), ("when", "rain", "stopped", "summer"),
           ("after", "show", "ended", "talent"), ("while", "band", "played", "jazz"),
           ("before", "train", "left", "night"), ("as", "music", "started", "dance"),
           ("when", "game", "began", "card"), ("after", "storm", "passed", "winter")]
# a place phrase between verb and object: (preposition, place, a noun that can modify it)
PLACES = [("at", "station", "bus"), ("at", "market", "city"), ("in", "church", "village"),
          ("in", "square", "town"), ("at", "gate", "garden"), ("in", "hall", "school")]
OPENERS = ["The", "Yesterday the", "That morning the", "Later the"]
TAILS = ["", " again", " twice"]

# (kind, how many): the object's form, and what else stands between the verb and the object
KINDS = [("compound", 24), ("possessive", 24), ("compound_clause", 24), ("possessive_clause", 24),
         ("clause", 24), ("clause_two_nouns", 32), ("place", 16), ("place_two_nouns", 24)]


@dataclass
class PersonObjectSentence:
    text: str
    kind: str
    verb: str
    object: str                 # the object's head noun, a person
    between: list[str]          # the nouns between verb and object, nearest the verb first
    n_adjectives: int
    clause_verb: str | None = None
    object_form: str = "plain"  # plain | compound | possessive
    nouns: list[str] = field(default_factory=list)     # every noun of the sentence, in order


def person_object_sentences(seed: int = 0) -> list[PersonObjectSentence]:
    """192 sentences, the same on every run (``seed``)."""
    rng = random.Random(seed)
    out, n = [], 0
    for kind, count in KINDS:
        for _ in range(count):
            subject, verb = rng.choice(SUBJECTS), rng.choice(VERBS)
            k = n % 4                                        # 0-3 adjectives, in turn
            adjectives = " ".join(rng.sample(ADJECTIVES, k))
            form = kind.split("_")[0] if kind.startswith(("compound", "possessive")) else "plain"
            if form == "compound":
                modifier, head = rng.choice(COMPOUNDS)
                phrase, inside = f"the {adjectives} {modifier} {head}", [modifier]
            elif form == "possessive":
                possessor, head = rng.choice(POSSESSORS), rng.choice(KIN)
                phrase, inside = f"the {possessor}'s {adjectives} {head}", [possessor]
            else:
                head = rng.choice(PERSONS)
                phrase, inside = f"the {adjectives} {head}", []
            before = []
            if kind.endswith("clause") or kind.startswith("clause"):
                conjunction, noun, clause_verb, modifier = rng.choice(CLAUSES)
                two = kind == "clause_two_nouns"
                before = [modifier, noun] if two else [noun]
                middle = f", {conjunction} the {' '.join(before)} {clause_verb},"
            else:
                clause_verb, middle = None, ""
                if kind.startswith("place"):
                    preposition, place, modifier = rng.choice(PLACES)
                    before = [modifier, place] if kind == "place_two_nouns" else [place]
                    middle = f" {preposition} the {' '.join(before)}"
            artefact = rng.choice(ARTEFACTS)
            described = " ".join(([rng.choice(ARTEFACT_ADJECTIVES)] if rng.random() < 0.5 else [])
                                 + [artefact])
            preposition = rng.choice(PREPOSITIONS)
            determiner = rng.choice(["a", "the"]) if preposition == "with" else "the"
            text = (f"{rng.choice(OPENERS)} {subject} {verb}{middle} {phrase} "
                    f"{preposition} {determiner} {described}{rng.choice(TAILS)}.")
            text = _articles(" ".join(text.split()))
            out.append(PersonObjectSentence(text, kind, verb, head, before + inside, k, clause_verb, form,
                                            [subject, *before, *inside, head, artefact]))
            n += 1
    return out


def checked(sentences, tokens) -> list:
    """``sentences`` unchanged, or ValueError: every marked word (verb, object, the nouns in
    between, the clause's verb, and ``nouns`` where a sentence lists them) must be one
    WordPiece token found exactly once in the sentence's ``tokens(text)``."""
    for s in sentences:
        t = tokens(s.text)
        marked = [s.verb, s.object, *s.between, *([s.clause_verb] if s.clause_verb else []),
                  *getattr(s, "nouns", [])]
        for word in dict.fromkeys(marked):
            if t.count(word) != 1:
                raise ValueError(f"{word!r} is not one token found once in {s.text!r}: {t}")
    return sentences
