"""Minimal pairs for *it* and its referent, in templates (C02).

Each template is a frame with two nouns and a last adjective; each pair gives two
adjectives: the first makes *it* the first noun ("The animal didn't cross the street
because it was too tired"), the second makes it the second noun ("... too wide").
The two nouns differ in animacy or fit different adjectives. Nouns and adjectives may
split into word pieces: a noun's pieces are found by ``noun_pieces``.

How a head's attention row is read on them: ``noun_shares`` (a noun's share, summed over
its pieces, among the words: no [CLS], [SEP] or punctuation), and ``planted_row`` (a row
overridden to split the two nouns' attention as asked, for the planted check).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

# frame, then (first noun, second noun, adjective -> first, adjective -> second)
TEMPLATES = [
    ("The {} didn't cross the {} because it was too {}.", [
        ("animal", "street", "tired", "wide"), ("dog", "road", "scared", "busy"),
        ("horse", "river", "weak", "deep"), ("cat", "bridge", "afraid", "icy"),
        ("camel", "desert", "old", "hot"), ("goat", "ravine", "timid", "steep"),
        ("rabbit", "meadow", "small", "open"), ("sheep", "stream", "frightened", "fast"),
        ("cow", "track", "slow", "muddy"), ("deer", "highway", "nervous", "dangerous"),
        # the second look's pairs (G2: the build reads them only at item_cap)
        ("fox", "field", "hungry", "flooded"), ("mule", "canyon", "stubborn", "deep"),
        ("puppy", "ditch", "young", "wide"), ("donkey", "valley", "lazy", "dark"),
        ("elephant", "swamp", "heavy", "boggy"), ("tortoise", "lawn", "slow", "large"),
        ("squirrel", "road", "frightened", "busy"), ("ox", "stream", "weak", "fast"),
        ("robot", "gap", "broken", "wide"), ("tank", "bridge", "heavy", "weak")]),
    ("The {} would not fit in the {} because it was too {}.", [
        ("trophy", "suitcase", "big", "small"), ("table", "van", "large", "full"),
        ("book", "drawer", "thick", "shallow"), ("cake", "box", "tall", "short"),
        ("guitar", "case", "long", "narrow"), ("sofa", "room", "wide", "cramped"),
        ("bottle", "fridge", "bulky", "packed"), ("printer", "cabinet", "huge", "tiny"),
        ("pizza", "oven", "enormous", "little"), ("tree", "pot", "tall", "shallow"),
        # the second look's pairs (G2: the build reads them only at item_cap)
        ("piano", "elevator", "large", "narrow"), ("couch", "truck", "long", "full"),
        ("bed", "attic", "big", "low"), ("painting", "frame", "large", "small"),
        ("laptop", "bag", "wide", "tiny"), ("turkey", "pan", "huge", "small"),
        ("bicycle", "car", "long", "full"), ("mattress", "trunk", "thick", "cramped"),
        ("statue", "crate", "tall", "short"), ("boat", "garage", "long", "narrow")]),
    ("The {} could not lift the {} because it was too {}.", [
        ("crane", "container", "old", "heavy"), ("robot", "crate", "weak", "big"),
        ("horse", "cart", "tired", "loaded"), ("forklift", "pallet", "small", "bulky"),
        ("puppy", "stick", "young", "long"), ("eagle", "lamb", "small", "fat"),
        ("helicopter", "tank", "light", "massive"), ("balloon", "basket", "tiny", "full"),
        ("bird", "branch", "feeble", "thick"), ("jack", "truck", "short", "overloaded"),
        # the second look's pairs (G2: the build reads them only at item_cap)
        ("puppy", "bag", "weak", "heavy"), ("robot", "suitcase", "small", "full"),
        ("donkey", "cart", "old", "heavy"), ("ant", "stone", "tiny", "heavy"),
        ("truck", "boulder", "small", "huge"), ("winch", "boat", "weak", "heavy"),
        ("kitten", "box", "small", "big"), ("drone", "package", "light", "heavy"),
        ("pony", "barrel", "tired", "full"), ("magnet", "car", "weak", "massive")]),
    ("The {} could not catch the {} because it was too {}.", [
        ("cat", "bird", "slow", "fast"), ("dog", "rabbit", "old", "quick"),
        ("hawk", "mouse", "tired", "hidden"), ("net", "fish", "torn", "tiny"),
        ("fox", "hare", "lazy", "swift"), ("owl", "bat", "clumsy", "agile"),
        ("lion", "zebra", "injured", "strong"), ("trap", "rat", "rusty", "clever"),
        ("frog", "insect", "sleepy", "nimble"), ("bear", "salmon", "tired", "slippery"),
        # the second look's pairs (G2: the build reads them only at item_cap)
        ("dog", "ball", "old", "high"), ("spider", "fly", "small", "quick"),
        ("shark", "seal", "tired", "fast"), ("wolf", "deer", "weak", "fast"),
        ("kitten", "butterfly", "slow", "quick"), ("eagle", "rabbit", "old", "quick"),
        ("heron", "fish", "slow", "slippery"), ("cheetah", "gazelle", "injured", "fast"),
        ("web", "wasp", "weak", "strong"), ("snake", "mouse", "cold", "fast")]),
    ("The {} could not climb the {} because it was too {}.", [
        ("goat", "cliff", "old", "sheer"), ("cat", "tree", "fat", "tall"),
        ("dog", "fence", "small", "high"), ("horse", "hill", "exhausted", "steep"),
        ("tractor", "slope", "weak", "icy"), ("truck", "ramp", "heavy", "slick"),
        ("snail", "wall", "slow", "smooth"), ("monkey", "pole", "tired", "greasy"),
        ("bike", "mountain", "rusty", "high"), ("lizard", "window", "cold", "slippery"),
        # the second look's pairs (G2: the build reads them only at item_cap)
        ("bear", "tree", "heavy", "thin"), ("cow", "hill", "fat", "steep"),
        ("puppy", "step", "small", "high"), ("car", "hill", "old", "steep"),
        ("squirrel", "pole", "tired", "slippery"), ("sheep", "rock", "old", "steep"),
        ("robot", "ladder", "heavy", "narrow"), ("pig", "bank", "fat", "muddy"),
        ("ant", "glass", "tiny", "smooth"), ("bus", "road", "heavy", "steep")]),
    ("The {} could not swim across the {} because it was too {}.", [
        ("dog", "river", "tired", "wide"), ("duck", "lake", "young", "large"),
        ("horse", "canal", "weak", "deep"), ("cat", "pond", "frightened", "cold"),
        ("otter", "stream", "sick", "rough"), ("deer", "bay", "exhausted", "stormy"),
        ("turtle", "sea", "slow", "vast"), ("frog", "pool", "small", "dirty"),
        ("pig", "creek", "fat", "fast"), ("rat", "channel", "weak", "wide"),
        # the second look's pairs (G2: the build reads them only at item_cap)
        ("puppy", "river", "young", "wide"), ("mouse", "bath", "small", "deep"),
        ("cow", "lake", "heavy", "wide"), ("goat", "river", "old", "fast"),
        ("hamster", "tub", "weak", "deep"), ("fox", "marsh", "tired", "cold"),
        ("bear", "bay", "old", "rough"), ("sheep", "stream", "heavy", "swollen"),
        ("kitten", "pond", "small", "wide"), ("dog", "lagoon", "sick", "large")]),
]
CHOOSING_TEMPLATES = (0, 1, 2)   # heads are chosen here ...
JUDGING_TEMPLATES = (3, 4, 5)    # ... and judged here


@dataclass
class PairSentence:
    text: str
    right: str            # the noun "it" refers to
    wrong: str            # the other noun
    right_is_first: bool
    pair: int             # 0 .. n_pairs - 1, the two sentences of a pair share it
    template: int


def pair_sentences(per_template: int = 10) -> list[PairSentence]:
    """Two sentences per pair, the first noun's first: the first ``per_template`` pairs of each
    template (6 templates × 10 pairs = 120 sentences; the second look, 20 pairs each)."""
    sentences, pair = [], 0
    for template, (frame, pairs) in enumerate(TEMPLATES):
        if per_template > len(pairs):
            raise ValueError(f"template {template} holds {len(pairs)} pairs, not {per_template}")
        for first, second, adjective_first, adjective_second in pairs[:per_template]:
            for adjective, right_is_first in ((adjective_first, True), (adjective_second, False)):
                right, wrong = (first, second) if right_is_first else (second, first)
                sentences.append(PairSentence(frame.format(first, second, adjective),
                                              right, wrong, right_is_first, pair, template))
            pair += 1
    return sentences


def word_spans(tokens: list[str]) -> list[tuple[str, list[int]]]:
    """Words rebuilt from WordPiece tokens: (word, its token positions); '##' continues a word."""
    words: list[tuple[str, list[int]]] = []
    for i, token in enumerate(tokens):
        if token.startswith("##") and words:
            text, pieces = words[-1]
            words[-1] = (text + token[2:], pieces + [i])
        else:
            words.append((token, [i]))
    return words


def noun_pieces(tokens: list[str], noun: str) -> list[int]:
    """Token positions of the first occurrence of ``noun`` (all its pieces)."""
    for text, pieces in word_spans(tokens):
        if text == noun:
            return pieces
    raise ValueError(f"{noun!r} not among the words of {tokens}")


def share_positions(tokens: list[str]) -> list[int]:
    """Positions that count in a share: no [CLS], [SEP] or punctuation."""
    return [i for i, token in enumerate(tokens)
            if token not in ("[CLS]", "[SEP]") and any(c.isalnum() for c in token)]


def noun_shares(row: torch.Tensor, counted: list[int], right: list[int], wrong: list[int]):
    """row (heads, T): attention from one query. Returns the (heads,) shares of the right and
    the wrong noun, each summed over its pieces, among the ``counted`` positions."""
    total = row[:, counted].sum(dim=-1)                          # (heads,)
    return row[:, right].sum(dim=-1) / total, row[:, wrong].sum(dim=-1) / total


def planted_row(row: torch.Tensor, right: list[int], wrong: list[int], fraction: float) -> torch.Tensor:
    """row (T,) with the two nouns' total attention split ``fraction`` : 1 - fraction between
    right and wrong (each spread over its pieces as before, evenly if it had none)."""
    row = row.clone()
    mass = row[right].sum() + row[wrong].sum()
    for pieces, part in ((right, fraction), (wrong, 1 - fraction)):
        old = row[pieces]
        spread = old / old.sum() if old.sum() > 0 else torch.full_like(old, 1 / len(pieces))
        row[pieces] = mass * part * spread
    return row
