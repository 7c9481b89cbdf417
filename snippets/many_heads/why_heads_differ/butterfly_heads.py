# %% [markdown]
# # Why heads differ (5): does a head's first slight preference decide its role?
#
# The source's "butterfly effect": at initialisation one head happens to respond
# a little more to nearby words, another to something else; gradient descent is
# greedy, so each head goes further down its own path and the slight initial
# preference becomes its role. Test it over many random seeds:
#
# 1. a 1-layer, 8-head model on the near-and-far task (target = previous token
#    + first token, mod 10; explainer/first_and_previous.py), which needs a
#    head that looks at the previous position;
# 2. before training, measure each head's previous-token score;
# 3. after training, measure it again, and ask per seed: do the heads that
#    started higher end higher? (the rank correlation of the two scores over
#    the 8 heads: 1 = the same order, 0 = no relation);
# 4. also count the seeds in which the head that ends most positional is the
#    head that started with the highest score. Chance is 1 in 8.
#
# All 64 models (one per seed) train together as one batched model.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import math

import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report, over_seeds
from explainer.seeds import n_seeds, report_seed_count, report_spread

report = Report("many_heads.why_heads_differ.butterfly_heads")

# %% [markdown]
# ## The task and the models
#
# The near-and-far task and the batched model (one copy per seed, every
# parameter with a leading model dimension) come from the project's
# `explainer` package.

# %% tags=["setup"]
import torch

from explainer.first_and_previous import T, V, near_and_far
from explainer.head_metrics import previous_token_score
from explainer.batched import StackedTransformer, evaluate_batched, per_model, train_batched
from explainer.tiny_transformer import TransformerConfig

torch.set_num_threads(1)
N_HEADS, TRAIN_STEPS = 8, 800   # long enough that every seed learns the task (accuracy >= 0.9)
probe_tokens, probe_targets = near_and_far(torch.Generator().manual_seed(1234), 256)
other_probe = near_and_far(torch.Generator().manual_seed(4321), 256)   # to see the measurement's noise
config = TransformerConfig(vocab_size=V, n_ctx=T, d_model=32, n_heads=N_HEADS)

# %% [markdown]
# ## Each head's previous-token score, before and after
#
# The rank correlation of the two scores over the heads of a seed: 1 = the
# same order, 0 = no relation.

# %% tags=["scores"]
def previous_scores(model, probe=(probe_tokens, probe_targets)) -> torch.Tensor:
    """Each head's previous-token score on the probe sequences: (M, nh)."""
    evaluate_batched(model, *probe)
    return per_model(previous_token_score, model.last_weights)


def rank_correlation(a, b) -> torch.Tensor:
    """Spearman rank correlation over the heads of each seed: (M, nh), (M, nh) -> (M,)."""
    ranks_a, ranks_b = a.argsort(dim=1).argsort(dim=1).float(), b.argsort(dim=1).argsort(dim=1).float()
    k = a.shape[1]
    return 1 - 6 * (ranks_a - ranks_b).pow(2).sum(dim=1) / (k * (k ** 2 - 1))

# %% [markdown]
# ## A small run first
#
# Two seeds: a run that takes seconds. The full run below trains more seeds
# with the same code.

# %% tags=["small_run"]
SMALL_SEEDS = [0, 1]
small_model = StackedTransformer.from_seeds(config, SMALL_SEEDS)
small_before = previous_scores(small_model)                                 # (S, nh) at initialisation
train_batched(small_model, near_and_far, steps=TRAIN_STEPS, batch_size=32, data_seeds=SMALL_SEEDS)
small_after = previous_scores(small_model)                                  # (S, nh) after training
for s, seed in enumerate(SMALL_SEEDS):
    print(f"seed {seed}: before {small_before[s].numpy().round(3)}\n"
          f"        after  {small_after[s].numpy().round(2)}\n"
          f"        led at the start: head {small_before[s].argmax().item()}, "
          f"most positional after: head {small_after[s].argmax().item()}")
print("rank correlation before/after, per seed:",
      rank_correlation(small_before, small_after).numpy().round(2))

