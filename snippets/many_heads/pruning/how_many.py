# %% [markdown]
# # Are sixteen heads better than one? (1) How many heads can go
#
# Michel et al. (2019) removed attention heads from trained translation and
# BERT models and found many could go with little loss (C24). We do the same to a
# 2-layer, 16-head attention-only model trained on the ordered pair
# (first token, previous token) of explainer/first_and_previous.py — a task
# that needs only two kinds of attention — for 8 random seeds at once (one
# model with a seed dimension on every parameter). A head is removed the way
# that really removes it: its output is zeroed *before* W_O (`head_mask`), so
# nothing of it reaches the residual stream.
#
# The yardstick (the same as for the real model): each head's importance is the
# accuracy drop when it alone is removed, measured on held-out data; heads are
# removed together, least important first; the prunable share is the largest
# share of all heads that can go while accuracy stays at or above 95 % of the
# full model's (measured on a second held-out set). Two other orders for
# comparison: random, and Michel et al.'s gradient importance.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report
from explainer.seeds import report_spread

report = Report("many_heads.pruning.how_many")

# %% [markdown]
# ## The model, and removing a head
#
# The task and the batched model (every parameter has a leading seed
# dimension) come from the project's `explainer` package. A head is removed
# through the model's head mask: its output is zeroed before W_O
# (explainer/head_ablation.py).

# %% tags=["setup"]
from explainer.first_and_previous import T, V, ordered_pair   # first: it pins torch's CPU kernels
from explainer.batched import SeededTransformer, evaluate_batched, losses_on, train_batched
from explainer.head_ablation import ablation_damage, curve, prunable
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

# %% [markdown]
# ## A small run first
#
# Two seeds: a run that takes seconds. Train, remove each head alone, then
# prune progressively, least important first. The full run below does the
# same with more seeds, and compares other orders.

# %% tags=["small_run"]
SMALL_SEEDS = [0, 1]
HARMLESS_AT = 0.01   # a head whose removal alone costs at most this much accuracy is harmless
small = SeededTransformer(config, SMALL_SEEDS)
train_batched(small, ordered_pair, steps=STEPS, batch_size=32, lr=1e-2)
small.keep_weights = False   # no attention weights kept: evaluate with the fused attention kernel
print("accuracy of the full model per seed:", evaluate_batched(small, *test_set)[1].numpy().round(3))
small_damage = ablation_damage(small, ranking_set)                    # (S, H)
print("accuracy drop when one head alone is removed, per seed and head:\n", small_damage.numpy().round(2))
print(f"heads costing at most {HARMLESS_AT}:", (small_damage <= HARMLESS_AT).sum(dim=1).tolist())

# %% tags=["small_pruning"]
small_order = small_damage.argsort(dim=1, stable=True)               # (S, H) least important first
small_curve = curve(small, small_order, test_set)                     # (S, H+1)
print("accuracy after removing the first k heads, k = 0..16:\n", small_curve.numpy().round(2))
print("prunable share per seed:", (prunable(small_curve, KEEP) / H).tolist())

# %%
report.number("small_run_seeds", len(SMALL_SEEDS), "{:.0f}")

# %% [markdown]
# ## The full run

# %%
N_SEEDS = n_seeds(8)   # the build trains more when a verdict is undecided
SEEDS = list(range(N_SEEDS))
EARLY = 30                         # a checkpoint while the loss is still high
model = SeededTransformer(config, SEEDS)
snapshots = {}
train_batched(model, ordered_pair, steps=STEPS, batch_size=32, lr=1e-2,
              on_step=lambda step, model: snapshots.update(
                  {step: {k: v.detach().clone() for k, v in model.state_dict().items()}})
              if step == EARLY else None)
model.keep_weights = False   # no head metric here: evaluate with the fused attention kernel
full_loss, full_accuracy = evaluate_batched(model, *test_set)         # (S,) each
report.number("n_seeds", N_SEEDS, "{:.0f}")
report.number("heads", H, "{:.0f}")
report.number("steps", STEPS, kind="count")
report.number("keep", KEEP, kind="share")
report_spread(report, full_accuracy, "{:.3f}", mean="full_accuracy_mean", std="full_accuracy_std",
              min="full_accuracy_min", max="full_accuracy_max")
report.number("full_loss_mean", full_loss.mean(), "{:.4f}")

