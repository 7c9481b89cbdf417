"""A small deterministic trainer for the tiny models.

A task is a function ``make_batch(generator, batch_size) -> (tokens, targets)``
with ``targets`` the same shape as ``tokens`` and ``IGNORE`` where a position
has nothing to predict. Same seed, same model, same task: same numbers, bit
for bit, on one CPU thread.
"""

from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn.functional as F

IGNORE = -100  # target value of positions that carry no loss

Batch = tuple[torch.Tensor, torch.Tensor]  # tokens (B, T), targets (B, T)
Task = Callable[[torch.Generator, int], Batch]


@dataclass
class TrainingConfig:
    steps: int = 300
    batch_size: int = 64
    lr: float = 1e-2
    weight_decay: float = 0.0
    seed: int = 0          # data order and dropout masks
    warmup: int = 20       # steps of linear learning-rate warm-up


def sample_from(tokens: torch.Tensor, targets: torch.Tensor) -> Task:
    """A task that draws its batches from a fixed pool of examples (cheap to re-run)."""
    def task(generator: torch.Generator, batch_size: int) -> Batch:
        rows = torch.randint(len(tokens), (batch_size,), generator=generator)
        return tokens[rows], targets[rows]
    return task


def loss_on(model, tokens, targets):
    """Mean cross-entropy over the positions that have a target."""
    logits = model(tokens)                                   # (B, T, V)
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE)


@torch.no_grad()
def evaluate(model, batch: Batch) -> tuple[float, float]:
    """(loss, accuracy) on the positions that have a target, in eval mode."""
    tokens, targets = batch
    was_training = model.training
    model.eval()
    logits = model(tokens)                                   # (B, T, V)
    loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE)
    scored = targets != IGNORE
    accuracy = (logits.argmax(-1)[scored] == targets[scored]).float().mean()
    model.train(was_training)
    return loss.item(), accuracy.item()


def train(model, task: Task, config: TrainingConfig,
          on_step: Callable[[int, torch.nn.Module], None] | None = None) -> list[float]:
    """AdamW on fresh batches of ``task``; returns the training loss of every step.

    ``on_step(step, model)`` is called before the first step (step 0) and after
    every step, e.g. to take snapshots of the attention patterns.
    """
    torch.manual_seed(config.seed)                           # dropout masks
    generator = torch.Generator().manual_seed(config.seed)   # data
    # foreach: one fused update for all parameter tensors (faster for many small ones).
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr,
                                  weight_decay=config.weight_decay, foreach=True)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / max(1, config.warmup)))
    model.train()
    if on_step is not None:
        on_step(0, model)
    losses = []
    for step in range(1, config.steps + 1):
        tokens, targets = task(generator, config.batch_size)
        loss = loss_on(model, tokens, targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        schedule.step()
        losses.append(loss.item())
        if on_step is not None:
            on_step(step, model)
    model.eval()
    return losses
