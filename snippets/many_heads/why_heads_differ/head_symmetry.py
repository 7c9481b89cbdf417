# %% [markdown]
# # Why heads differ (1): identical starts stay identical
#
# Two heads that start with the same W_Q, W_K, W_V slices and the same slice
# of W_O compute the same thing, receive the same gradient and take the same
# optimiser step — forever. For each of 8 random seeds we train the pronoun
# language (explainer/pronoun_language.py) from the same draw four ways:
#
# - *identical*: head 1 is an exact copy of head 0;
# - *nudged*: head 1 = head 0 + noise of size 1e-6;
# - *random*: the usual random initialisation;
# - *identical + dropout*: exact copies, but attention dropout 0.1 in training.
#
# All 32 models train together as one batched model (explainer/batched.py);
# a seed's four models see the same batches.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plain_log_ticks, plt
from explainer.report import Report
from explainer.seeds import n_seeds, report_seed_count, report_spread

report = Report("many_heads.why_heads_differ.head_symmetry")

# %% [markdown]
# ## The language and the models
#
# The pronoun language and the batched model (one copy per seed and start,
# every parameter with a leading model dimension) come from the project's
# `explainer` package.

# %% tags=["setup"]
import random

import torch

from explainer.head_metrics import attention_to, pattern_similarity, previous_token_score
from explainer.pronoun_language import SENTENCE_LENGTH, VOCAB, batch
from explainer.batched import StackedTransformer, evaluate_batched, per_model, train_batched
from explainer.tiny_transformer import TransformerConfig
from explainer.training import sample_from

torch.set_num_threads(1)
ARMS = ("identical", "nudged", "random", "identical_dropout")
STEPS = 300
GAP_LEVEL = 0.01   # the heads have separated once their weight gap is above this
pool_tokens, pool_targets, _ = batch(random.Random(0), 8192)   # training sentences
task = sample_from(pool_tokens, pool_targets)
probe_tokens, probe_targets, places = batch(random.Random(1234), 400)
it_at, animal_at, _ = places.T
config = TransformerConfig(vocab_size=len(VOCAB), n_ctx=SENTENCE_LENGTH, d_model=32, n_heads=2)

# %% [markdown]
# ## Copy one head into the other

# %% tags=["copy_heads"]
def copy_head_0_into_head_1(model, models: slice, noise: float) -> None:
    """Head 1 := head 0 (+ noise): its rows of W_Q, W_K, W_V and its columns of W_O."""
    hs = model.head_size
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name in ("W_Q", "W_K", "W_V"):
            weight = getattr(model, name)[models]                            # (n, C, C)
            weight[:, hs:2 * hs] = weight[:, :hs] + noise * torch.randn(
                weight[:, :hs].shape, generator=generator)
        model.W_O[models, :, hs:2 * hs] = model.W_O[models, :, :hs]


def head_gap(model) -> torch.Tensor:
    """Largest difference between head 0's and head 1's weights, per model (0.0 = bit-identical): (M,)."""
    heads = model.head_parameters()                                         # (M, nh, P)
    return (heads[:, 1] - heads[:, 0]).abs().amax(dim=-1)

# %% [markdown]
# ## Train the four starts at once
#
# Model index m = arm * n_seeds + seed: every arm starts from the same draws
# and a seed's four models see the same batches.

# %% tags=["train"]
ATTENTION_DROPOUT = 0.1   # the identical_dropout arm's attention dropout in training


