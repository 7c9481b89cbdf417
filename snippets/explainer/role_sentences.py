"""Sentence sets made to test one head role each in a real model (MiniLM).

Every set is built from templates, so where the words sit is known, not guessed:

- ``verb_object_sentences()``: a verb and its direct object with 1, 2 or 3
  adjectives between them ("The farmer sold the big old wooden cart at the market.").
- ``coreference_sentences()``: minimal pairs in which one last word moves the
  referent of *it* from the first noun to the second; a third noun in an opening
  phrase gives Clark et al.'s measure a third candidate.
- ``ambiguous_word_sentences()``: an ambiguous word (*bank*, *bat*, *spring*, ...)
  and one context word that decides its sense, in minimal pairs: the same frame
  with a cue for each sense.

Every marked word is one WordPiece token of all-MiniLM-L6-v2's vocabulary (the
tests check it), so a word's position is a token position. Positions count
``[CLS]`` as 0.
"""

from __future__ import annotations

from dataclasses import dataclass

# Words that never count as a candidate "context word" (function words).
FUNCTION_WORDS = {
    "the", "a", "an", "of", "to", "in", "on", "at", "and", "was", "were", "is", "has", "had",
    "near", "next", "beside", "by", "with", "for", "after", "before", "up", "down", "this",
    "that", "there", "his", "her", "my", "our", "their", "we", "he", "she", "they", "it", "i",
    "you", "its", "from", "into", "onto", "over", "under", "toward", "above", "inside", "then",
    "so", "too", "very", "not", "could", "would", "did", "didn", "'", "t", "because", "[CLS]",
    "[SEP]", ".", ",",
}


def word_position(tokens: list[str], word: str, nth: int = 0) -> int:
    """Token position of the ``nth`` occurrence of ``word`` (-1 if absent)."""
    hits = [i for i, token in enumerate(tokens) if token == word]
    return hits[nth] if len(hits) > nth else -1


# ---------------------------------------------------------------- verb -> object

@dataclass
class VerbObjectSentence:
    text: str
    verb: str
    object: str
    n_adjectives: int


# subject, verb, three adjectives in natural order, direct object, closing phrase
VERB_OBJECT_FRAMES = [
    ("farmer", "sold", ("big", "old", "wooden"), "cart", "at the market"),
    ("girl", "opened", ("small", "heavy", "red"), "box", "after dinner"),
    ("chef", "cut", ("large", "fresh", "white"), "onion", "with a knife"),
    ("boy", "kicked", ("dirty", "old", "leather"), "ball", "over the wall"),
    ("woman", "painted", ("tall", "narrow", "front"), "door", "last week"),
    ("man", "carried", ("long", "heavy", "wooden"), "table", "into the house"),
    ("child", "dropped", ("pretty", "little", "blue"), "cup", "on the floor"),
    ("teacher", "cleaned", ("big", "dusty", "black"), "board", "before class"),
    ("driver", "washed", ("shiny", "new", "red"), "car", "in the morning"),
    ("student", "read", ("thick", "old", "history"), "book", "during lunch"),
    ("baker", "sold", ("warm", "round", "brown"), "bread", "to the children"),
    ("worker", "fixed", ("long", "broken", "metal"), "fence", "near the road"),
    ("mother", "bought", ("lovely", "long", "green"), "dress", "for her daughter"),
    ("artist", "drew", ("strong", "young", "black"), "horse", "on the wall"),
    ("pilot", "landed", ("huge", "old", "cargo"), "plane", "on the runway"),
]


def verb_object_sentences() -> list[VerbObjectSentence]:
    """45 sentences: each of 15 frames with its last 1, 2 and 3 adjectives."""
    sentences = []
    for subject, verb, adjectives, obj, tail in VERB_OBJECT_FRAMES:
        for n in (1, 2, 3):
            words = " ".join(adjectives[-n:])
            sentences.append(VerbObjectSentence(
                f"The {subject} {verb} the {words} {obj} {tail}.", verb, obj, n))
    return sentences


