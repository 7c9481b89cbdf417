# %% [markdown]
# # Why Q and K are two matrices, the planted check: could the test have seen a cost?
#
# The claims ledger's rule for C34 refutes the source when tying W_Q = W_K costs less than 0.01
# on the previous-token task in at least 3/4 of the seeds whose separate model needs asymmetric
# scores (`three_roles.views.tied_qk`). A refutation stands only if the same test sees a cost
# of the verified size. 32 more separate models per task (seeds 0–31, whatever the tested run
# uses, a stream of training sequences of their own), trained as the tested run's, in a stack
# of their own. Per draw, m is what symmetric scores, $(S + S^\top)/2$, cost the previous-token
# model beyond what they cost the partner model, on calibration sequences no test uses. Each
# draw whose m reaches 0.05 is scored on fresh held-out sequences of the test's kind with its
# scores made symmetric on a random share f = 0.05 / m of them: on average it costs 0.05 more
# on the previous token than on the partner task, the verified margin. The draw is detected
# when its cost on the previous token reaches 0.01; a draw with m < 0.05 cannot carry the
# plant and counts as missed.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
import torch

from explainer.report import Report

torch.set_num_threads(1)
report = Report("three_roles.views.tied_qk_planted")

# %% [markdown]
# ## The tested run's tasks, models and training
#
# The same tasks, stacked one-layer models and training as `tied_qk.py` (its `tasks`,
# `model` and `train` cells; tests/snippets/three_roles/views/test_tied_qk_planted.py checks
# that they are the same code), and its check whether a separate model needs asymmetric scores.

# %%
import torch.nn as nn

from explainer.symmetric_plant import asymmetry_needed, symmetrised_sequences

GROUPS, KINDS = 8, 4                  # token id = group * KINDS + kind
VOCAB, LENGTH, OFFSETS = GROUPS * KINDS, 8, 64
IGNORE = -1


def previous_token(generator, n):
    """Random tokens; the target at position i is the token at i - 1."""
    tokens = torch.randint(VOCAB, (n, LENGTH), generator=generator)          # (n, T)
    targets = torch.full_like(tokens, IGNORE)
    targets[:, 1:] = tokens[:, :-1]
    return tokens, targets


