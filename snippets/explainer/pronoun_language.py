"""A toy language with a pronoun, for the chapter on many heads.

    so  cats often are  and  road still is  because it  → cats

Two dependencies, each scored once or twice per sentence:

- agreement across one word: the verb after an adverb (*is*/*are*) agrees
  with the noun just before the adverb — a job for the *previous* position;
- a pronoun: after *because it* comes the animal of the sentence, never the
  thing — a job for *what* a word is, wherever it stands.

Animal and thing come in either order, after 0-2 filler words.
"""

import random

import torch

from explainer.training import IGNORE

ANIMALS = ["cat", "dog", "horse", "bird", "fox", "cow"]
THINGS = ["street", "box", "road", "wall", "river", "door"]
ADVERBS = ["slowly", "quietly", "often", "never", "still", "always"]
FILLERS = ["so", "then", "well", "oh"]
NOUNS = [noun + plural for noun in ANIMALS + THINGS for plural in ("", "s")]
VOCAB = NOUNS + ADVERBS + FILLERS + ["is", "are", "and", "because", "it"]
ID = {word: i for i, word in enumerate(VOCAB)}
SENTENCE_LENGTH = 14


def sentence(rng: random.Random):
    """Words, the three (position, target word) predictions, and the positions of it, animal, thing."""
    animal = rng.choice(ANIMALS) + rng.choice(["", "s"])
    thing = rng.choice(THINGS) + rng.choice(["", "s"])
    first, second = (animal, thing) if rng.random() < 0.5 else (thing, animal)
    words = [rng.choice(FILLERS) for _ in range(rng.randrange(3))]
    where = {}
    for noun, joiner in ((first, "and"), (second, "because")):
        where[noun] = len(words)
        words += [noun, rng.choice(ADVERBS), "are" if noun.endswith("s") else "is", joiner]
    words.append("it")
    it = len(words) - 1
    words.append(animal)
    words += [rng.choice(FILLERS) for _ in range(SENTENCE_LENGTH - len(words))]
    predictions = [(where[first] + 1, "are" if first.endswith("s") else "is"),   # adverb -> verb
                   (where[second] + 1, "are" if second.endswith("s") else "is"),
                   (it, animal)]                                                 # it -> animal
    return words, predictions, it, where[animal], where[thing]


def batch(rng: random.Random, batch_size: int):
    """tokens (B, T), targets (B, T) with IGNORE off the three predictions, places (B, 3): it, animal, thing."""
    tokens = torch.empty(batch_size, SENTENCE_LENGTH, dtype=torch.long)
    targets = torch.full((batch_size, SENTENCE_LENGTH), IGNORE)
    places = torch.empty(batch_size, 3, dtype=torch.long)
    for b in range(batch_size):
        words, predictions, *positions = sentence(rng)
        tokens[b] = torch.tensor([ID[w] for w in words])
        for position, word in predictions:
            targets[b, position] = ID[word]
        places[b] = torch.tensor(positions)
    return tokens, targets, places


def task(generator: torch.Generator, batch_size: int):
    """The trainer's task interface: fresh sentences, seeded from the trainer's generator."""
    seed = int(torch.randint(2 ** 31, (1,), generator=generator))
    tokens, targets, _ = batch(random.Random(seed), batch_size)
    return tokens, targets


def training_pool(size: int = 6000, seed: int = 0):
    """The chapter's training sentences: a fixed pool (cheap to draw from), tokens and targets
    (size, T) each; explainer.training.sample_from(*training_pool()) draws batches from it."""
    tokens, targets, _ = batch(random.Random(seed), size)
    return tokens, targets


def probe_set(size: int = 400, seed: int = 1234):
    """The chapter's held-out probe: tokens and targets (B, T), the positions of it, animal and
    thing ((B,) each), and the targets of the two agreement predictions alone and of the
    pronoun's alone ((B, T) each, IGNORE elsewhere)."""
    tokens, targets, places = batch(random.Random(seed), size)        # (B, T), (B, T), (B, 3)
    it_at, animal_at, thing_at = places.T                              # (B,) each
    rows = torch.arange(len(it_at))
    verb_targets = targets.clone()
    verb_targets[rows, it_at] = IGNORE                                 # only the two agreement predictions
    antecedent_targets = torch.full_like(targets, IGNORE)
    antecedent_targets[rows, it_at] = targets[rows, it_at]
    return tokens, targets, (it_at, animal_at, thing_at), verb_targets, antecedent_targets
