"""C32's sentences at issue 33's size: the templates of head_role_sets.subject_verb_sentences
(its word lists, imported, not copied), grown to 168 sentences — or to 240, the claim's
item_cap, for G2's one more look (128 object relatives, 56 subject relatives, 56 prepositional
phrases: the same templates, the same cycles of inner lengths and sentence shapes).

- 96 of 168 carry an object relative clause whose inner material (the words between the
  relative pronoun and the clause's verb) is 1 to 4 words long, 24 sentences each: a pronoun
  ("The man whom they saw laughed"), a determiner and a noun ("whom the dog bit", "whom her
  cat bit"), with one or two adjectives ("whom the old dog bit", "whom a big angry horse
  chased"); 36 carry a subject relative clause, 36 a prepositional phrase.
- The subject's verb is sentence-final in a quarter of them only: a prepositional phrase
  ("laughed at the gate"), a later clause ("laughed when the bell rang") or both follow it.

Every marked word (subject, verbs, nouns) occurs once and is one WordPiece of
all-MiniLM-L6-v2 (tests check it), so a word is a token position.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from explainer.head_role_sets import (ACTOR_ADJECTIVES, ACTORS, LATER, MAIN_VERBS, PLACES,
                                      SUBJECT_NOUNS, TRANSITIVE)

KINDS = {168: (("object_relative", 96), ("subject_relative", 36), ("prepositional", 36)),
         240: (("object_relative", 128), ("subject_relative", 56), ("prepositional", 56))}
PRONOUNS = ["they", "we", "she", "he"]                 # inner material of one word
DETERMINERS = ["the", "a", "his", "her", "their"]
AFTER_VERB = ["at", "near", "by"]                      # a prepositional phrase after the verb
LATER_NOUNS = {"bell", "rain", "music", "end", "night"}


@dataclass
class SubjectVerbItem:
    text: str
    kind: str                   # object_relative | subject_relative | prepositional
    subject: str
    verb: str
    other_verbs: list[str] = field(default_factory=list)
    nouns: list[str] = field(default_factory=list)     # every noun of the sentence, subject included
    inner_words: int = 0        # object relatives: words between the pronoun and the clause's verb
    verb_final: bool = False    # is the subject's verb the sentence's last word?


def subject_verb_items(n: int = 168, seed: int = 0) -> list[SubjectVerbItem]:
    """``n`` sentences (168, or 240 for the one more look), the same on every run (``seed``)."""
    rng = random.Random(seed)
    out = []
    for kind, count in KINDS[n]:
        for i in range(count):
            subject, actor = rng.choice(SUBJECT_NOUNS), rng.choice(ACTORS)
            inner, verb = rng.choice(TRANSITIVE), rng.choice(MAIN_VERBS)
            place, place_after = rng.sample(PLACES, 2)
            adjective = ["", "old ", "young ", "tall "][rng.randrange(4)]
            opener = ["The", "Then the", "Later that day the"][rng.randrange(3)]
            two = rng.sample(ACTOR_ADJECTIVES, 2)
            determiner = rng.choice(DETERMINERS)
            nouns, inner_words = [subject], 0
            if kind == "object_relative":
                inner_words = 1 + i % 4
                if inner_words == 1:
                    material = rng.choice(PRONOUNS)
                else:
                    material = " ".join([determiner, *two[:inner_words - 2], actor])
                    nouns.append(actor)
                middle = f"{'whom' if (i // 16) % 2 else 'that'} {material} {inner}"
            elif kind == "subject_relative":
                extra = " ".join(two[:i % 3])
                middle = f"who {inner} {determiner} {extra + ' ' if extra else ''}{actor}"
                nouns.append(actor)
            else:
                extra = " ".join(two[:i % 3])
                middle = f"near the {extra + ' ' if extra else ''}{place}"
                nouns.append(place)
            others = [inner] if kind != "prepositional" else []
            shape = i % 4 if kind != "object_relative" else (i // 4) % 4
            after = f" {rng.choice(AFTER_VERB)} the {place_after}" if shape in (1, 3) else ""
            nouns += [place_after] if after else []
            later = rng.choice([t for t in LATER if t]) if shape in (2, 3) else ""
            last = later.strip().split(" ")[-1] if later else ""
            if last in ("rang", "stopped", "played"):
                others.append(last)
            nouns += [w for w in later.split() if w in LATER_NOUNS]
            text = f"{opener} {adjective}{subject} {middle} {verb}{after}{later}."
            out.append(SubjectVerbItem(text, kind, subject, verb, others, nouns, inner_words,
                                       verb_final=not (after or later)))
    return out


# ------------------------------------------------------------------ version 2 (issue 33)
# C32's measurement v2 (docs/proposed_rules/2026-12-03-C32-measurement-v2.md with its review's
# fixes 1-7): 24 templates, each a body x a tail, the same number of sentences each (7: 168; 10:
# 240 at the item cap). The eight bodies are G2's strata (review fix 2); the subject's verb and
# the relative clauses' verbs come from one list (fix 3), so no word list tells them apart.

SHARED_VERBS = ["left", "called", "helped", "watched", "answered", "followed", "warned", "visited"]
BODIES = ("s1", "s3", "c2", "c4", "r0", "r2", "p0", "p2")      # the object-relative four first
BODY_KIND = {"s1": "object_relative", "s3": "object_relative", "c2": "object_relative",
             "c4": "object_relative", "r0": "subject_relative", "r2": "subject_relative",
             "p0": "prepositional", "p2": "prepositional"}
INNER_WORDS = {"s1": 1, "s3": 3, "c2": 2, "c4": 4}
TAILS = ("T0", "T1", "T2")
CLAUSES = [("when", "the bell", "rang"), ("after", "the rain", "stopped"), ("because", "the music", "played")]
CLAUSE_PAIRS = [(a, b) for a in range(3) for b in range(3) if a != b]    # the six ordered pairs


@dataclass
class SubjectVerbItemV2:
    text: str
    body: str                   # s1 s3 c2 c4 r0 r2 p0 p2
    tail: str                   # T0 T1 T2: how many verbs follow the subject's verb (T0: none)
    template: int               # 0 .. 23, body-major: BODIES.index(body) * 3 + TAILS.index(tail)
    subject: str
    verb: str                   # the subject's verb
    verbs: list[str]            # every verb of the sentence, in sentence order
    nouns: list[str]            # every noun of the sentence, subject included
    inner_subject: str = ""     # object relatives: the relative clause's subject (first clause's)
    inner_verb: str = ""        # object relatives: that clause's verb
    inner_words: int = 0        # object relatives: words between the pronoun and the clause's verb

    @property
    def kind(self) -> str:
        return BODY_KIND[self.body]

    @property
    def verb_final(self) -> bool:
        return self.verbs[-1] == self.verb and self.text.endswith(f" {self.verb}.")


def _tail(tail: str, j: int, place: str) -> tuple[str, list[str], list[str]]:
    """(text, verbs, nouns) of the tail of a template's j-th sentence."""
    if tail == "T0":
        return (f" at the {place}", [], [place]) if j % 2 else ("", [], [])
    if tail == "T1":
        conj, noun, verb = CLAUSES[j % 3]
        return f" {conj} {noun} {verb}", [verb], [noun.split()[1]]
    a, b = CLAUSE_PAIRS[j % 6]
    (conj, noun_a, verb_a), (_, noun_b, verb_b) = CLAUSES[a], CLAUSES[b]
    return (f" {conj} {noun_a} {verb_a} and {noun_b} {verb_b}", [verb_a, verb_b],
            [noun_a.split()[1], noun_b.split()[1]])


