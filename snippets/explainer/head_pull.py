"""Pulling two heads together (C10, many_heads.why_heads_differ.pull_together), kept here so the
snippet reads as its measurement.

Per seed, four 2-head models on the pronoun language, stacked and trained together: the usual
random start pulled together by an extra loss 1 - cos(head 0, head 1) over each head's whole
parameter vector, an aligned start (head 1 mixed towards head 0 to cos 0.9) pulled the same
way, the usual start without the pull, and its partner (the same draw but for the heads), whose
heads against the free run's are the null for free heads growing alike (``pull_together``). The
free heads are compared through their bilinear forms W_Q W_Kᵀ (``bilinear_forms``,
``form_cosine``), and a planted pull checks that the comparison can see heads growing alike
(``plant_pull``). The page's cells import these names and print their code.
"""

import random

import torch

from explainer.batched import StackedTransformer, train_batched
from explainer.pronoun_language import SENTENCE_LENGTH, VOCAB, batch
from explainer.tiny_transformer import TransformerConfig
from explainer.training import sample_from

# start / pull: random+pull, aligned+pull, random alone, random alone with other head draws
ARMS = ("orthogonal", "aligned", "free", "partner")
STEPS, TARGET, ALIGNED_COS = 1200, 0.99, 0.9   # budget fixed in the registry (C10)
PARTNER_HEADS = 1000                           # a partner's heads are drawn as seed + 1000 draws them
pool_tokens, pool_targets, _ = batch(random.Random(0), 8192)
task = sample_from(pool_tokens, pool_targets)
probe_tokens, probe_targets, _ = batch(random.Random(1234), 400)
config = TransformerConfig(vocab_size=len(VOCAB), n_ctx=SENTENCE_LENGTH, d_model=32, n_heads=2)


def bilinear_forms(model) -> torch.Tensor:
    """Each head's bilinear form B = W_Q W_K^T, the C x C matrix with score(i, j) = x_i B x_j^T / sqrt(hs),
    flattened: (M, nh, C*C). The model stores W_Q like nn.Linear, (out, in): a head's rows are its W_Q^T."""
    queries, keys = model.head_slices("W_Q"), model.head_slices("W_K")     # (M, nh, hs, C) each
    return (queries.transpose(-2, -1) @ keys).flatten(2)                   # (M, nh, C*C)


def form_cosine(model, first, second) -> torch.Tensor:
    """Cosine between the bilinear forms of (model rows, head) pairs, e.g. first = (rows, 0): (len(rows),)."""
    forms = bilinear_forms(model)                                          # (M, nh, C*C)
    return torch.cosine_similarity(forms[first], forms[second], dim=-1)


def head_cosine(model) -> torch.Tensor:
    """Cosine between head 0's and head 1's whole parameter vectors, per model: (M,)."""
    heads = model.head_parameters()                                         # (M, 2, P)
    return torch.cosine_similarity(heads[:, 0], heads[:, 1], dim=-1)


def pull_together(seeds, steps=STEPS):
    """Per seed, four 2-head models: the usual start pulled together, an aligned start pulled
    together, the usual start without the pull, and its partner (the same draw but for the heads).
    Returns the model, the rows of each arm, the heads' cosine at the start (M,) and at every
    step (M, steps + 1), and at every step the bilinear forms' cosine of the free pair and of
    the cross-run pairs (free head 0 with partner head 1, partner head 0 with free head 1)."""
    model = StackedTransformer.from_seeds(config, [seed for _ in ARMS for seed in seeds])
    n = len(seeds)
    arm_of = {arm: slice(a * n, (a + 1) * n) for a, arm in enumerate(ARMS)}
    hs = model.head_size
    aligned = arm_of["aligned"]
    fresh = StackedTransformer.from_seeds(config, [PARTNER_HEADS + seed for seed in seeds])
    with torch.no_grad():  # the partner: the free run's embedding and unembedding, other heads
        for name in ("W_Q", "W_K", "W_V", "W_O"):
            getattr(model, name)[arm_of["partner"]] = getattr(fresh, name)
        a, b = ALIGNED_COS, (1 - ALIGNED_COS ** 2) ** 0.5
        for name in ("W_Q", "W_K", "W_V"):
            weight = getattr(model, name)[aligned]                          # (n, C, C)
            weight[:, hs:2 * hs] = a * weight[:, :hs] + b * weight[:, hs:2 * hs]
            getattr(model, name)[aligned] = weight
        model.W_O[aligned, :, hs:2 * hs] = a * model.W_O[aligned, :, :hs] + b * model.W_O[aligned, :, hs:2 * hs]
    start_cosine = head_cosine(model).detach()                              # (M,)
    pull = torch.tensor([1.0 if arm in ("orthogonal", "aligned") else 0.0 for arm in ARMS for _ in seeds])  # (M,)
    free, partner = torch.arange(2 * n, 3 * n), torch.arange(3 * n, 4 * n)  # rows, (n,) each
    across = torch.cat([free, partner]), torch.cat([partner, free])        # (2n,) each
    cosines, free_forms, null_forms = [], [], []

    def record(step, m):
        with torch.no_grad():
            cosines.append(head_cosine(m))                                  # (M,)
            free_forms.append(form_cosine(m, (free, 0), (free, 1)))         # (n,)
            null_forms.append(form_cosine(m, (across[0], 0), (across[1], 1)))  # (2n,)

    train_batched(model, task, steps=steps, batch_size=16, data_seeds=seeds * len(ARMS),
                  extra_loss=lambda m: pull * (1 - head_cosine(m)), on_step=record)
    forms = {"free": torch.stack(free_forms, dim=1), "null": torch.stack(null_forms, dim=1)}  # (n | 2n, steps + 1)
    return model, arm_of, start_cosine, torch.stack(cosines, dim=1), forms  # (M,), (M, steps + 1)


def plant_pull(seeds, target, steps=STEPS):
    """The free run again (same draw, same batches) with a planted pull max(0, target - cos) on
    the bilinear forms' cosine: it pulls the heads together up to ``target`` and no further.
    Returns the forms' cosine at every step, (S, steps + 1)."""
    model = StackedTransformer.from_seeds(config, seeds)
    rows = torch.arange(len(seeds))
    planted = []
    train_batched(model, task, steps=steps, batch_size=16, data_seeds=list(seeds),
                  extra_loss=lambda m: torch.relu(target - form_cosine(m, (rows, 0), (rows, 1))),
                  on_step=lambda step, m: planted.append(form_cosine(m, (rows, 0), (rows, 1)).detach()))
    return torch.stack(planted, dim=1)                                      # (S, steps + 1)