# %% [markdown]
# ## Importance of each head, two ways
#
# Ablation damage: the accuracy drop when the head alone is removed (the
# yardstick's importance). Gradient importance (Michel et al.):
# I_h = E_x |Att_h(x)ᵀ ∂L/∂Att_h(x)|, normalised per layer — no ablation needed.

# %%
def gradient_importance(net, batch) -> torch.Tensor:
    """(S, H): per example |sum over positions and dims of Att_h * dL/dAtt_h|, averaged, l2-normalised per layer."""
    net.keep_head_outputs = True
    tokens, targets = batch
    losses_on(net(tokens), targets).sum().backward()
    scores = []
    for outputs in net.last_head_outputs:                                  # per layer (S, B, nh, T, hs)
        per_example = (outputs * outputs.grad).sum(dim=(3, 4)).abs()       # (S, B, nh)
        layer = per_example.mean(dim=1)                                    # (S, nh)
        scores.append(layer / layer.norm(dim=1, keepdim=True))
    net.keep_head_outputs, net.last_head_outputs = False, []
    net.zero_grad()
    return torch.cat(scores, dim=1)                                        # (S, H)


def ranks(values: torch.Tensor) -> torch.Tensor:
    """Rank of each head within its seed (0 = smallest), ties in head order: (S, H)."""
    return values.argsort(dim=1, stable=True).argsort(dim=1).float()


