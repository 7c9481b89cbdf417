# %% [markdown]
# # Why Q and K are two matrices: tie them and see what breaks
#
# Source B's addendum asks why queries and keys come from separate matrices.
# The answer it points to: a relation like "A looks for B" is not symmetric.
# If one matrix made both, $W_Q = W_K = W$, the score of token i for token j
# would be $x_i W \cdot x_j W$ — the same number as the score of j for i.
#
# We train small one-layer models, many seeds at once, with separate and with
# tied matrices, on two tasks:
#
# - *previous token* (asymmetric): predict the token just before. Position i
#   looks for i − 1, but i − 1 does not look for i.
# - *partner* (symmetric control): every sequence holds four groups, each
#   twice; predict the other member of your group. If A looks for B, B looks
#   for A.
#
# Positions enter with a random offset per sequence, so "position 3" means
# nothing on its own. (A score that falls steadily along the table of positions
# could still favour the token before over the token after, at every offset: what
# is measured here holds for this toy's absolute positions.)
# The models have no biases, so with $W_Q = W_K$ the scores are exactly
# symmetric. Every token sees every other (bidirectional, as in the source's
# picture); beside it we measure a causal variant in which a token sees only
# the tokens before it, not itself (shared-QK is reported to work there).

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
import torch

from explainer.plotting import LANGS, column_figure
from explainer.report import Report
from explainer.seeds import n_seeds, report_seed_count, report_spread

torch.set_num_threads(1)
report = Report("three_roles.views.tied_qk")

# %% tags=["tasks"]
import torch

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


generator = torch.Generator().manual_seed(0)
sequence, target = previous_token(generator, 1)
print("previous token:", sequence[0].tolist(), "->", target[0].tolist())
sequence, target = partner(generator, 1)
print("partner:       ", sequence[0].tolist(), "->", target[0].tolist())

# %% [markdown]
# ## One layer, many models at once
#
# Token and position embeddings, one attention head, an MLP, an unembedding —
# M models stacked on a leading dimension, no biases. A tied model uses its
# $W_Q$ as its key matrix too; its $W_K$ is never used. A causal model masks
# every key at or after the query, except that the first token, with nothing
# before it, sees itself. `symmetrise` (M, B) scores the chosen sequences with
# the symmetric part of the scores, $(S + S^\top)/2$ — used only by the check
# further down, never in training.

# %% tags=["model"]
import torch.nn as nn


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


# %% [markdown]
# ## Train: two tasks × separate or tied × bidirectional or causal × seeds, in one batched model
#
# Each model sees its own stream of sequences; a causal model is scored only
# where its target lies before it. The loss is the sum of the
# models' own losses, and AdamW works element by element, so every model
# trains exactly as if it were alone.

# %%
SEEDS = list(range(n_seeds(8)))   # the build trains more when a verdict is undecided

# %% tags=["train"]
TASKS = {"previous": previous_token, "partner": partner}
STEPS, BATCH = 1500, 32
arms = [(task, causal, tied) for task in TASKS for causal in (False, True) for tied in (False, True)]
task_of = [task for task, causal, tied in arms for seed in SEEDS]
causal_of = torch.tensor([causal for task, causal, tied in arms for seed in SEEDS])
model = StackedModels([seed for arm in arms for seed in SEEDS],
                      tied=[tied for task, causal, tied in arms for seed in SEEDS], causal=causal_of)
M = len(task_of)


def batch_for_every_model(generator, n, task_of=task_of, causal_of=causal_of):
    """(tokens, targets, positions), each (M, n, T): every model of a stack (its tasks and causal
    flags) draws n sequences of its own task (the models of one task are consecutive, so each
    task draws for all of them at once)."""
    M = len(task_of)
    tokens, targets = zip(*(TASKS[task](generator, task_of.count(task) * n) for task in TASKS))
    positions = offsets(generator, M * n).view(M, n, LENGTH)
    tokens, targets = torch.cat(tokens).view(M, n, LENGTH), torch.cat(targets).view(M, n, LENGTH)
    targets = torch.where(causal_of[:, None, None], visible_to_causal(tokens, targets), targets)
    return tokens, targets, positions


def train(model, data, task_of=task_of, causal_of=causal_of):
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


train(model, torch.Generator().manual_seed(1))