def subject_verb_items_v2(n: int = 168, seed: int = 0) -> list[SubjectVerbItemV2]:
    """``n`` sentences (168, or 240 for the one more look): 24 templates of n / 24 sentences,
    ordered by template (body-major), the same on every run (``seed``)."""
    if n % (len(BODIES) * len(TAILS)):
        raise ValueError(f"{n} sentences do not fill 24 templates equally")
    per = n // (len(BODIES) * len(TAILS))
    rng = random.Random(seed)
    out, relatives = [], 0
    for b, body in enumerate(BODIES):
        for t, tail in enumerate(TAILS):
            for j in range(per):
                subject = rng.choice(SUBJECT_NOUNS)
                verb, v1, v2 = rng.sample(SHARED_VERBS, 3)
                actor, actor2 = rng.sample(ACTORS, 2)
                place, place_after = rng.sample(PLACES, 2)
                adjective = ["", "old ", "young ", "tall "][rng.randrange(4)]
                opener = ["The", "Then the", "Later that day the"][rng.randrange(3)]
                one, two = rng.sample(ACTOR_ADJECTIVES, 2)
                det, det2 = rng.choice(DETERMINERS), rng.choice(DETERMINERS)
                pronoun = rng.choice(PRONOUNS)
                nouns, inner_subject, inner_verb, clause_verbs = [subject], "", "", []
                if BODY_KIND[body] == "object_relative":
                    rel = "whom" if relatives % 2 else "that"
                    relatives += 1
                    inner_verb = v1
                    if body == "s1":
                        middle, inner_subject, clause_verbs = f"{rel} {pronoun} {v1}", pronoun, [v1]
                    elif body == "s3":
                        middle, inner_subject, clause_verbs = f"{rel} {det} {one} {actor} {v1} yesterday", actor, [v1]
                    elif body == "c2":
                        middle = f"{rel} {det} {actor} {v1} and {det2} {actor2} {v2}"
                        inner_subject, clause_verbs = actor, [v1, v2]
                    else:
                        middle = f"{rel} {det} {one} {two} {actor} {v1} and {det2} {actor2} {v2} yesterday"
                        inner_subject, clause_verbs = actor, [v1, v2]
                    nouns += {"s1": [], "s3": [actor]}.get(body, [actor, actor2])
                elif body == "r0":
                    middle, clause_verbs = f"who {v1} {det} {actor}", [v1]
                    nouns.append(actor)
                elif body == "r2":
                    middle, clause_verbs = f"who {v1} {det} {one} {two} {actor}", [v1]
                    nouns.append(actor)
                elif body == "p0":
                    middle = f"near the {place}"
                    nouns.append(place)
                else:
                    middle = f"near the {one} {two} {place}"
                    nouns.append(place)
                after, tail_verbs, tail_nouns = _tail(tail, j, place_after)
                text = f"{opener} {adjective}{subject} {middle} {verb}{after}."
                out.append(SubjectVerbItemV2(text, body, tail, b * len(TAILS) + t, subject, verb,
                                             clause_verbs + [verb] + tail_verbs, nouns + tail_nouns,
                                             inner_subject, inner_verb, INNER_WORDS.get(body, 0)))
    return out
