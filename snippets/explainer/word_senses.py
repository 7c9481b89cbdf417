"""Words with two senses in many frames, for reading a word's sense from its value (C36).

Each frame holds the ambiguous word ``{w}`` and a cue noun ``{c}`` that picks its sense.
A frame gives a minimal pair: the same sentence with a cue of each sense (the cues rotate
through five nouns per sense), so within a pair only the cue differs. Every word and cue is
one WordPiece token, so both sentences of a pair have the same length and the ambiguous
word sits at the same position: its layer-1 value, which sees nothing but the word and its
position, is the same for both senses. The frames move the word and the cue around, and
put other nouns between them, so that no fixed offset and no "nearest noun" finds the cue
in more than half of the sentences (tests/snippets/real_model/test_word_senses.py).
"""

from __future__ import annotations

from dataclasses import dataclass

# word -> (cues of sense 0, cues of sense 1)
SENSES = {
    "bank": (("money", "cash", "loan", "teller", "vault"),
             ("river", "fish", "mud", "stream", "canoe")),
    "bat": (("cave", "owl", "barn", "attic", "moth"),
            ("ball", "pitcher", "glove", "stadium", "team")),
    "mouse": (("cheese", "cat", "trap", "hole", "rat"),
              ("keyboard", "screen", "computer", "laptop", "printer")),
    "seal": (("beach", "ocean", "whale", "ice", "penguin"),
             ("envelope", "letter", "wax", "document", "stamp")),
    "crane": (("lake", "pond", "nest", "marsh", "heron"),
              ("building", "tower", "truck", "site", "steel")),
}
SENSE_NAMES = {"bank": ("money", "river"), "bat": ("animal", "sport"),
               "mouse": ("animal", "computer"), "seal": ("animal", "stamp"),
               "crane": ("bird", "machine")}

FRAMES = [
    "The {w} near the {c} was old.",
    "We saw the {w} by the {c} yesterday.",
    "Near the {c}, my brother noticed a {w}.",
    "The {c} was close to the {w} that morning.",
    "She talked about the {w} and the {c} for an hour.",
    "My uncle said the {w} next to the {c} looked strange.",
    "There was a {w} beside the {c} in the picture.",
    "Everyone in the village knew the {c} and the {w}.",
    "After the storm, the {w} near the {c} was gone.",
    "The {c} and the {w} were both in my photo.",
    "I remember the {w}, the {c} and a small house.",
    "Yesterday a friend of mine showed me the {w} at the {c}.",
    "The teacher pointed at the {c}, then at the {w}.",
    "In the story, the {w} stays near the {c} all winter.",
    "We walked past the {c} and stopped at the {w}.",
    "The {w} my sister saw was right by the {c}.",
    "From the window of the hotel we could see the {c} and a {w}.",
    "A {w} close to the {c} caught the eye of the children.",
    "The old man drew the {c} first and the {w} later.",
    "Nobody expected to find a {w} so close to the {c}.",
]


@dataclass(frozen=True)
class SenseSentence:
    text: str
    word: str
    sense: int      # 0 or 1: which of SENSES[word] the cue picks
    cue: str
    frame: int      # index into FRAMES: both senses of a frame form a minimal pair


def sense_sentences() -> list[SenseSentence]:
    """len(SENSES) words x len(FRAMES) frames x 2 senses."""
    sentences = []
    for word, cues in SENSES.items():
        for f, frame in enumerate(FRAMES):
            for sense in (0, 1):
                cue = cues[sense][f % len(cues[sense])]
                sentences.append(SenseSentence(frame.format(w=word, c=cue), word, sense, cue, f))
    return sentences