# ---------------------------------------------------------------- it -> antecedent

@dataclass
class CoreferenceSentence:
    text: str
    right: str          # the noun "it" refers to
    wrong: str          # the other noun of the pair (the distractor)
    other: str          # a third noun that "it" cannot refer to (Clark's extra candidate)
    right_is_first: bool
    pair: int


# opening phrase (with the third noun), template, first noun, second noun,
# last word making "it" the first noun, last word making it the second
COREFERENCE_PAIRS = [
    ("In the town,", "the animal didn't cross the street because it was too {}.",
     "town", "animal", "street", "tired", "wide"),
    ("At the airport,", "the trophy didn't fit in the suitcase because it was too {}.",
     "airport", "trophy", "suitcase", "big", "small"),
    ("In the garden,", "the cat could not catch the bird because it was too {}.",
     "garden", "cat", "bird", "slow", "fast"),
    ("In the kitchen,", "the table would not go through the door because it was too {}.",
     "kitchen", "table", "door", "wide", "narrow"),
    ("In the field,", "the horse easily jumped over the fence because it was so {}.",
     "field", "horse", "fence", "strong", "low"),
    ("In the barn,", "the mouse hid from the cat because it was {}.",
     "barn", "mouse", "cat", "scared", "hungry"),
    ("On the highway,", "the car overtook the truck because it was going {}.",
     "highway", "car", "truck", "faster", "slower"),
    ("At dinner,", "the boy dropped the plate because it was very {}.",
     "dinner", "boy", "plate", "clumsy", "hot"),
    ("In the port,", "the ship could not pass under the bridge because it was too {}.",
     "port", "ship", "bridge", "tall", "low"),
    ("At night,", "the lamp could not light the room because it was too {}.",
     "night", "lamp", "room", "dim", "large"),
    ("In the house,", "the kitten jumped onto the shelf because it was {}.",
     "house", "kitten", "shelf", "curious", "low"),
    ("At school,", "the phone would not fit in the pocket because it was too {}.",
     "school", "phone", "pocket", "long", "tight"),
    ("In the yard,", "the dog could not carry the ball because it was too {}.",
     "yard", "dog", "ball", "weak", "heavy"),
    ("At work,", "the man could not lift the box because it was too {}.",
     "work", "man", "box", "tired", "heavy"),
    ("In the shop,", "the bottle did not fit in the bag because it was too {}.",
     "shop", "bottle", "bag", "big", "small"),
    ("In the valley,", "the girl could not swim across the river because it was too {}.",
     "valley", "girl", "river", "tired", "deep"),
    ("At the zoo,", "the bird could not fly out of the cage because it was too {}.",
     "zoo", "bird", "cage", "weak", "small"),
    ("In the park,", "the child could not climb the wall because it was too {}.",
     "park", "child", "wall", "young", "high"),
    ("On the road,", "the truck could not pass through the tunnel because it was too {}.",
     "road", "truck", "tunnel", "tall", "narrow"),
    ("In the lake,", "the fish escaped from the net because it was too {}.",
     "lake", "fish", "net", "quick", "loose"),
]

# The sentence of source A section 3, as it is written there (two nouns only).
SOURCE_PAIR = [
    CoreferenceSentence("The animal didn't cross the street because it was too tired.",
                        "animal", "street", "", True, 0),
    CoreferenceSentence("The animal didn't cross the street because it was too wide.",
                        "street", "animal", "", False, 0),
]


def coreference_sentences() -> list[CoreferenceSentence]:
    """40 sentences, 20 minimal pairs: in each pair, first "it" = first noun, then second noun."""
    sentences = []
    for p, (opening, template, other, first, second, word_first, word_second) in \
            enumerate(COREFERENCE_PAIRS):
        for word, right_is_first in ((word_first, True), (word_second, False)):
            right, wrong = (first, second) if right_is_first else (second, first)
            sentences.append(CoreferenceSentence(
                f"{opening} {template.format(word)}", right, wrong, other, right_is_first, p))
    return sentences


