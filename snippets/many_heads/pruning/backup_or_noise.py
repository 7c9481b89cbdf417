# %% [markdown]
# # Are sixteen heads better than one? (2) Backups, or noise smoothing?
#
# Source A explains the heads that pruning removes: they act as *backups*, or
# they *smooth out noise* (C25). We train the 2-layer, 16-head attention-only
# model of how_many.py again (the same seeds give the same weights), find the
# heads its yardstick removes, and test both explanations on them.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report
from explainer.seeds import report_seed_count, report_seeds_past, report_spread

report = Report("many_heads.pruning.backup_or_noise")

# %% [markdown]
# ## The model, and the removable heads
#
# The task, the batched model (every parameter has a leading seed dimension)
# and the removal of heads (explainer/head_ablation.py: a head's output is
# zeroed before W_O) come from the project's `explainer` package. The removable
# heads are the ones the yardstick of how_many.py removes: ranked by the
# accuracy drop when each alone is removed, removed least important first while
# accuracy stays at or above 95 % of the full model's.

# %%
from explainer.first_and_previous import T, V, ordered_pair   # first: it pins torch's CPU kernels
from explainer.batched import SeededTransformer, train_batched
from explainer.removable_heads import (backup_test, embedding_rms, noise_cost, noise_level, noisy_accuracy,
                                       removable_heads, smoothing_test)
from explainer.seeds import n_seeds
from explainer.tiny_transformer import TransformerConfig
import numpy as np
import torch

torch.set_num_threads(1)
np.set_printoptions(linewidth=120)  # a row of 16 heads on one line
N_LAYERS, N_HEADS = 2, 8
H = N_LAYERS * N_HEADS             # 16 heads, numbered layer * N_HEADS + head
STEPS = 200
KEEP = 0.95                        # the yardstick: accuracy >= 95 % of the full model's
config = TransformerConfig(vocab_size=V * V, n_ctx=T, d_model=32, n_heads=N_HEADS, n_layers=N_LAYERS)
ranking_set = ordered_pair(torch.Generator().manual_seed(1234), 128)  # held out: importance
test_set = ordered_pair(torch.Generator().manual_seed(4321), 128)     # held out: pruning curves

# %%
N_SEEDS = n_seeds(8)   # the build trains more when a verdict is undecided
SEEDS = list(range(N_SEEDS))
N_RANDOM = 10                      # random draws of a head set, per seed
model = SeededTransformer(config, SEEDS)
train_batched(model, ordered_pair, steps=STEPS, batch_size=32, lr=1e-2)
model.keep_weights = False   # no head metric here: evaluate with the fused attention kernel
full_accuracy, removable = removable_heads(model, ranking_set, test_set, KEEP)   # (S,), (S, H)
n_removable = removable.sum(dim=1)                                       # (S,)
has_removable = n_removable > 0
# The random head sets below continue how_many.py's random stream (seed 0), which first
# draws N_RANDOM random pruning orders per seed.
generator = torch.Generator().manual_seed(0)
for _ in range(N_RANDOM * N_SEEDS):
    torch.randperm(H, generator=generator)
report.number("n_seeds", N_SEEDS, "{:.0f}")

# %% [markdown]
# ## Backups? Remove a head's twin first
#
# Source A says the removable heads act as backups or smooth out noise. If a
# removable head is a backup, some other head does the same job: removing
# that twin first should make the head's own removal costly. Each head's twin
# is the other head whose contribution to the residual stream (its output
# through W_O) is most alike (cosine over the held-out set). The control:
# the same head removed after any other single head, on average.

# %%
# The twin search by cosine, single and pair removals, the extra costs (explainer/removable_heads.py).
twins = backup_test(model, test_set, full_accuracy)
similarity, alone, twin_extra = twins["similarity"], twins["alone"], twins["twin_extra"]   # (S, H, H), (S, H), (S, H)
other_extra, is_backup = twins["other_extra"], twins["is_backup"]                         # (S, H), (S, H)

