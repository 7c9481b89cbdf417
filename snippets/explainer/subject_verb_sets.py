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