# %% [markdown]
# ## Held-out accuracy
#
# Fresh sequences (another random stream) for every model; accuracy over the
# positions that have a target. Per seed, what tying costs on each task:
# accuracy of the separate model minus that of the tied one.

# %% tags=["measure"]
with torch.no_grad():
    tokens, targets, positions = batch_for_every_model(torch.Generator().manual_seed(2), 1000)
    logits, attention = model(tokens, positions)
    scored = targets != IGNORE
    model_accuracy = ((logits.argmax(-1) == targets) & scored).sum((1, 2)) / scored.sum((1, 2))  # (M,)
n = len(SEEDS)
accuracy = dict(zip(arms, model_accuracy.view(len(arms), n)))               # arm -> (seeds,)
# separate minus tied; bidirectional (the verdict) and causal (a scope note)
cost_previous = accuracy["previous", False, False] - accuracy["previous", False, True]
cost_partner = accuracy["partner", False, False] - accuracy["partner", False, True]
cost_previous_causal = accuracy["previous", True, False] - accuracy["previous", True, True]
cost_partner_causal = accuracy["partner", True, False] - accuracy["partner", True, True]
MARGIN, HARMLESS = 0.05, 0.01     # the rule's verified margin; tying "costs nothing" below 0.01
for (task, causal, tied), row in accuracy.items():
    print(f"{task:>8} {'causal' if causal else 'bidirectional':>13} {'tied' if tied else 'separate':>8}: "
          f"accuracy {[round(a, 3) for a in row.tolist()]}")
print("cost of tying, previous token:", [round(c, 3) for c in cost_previous.tolist()])
print("cost of tying, partner:       ", [round(c, 3) for c in cost_partner.tolist()])
print("causal, previous token:       ", [round(c, 3) for c in cost_previous_causal.tolist()])
print("causal, partner:              ", [round(c, 3) for c in cost_partner_causal.tolist()])

# %% [markdown]
# ## Where the tied model looks
#
# On the previous-token task, how much attention goes one step back and one
# step ahead. In a tied model the pair (i, i + 1) has one score, seen from both
# sides; the weights can still differ, because the softmax normalises each row
# on its own. We also check that the tied scores really are symmetric, and
# whether the tied model does better where its sequence starts lower or higher
# in the table of positions.

# %% tags=["look"]
inner = torch.arange(1, LENGTH - 1)                     # positions with a token before and after
back = attention[..., inner, inner - 1].mean((1, 2)).view(len(arms), n)    # (arms, seeds)
ahead = attention[..., inner, inner + 1].mean((1, 2)).view(len(arms), n)
with torch.no_grad():
    scores, _ = model.scores(tokens[:, :50], positions[:, :50])             # (M, 50, T, T)
asymmetry = (scores - scores.transpose(-1, -2)).abs().amax((1, 2, 3))       # (M,)
tied_models = torch.tensor([tied for task, causal, tied in arms for seed in SEEDS])   # (M,)
# Does the tied model lean on where the sequence sits in the table of positions?
start = positions[:, :, 0]                                                   # (M, B) the offsets
correct = ((logits.argmax(-1) == targets) & scored).sum(2) / scored.sum(2)   # (M, B)
low, high = start < OFFSETS // 4, start >= OFFSETS - OFFSETS // 4
accuracy_low = ((correct * low).sum(1) / low.sum(1)).view(len(arms), n)     # (arms, seeds)
accuracy_high = ((correct * high).sum(1) / high.sum(1)).view(len(arms), n)
print(f"previous token, separate: {back[0].mean():.2f} of the attention one step back, "
      f"{ahead[0].mean():.2f} one step ahead")
print(f"previous token, tied:     {back[1].mean():.2f} one step back, {ahead[1].mean():.2f} one step ahead")
print(f"previous token, tied: accuracy {accuracy_low[1].mean():.2f} for the lowest quarter of offsets, "
      f"{accuracy_high[1].mean():.2f} for the highest")
print(f"largest |score(i, j) - score(j, i)|: tied {asymmetry[tied_models].max():.1e}, "
      f"separate {asymmetry[~tied_models].min():.2f} (smallest model)")
# The causal models: no weight on a key at or after the query (the first token excepted).
at_or_after = torch.ones(LENGTH, LENGTH, dtype=torch.bool).triu()
at_or_after[0, 0] = False
causal_leak = attention[causal_of][..., at_or_after].max()

