"""Sentence sets for the head-role rules of issue 19 (real model, MiniLM).

Each set varies where the words sit, so that rules that only look at positions
(a fixed offset, "the nearest noun", "the nearest verb") are right in at most half
of the items; the snippet records each such rule's share.

- ``verb_object_sentences()`` (C22): another noun stands between the verb and its
  direct object, or right after the verb — a possessor ("sold the man's cart"), an
  indirect object ("gave the boy a cart"), a noun modifier ("the farm cart") — with
  0-3 adjectives on the object; in half of them a relative clause on the indirect
  object ("gave the woman who smiled a cart") puts another verb nearer the object.
- ``subject_verb_sentences()`` (C32): a subject and its verb; in at least half an
  object relative clause ("The man whom the dog bit laughed") makes the nearest
  verb not the subject's.
- ``two_word_names()`` (C07): fixed two-word names ("New York") in carrier sentences.

Every marked word is one WordPiece token of all-MiniLM-L6-v2 (tests check it).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

# ------------------------------------------------------------ C22: verb -> object

SUBJECTS = ["farmer", "merchant", "sailor", "soldier", "priest", "artist"]
GIVE_VERBS = ["gave", "sold", "sent", "lent", "offered", "brought", "showed", "handed"]
OBJECTS = ["cart", "box", "book", "car", "letter", "coat", "lamp", "table", "boat", "chair",
           "basket", "bike"]
ADJECTIVES = ["big", "old", "red", "small", "wooden", "new", "heavy", "green", "cheap", "blue"]
PEOPLE = ["man", "boy", "girl", "woman", "teacher", "doctor", "king", "baker", "child", "queen"]
KIN = ["brother", "sister", "mother", "father", "son", "daughter", "wife", "uncle"]
MODIFIERS = ["farm", "kitchen", "garden", "school"]
CLAUSE_VERBS = ["smiled", "waited", "laughed", "cried", "sang", "shouted"]
TAILS = ["", " at the market", " last week", " for ten dollars", " in the morning"]

# (kind, how many): a kind says what stands between the verb and the object
VERB_OBJECT_KINDS = [("possessor", 16), ("two_possessors", 32), ("indirect_object", 24),
                     ("modifier", 24), ("indirect_object_clause", 32),
                     ("indirect_object_clause_modifier", 32), ("possessor_indirect_clause", 32)]


def _articles(text: str) -> str:
    """'a old' -> 'an old'."""
    words = text.split(" ")
    return " ".join("an" if w == "a" and nxt[0] in "aeiou" else w
                    for w, nxt in zip(words, words[1:] + ["."]))


@dataclass
class VerbObjectSentence:
    text: str
    kind: str
    verb: str
    object: str
    between: list[str]          # the nouns between verb and object, nearest the verb first
    n_adjectives: int
    clause_verb: str | None = None


def verb_object_sentences(seed: int = 0) -> list[VerbObjectSentence]:
    rng = random.Random(seed)
    out, n = [], 0
    for kind, count in VERB_OBJECT_KINDS:
        for _ in range(count):
            subject, verb, obj = rng.choice(SUBJECTS), rng.choice(GIVE_VERBS), rng.choice(OBJECTS)
            person, kin = rng.sample(PEOPLE, 1)[0], rng.choice(KIN)
            modifier, clause_verb = rng.choice(MODIFIERS), rng.choice(CLAUSE_VERBS)
            k = n % 4                                         # 0-3 adjectives, in turn
            adjectives = " ".join(rng.sample(ADJECTIVES, k))
            noun = f"{adjectives} {obj}".strip()
            opener = ["The", "The tired", "Yesterday the", "That morning the"][rng.randrange(4)]
            tail = TAILS[rng.randrange(len(TAILS))]
            middle, between, cv = {
                "possessor": (f"the {person}'s {noun}", [person], None),
                "two_possessors": (f"the {person}'s {kin}'s {noun}", [person, kin], None),
                "indirect_object": (f"the {person} a {noun}", [person], None),
                "modifier": (f"the {adjectives} {modifier} {obj}".replace("  ", " "), [modifier], None),
                "indirect_object_clause": (f"the {person} who {clause_verb} a {noun}", [person], clause_verb),
                "indirect_object_clause_modifier": (
                    f"the {person} who {clause_verb} a {adjectives} {modifier} {obj}".replace("  ", " "),
                    [person, modifier], clause_verb),
                "possessor_indirect_clause": (f"the {person}'s {kin} who {clause_verb} a {noun}",
                                              [person, kin], clause_verb),
            }[kind]
            text = _articles(f"{opener} {subject} {verb} {middle}{tail}.")
            out.append(VerbObjectSentence(text, kind, verb, obj, between, k, cv))
            n += 1
    return out


# ------------------------------------------------------------ C32: subject -> verb

SUBJECT_NOUNS = ["man", "woman", "boy", "girl", "teacher", "doctor", "farmer", "singer"]
ACTORS = ["dog", "cat", "horse", "king", "baker", "child", "queen", "sailor"]
TRANSITIVE = ["bit", "saw", "chased", "met", "helped", "called", "followed", "found", "liked", "pushed"]
MAIN_VERBS = ["laughed", "slept", "smiled", "left", "cried", "waited", "sang", "shouted"]
ACTOR_ADJECTIVES = ["old", "young", "big", "small", "angry", "tired"]
PLACES = ["door", "window", "gate", "river", "bridge", "station"]
LATER = [" when the bell rang", " after the rain stopped", " because the music played", "",
         " in the end", " that night"]


@dataclass
class SubjectVerbSentence:
    text: str
    kind: str                   # object_relative | subject_relative | prepositional
    subject: str
    verb: str
    other_verbs: list[str] = field(default_factory=list)


def subject_verb_sentences(seed: int = 0) -> list[SubjectVerbSentence]:
    """56 sentences: 32 with an object relative clause, 12 subject relative, 12 prepositional."""
    rng = random.Random(seed)
    out = []
    for kind, count in (("object_relative", 32), ("subject_relative", 12), ("prepositional", 12)):
        for i in range(count):
            subject, actor = rng.sample(SUBJECT_NOUNS, 1)[0], rng.choice(ACTORS)
            inner, verb = rng.choice(TRANSITIVE), rng.choice(MAIN_VERBS)
            later = LATER[i % len(LATER)]
            adjective = ["", "old ", "young ", "tall "][rng.randrange(4)]
            opener = ["The", "Then the", "Later that day the"][rng.randrange(3)]
            two = rng.sample(ACTOR_ADJECTIVES, 2)
            extra = ["", f"{two[0]} ", f"{two[0]} {two[1]} "][i % 3]
            after = " yesterday" if i % 4 == 3 else ""
            middle = {"object_relative": f"{'whom' if i % 2 else 'that'} the {extra}{actor} {inner}{after}",
                      "subject_relative": f"who {inner} the {extra}{actor}{after}",
                      "prepositional": f"near the {extra}{rng.choice(PLACES)}{after}"}[kind]
            others = [inner] if kind != "prepositional" else []
            if later.strip().split(" ")[-1] in ("rang", "stopped", "played"):
                others.append(later.strip().split(" ")[-1])
            text = f"{opener} {adjective}{subject} {middle} {verb}{later}."
            out.append(SubjectVerbSentence(text, kind, subject, verb, others))
    return out


# ------------------------------------------------------------ C07: previous token

TWO_WORD_NAMES = [
    "New York", "Los Angeles", "Hong Kong", "San Francisco", "Las Vegas", "Buenos Aires",
    "New Delhi", "Sri Lanka", "Costa Rica", "Puerto Rico", "El Salvador", "Saudi Arabia",
    "South Africa", "North Korea", "New Zealand", "Tel Aviv", "Abu Dhabi", "Santa Fe",
    "Real Madrid", "Wall Street", "White House", "Prime Minister", "Red Cross", "United Nations",
    "Harry Potter", "Star Wars", "Burger King", "Mount Everest", "Pearl Harbor", "Notre Dame",
    "Silicon Valley", "Times Square", "Central Park", "Cape Town", "Grand Canyon", "Big Ben",
    "Middle East", "Golden Gate", "Soviet Union", "Supreme Court", "Dead Sea", "Great Britain",
    "Sierra Leone", "Monte Carlo", "San Diego", "Kuala Lumpur", "Santa Claus", "Rhode Island",
]
NAME_CARRIERS = ["{} was in the news again.", "We talked about {} all night.",
                 "My friend wrote a long story about {} last year.",
                 "Everyone in the small town had heard of {}."]


@dataclass
class NameSentence:
    text: str
    first: str
    second: str


def two_word_names() -> list[NameSentence]:
    out = []
    for i, name in enumerate(TWO_WORD_NAMES):
        first, second = name.split(" ")
        out.append(NameSentence(NAME_CARRIERS[i % len(NAME_CARRIERS)].format(name),
                                first.lower(), second.lower()))
    return out


# ------------------------------------------------------------ the attention explorer

# Sentences the attention explorer shows for the heads of C22 and C32: explorer.py appends
# them to its list at EXPLORER_INDEX (it checks), so the head-roles page links to them by number.
EXPLORER_INDEX = 16
EXPLORER_EXAMPLES = {
    "c22": "The farmer sold the man's big old wooden cart at the market.",
    "c32": "The man whom the dog bit laughed when the bell rang.",
}