def train_four_starts(seeds, steps=STEPS):
    """Per seed, four 2-head models from the same draw: identical, nudged, random, identical
    with attention dropout. Returns the model, the rows of each arm, the recorded steps (K,)
    and the weight gap between the heads at those steps (M, K)."""
    model = StackedTransformer.from_seeds(config, [seed for _ in ARMS for seed in seeds])
    n = len(seeds)
    arm_of = {arm: slice(a * n, (a + 1) * n) for a, arm in enumerate(ARMS)}
    copy_head_0_into_head_1(model, arm_of["identical"], noise=0.0)
    copy_head_0_into_head_1(model, arm_of["nudged"], noise=1e-6)
    copy_head_0_into_head_1(model, arm_of["identical_dropout"], noise=0.0)
    attention_dropout = torch.tensor([ATTENTION_DROPOUT if arm == "identical_dropout" else 0.0
                                      for arm in ARMS for _ in seeds])      # (M,)
    gaps = []  # (step, (M,) gap) every 10 steps
    train_batched(model, task, steps=steps, batch_size=16, data_seeds=seeds * len(ARMS),
                  attention_dropout=attention_dropout,
                  on_step=lambda step, m: gaps.append((step, head_gap(m).detach())) if step % 10 == 0 else None)
    recorded = torch.tensor([step for step, _ in gaps])                     # (K,)
    return model, arm_of, recorded, torch.stack([gap for _, gap in gaps], dim=1)   # (M, K)

# %% [markdown]
# ## A small run first
#
# Two seeds, all four starts: a run that takes seconds. The full run below
# trains more seeds with the same code.

# %% tags=["small_run"]
SMALL_SEEDS = [0, 1]
twin_model, twin_arms, _, twin_gaps = train_four_starts(SMALL_SEEDS)
_, twin_accuracy = evaluate_batched(twin_model, probe_tokens, probe_targets)          # (M,)
twin_similarity = torch.stack([pattern_similarity(w)[0, 1] for w in twin_model.last_weights])  # (M,)
for arm, rows in twin_arms.items():
    print(f"{arm:>17}: largest weight gap ever {twin_gaps[rows].amax(dim=1).numpy()}, "
          f"pattern similarity {twin_similarity[rows].numpy().round(2)}, "
          f"accuracy {twin_accuracy[rows].numpy().round(3)}")

# %%
report.number("small_run_seeds", len(SMALL_SEEDS), "{:.0f}")

# %% [markdown]
# ## The full run

# %%
SEEDS = list(range(n_seeds(8)))   # the build trains more when a verdict is undecided
n = len(SEEDS)
model, arm_of, steps, gap_curves = train_four_starts(SEEDS)
loss, accuracy = evaluate_batched(model, probe_tokens, probe_targets)       # (M,), (M,)
weights = model.last_weights                                                # (M, B, 2, T, T)
similarity = torch.stack([pattern_similarity(w)[0, 1] for w in weights])    # (M,)
previous = per_model(previous_token_score, weights)                         # (M, 2)
antecedent = per_model(attention_to, weights, it_at, animal_at)             # (M, 2)

# %% [markdown]
# ## What each arm did, over the seeds
#
# "Stays identical": the largest weight difference is exactly 0 at every
# recorded step. "Differs": the two heads' attention rows have a mean cosine
# similarity below 0.9 after training (1.0 = the same pattern).

# %%
DIFFER_BELOW = 0.9   # a pair of heads "differs" below this pattern similarity (C09's line)
report.number("n_seeds", n, "{:.0f}")
report.number("steps", STEPS, "{:.0f}")
report.number("gap_level", GAP_LEVEL, "{:.2f}")
report.number("differ_below", DIFFER_BELOW, "{:.1f}")
report.number("attention_dropout", ATTENTION_DROPOUT, "{:.1f}")
stays = (gap_curves == 0).all(dim=1)                                        # (M,)
report_seed_count(report, "identical_stay_seeds", stays[arm_of["identical"]])
report.number("identical_max_gap", gap_curves[arm_of["identical"]].max(), "{:.1f}")
# Each arm's numbers over the seeds: the two heads' similarity, accuracy, the seeds whose heads
# differ, the final weight gap, the loss.
s = arm_of["identical"]
report_spread(report, similarity[s], "{:.2f}", mean="identical_similarity_mean", std="identical_similarity_std",
              min="identical_similarity_min", max="identical_similarity_max")