# %%
report.number("n_seeds", n, "{:.0f}")
report.number("steps", STEPS, "{:.0f}", kind="count")
report.number("offsets", OFFSETS, "{:.0f}", kind="count")
report.number("margin", MARGIN, "{:.2f}")
report.number("harmless", HARMLESS, "{:.2f}")
report_spread(report, accuracy["previous", False, False], "{:.3f}", mean="accuracy_previous_separate_mean",
              std="accuracy_previous_separate_std", min="accuracy_previous_separate_min",
              max="accuracy_previous_separate_max")
report_spread(report, accuracy["previous", False, True], "{:.3f}", mean="accuracy_previous_tied_mean",
              std="accuracy_previous_tied_std", min="accuracy_previous_tied_min", max="accuracy_previous_tied_max")
report_spread(report, accuracy["previous", True, False], "{:.3f}", mean="accuracy_previous_separate_causal_mean",
              std="accuracy_previous_separate_causal_std", min="accuracy_previous_separate_causal_min",
              max="accuracy_previous_separate_causal_max")
report_spread(report, accuracy["previous", True, True], "{:.3f}", mean="accuracy_previous_tied_causal_mean",
              std="accuracy_previous_tied_causal_std", min="accuracy_previous_tied_causal_min",
              max="accuracy_previous_tied_causal_max")
report_spread(report, accuracy["partner", False, False], "{:.3f}", mean="accuracy_partner_separate_mean",
              std="accuracy_partner_separate_std", min="accuracy_partner_separate_min",
              max="accuracy_partner_separate_max")
report_spread(report, accuracy["partner", False, True], "{:.3f}", mean="accuracy_partner_tied_mean",
              std="accuracy_partner_tied_std", min="accuracy_partner_tied_min", max="accuracy_partner_tied_max")
report_spread(report, accuracy["partner", True, False], "{:.3f}", mean="accuracy_partner_separate_causal_mean",
              std="accuracy_partner_separate_causal_std", min="accuracy_partner_separate_causal_min",
              max="accuracy_partner_separate_causal_max")
report_spread(report, accuracy["partner", True, True], "{:.3f}", mean="accuracy_partner_tied_causal_mean",
              std="accuracy_partner_tied_causal_std", min="accuracy_partner_tied_causal_min",
              max="accuracy_partner_tied_causal_max")
report_spread(report, cost_previous, "{:.3f}", mean="cost_previous_mean", std="cost_previous_std",
              min="cost_previous_min", max="cost_previous_max")
report_spread(report, cost_previous_causal, "{:.3f}", mean="cost_previous_causal_mean",
              std="cost_previous_causal_std", min="cost_previous_causal_min", max="cost_previous_causal_max")
report_spread(report, cost_partner, "{:.3f}", mean="cost_partner_mean", std="cost_partner_std",
              min="cost_partner_min", max="cost_partner_max")
report_spread(report, cost_partner_causal, "{:.3f}", mean="cost_partner_causal_mean", std="cost_partner_causal_std",
              min="cost_partner_causal_min", max="cost_partner_causal_max")
report_seed_count(report, "asymmetric_margin_seeds", cost_previous - cost_partner >= MARGIN)
report_seed_count(report, "tied_harmless_seeds", cost_previous < HARMLESS)
report_seed_count(report, "causal_tied_harmless_seeds", cost_previous_causal < HARMLESS)
report.number("causal_attention_leak", causal_leak, "{:.1e}")
report.number("back_separate_mean", back[0].mean(), "{:.2f}", kind="share", per_seed=back[0], of="mean")
report.number("ahead_separate_mean", ahead[0].mean(), "{:.2f}", kind="share", per_seed=ahead[0], of="mean")
report.number("back_tied_mean", back[1].mean(), "{:.2f}", kind="share", per_seed=back[1], of="mean")
report.number("ahead_tied_mean", ahead[1].mean(), "{:.2f}", kind="share", per_seed=ahead[1], of="mean")
report.number("accuracy_previous_tied_offset_low_mean", accuracy_low[1].mean(), "{:.2f}", per_seed=accuracy_low[1],
              of="mean")
report.number("accuracy_previous_tied_offset_high_mean", accuracy_high[1].mean(), "{:.2f}", per_seed=accuracy_high[1],
              of="mean")
