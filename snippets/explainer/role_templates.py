"""Sentences in which a verb's roles move around: agent, object, tool and manner.

Claim C18's "several heads, several views" asks whether different heads of a real
model, queried from the verb, pick out different roles of it (the agent, the
object or tool, the manner). To test a *role* rather than a position, each role's
position has to vary: actives and passives ("The farmer cut the bread." / "The
bread was cut by the farmer."), the manner adverb in four places (preposed with a
comma, before the verb, after the object or verb, at the end), the tool phrase
preposed or at the end, and 0–3 adjectives before every noun. So no rule "the word
k places from the verb" and no rule "the nearest content word" is right for a
role in more than half of the sentences (the tests check it).

Every word is one WordPiece of all-MiniLM-L6-v2's vocabulary (the tests check it),
so a word is a token; positions count ``[CLS]`` as 0.

Each token also carries five features, read off the template (no tagger):
part of speech, animacy, number, concreteness and a position bucket. The
concreteness labels are this module's own word list (``CONCRETE`` / ``ABSTRACT``):
nouns and perceptual adjectives (size, colour, age, material, dirt) count as
concrete; evaluative adjectives (honest, famous, important, ...) and manner
adverbs as abstract; verbs of physical action as concrete; function words,
punctuation and [CLS]/[SEP] have none. It is a hand list, not a published norm.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

ROLES = ("agent", "object", "tool", "manner")

# verb (past tense = past participle, so actives and passives share the token)
# -> objects and tools that fit it; every noun as (singular, plural)
VERBS = {
    "cut": (["rope", "cloth", "bag", "fence"], ["knife", "tool"]),
    "opened": (["box", "door", "window", "bag", "bottle"], ["key", "knife", "tool"]),
    "cleaned": (["table", "car", "window", "floor", "chair"], ["brush", "cloth", "sponge"]),
    "painted": (["door", "wall", "fence", "chair", "boat"], ["brush", "sponge"]),
    "pushed": (["cart", "box", "car", "table", "bike"], ["stick", "rope", "tool"]),
    "fixed": (["car", "door", "chair", "bike", "fence"], ["hammer", "tool", "rope"]),
    "hit": (["ball", "wall", "door", "box"], ["stick", "hammer"]),
    "moved": (["table", "box", "chair", "cart", "boat"], ["rope", "stick"]),
    "washed": (["car", "floor", "window", "bike", "bottle"], ["brush", "sponge", "cloth"]),
    "lifted": (["box", "chair", "bag", "table"], ["rope", "stick"]),
    "pulled": (["cart", "boat", "box", "bag"], ["rope", "stick"]),
    "locked": (["door", "box", "window", "car"], ["key"]),
}
PLURAL = {
    "farmer": "farmers", "driver": "drivers", "worker": "workers", "boy": "boys",
    "girl": "girls", "teacher": "teachers", "man": "men", "woman": "women",
    "child": "children", "cook": "cooks", "nurse": "nurses", "soldier": "soldiers",
    "student": "students",
    "rope": "ropes", "cloth": "cloth", "bag": "bags", "fence": "fences", "box": "boxes",
    "door": "doors", "window": "windows", "bottle": "bottles", "table": "tables",
    "car": "cars", "floor": "floors", "chair": "chairs", "wall": "walls", "boat": "boats",
    "cart": "carts", "bike": "bikes", "ball": "balls",
    "knife": "knives", "tool": "tools", "key": "keys", "brush": "brushes",
    "sponge": "sponge", "stick": "sticks", "hammer": "hammer",
}
AGENTS = ["farmer", "driver", "worker", "boy", "girl", "teacher", "man", "woman", "child",
          "cook", "nurse", "soldier", "student"]
# the tool keeps one form when its plural is not one WordPiece (cloth, sponge, hammer)
ADVERBS = ["carefully", "quickly", "slowly", "gently", "quietly", "firmly", "badly", "easily"]
CONCRETE_ADJECTIVES = ["big", "small", "old", "new", "red", "black", "white", "heavy", "tall",
                       "dirty"]
ABSTRACT_ADJECTIVES_ANIMATE = ["honest", "famous", "kind", "clever", "proud", "brave", "lucky"]
ABSTRACT_ADJECTIVES_THING = ["important", "expensive", "strange", "cheap", "useful", "famous"]

ANIMATE = set(AGENTS) | {PLURAL[a] for a in AGENTS}
NOUNS = ANIMATE | {n for objects, tools in VERBS.values() for n in objects + tools} | {
    PLURAL[n] for objects, tools in VERBS.values() for n in objects + tools}
PLURAL_FORMS = {PLURAL[n] for n in PLURAL if PLURAL[n] != n}
CONCRETE = NOUNS | set(CONCRETE_ADJECTIVES) | set(VERBS)
ABSTRACT = (set(ABSTRACT_ADJECTIVES_ANIMATE) | set(ABSTRACT_ADJECTIVES_THING)
            | {a.lower() for a in ADVERBS})
ADJECTIVES = set(CONCRETE_ADJECTIVES) | set(ABSTRACT_ADJECTIVES_ANIMATE) | set(ABSTRACT_ADJECTIVES_THING)

MANNER_SLOTS = ("front", "before_verb", "after", "end")
CONTENT_POS = ("noun", "verb", "adj", "adv")

# the five key features and their levels (one-hot in the regression)
FEATURES = {
    "pos": ("special", "det", "noun", "verb", "aux", "adj", "adv", "prep", "punct"),
    "animacy": ("animate", "inanimate", "none"),
    "number": ("singular", "plural", "none"),
    "concreteness": ("concrete", "abstract", "none"),
    "position": ("0", "1-2", "3-5", "6-8", "9-11", "12+"),
}
POSITION_EDGES = (1, 3, 6, 9, 12)     # bucket = number of edges <= position


@dataclass
class RoleSentence:
    text: str
    tokens: list[str]            # with [CLS] and [SEP]
    verb: int                    # token positions
    roles: dict[str, int]        # role -> position of its head word
    voice: str                   # "active" / "passive"
    manner_slot: str
    tool_front: bool
    features: dict[str, list[str]] = field(default_factory=dict)   # feature -> level per token


def _noun_phrase(rng, noun: str, plural: bool, animate: bool) -> list[str]:
    word = PLURAL[noun] if plural else noun
    n_adjectives = int(rng.integers(0, 4))                        # 0–3
    abstract = ABSTRACT_ADJECTIVES_ANIMATE if animate else ABSTRACT_ADJECTIVES_THING
    pool = list(rng.permutation(CONCRETE_ADJECTIVES))[:3]
    if n_adjectives and rng.random() < 0.5:                       # an opinion word comes first
        pool = [str(rng.choice(abstract))] + pool
    return ["the"] + [str(a) for a in pool[:n_adjectives]] + [word]


def _pos(word: str) -> str:
    if word in ("[CLS]", "[SEP]"):
        return "special"
    if word == "the":
        return "det"
    if word in ("was", "were"):
        return "aux"
    if word in ("by", "with"):
        return "prep"
    if word in (".", ","):
        return "punct"
    if word in NOUNS:
        return "noun"
    if word in VERBS:
        return "verb"
    if word in ADJECTIVES:
        return "adj"
    if word in ABSTRACT:
        return "adv"
    raise ValueError(f"no part of speech for {word!r}")


def position_bucket(position: int) -> str:
    return FEATURES["position"][int(np.searchsorted(POSITION_EDGES, position, side="right"))]


def token_features(tokens: list[str]) -> dict[str, list[str]]:
    """The five features of every token (from the templates' word lists)."""
    pos = [_pos(t) for t in tokens]
    return {
        "pos": pos,
        "animacy": [("animate" if t in ANIMATE else "inanimate") if p == "noun" else "none"
                    for t, p in zip(tokens, pos)],
        "number": [("plural" if t in PLURAL_FORMS else "singular") if p == "noun" else "none"
                   for t, p in zip(tokens, pos)],
        "concreteness": ["concrete" if t in CONCRETE else "abstract" if t in ABSTRACT else "none"
                         for t in tokens],
        "position": [position_bucket(i) for i in range(len(tokens))],
    }


def role_sentences(n: int = 240, seed: int = 0) -> list[RoleSentence]:
    """``n`` sentences, each with a verb, its agent, object, tool and a manner adverb."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        verb = list(VERBS)[k % len(VERBS)]
        objects, tools = VERBS[verb]
        agent_np = _noun_phrase(rng, str(rng.choice(AGENTS)), rng.random() < 0.5, True)
        thing = str(rng.choice(objects))
        object_plural = rng.random() < 0.5 and PLURAL[thing] != thing
        object_np = _noun_phrase(rng, thing, object_plural, False)
        tool_np = ["with"] + _noun_phrase(rng, str(rng.choice(tools)), rng.random() < 0.5, False)
        adverb = str(rng.choice(ADVERBS))
        voice = "passive" if rng.random() < 0.5 else "active"
        slot = MANNER_SLOTS[int(rng.integers(0, 4))]
        tool_front = rng.random() < 0.3
        before_verb = [adverb] if slot == "before_verb" else []
        after = [adverb] if slot == "after" else []
        if voice == "active":
            core = agent_np + before_verb + [verb] + object_np + after
        else:
            aux = "were" if object_plural else "was"
            core = object_np + [aux] + before_verb + [verb] + after + ["by"] + agent_np
        words = ([adverb.capitalize(), ","] if slot == "front" else [])
        words += (tool_np + [","] if tool_front else []) + core
        words += ([] if tool_front else tool_np) + ([adverb] if slot == "end" else []) + ["."]
        text = " ".join(words).replace(" ,", ",").replace(" .", ".")
        text = text[0].upper() + text[1:]
        tokens = ["[CLS]"] + [w.lower() for w in words] + ["[SEP]"]
        verb_at = tokens.index(verb)
        agent_at = _last_word_of(tokens, agent_np, verb_at)
        object_at = _last_word_of(tokens, object_np, verb_at)
        tool_at = _last_word_of(tokens, tool_np, verb_at)
        out.append(RoleSentence(text, tokens, verb_at,
                                {"agent": agent_at, "object": object_at, "tool": tool_at,
                                 "manner": tokens.index(adverb)},
                                voice, slot, bool(tool_front), token_features(tokens)))
    return out


def _last_word_of(tokens: list[str], phrase: list[str], verb_at: int) -> int:
    """Position of the phrase's head noun (its last word)."""
    n = len(phrase)
    starts = [i for i in range(len(tokens) - n + 1) if tokens[i:i + n] == phrase]
    assert len(starts) == 1, (tokens, phrase)
    return starts[0] + n - 1


def content_positions(sentence: RoleSentence, *, exclude_verb: bool = True) -> list[int]:
    """Positions of the content words (nouns, verbs, adjectives, adverbs)."""
    return [i for i, p in enumerate(sentence.features["pos"]) if p in CONTENT_POS
            and not (exclude_verb and i == sentence.verb)]


def nearest_content_accuracy(sentences: list[RoleSentence], role: str, prefer: str) -> float:
    """Share of sentences where the content word nearest the verb is the role's word
    (``prefer`` = "left" or "right" breaks ties)."""
    right = []
    for s in sentences:
        candidates = content_positions(s)
        side = -1 if prefer == "left" else 1
        nearest = min(candidates, key=lambda i: (abs(i - s.verb), side * (s.verb - i)))
        right.append(nearest == s.roles[role])
    return float(np.mean(right))