# %%
report.number("small_run_seeds", len(SMALL_SEEDS), "{:.0f}")
report.number("small_run_steps", TRAIN_STEPS, "{:.0f}")

# %% [markdown]
# ## The full run

# %%
SEEDS = list(range(n_seeds(64)))   # the build trains more when a verdict is undecided
n = len(SEEDS)
model = StackedTransformer.from_seeds(config, SEEDS)
before = previous_scores(model)                                             # (M, nh)
before_other_probe = previous_scores(model, other_probe)                    # (M, nh)
train_batched(model, near_and_far, steps=TRAIN_STEPS, batch_size=32, data_seeds=SEEDS)
after = previous_scores(model)                                              # (M, nh)
_, accuracy = evaluate_batched(model, probe_tokens, probe_targets)          # (M,)

# %% [markdown]
# ## Did the head that started most positional end up the positional head?

# %%
POSITIONAL_AT = 0.5   # a head is positional once its previous-token score reaches this
lead_at_start = before.argmax(dim=1)                                        # (M,)
positional_head = after.argmax(dim=1)                                       # (M,)
positional = after.amax(dim=1) >= POSITIONAL_AT                             # (M,) a positional head emerged
kept_lead = positional & (positional_head == lead_at_start)
# Where did the eventual positional head rank at the start? 1 = it led, 4 = it was last.
start_rank = 1 + (before > before.gather(1, positional_head[:, None])).sum(dim=1)   # (M,)
hits, chance = int(kept_lead.sum()), 1 / N_HEADS
binomial_p = sum(math.comb(n, k) * chance ** k * (1 - chance) ** (n - k) for k in range(hits, n + 1))
top_two = before.topk(2, dim=1).values                                      # (M, 2)

report.number("n_seeds", n, "{:.0f}")
report.number("n_heads", N_HEADS, "{:.0f}")
report.number("positional_at", POSITIONAL_AT, "{:.1f}")
report_seed_count(report, "positional_seeds", positional)
report_seed_count(report, "kept_lead_seeds", kept_lead)
report.number("chance", chance, "{:.3f}")
report.number("expected_by_chance", chance * n, "{:.0f}")
report.number("binomial_p", binomial_p, "{:.2g}", per_seed=kept_lead, of="binomial_p", chance=chance)
assert N_HEADS == 8   # one line per rank below
report.number("positional_started_rank_1", (positional & (start_rank == 1)).sum(), "{:.0f}")
report.number("positional_started_rank_2", (positional & (start_rank == 2)).sum(), "{:.0f}")
report.number("positional_started_rank_3", (positional & (start_rank == 3)).sum(), "{:.0f}")
report.number("positional_started_rank_4", (positional & (start_rank == 4)).sum(), "{:.0f}")
report.number("positional_started_rank_5", (positional & (start_rank == 5)).sum(), "{:.0f}")
report.number("positional_started_rank_6", (positional & (start_rank == 6)).sum(), "{:.0f}")
report.number("positional_started_rank_7", (positional & (start_rank == 7)).sum(), "{:.0f}")
report.number("positional_started_rank_8", (positional & (start_rank == 8)).sum(), "{:.0f}")
report.number("start_score_mean", before.mean(), "{:.3f}")
report.number("start_lead_margin_mean", (top_two[:, 0] - top_two[:, 1]).mean(), "{:.4f}")
report.number("end_positional_score_mean", after.amax(dim=1).mean(), "{:.2f}")
end_top_two = after.topk(2, dim=1).values                                  # (M, 2)
report.number("end_lead_margin_mean", (end_top_two[:, 0] - end_top_two[:, 1]).mean(), "{:.2f}")
report_seed_count(report, "single_positional_seeds", (after >= POSITIONAL_AT).sum(dim=1) == 1)
# Several heads can share the previous-token job; a looser question than "which head wins":
# do heads that start higher end higher? Spearman rank correlation over the heads of a seed.
spearman = rank_correlation(before, after)                                  # (M,)
report.number("rank_correlation_mean", over_seeds(spearman.tolist(), "mean"), "{:.2f}", per_seed=spearman, of="mean")
report.number("rank_correlation_ci95_low", over_seeds(spearman.tolist(), "ci95_low"), "{:.2f}", per_seed=spearman,
              of="ci95_low")
