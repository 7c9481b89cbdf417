"""Sequences that contain a random segment twice — the setting of induction heads.

    [noise 0-4]  A B C D E  [noise 0-4]  A B C D E  [noise up to length T]

The target of position t is token t+1, scored only inside the second copy,
where it can be read off the first copy. The lengths are random, so no fixed
offset finds the answer: a model must look up *where the current token
occurred before* and read what followed it.
"""

import torch

from explainer.training import IGNORE

VOCAB_SIZE, LENGTH = 32, 24


def repeated_segment(generator: torch.Generator, batch_size: int):
    """tokens (B, T) and targets (B, T), IGNORE outside the second copy."""
    T = LENGTH
    tokens = torch.randint(VOCAB_SIZE, (batch_size, T), generator=generator)  # (B, T)
    before = torch.randint(0, 5, (batch_size, 1), generator=generator)        # noise before the first copy
    length = torch.randint(4, 9, (batch_size, 1), generator=generator)        # segment length
    between = torch.randint(0, 5, (batch_size, 1), generator=generator)       # noise between the copies
    start = before + length + between                                         # (B, 1) start of second copy
    position = torch.arange(T)                                                # (T,)
    in_copy = (position >= start) & (position < start + length)               # (B, T)
    source = torch.where(in_copy, position - length - between, position)      # (B, T)
    tokens = tokens.gather(1, source)                                         # second copy = first copy
    targets = torch.full((batch_size, T), IGNORE)
    predictable = in_copy[:, :-1] & in_copy[:, 1:]                            # t and t+1 in the copy
    targets[:, :-1] = torch.where(predictable, tokens[:, 1:], IGNORE)
    return tokens, targets
