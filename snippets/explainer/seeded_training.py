"""Train S seeds of a ``SeededTransformer`` together, and measure each seed.

Tasks are the ones of ``training.py``: ``make_batch(generator, batch_size)``
-> (tokens, targets). Each step draws S x batch_size examples at once and
gives every seed its own batch_size of them, so the seeds differ in their
initial weights *and* in the data they see. The loss is the sum of the
per-seed mean cross-entropies; AdamW works element by element, so the sum
trains each seed exactly as if it were trained alone.
"""

import os
from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn.functional as F

from explainer.training import IGNORE, Task


@dataclass
class SeededTrainingConfig:
    steps: int = 300
    batch_size: int = 64   # per seed
    lr: float = 1e-2
    weight_decay: float = 0.0
    data_seed: int = 0     # the stream of batches (different batches for each seed)
    warmup: int = 20       # steps of linear learning-rate warm-up


def per_seed_loss(logits, targets):
    """Mean cross-entropy of each seed over the positions that have a target: (S,)."""
    S = logits.shape[0]
    if targets.dim() == 2:
        targets = targets.expand(S, *targets.shape)                       # (S, B, T)
    ce = F.cross_entropy(logits.flatten(0, 2), targets.flatten(), ignore_index=IGNORE,
                         reduction="none").view(targets.shape)            # (S, B, T)
    scored = (targets != IGNORE).float()                                  # (S, B, T)
    return (ce * scored).sum(dim=(1, 2)) / scored.sum(dim=(1, 2))         # (S,)


@torch.no_grad()
def evaluate_seeds(model, batch) -> tuple[torch.Tensor, torch.Tensor]:
    """(loss, accuracy) of every seed, each (S,), on the positions that have a target.

    ``batch`` = (tokens, targets), each (B, T) shared by all seeds or (S, B, T)."""
    tokens, targets = batch
    logits = model(tokens)                                                # (S, B, T, V)
    if targets.dim() == 2:
        targets = targets.expand(model.n_seeds, *targets.shape)           # (S, B, T)
    scored = targets != IGNORE
    correct = ((logits.argmax(-1) == targets) & scored).float()           # (S, B, T)
    accuracy = correct.sum(dim=(1, 2)) / scored.sum(dim=(1, 2))           # (S,)
    return per_seed_loss(logits, targets), accuracy


def train_seeds(model, task: Task, config: SeededTrainingConfig,
                on_step: Callable[[int, torch.nn.Module], None] | None = None) -> torch.Tensor:
    """AdamW on fresh batches for every seed at once; returns the training losses, (steps, S).

    ``on_step(step, model)`` is called before the first step (step 0) and after every step."""
    S, B = model.n_seeds, config.batch_size
    generator = torch.Generator().manual_seed(config.data_seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr,
                                  weight_decay=config.weight_decay, foreach=True)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / max(1, config.warmup)))
    if on_step is not None:
        on_step(0, model)
    losses = []
    for step in range(1, config.steps + 1):
        tokens, targets = task(generator, S * B)                          # (S*B, T)
        tokens, targets = tokens.view(S, B, -1), targets.view(S, B, -1)   # (S, B, T)
        loss = per_seed_loss(model(tokens), targets)                      # (S,)
        optimizer.zero_grad(set_to_none=True)
        loss.sum().backward()
        optimizer.step()
        schedule.step()
        losses.append(loss.detach())
        if on_step is not None:
            on_step(step, model)
    return torch.stack(losses)                                            # (steps, S)


def n_seeds(default: int) -> int:
    """How many random seeds to train: ``default``, unless the build asks for more
    (``EXPLAINER_SEEDS``, set when a verdict is borderline at ``default`` seeds)."""
    return int(os.environ.get("EXPLAINER_SEEDS", default))


def summary(values) -> dict[str, float]:
    """Mean, standard deviation, minimum and maximum over seeds."""
    values = torch.as_tensor(values, dtype=torch.float64).flatten()
    return {"mean": values.mean().item(), "std": values.std(unbiased=False).item(),
            "min": values.min().item(), "max": values.max().item()}


def report_spread(report, key: str, values, fmt: str = "{:.3f}", *, en: str, zh: str,
                  kind: str = "") -> dict:
    """Record ``key_mean``, ``key_std``, ``key_min`` and ``key_max`` of per-seed ``values``
    (each with the per-seed values, so the build can resample the seeds). With
    ``kind="count"`` (one whole count per seed) the lowest and highest seed are written as
    whole numbers and the mean and spread with ``fmt``; ``kind="share"`` writes all four as
    percents."""
    stats = summary(values)
    words = {"mean": ("mean over seeds", "各种子的平均"), "std": ("standard deviation over seeds", "各种子间的标准差"),
             "min": ("lowest seed", "最低的种子"), "max": ("highest seed", "最高的种子")}
    for name, value in stats.items():
        this_kind = ("count" if name in ("min", "max") else "") if kind == "count" else kind
        report.number(f"{key}_{name}", value, fmt, kind=this_kind, en=f"{en} ({words[name][0]})",
                      zh=f"{zh}（{words[name][1]}）", per_seed=values, of=name)
    return stats


def report_small_run(report, seeds: int, steps: int, *, runs: tuple[str, str] = ("seeds", "种子数")) -> None:
    """Record ``small_run_seeds`` and ``small_run_steps``: the size of the small run a page
    shows in a cell, so its prose states it from the run. ``runs`` names what is counted
    (English, Chinese), e.g. ("colonies", "“蚁群”数")."""
    report.number("small_run_seeds", seeds, "{:.0f}", en=f"{runs[0]} of the small run shown on the page",
                  zh=f"页面上小规模运行的{runs[1]}")
    report.number("small_run_steps", steps, "{:.0f}", en="training steps of the small run shown on the page",
                  zh="页面上小规模运行的训练步数")


def report_seed_count(report, key: str, per_seed, *, en: str, zh: str) -> int:
    """Record ``key``: in how many seeds ``per_seed`` (one truth value per seed) holds."""
    per_seed = torch.as_tensor(per_seed).flatten().bool()
    return int(report.number(key, per_seed.sum(), kind="count", en=en, zh=zh,
                             per_seed=per_seed.float(), of="count"))