def partner(generator, n):
    """Four groups, each twice, in random order; the target is the other token of your group."""
    groups = torch.rand(n, GROUPS, generator=generator).argsort(dim=1)[:, :LENGTH // 2]  # (n, T/2)
    groups = groups.repeat(1, 2)                                                # (n, T)
    order = torch.rand(n, LENGTH, generator=generator).argsort(dim=1)
    groups = groups.gather(1, order)                                            # (n, T)
    tokens = groups * KINDS + torch.randint(KINDS, (n, LENGTH), generator=generator)
    same = (groups[:, :, None] == groups[:, None, :]) & ~torch.eye(LENGTH, dtype=torch.bool)
    return tokens, tokens.gather(1, same.int().argmax(dim=2))                   # (n, T), (n, T)


def visible_to_causal(tokens, targets):
    """The targets a causal model can see: the target token sits at an earlier position."""
    earlier = torch.ones(LENGTH, LENGTH, dtype=torch.bool).tril(-1)             # j < i
    seen = ((tokens[..., None, :] == targets[..., :, None]) & earlier).any(-1)  # (…, T)
    return torch.where(seen, targets, IGNORE)


def offsets(generator, n):
    """Where each sequence starts in the table of positions: a random shift per sequence."""
    return torch.randint(OFFSETS, (n, 1), generator=generator) + torch.arange(LENGTH)  # (n, T)



class StackedModels(nn.Module):
    """M one-layer transformers (one head, an MLP), parameters stacked on dimension 0."""

    def __init__(self, seeds, tied, causal, d_model=32, d_mlp=64):
        super().__init__()
        C = d_model
        shapes = {"embed": (VOCAB, C), "position": (OFFSETS + LENGTH, C), "W_Q": (C, C), "W_K": (C, C),
                  "W_V": (C, C), "W_O": (C, C), "W_in": (C, d_mlp), "W_out": (d_mlp, C),
                  "unembed": (C, VOCAB)}
        init = {name: [] for name in shapes}
        for seed in seeds:                       # the same draw for a tied and a separate model
            generator = torch.Generator().manual_seed(seed)
            for name, shape in shapes.items():
                scale = 1.0 if name in ("embed", "position") else shape[0] ** -0.5
                init[name].append(torch.randn(shape, generator=generator) * scale)
        self.weights = nn.ParameterDict({name: nn.Parameter(torch.stack(w)) for name, w in init.items()})
        self.tied = torch.as_tensor(tied)[:, None, None]                         # (M, 1, 1)
        self.causal = torch.as_tensor(causal)[:, None, None, None]               # (M, 1, 1, 1)

    def scores(self, tokens, positions):
        """Attention scores (M, B, T, T) and the residual stream (M, B, T, C)."""
        w = self.weights
        x = w["embed"][torch.arange(len(tokens))[:, None, None], tokens]            # (M, B, T, C)
        x = x + w["position"][torch.arange(len(tokens))[:, None, None], positions]
        W_K = torch.where(self.tied, w["W_Q"], w["W_K"])                           # (M, C, C)
        q = torch.einsum("mbtc,mcd->mbtd", x, w["W_Q"])                            # (M, B, T, C)
        k = torch.einsum("mbtc,mcd->mbtd", x, W_K)                                 # (M, B, T, C)
        return q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5, x                     # (M, B, T, T)

    def forward(self, tokens, positions, symmetrise=None):
        w = self.weights
        scores, x = self.scores(tokens, positions)
        if symmetrise is not None:                                                 # (M, B) bool
            scores = torch.where(symmetrise[..., None, None], (scores + scores.transpose(-1, -2)) / 2, scores)
        T = scores.shape[-1]
        before = torch.ones(T, T, dtype=torch.bool).tril(-1)                       # key j < query i
        before[0, 0] = True                                                        # the first sees itself
        scores = scores.masked_fill(self.causal & ~before, float("-inf"))
        attention = scores.softmax(dim=-1)                                         # (M, B, T, T)
        v = torch.einsum("mbtc,mcd->mbtd", x, w["W_V"])
        x = x + torch.einsum("mbtc,mcd->mbtd", attention @ v, w["W_O"])            # (M, B, T, C)
        hidden = torch.relu(torch.einsum("mbtc,mch->mbth", x, w["W_in"]))
        x = x + torch.einsum("mbth,mhc->mbtc", hidden, w["W_out"])
        return torch.einsum("mbtc,mcv->mbtv", x, w["unembed"]), attention          # (M, B, T, V)



TASKS = {"previous": previous_token, "partner": partner}
STEPS, BATCH = 1500, 32


def batch_for_every_model(generator, n, task_of, causal_of):
    """(tokens, targets, positions), each (M, n, T): every model of a stack (its tasks and causal
    flags) draws n sequences of its own task (the models of one task are consecutive, so each
    task draws for all of them at once)."""
    M = len(task_of)
    tokens, targets = zip(*(TASKS[task](generator, task_of.count(task) * n) for task in TASKS))
    positions = offsets(generator, M * n).view(M, n, LENGTH)
    tokens, targets = torch.cat(tokens).view(M, n, LENGTH), torch.cat(targets).view(M, n, LENGTH)
    targets = torch.where(causal_of[:, None, None], visible_to_causal(tokens, targets), targets)
    return tokens, targets, positions


def train(model, data, task_of, causal_of):
    """STEPS steps of AdamW on the sum of the models' own mean losses, sequences from `data`."""
    M = len(task_of)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
    for step in range(STEPS):
        tokens, targets, positions = batch_for_every_model(data, BATCH, task_of, causal_of)
        logits, _ = model(tokens, positions)                                 # (M, B, T, V)
        loss = nn.functional.cross_entropy(logits.flatten(0, 2), targets.flatten(), ignore_index=IGNORE,
                                           reduction="none").view(M, -1)     # (M, B*T)
        loss = (loss.sum(1) / (targets != IGNORE).view(M, -1).sum(1)).sum()  # sum of per-model means
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


MARGIN, HARMLESS = 0.05, 0.01     # the rule's verified margin; tying "costs nothing" below 0.01


def accuracy_of(model, tokens, targets, positions, symmetrise=None):
    """(M,) accuracy over the positions with a target; symmetrise (M, B): sequences scored with (S + S^T)/2."""
    with torch.no_grad():
        logits, _ = model(tokens, positions, symmetrise)
    scored = targets != IGNORE
    return ((logits.argmax(-1) == targets) & scored).sum((1, 2)) / scored.sum((1, 2))


def needs_asymmetry(model, task_of, causal_of, previous_rows, partner_rows):
    """m for each pair of separate models (previous_rows[i], partner_rows[i]) of a stack, on its
    calibration sequences (generator 777, 1,000 per model, never a test's)."""
    tokens, targets, positions = batch_for_every_model(torch.Generator().manual_seed(777), 1000, task_of, causal_of)
    plain = accuracy_of(model, tokens, targets, positions)
    symmetric = accuracy_of(model, tokens, targets, positions, torch.ones(tokens.shape[:2], dtype=torch.bool))
    return asymmetry_needed(plain[previous_rows], symmetric[previous_rows], plain[partner_rows], symmetric[partner_rows])


# %% [markdown]
# ## The planted stack

# %% tags=["planted"]
PLANTED_DRAWS = 32
planted_tasks = [task for task in TASKS for draw in range(PLANTED_DRAWS)]      # previous, then partner
planted_causal = torch.zeros(len(planted_tasks), dtype=torch.bool)
planted = StackedModels([draw for task in TASKS for draw in range(PLANTED_DRAWS)],
                        tied=[False] * len(planted_tasks), causal=planted_causal)
train(planted, torch.Generator().manual_seed(11), planted_tasks, planted_causal)
previous_rows = torch.arange(PLANTED_DRAWS)
m_planted = needs_asymmetry(planted, planted_tasks, planted_causal, previous_rows, previous_rows + PLANTED_DRAWS)
# Held-out sequences of the test's kind, drawn for this stack (generator 2, 1,000 per model).
held_tokens, held_targets, held_positions = batch_for_every_model(torch.Generator().manual_seed(2), 1000,
                                                                  planted_tasks, planted_causal)
symmetrise = torch.zeros(held_tokens.shape[:2], dtype=torch.bool)             # (2 × draws, B)
for draw in range(PLANTED_DRAWS):
    chosen = symmetrised_sequences(m_planted[draw].item(), MARGIN, held_tokens.shape[1], 800 + draw)
    if chosen is not None:                                                    # None: m < 0.05, invalid
        symmetrise[draw] = chosen
valid = m_planted >= MARGIN
planted_cost = (accuracy_of(planted, held_tokens, held_targets, held_positions)
                - accuracy_of(planted, held_tokens, held_targets, held_positions, symmetrise))[previous_rows]
detected = valid & (planted_cost >= HARMLESS)
print(f"planted: {int(valid.sum())} of {PLANTED_DRAWS} draws valid, {int(detected.sum())} detected")

# %%
report.number("planted_draws", PLANTED_DRAWS, "{:.0f}", kind="count")
report.number("margin", MARGIN, "{:.2f}")
report.number("harmless", HARMLESS, "{:.2f}")
report.number("planted_valid_draws", valid.sum(), "{:.0f}", kind="count")
report.number("planted_detection_share", detected.sum() / PLANTED_DRAWS, "{:.2f}", kind="share")

report.save()