# ---------------------------------------------------------------- ambiguous words

@dataclass
class AmbiguousSentence:
    text: str
    word: str           # the ambiguous word
    cue: str            # the context word that decides its sense
    sense: int          # 0 or 1: which of the word's two senses the cue picks
    cue_before: bool    # does the cue come before the ambiguous word?
    pair: int


# ambiguous word, (cue for sense 0, cue for sense 1), frame with the cue after the
# word, frame with the cue before it; "{}" is the cue
AMBIGUOUS_WORDS = [
    ("bank", ("money", "river"),
     "He walked down to the bank and looked at the {}.",
     "After seeing the {}, she walked toward the bank slowly."),
    ("bat", ("cave", "ball"),
     "The boy saw a bat near the {} yesterday.",
     "Beside the {}, the girl found a bat this morning."),
    ("spring", ("hills", "mattress"),
     "The old spring in the {} was still working.",
     "We checked the {} and found a spring there."),
    ("mouse", ("cheese", "keyboard"),
     "The mouse next to the {} was small and grey.",
     "Near the {}, my sister noticed a mouse today."),
    ("seal", ("beach", "envelope"),
     "The seal on the {} looked wet.",
     "On the {}, my father noticed a seal yesterday."),
    ("bark", ("tree", "dog"),
     "We noticed the bark of the old {} yesterday.",
     "The {} in our garden has a strange bark."),
    ("key", ("door", "piano"),
     "The key of the {} was broken last week.",
     "Next to the {}, she found a small key."),
    ("pen", ("paper", "pigs"),
     "The pen beside the {} was dirty and wet.",
     "Near the {}, the farmer left a pen."),
    ("crane", ("lake", "building"),
     "The crane beside the {} stood still.",
     "Above the {}, we watched a crane today."),
    ("organ", ("church", "hospital"),
     "The organ in the {} was old and famous.",
     "Inside the {}, the students studied the organ."),
]


def ambiguous_word_sentences() -> list[AmbiguousSentence]:
    """40 sentences: 10 words x 2 frames x 2 senses (minimal pairs: only the cue changes)."""
    sentences = []
    for w, (word, cues, after, before) in enumerate(AMBIGUOUS_WORDS):
        for f, (frame, cue_before) in enumerate(((after, False), (before, True))):
            for sense, cue in enumerate(cues):
                sentences.append(AmbiguousSentence(
                    frame.format(cue), word, cue, sense, cue_before, 2 * w + f))
    return sentences


def context_words(tokens: list[str], skip: int) -> list[int]:
    """Positions of the content words of a sentence, leaving out position ``skip``."""
    return [i for i, token in enumerate(tokens)
            if i != skip and token not in FUNCTION_WORDS and token.isalpha()]


# A control: the same sentences with the ambiguous word replaced by a plain noun
# that has one sense. A head that picks the cue here as well is following the noun,
# not resolving an ambiguity.
STAND_INS = {"bank": "house", "bat": "box", "spring": "clock", "mouse": "cup", "seal": "bag",
             "bark": "shape", "key": "handle", "pen": "bucket", "crane": "man", "organ": "painting"}


def control_sentences() -> list[AmbiguousSentence]:
    """The 40 ambiguous-word sentences with the ambiguous word swapped for STAND_INS[word]."""
    controls = []
    for s in ambiguous_word_sentences():
        words = s.text.split(" ")
        swapped = [STAND_INS[s.word] + w[len(s.word):] if w.rstrip(".,") == s.word else w
                   for w in words]
        controls.append(AmbiguousSentence(" ".join(swapped), STAND_INS[s.word], s.cue, s.sense,
                                          s.cue_before, s.pair))
    return controls