backup_share = (is_backup & removable).sum(dim=1) / n_removable.clamp(min=1)


def mean_over_removable(values):
    """Per seed, the mean of ``values`` (S, H) over its removable heads (0 for a seed without any)."""
    return (values * removable).sum(dim=1) / n_removable.clamp(min=1)


report_spread(report, n_removable, "{:.1f}", kind="count", mean="removable_heads_mean", std="removable_heads_std",
              min="removable_heads_min", max="removable_heads_max")
report.number("seeds_with_removable_heads", has_removable.sum(), "{:.0f}")
report.number("twin_similarity_mean", mean_over_removable(similarity.max(dim=2).values)[has_removable].mean()
              if has_removable.any() else 0, "{:.2f}")
report.number("twin_extra_cost_mean", mean_over_removable(twin_extra)[has_removable].mean()
              if has_removable.any() else 0, "{:.3f}")
report.number("other_extra_cost_mean", mean_over_removable(other_extra)[has_removable].mean()
              if has_removable.any() else 0, "{:.3f}")
report.number("backup_heads", (is_backup & removable).sum(), "{:.0f}")
report.number("removable_heads_total", n_removable.sum(), "{:.0f}")
# Per seed, the share of its removable heads that are backups (none to measure: NaN, never counted).
report_seeds_past(report, "backup_seeds", torch.where(has_removable, backup_share, torch.nan),
                  of="count_at_least", line=0.5)

# %% [markdown]
# ## Noise smoothing? Remove them under noisy input
#
# Gaussian noise on the input embeddings. Per seed the level is the smallest of
# a fixed grid (multiples of the embeddings' root-mean-square) that costs the
# full model at least 0.1 accuracy. The *noise cost* of removing a set of heads
# is how much more accuracy their removal costs under noise than on clean input;
# if the removable heads smooth noise, removing them should cost more under
# noise than removing other head sets of the same clean cost and size does (the
# test after this cell). First the comparison used before: as many random heads.

# %%
BASELINE_COST = 0.02   # earlier measure: removing the removable heads costs at least this much more under noise
rms = embedding_rms(model, test_set)                                      # (S,)
level = noise_level(model, test_set, full_accuracy, rms)                  # (S,) the grid's levels: explainer/removable_heads.py
std = level * rms                                                         # (S,)
nobody = torch.zeros(N_SEEDS, H, dtype=torch.bool)
noisy_full = noisy_accuracy(model, nobody, std, test_set)                 # (S,) the same noise for every head set
cost_removable = noise_cost(model, removable, std, test_set, full_accuracy, noisy_full)
# The earlier measure (kept as a note, no longer the verdict's): the mean noise cost
# of removing as many random heads. Random sets of that size often hold essential heads, whose
# removal already costs much on clean input, leaving less to lose under noise.
random_sets = []
for _ in range(N_RANDOM):
    chosen = torch.zeros(N_SEEDS, H, dtype=torch.bool)
    for s in range(N_SEEDS):
        chosen[s, torch.randperm(H, generator=generator)[:n_removable[s]]] = True
    random_sets.append(chosen)
cost_random = torch.stack([noise_cost(model, chosen, std, test_set, full_accuracy, noisy_full)
                           for chosen in random_sets]).mean(dim=0)        # (S,)
smoothing_mean_baseline = has_removable & (cost_removable >= BASELINE_COST) & (cost_removable > cost_random)

# %% [markdown]
# The test that decides (claim C25's rule): per seed, 511 random head sets, each of a size drawn
# uniformly from 1 to H - 1 (so the fit sees every size, and the removable set's size lies
# inside the range). For each set, its clean cost (accuracy lost on clean input) and its
# noise cost. A least-squares fit per seed, noise cost ~ 1 + clean cost + size, over the
# random sets; the removable set's residual (its noise cost minus the fit's prediction) is
# compared with the 95th percentile of the random sets' residuals. A seed shows smoothing if
# the residual lies above it. All sets are evaluated at once: the trained seeds are copied,
# one copy per set, into one seeded model (every seed × 32 sets per pass).