def rank_correlation(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Spearman correlation of two per-head scores, per seed: (S,)."""
    ra, rb = ranks(a), ranks(b)
    ra, rb = ra - ra.mean(dim=1, keepdim=True), rb - rb.mean(dim=1, keepdim=True)
    return (ra * rb).sum(dim=1) / (ra.norm(dim=1) * rb.norm(dim=1))


ESSENTIAL_ABOVE = 0.05   # a head whose removal alone costs more than this much accuracy is essential
damage = ablation_damage(model, ranking_set)                            # (S, H)
importance = gradient_importance(model, ranking_set)                    # (S, H)
print("ablation damage per seed and head:\n", damage.numpy().round(2))
report.number("harmless_at", HARMLESS_AT, "{:.2f}")
report.number("essential_above", ESSENTIAL_ABOVE, "{:.2f}")
report.number("harmless_heads_mean", (damage <= HARMLESS_AT).sum(dim=1).float().mean(), "{:.1f}")
report.number("essential_heads_mean", (damage > ESSENTIAL_ABOVE).sum(dim=1).float().mean(), "{:.1f}")
report_spread(report, damage.max(dim=1).values, "{:.2f}", mean="top_damage_mean", std="top_damage_std",
              min="top_damage_min", max="top_damage_max")
report_spread(report, rank_correlation(damage, importance), "{:.2f}", mean="rank_correlation_mean",
              std="rank_correlation_std", min="rank_correlation_min", max="rank_correlation_max")
essential = damage > ESSENTIAL_ABOVE                                     # (S, H)
gradient_rank = ranks(importance) + 1                                    # 1 = least important
lowest = torch.where(essential, gradient_rank, float(H + 1)).min(dim=1).values  # (S,)
report.number("essential_lowest_gradient_rank_mean", lowest[essential.any(dim=1)].mean()
              if essential.any() else 0, "{:.1f}")

# The same comparison at an early checkpoint, while the loss is still high.
early = SeededTransformer(config, SEEDS)
early.load_state_dict(snapshots[EARLY])
early.keep_weights = False
early_loss, _ = evaluate_batched(early, *ranking_set)
early_correlation = rank_correlation(ablation_damage(early, ranking_set), gradient_importance(early, ranking_set))
report.number("early_step", EARLY, "{:.0f}")
report.number("early_loss_mean", early_loss.mean(), "{:.2f}")
report_spread(report, early_correlation, "{:.2f}", mean="early_rank_correlation_mean",
              std="early_rank_correlation_std", min="early_rank_correlation_min", max="early_rank_correlation_max")

# %% [markdown]
# ## Prune progressively, in each order

# %%
by_damage = damage.argsort(dim=1, stable=True)                           # least important first
by_gradient = importance.argsort(dim=1, stable=True)
generator = torch.Generator().manual_seed(0)
N_RANDOM = 10
random_orders = [torch.stack([torch.randperm(H, generator=generator) for _ in range(N_SEEDS)])
                 for _ in range(N_RANDOM)]
curves = {"damage": curve(model, by_damage, test_set), "gradient": curve(model, by_gradient, test_set)}
random_curves = torch.stack([curve(model, order, test_set) for order in random_orders])   # (orders, S, H+1)
curves["random"] = random_curves.mean(dim=0)
fractions = torch.arange(H + 1) / H
report.number("n_random", N_RANDOM, kind="count")

removable_count = prunable(curves["damage"], KEEP)                            # (S,)
report_spread(report, removable_count / H, kind="share", mean="prunable_share_mean", std="prunable_share_std",
              min="prunable_share_min", max="prunable_share_max")
report.number("prunable_share_random_mean", (torch.stack([prunable(c, KEEP) for c in random_curves]) / H).mean(),
              kind="share")
report.number("prunable_share_gradient_mean", (prunable(curves["gradient"], KEEP) / H).mean(), kind="share")
report.number("accuracy_half_damage_mean", curves["damage"][:, H // 2].mean(), "{:.2f}")
report.number("accuracy_half_gradient_mean", curves["gradient"][:, H // 2].mean(), "{:.2f}")
report.number("accuracy_half_random_mean", curves["random"][:, H // 2].mean(), "{:.2f}")
report.number("accuracy_all_but_one_damage_mean", curves["damage"][:, -2].mean(), "{:.2f}")
report.number("chance", 1 / (V * V), "{:.2f}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["keep_90"]
# Exercise 1 (small run): loosen the yardstick from 95 % to 90 % of the full accuracy.
kept_90 = small_curve >= 0.90 * small_curve[:, :1]                   # was: KEEP * small_curve[:, :1]
print("prunable share per seed at 90 %:", ((kept_90.int().cumprod(dim=1).sum(dim=1) - 1) / H).tolist())

# %% tags=["most_important_first"]
# Exercise 2 (small run): prune in the opposite order, most important head first.
small_reverse = curve(small, small_order.flip(dims=[1]), test_set)   # was: small_order
print("accuracy with half the heads removed, most important first:", small_reverse[:, H // 2].numpy().round(2))
print("                                     least important first:", small_curve[:, H // 2].numpy().round(2))

# %%
# The same two exercises on the full run.
kept = curves["damage"] >= 0.90 * curves["damage"][:, :1]                  # (S, H+1)
report.number("exercise_prunable_share_at_90_mean", ((kept.int().cumprod(dim=1).sum(dim=1) - 1) / H).mean(),
              kind="share")
reverse = curve(model, by_damage.flip(dims=[1]), test_set)                  # (S, H+1)
report.number("exercise_accuracy_half_reverse_mean", reverse[:, H // 2].mean(), "{:.2f}")

# %% [markdown]
# ## Figures
#
# Every seed's curve faintly, the mean over seeds boldly.

# %%
TEXT = report.figure_text()   # the figures' words: how_many.strings.toml
styles = {"damage": ("#1b9e77", "o"), "random": ("grey", "."), "gradient": ("#d95f02", "s")}
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(7.2, 4.8))
    for name, accuracies in curves.items():
        relative = accuracies / accuracies[:, :1]                           # (S, H+1)
        color, marker = styles[name]
        ax.plot(fractions, relative.T, color=color, lw=0.7, alpha=0.25)
        ax.plot(fractions, relative.mean(dim=0), color=color, lw=2.2, marker=marker,
                label=text[name].format(n_random=report.numbers["n_random"]["texts"][lang]))
    keep = report.numbers["keep"]["texts"][lang]
    ax.axhline(KEEP, color="black", lw=0.8, ls=":", label=text["keep"].format(keep=keep))
    ax.set_xlabel(text["fraction"])
    ax.set_ylabel(text["accuracy"])
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=10, loc="lower left")
    fig.tight_layout()
    caption = text["caption"].format(keep=keep, damage=(removable_count / H).mean().item(),
                                     random=(torch.stack([prunable(c, KEEP) for c in random_curves]) / H).mean().item(),
                                     gradient=(prunable(curves["gradient"], KEEP) / H).mean().item())
    alt = text["alt"].format(keep=keep, heads=report.numbers["heads"]["texts"][lang])
    report.figure("pruning_curves", fig, lang, alt=alt, caption=caption)

report.save()