report_spread(report, accuracy[s], "{:.3f}", mean="identical_accuracy_mean", std="identical_accuracy_std",
              min="identical_accuracy_min", max="identical_accuracy_max")
report_seed_count(report, "identical_differ_seeds", similarity[s] < DIFFER_BELOW)
report.number("identical_final_gap_mean", gap_curves[s, -1].mean(), "{:.2g}")
report.number("identical_loss_mean", loss[s].mean(), "{:.3f}")

s = arm_of["nudged"]
report_spread(report, similarity[s], "{:.2f}", mean="nudged_similarity_mean", std="nudged_similarity_std",
              min="nudged_similarity_min", max="nudged_similarity_max")
report_spread(report, accuracy[s], "{:.3f}", mean="nudged_accuracy_mean", std="nudged_accuracy_std",
              min="nudged_accuracy_min", max="nudged_accuracy_max")
report_seed_count(report, "nudged_differ_seeds", similarity[s] < DIFFER_BELOW)
report.number("nudged_final_gap_mean", gap_curves[s, -1].mean(), "{:.2g}")
report.number("nudged_loss_mean", loss[s].mean(), "{:.3f}")

s = arm_of["random"]
report_spread(report, similarity[s], "{:.2f}", mean="random_similarity_mean", std="random_similarity_std",
              min="random_similarity_min", max="random_similarity_max")
report_spread(report, accuracy[s], "{:.3f}", mean="random_accuracy_mean", std="random_accuracy_std",
              min="random_accuracy_min", max="random_accuracy_max")
report_seed_count(report, "random_differ_seeds", similarity[s] < DIFFER_BELOW)
report.number("random_final_gap_mean", gap_curves[s, -1].mean(), "{:.2g}")
report.number("random_loss_mean", loss[s].mean(), "{:.3f}")

s = arm_of["identical_dropout"]
report_spread(report, similarity[s], "{:.2f}", mean="identical_dropout_similarity_mean",
              std="identical_dropout_similarity_std", min="identical_dropout_similarity_min",
              max="identical_dropout_similarity_max")
report_spread(report, accuracy[s], "{:.3f}", mean="identical_dropout_accuracy_mean",
              std="identical_dropout_accuracy_std", min="identical_dropout_accuracy_min",
              max="identical_dropout_accuracy_max")
report_seed_count(report, "identical_dropout_differ_seeds", similarity[s] < DIFFER_BELOW)
report.number("identical_dropout_final_gap_mean", gap_curves[s, -1].mean(), "{:.2g}")
report.number("identical_dropout_loss_mean", loss[s].mean(), "{:.3f}")

for arm in ARMS:
    s = arm_of[arm]
    print(f"{arm:>17}: similarity {similarity[s].mean():.2f} [{similarity[s].min():.2f}, "
          f"{similarity[s].max():.2f}]  accuracy {accuracy[s].mean():.3f}  final gap {gap_curves[s, -1].mean():.1e}")

better = (accuracy[arm_of["random"]] > accuracy[arm_of["identical"]]).sum()
report.number("random_more_accurate_seeds", better, "{:.0f}")

# When does a tiny asymmetry become visible? First recorded step with a gap above GAP_LEVEL.
def first_step_above(gaps, level=GAP_LEVEL):
    """Per seed: whether the weight gap passes ``level``, and the first recorded step it does (STEPS if never)."""
    above = gaps > level                                                    # (n, K)
    separated = above.any(dim=1)                                            # (n,)
    return separated, torch.where(separated, steps[above.int().argmax(dim=1)], torch.tensor(STEPS))


