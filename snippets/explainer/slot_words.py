"""Words in one template slot, for probing MiniLM's layer-1 queries and keys (C26, C31, C39).

In layer 1 a token's query and key are functions of its own embedding and its position
only: attention has not mixed anything in yet. So every word is put in the same slot of
one template, ``TEMPLATE``, and each word gets one context-free query and key. Every
word must be a single WordPiece token of MiniLM's uncased vocabulary (checked by
``slot_position``, which fails loudly otherwise).

VERBS: verbs labelled transitive or intransitive, and by frame where the verb has one
clear frame. The frames are those of C26's frame language (three_roles.ant_colony.
frame_language): no object (sleep), a place (live at), one object (destroy), two objects,
someone and something (give). Verbs that commonly take or drop an object (labile verbs
such as break, open, eat) are left out; verbs whose transitivity is clear but whose frame
is not (throw: one object or two; wait: with or without a place) carry no frame label.

WORDS: concrete nouns against verbs and adjectives (C39: "nouns' keys carry *can be an
object*"). Nouns that are also common verbs (box, duck, hammer) and verbs or adjectives
that are also common nouns (refuse, calm) are left out.
"""

TEMPLATE = "They wrote {} on the board."     # the slot: one word, the same position for all

FRAMES = ["none", "place", "object", "two_objects"]

_FRAME_VERBS = {
    "none": [
        "sleep", "laugh", "die", "arrive", "cough", "smile", "sigh", "vanish", "disappear",
        "exist", "occur", "happen", "fall", "rise", "weep", "giggle", "shiver", "tremble",
        "frown", "blush", "collapse", "emerge", "thrive", "sparkle", "glow", "hesitate", "nap",
        "grin", "stumble", "bleed", "sweat", "sob", "chuckle", "wince", "flinch", "growl",
        "howl", "gasp", "shudder", "rot", "bloom", "blossom", "flourish", "snort",
    ],
    "place": [
        "live", "dwell", "reside", "stay", "sit", "stand", "perch", "camp", "nest", "crouch",
        "squat", "lounge",
    ],
    "object": [
        "destroy", "kill", "grab", "hold", "kick", "lift", "fix", "repair", "chase", "catch",
        "hate", "want", "own", "contain", "seize", "admire", "attack", "avoid", "borrow", "bury",
        "capture", "chop", "crush", "damage", "describe", "discover", "enjoy", "examine",
        "grasp", "greet", "grip", "hire", "mention", "murder", "obtain", "observe", "punch",
        "purchase", "remove", "rescue", "resemble", "slap", "squeeze", "steal", "tackle",
        "touch", "trust", "wear", "wrap", "drag", "polish", "defeat", "praise", "blame",
        "invite", "kidnap", "smash", "deserve", "require", "possess", "acquire", "conquer",
        "erase", "carry", "hit",
    ],
    "two_objects": [
        "give", "hand", "lend", "loan", "owe", "grant", "award", "offer", "promise", "tell",
        "assign", "send", "bring", "show",
    ],
}
# Transitivity clear, frame not: one object or two (throw him the ball), with or without a place.
_NO_CLEAR_FRAME = {
    True: ["throw", "toss", "build", "buy", "sell", "pay", "fetch", "teach", "feed", "deny",
           "ask", "find", "pass", "push", "pull"],
    False: ["wander", "linger", "wait", "go", "come"],
}

TRANSITIVE = {"none": False, "place": False, "object": True, "two_objects": True}

# (verb, transitive, frame or None)
VERBS = ([(verb, TRANSITIVE[frame], frame) for frame, verbs in _FRAME_VERBS.items() for verb in verbs]
         + [(verb, transitive, None) for transitive, verbs in _NO_CLEAR_FRAME.items() for verb in verbs])

CONCRETE_NOUNS = [
    "apple", "table", "chair", "dog", "horse", "cat", "car", "tree", "window", "door", "bread",
    "cheese", "river", "mountain", "cup", "spoon", "shoe", "shirt", "hat", "bird", "lamp",
    "pencil", "piano", "guitar", "bicycle", "truck", "boat", "desk", "bed", "sofa", "carpet",
    "blanket", "pillow", "banana", "lemon", "onion", "potato", "tomato", "egg", "butter",
    "sugar", "rice", "coin", "basket", "bucket", "ladder", "island", "forest", "kitchen",
    "church", "tower", "castle", "rabbit", "tiger", "elephant", "lion", "monkey", "snake",
    "frog", "sheep", "candle", "mirror", "clock", "umbrella",
]
OTHER_WORDS = {
    "verb": [
        "bring", "arrive", "destroy", "seize", "admire", "borrow", "obtain", "describe",
        "discover", "examine", "greet", "hire", "observe", "resemble", "steal", "enjoy",
        "avoid", "vanish", "disappear", "exist", "occur", "happen", "weep", "hesitate",
        "tremble", "persuade", "forgive", "forget", "remember", "believe", "become", "seem",
    ],
    "adjective": [
        "happy", "sad", "quick", "tall", "heavy", "bright", "soft", "loud", "angry", "brave",
        "careful", "cheap", "clever", "famous", "gentle", "honest", "huge", "lazy", "polite",
        "rare", "rich", "rude", "shy", "strange", "sudden", "tiny", "ugly", "wise", "young",
        "ancient", "eager", "fierce",
    ],
}
# (word, is a concrete noun)
WORDS = [(w, True) for w in CONCRETE_NOUNS] + [(w, False) for ws in OTHER_WORDS.values() for w in ws]


def slot_position(tokenizer, words: list[str], template: str = TEMPLATE) -> int:
    """The token position of the slot, the same for every word; raises if a word is not one
    WordPiece token of the vocabulary (its own token, at that position) or is listed twice."""
    repeated = sorted({w for w in words if words.count(w) > 1})
    if repeated:
        raise ValueError(f"listed twice: {repeated}")
    expected = tokenizer.tokens(template.format("[MASK]"))
    slot = expected.index("[MASK]")
    split = {}
    for w in words:
        tokens = tokenizer.tokens(template.format(w))
        if len(tokens) != len(expected) or tokens[slot] != w:
            split[w] = tokens[slot:len(tokens) - len(expected) + slot + 1]
    if split:
        raise ValueError(f"not single WordPiece tokens of MiniLM's vocabulary: {split}")
    return slot