report.number("rank_correlation_ci95_high", over_seeds(spearman.tolist(), "ci95_high"), "{:.2f}", per_seed=spearman,
              of="ci95_high")
report_seed_count(report, "positive_correlation_seeds", spearman > 0)
# Two notes that help read the correlation: how far the step-0 order itself is measurable
# (the same heads on another probe batch), and what is left without the head that ends on top.
report_spread(report, rank_correlation(before, before_other_probe), "{:.2f}", mean="start_order_repeatability_mean",
              std="start_order_repeatability_std", min="start_order_repeatability_min",
              max="start_order_repeatability_max")
keep = after.argsort(dim=1)[:, :-1].sort(dim=1).values                     # (M, nh-1) all but the top head
report_spread(report, rank_correlation(before.gather(1, keep), after.gather(1, keep)), "{:.2f}",
              mean="rank_correlation_without_top_mean", std="rank_correlation_without_top_std",
              min="rank_correlation_without_top_min", max="rank_correlation_without_top_max")
report.number("accuracy_mean", accuracy.mean(), "{:.3f}")
report.number("accuracy_min", accuracy.min(), "{:.3f}")
# The outcomes, from the numbers above: the page words them, the figures' captions below too
# (their words in the strings file).
low, high = over_seeds(spearman.tolist(), "ci95_low"), over_seeds(spearman.tolist(), "ci95_high")
order_outcome = report.category("order_outcome", "higher" if low > 0 else "lower" if high < 0 else "unclear")
leader_outcome = report.category("leader_outcome", "yes" if binomial_p < 0.05 else "no")
print(f"kept the lead in {hits} of {n} seeds (chance {chance * n:.0f}), p = {binomial_p:.2g}; "
      f"start rank of the positional head: {start_rank[positional].bincount(minlength=N_HEADS + 1)[1:].tolist()}")

# %% [markdown]
# ## Figures

# %%
SHOWN = 16   # seeds drawn in the scatter plot: 128 heads keep the figure light for the page
TEXT = report.figure_text()   # the figures' words: butterfly_heads.strings.toml
counts = torch.stack([(positional & (start_rank == r)).sum() for r in range(1, N_HEADS + 1)])
relative = (before - before.mean(dim=1, keepdim=True))[:SHOWN]             # (SHOWN, nh)
led = torch.zeros_like(before, dtype=torch.bool).scatter_(1, lead_at_start[:, None], True)[:SHOWN]
shown_after = after[:SHOWN]                                                 # (SHOWN, nh)
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(5.6, 3.6))
    ax.bar(range(1, N_HEADS + 1), counts, color="#1b9e77")
    ax.axhline(chance * n, color="grey", ls="--", lw=1, label=text["chance"].format(chance * n))
    ax.set_xticks(range(1, N_HEADS + 1))
    ax.set_xlabel(text["rank"])
    ax.set_ylabel(text["seeds"])
    ax.legend(fontsize=9)
    fig.tight_layout()
    report.figure("start_rank", fig, lang, alt=text["alt"].format(n=n, heads=N_HEADS),
                  caption=text["caption"].format(hits=hits, n=n, outcome=text["leader_outcome"][leader_outcome],
                                                 expected=chance * n, p=binomial_p))

    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    ax.scatter(relative[~led], shown_after[~led], s=14, facecolors="none", edgecolors="#7570b3", label=text["other"])
    ax.scatter(relative[led], shown_after[led], s=16, color="#d95f02", label=text["led"])
    ax.set_xlabel(text["start"])
    ax.set_ylabel(text["end"])
    ax.legend(fontsize=9)
    fig.tight_layout()
    report.figure("start_vs_end", fig, lang, alt=text["alt_scatter"].format(shown=SHOWN, shown_heads=SHOWN * N_HEADS),
                  caption=text["caption_scatter"].format(outcome=text["order_outcome"][order_outcome], n=n, shown=SHOWN,
                                                         rho=over_seeds(spearman.tolist(), "mean")))

report.save()