report.number("tied_score_asymmetry", asymmetry[tied_models].max(), "{:.1e}")
report.number("separate_score_asymmetry", asymmetry[~tied_models].min(), "{:.2f}")
# The target makers, checked on fresh sequences: previous = shifted tokens; partner = the
# other position holding the same group (never the position itself).
check = torch.Generator().manual_seed(3)
tokens_p, targets_p = previous_token(check, 500)
report.number("previous_target_errors", (targets_p[:, 1:] != tokens_p[:, :-1]).sum() + (targets_p[:, 0] != IGNORE).sum(),
              "{:.0f}", kind="count")
tokens_q, targets_q = partner(check, 500)
groups_q = tokens_q // KINDS
same_group = groups_q[:, :, None] == groups_q[:, None, :]                   # (n, T, T)
report.number("partner_group_sizes_wrong", (same_group.sum(2) != 2).sum(), "{:.0f}", kind="count")
report.number("partner_target_errors", (targets_q // KINDS != groups_q).sum(), "{:.0f}", kind="count")

# %% [markdown]
# ## Could the test have seen a cost? The separate models with symmetric scores
#
# Tying "costs nothing" also where the separate model never needed asymmetric
# scores: it did not learn the task, or it solved it another way. So each
# separate model is scored twice on calibration sequences no test uses (another
# random stream, 1,000 per model): as it is, and with its scores made symmetric,
# $(S + S^\top)/2$. Per seed, m is what that costs on the previous token beyond
# what it costs on the partner task; a seed counts towards "tying costs nothing"
# only when m ≥ 0.05 on the same seed. Whether the test could see a cost of the
# verified size at all is checked on planted draws, in `tied_qk_planted.py`.

# %% tags=["needs_asymmetry"]
from explainer.symmetric_plant import asymmetry_needed


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


rows = torch.arange(len(arms) * n).view(len(arms), n)                        # (arms, seeds): the stack's rows
m = needs_asymmetry(model, task_of, causal_of, rows[arms.index(("previous", False, False))],
                    rows[arms.index(("partner", False, False))])
needed = m >= MARGIN                                                          # (seeds,)
harmless_needed = (cost_previous < HARMLESS) & needed                         # on the same seed
print("symmetric scores cost the separate model, previous minus partner:", [round(v, 3) for v in m.tolist()])

# %%
report.number("symmetrised_margin_mean", m.mean(), "{:.3f}", per_seed=m, of="mean")
report_seed_count(report, "separate_needs_asymmetry_seeds", needed)
report_seed_count(report, "tied_harmless_needed_seeds", harmless_needed)

# %% [markdown]
# ## Figure

# %%
TEXT = report.figure_text()   # the figure's words: tied_qk.strings.toml
colors = {"previous": "#d95f02", "partner": "#1b9e77", "back": "#7570b3", "ahead": "#e7298a"}
for lang in LANGS:
    text = TEXT[lang]
    fig, (left, right) = column_figure(3.6, ncols=2)
    for t, task in enumerate(("previous", "partner")):
        rows = torch.stack([accuracy[task, False, False], accuracy[task, False, True]])   # (2, seeds)
        for seed in range(n):
            left.plot([2 * t, 2 * t + 1], rows[:, seed], color=colors[task], alpha=0.5, lw=1, marker="o", ms=3)
    left.set_xticks(range(4), text["columns"])
    for t, task in enumerate(text["tasks"]):
        left.text(2 * t + 0.5, -0.16, task, transform=left.get_xaxis_transform(), ha="center", va="top")
    left.set_ylim(0, 1.05)
    left.set_ylabel(text["accuracy"])
    left.set_title(text["panel_a"], loc="left")
    width = 0.35
    for k, (name, values) in enumerate((("back", back[:2]), ("ahead", ahead[:2]))):
        x = torch.arange(2) + (k - 0.5) * width
        right.bar(x, values.mean(1), width, color=colors[name], alpha=0.6, label=text[name])
        for a in range(2):
            right.plot([x[a]] * n, values[a], "o", color=colors[name], ms=3)
    right.set_xticks(range(2), text["models"])
    right.set_ylim(0, 1.05)
    right.set_ylabel(text["attention"])
    right.set_title(text["panel_b"], loc="left")
    right.legend(fontsize=9, loc="upper right")
    report.figure("tied_scores", fig, lang, alt=text["alt"].format(n=n), caption=text["caption"])

report.save()
