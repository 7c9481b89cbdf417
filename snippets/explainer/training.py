"""Training tasks for the tiny models: what a task is, and one made from a fixed pool.

A task is a function ``make_batch(generator, batch_size) -> (tokens, targets)``
with ``targets`` the same shape as ``tokens`` and ``IGNORE`` where a position
has nothing to predict. Same generator seed, same batches. The models are
trained by ``train_batched`` (explainer/batched.py).
"""

from typing import Callable

import torch

IGNORE = -100  # target value of positions that carry no loss

Batch = tuple[torch.Tensor, torch.Tensor]  # tokens (B, T), targets (B, T)
Task = Callable[[torch.Generator, int], Batch]


def sample_from(tokens: torch.Tensor, targets: torch.Tensor) -> Task:
    """A task that draws its batches from a fixed pool of examples (cheap to re-run)."""
    def task(generator: torch.Generator, batch_size: int) -> Batch:
        rows = torch.randint(len(tokens), (batch_size,), generator=generator)
        return tokens[rows], targets[rows]
    return task