nudged_separated, nudged_first = first_step_above(gap_curves[arm_of["nudged"]])
dropout_separated, dropout_first = first_step_above(gap_curves[arm_of["identical_dropout"]])
report_seed_count(report, "nudged_separated_seeds", nudged_separated)
report.number("nudged_step_gap_above_0_01_mean", nudged_first.float().mean(), "{:.0f}")
report_seed_count(report, "identical_dropout_separated_seeds", dropout_separated)
report.number("identical_dropout_step_gap_above_0_01_mean", dropout_first.float().mean(), "{:.0f}")
report.number("nudged_start_gap", gap_curves[arm_of["nudged"], 0].max(), "{:.0e}")

# Roles: one score per head; the identical pair has one score for both heads.
ident, rand = arm_of["identical"], arm_of["random"]
report.number("identical_previous_mean", previous[ident, 0].mean(), "{:.2f}")
report.number("identical_antecedent_mean", antecedent[ident, 0].mean(), "{:.2f}")
report.number("random_best_previous_mean", previous[rand].amax(dim=1).mean(), "{:.2f}")
report.number("random_best_antecedent_mean", antecedent[rand].amax(dim=1).mean(), "{:.2f}")

# %% [markdown]
# ## Two identical heads are one head
#
# Remove head 1 and let head 0 write twice as much (double its slice of W_O):
# for every identically started model the output stays the same.

# %% tags=["one_head"]
def head_0_doubled(model, models: slice, tokens=probe_tokens):
    """Outputs of the chosen models with both heads, and with head 1 removed and head 0's
    slice of W_O doubled: two (n, B, T, V) tensors. W_O is put back afterwards."""
    hs = model.head_size
    only_head_0 = torch.tensor([1.0, 0.0]).expand(model.n_models, len(tokens), 2)   # (M, B, nh)
    with torch.no_grad():
        both = model(tokens)[models]                                        # (n, B, T, V)
        model.W_O[models, :, :hs] *= 2
        alone = model(tokens, head_mask=only_head_0)[models]               # (n, B, T, V)
        model.W_O[models, :, :hs] /= 2
    return both, alone


both, alone = head_0_doubled(twin_model, twin_arms["identical"])
print("identical pair vs head 0 alone, doubled: largest output difference", (both - alone).abs().max().item())

# %%
two_heads, one_head = head_0_doubled(model, arm_of["identical"])          # the full run
report.number("one_head_error", (two_heads - one_head).abs().max(), "{:.1e}")

# %% [markdown]
# ## Could the count have seen heads that differ?
#
# The pattern similarity averages over all 14 rows of a sentence, and most rows need no
# view: row 0 is the same in any two heads, so a pair that differs only in the row of *it*
# still reads at least 1 − 1/14 ≈ 0.93. So the random pair is also read at the three rows
# that need a view, *it* and the two adverbs (`view_similarity`), and the random arm is
# trained a second time, for 600 steps, from the same draws and batches in a stack of its
# own: do random heads part later? (Whether this count could see heads in different roles
# at all is the planted check of `head_symmetry_planted.py`.)

# %%
from explainer.entity_pull import view_similarity

view_rows = torch.stack([it_at, animal_at + 1, places[:, 2] + 1], dim=1)   # (B, 3): it, the two adverbs
view = torch.stack([view_similarity(w, view_rows)[0, 1] for w in weights])    # (M,)
random_view = view[arm_of["random"]]
report_seed_count(report, "random_differ_view_seeds", random_view < DIFFER_BELOW)
report.number("random_view_similarity_mean", random_view.mean(), "{:.2f}", per_seed=random_view, of="mean")

STEPS_LONG = 600
long_model = StackedTransformer.from_seeds(config, SEEDS)                   # the random arm's draws
train_batched(long_model, task, steps=STEPS_LONG, batch_size=16, data_seeds=SEEDS)
_, long_accuracy = evaluate_batched(long_model, probe_tokens, probe_targets)   # (n,)
long_similarity = torch.stack([pattern_similarity(w)[0, 1] for w in long_model.last_weights])   # (n,)
long_view = torch.stack([view_similarity(w, view_rows)[0, 1] for w in long_model.last_weights])  # (n,)
print(f"random, {STEPS_LONG} steps: similarity {long_similarity.numpy().round(2)}, "
      f"at the rows that need a view {long_view.numpy().round(2)}")
