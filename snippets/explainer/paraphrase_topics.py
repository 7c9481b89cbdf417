"""Short sentence quadruples for ranking MiniLM's heads by importance.

Each topic: an anchor, a paraphrase of it, a related sentence that means something
else, and an unrelated one. These rank the heads; the bundled SENTENCE_PAIRS
(explainer.sample_sentences) judge the pruned model, so the data that chose the
pruning order never scores it.
"""

TOPICS = [
    ("The shop is closed today.", "Today the store is shut.",
     "The shop opens early tomorrow.", "My sister plays the violin."),
    ("She lost her keys again.", "Once more she misplaced her keys.",
     "She found her old keys.", "The river froze last winter."),
    ("The baby is sleeping now.", "The infant is asleep at the moment.",
     "The baby is crying now.", "Prices rose sharply in May."),
    ("He missed the last bus.", "He was too late for the final bus.",
     "He took the first train.", "The garden needs more water."),
    ("The soup is too hot.", "This soup is far too warm.",
     "The tea is too sweet.", "Our team won the match."),
    ("They bought a new car.", "They purchased a new vehicle.",
     "They sold their old bike.", "The moon is very bright."),
]
