"""Two classes of English transitive verbs, and neutral frames with an object slot.

For asking whether the query of an eating verb (source B §4: 吃, eat) and the key
of a food noun (苹果, apple) meet on one shared coordinate. EATING_VERBS are verbs
of eating; OTHER_VERBS are everyday transitive verbs that say nothing about food
(cook, cut, buy and the like are left out). A verb that WordPiece splits
(nibble -> ni ##bble) is read as the mean of its pieces.

Each frame holds the verb in its base form and a concrete-noun object. The verb
sits at a different word position from frame to frame, and the words between the
verb and its object vary too, so no fixed offset finds either in most sentences.
Every verb gets every frame with every object of OBJECTS: two food nouns and two
other nouns (none of them in explainer.noun_classes), the same for every verb.
"""

EATING_VERBS = [
    "eat", "devour", "chew", "swallow", "taste", "bite", "nibble", "munch", "gobble",
    "consume", "digest", "savor", "gnaw", "lick", "crunch", "ingest", "gulp", "chomp",
]

OTHER_VERBS = [
    "carry", "paint", "wash", "throw", "lift", "push", "pull", "move", "hold",
    "drop", "kick", "clean", "fix", "hide", "fold", "wrap", "polish", "drag",
]

OBJECTS = ["orange", "fish", "box", "paper"]   # two food nouns, two other nouns

# "{verb}" and "{object}" are the slots. No frame mentions food or eating.
FRAMES = [
    "I want to {verb} the {object}.",
    "Please {verb} that big {object} now.",
    "They will {verb} the small {object} tomorrow.",
    "After a long day at work, my sister decided to {verb} the {object}.",
    "Nobody saw him {verb} his brother's {object} yesterday.",
    "The children tried to {verb} that very old {object} together.",
]


def verb_sentences() -> list[tuple[str, str, int, str]]:
    """(sentence, verb, frame index, object) for every verb, frame and object; eating verbs first."""
    return [(frame.format(verb=verb, object=obj), verb, f, obj)
            for verb in EATING_VERBS + OTHER_VERBS
            for f, frame in enumerate(FRAMES) for obj in OBJECTS]