report.number("steps_long", STEPS_LONG, kind="count")
report_seed_count(report, "random_differ_long_seeds", long_similarity < DIFFER_BELOW)
report_seed_count(report, "random_differ_view_long_seeds", long_view < DIFFER_BELOW)
report.number("random_long_similarity_mean", long_similarity.mean(), "{:.2f}", per_seed=long_similarity, of="mean")
report.number("random_view_long_similarity_mean", long_view.mean(), "{:.2f}", per_seed=long_view, of="mean")
report.number("random_long_accuracy_mean", long_accuracy.mean(), "{:.3f}", per_seed=long_accuracy, of="mean")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above. The cell tries it on the small run;
# the run records the answer of the full run so the page can show it folded
# under the question.

# %% tags=["random_pair"]
# Exercise 2: do the same to the randomly started pair.
both, alone = head_0_doubled(twin_model, twin_arms["random"])             # was: twin_arms["identical"]
print("random pair vs head 0 alone, doubled: relative output change", ((both - alone).norm() / both.norm()).item())

# %%
two_random, one_random = head_0_doubled(model, arm_of["random"])           # the full run
report.number("exercise_random_one_head_change",
              ((two_random - one_random).norm() / two_random.norm()).item(), "{:.2f}")

# %% [markdown]
# ## Figures: every seed's weight gap, and accuracy per arm

# %%
TEXT = report.figure_text()   # the figures' words: head_symmetry.strings.toml
colors = {"identical": "#7570b3", "nudged": "#e7298a", "random": "#1b9e77", "identical_dropout": "#d95f02"}
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for arm in ARMS:
        curves = gap_curves[arm_of[arm]]                                    # (n, K)
        for curve in curves:
            ax.plot(steps, curve, color=colors[arm], alpha=0.25, lw=0.8)
        ax.plot(steps, curves.median(dim=0).values, color=colors[arm], lw=2, label=text["names"][arm])
    ax.set_yscale("symlog", linthresh=1e-7)
    plain_log_ticks(ax.yaxis)  # 1e-06, not 10⁻⁶ with a tiny exponent
    ax.set_xlabel(text["step"])
    ax.set_ylabel(text["gap"])
    ax.legend(fontsize=9, loc="center right")
    fig.tight_layout()
    caption = text["caption"].format(stay=int(stays[arm_of["identical"]].sum()), n=n, level=GAP_LEVEL,
                                     nudged=int(nudged_separated.sum()), dropout=int(dropout_separated.sum()))
    # the recorded numbers as each language writes them (an exact zero is 0, not 0.0e+00)
    alt = text["alt"].format(steps=STEPS, n=n,
                             **{arm: report.numbers[f"{arm}_final_gap_mean"]["texts"][lang] for arm in ARMS})
    report.figure("symmetry", fig, lang, alt=alt, caption=caption)

    fig, ax = plt.subplots(figsize=(6.4, 2.8))
    for row, arm in enumerate(ARMS):
        values = accuracy[arm_of[arm]]
        ax.scatter(values, torch.full_like(values, row) + torch.linspace(-0.15, 0.15, n),
                   color=colors[arm], s=18)
        ax.plot([values.mean()] * 2, [row - 0.3, row + 0.3], color=colors[arm], lw=2)
    ax.set_yticks(range(len(ARMS)), [text["names"][arm] for arm in ARMS])
    ax.set_xlabel(text["accuracy"].format(steps=STEPS))
    fig.tight_layout()
    report.figure("accuracy", fig, lang, alt=text["alt_accuracy"].format(n=n), caption=text["caption_accuracy"])

report.save()