# %%
N_SETS = 511                      # random sets per seed; with the removable set, 512 per seed
CHUNK = 32                        # sets per pass
test = smoothing_test(model, test_set, removable, full_accuracy, noisy_full, std, generator, N_SETS, CHUNK)
clean_cost, set_noise_cost = test["clean_cost"], test["noise_cost"]              # (S, 1 + N): set 0 is the removable one
smoothing = has_removable & test["above"]
print("noise cost of the removable set, batched vs alone:", set_noise_cost[:, 0].numpy().round(3),
      cost_removable.numpy().round(3))

report.number("noise_level_mean", level.mean(), "{:.2f}")
report_spread(report, noisy_full, "{:.2f}", mean="noisy_accuracy_full_mean", std="noisy_accuracy_full_std",
              min="noisy_accuracy_full_min", max="noisy_accuracy_full_max")
report_spread(report, cost_removable, "{:.3f}", mean="noise_cost_removable_mean", std="noise_cost_removable_std",
              min="noise_cost_removable_min", max="noise_cost_removable_max")
report.number("noise_cost_random_mean", cost_random.mean(), "{:.3f}")
report.number("baseline_cost", BASELINE_COST, "{:.2f}")
report.number("n_random", N_RANDOM, kind="count")
report_seed_count(report, "smoothing_seeds_mean_baseline", smoothing_mean_baseline)
report.number("random_sets", N_SETS, "{:.0f}")
report_spread(report, set_noise_cost[:, 1:].mean(dim=1), "{:.3f}", mean="random_set_noise_cost_mean",
              std="random_set_noise_cost_std", min="random_set_noise_cost_min", max="random_set_noise_cost_max")
report_spread(report, clean_cost[:, 1:].mean(dim=1), "{:.3f}", mean="random_set_clean_cost_mean",
              std="random_set_clean_cost_std", min="random_set_clean_cost_min", max="random_set_clean_cost_max")
report_spread(report, test["coefficients"][:, 1], "{:.2f}", mean="noise_fit_clean_slope_mean",
              std="noise_fit_clean_slope_std", min="noise_fit_clean_slope_min", max="noise_fit_clean_slope_max")
report_spread(report, test["coefficients"][:, 2], "{:.4f}", mean="noise_fit_size_slope_mean",
              std="noise_fit_size_slope_std", min="noise_fit_size_slope_min", max="noise_fit_size_slope_max")
report_spread(report, test["residual"], "{:.3f}", mean="removable_residual_mean", std="removable_residual_std",
              min="removable_residual_min", max="removable_residual_max")
report_spread(report, test["threshold"], "{:.3f}", mean="random_residual_q95_mean", std="random_residual_q95_std",
              min="random_residual_q95_min", max="random_residual_q95_max")
# Per seed, the removable set's residual minus the random sets' 95th percentile (no removable
# head: NaN, never counted); above 0, the seed shows smoothing.
report_seeds_past(report, "smoothing_seeds",
                  torch.where(has_removable, test["residual"] - test["threshold"], torch.nan),
                  of="count_above", line=0.0)

# %% [markdown]
# ## Figures

# %%
TEXT = report.figure_text()   # the figures' words: backup_or_noise.strings.toml
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(6.0, 5.0))
    after_twin = alone + twin_extra                                          # (S, H)
    ax.scatter(alone[~removable], after_twin[~removable], s=14, color="#bbbbbb", label=text["other"])
    ax.scatter(alone[removable], after_twin[removable], s=30, color="#7570b3", label=text["removable"])
    top = max(float(after_twin.max()), float(alone.max()), 0.1) * 1.05
    ax.plot([0, top], [0, top], color="black", lw=0.8, ls=":")
    ax.set_xlabel(text["alone"])
    ax.set_ylabel(text["after"])
    ax.legend(fontsize=10, loc="upper left")
    fig.tight_layout()
    report.figure("twin_test", fig, lang, alt=text["twin_alt"], caption=text["twin_caption"])

report.save()
