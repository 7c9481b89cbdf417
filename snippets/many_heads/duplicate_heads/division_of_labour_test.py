# %% [markdown]
# # Why heads differ (5): is a division of labour the *only* way to the lowest loss?
#
# The source (A, "why heads differ" §3): only a division of labour reaches the
# lowest loss; if all heads learn the same view, back-propagation penalises the
# heads that only look at syntax and pushes some of them to change direction.
# The shared-weights test before this one leaves two gaps: heads that share
# W_Q, W_K, W_V also have fewer parameters, and it never watches heads that
# start alike. Four arms here, each over the same seeds, on the same batches,
# with the settings of `shared_heads.py` (the pronoun language, a 1-layer
# 2-head model, 600 steps, a learning rate that decays to zero), all batched in
# one model:
#
# - *free*: every head has its own W_Q, W_K, W_V slice;
# - *shared*: every head uses head 0's slices (W_O stays free);
# - *wide*: one head as wide as the model in both head slots — the pattern of
#   q·k over all 32 dimensions — so the heads are one map that uses all of
#   W_Q, W_K, W_V, W_O: as many parameters as the free model;
# - *noisy copies*: first a model whose heads are one head is trained on the
#   agreement predictions only (syntax: its head looks one word back); then
#   both heads of a free model start as copies of that head, each with its own
#   noise, and train on the whole language. Does one of them move to the
#   pronoun's antecedent?

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
import numpy as np
import torch

from explainer.plotting import LANGS, plain_log_ticks, plt
from explainer.report import Report
from explainer.seeds import report_seed_count

torch.set_num_threads(1)
report = Report("many_heads.duplicate_heads.division_of_labour_test")

# %% tags=["setup"]
import random

import torch

from explainer.seeds import n_seeds
from explainer.pronoun_language import SENTENCE_LENGTH, VOCAB, batch
from explainer.batched import StackedTransformer, evaluate_batched, train_batched
from explainer.tiny_transformer import TransformerConfig
from explainer.training import IGNORE, sample_from

# The settings of shared_heads.py, unchanged (a test checks they stay the same).
SEEDS = list(range(n_seeds(8)))   # the build trains more when a verdict is undecided
STEPS, EVERY = 600, 25
pool_tokens, pool_targets, pool_places = batch(random.Random(0), 8192)
task = sample_from(pool_tokens, pool_targets)
probe_tokens, probe_targets, places = batch(random.Random(1234), 400)   # held-out sentences
config = TransformerConfig(vocab_size=len(VOCAB), n_ctx=SENTENCE_LENGTH, d_model=32, n_heads=2)
TRAINING = dict(steps=STEPS, batch_size=16, cosine_decay=True)

# Syntax only: the same sentences without the prediction after "it".
syntax_targets = pool_targets.clone()
syntax_targets[torch.arange(len(pool_targets)), pool_places[:, 0]] = IGNORE
syntax_task = sample_from(pool_tokens, syntax_targets)

# %% [markdown]
# ## A trained syntax head to copy
#
# One model per seed whose two head slots are one head (`shared`), trained on
# the agreement predictions only: whatever it learns, every head of it looks
# the same way.

# %% tags=["syntax_head"]
syntax_model = StackedTransformer.from_seeds(config, SEEDS)
syntax_model.shared[:] = True
train_batched(syntax_model, syntax_task, data_seeds=SEEDS, **TRAINING)

# %% [markdown]
# ## Four arms, one batched model
#
# Every arm starts from the same draw per seed (the noisy copies from the
# syntax head of that seed) and sees the same batches.

# %% tags=["arms"]
import torch

from explainer.alike_heads import noisy_copies, parameters_in_use

NOISE = 0.1    # each copy: its slice + Gaussian noise of 0.1 × the slice's root mean square
ARMS = ("free", "shared", "wide", "noisy")
n = len(SEEDS)
arm_of = {arm: slice(a * n, (a + 1) * n) for a, arm in enumerate(ARMS)}
model = StackedTransformer.from_seeds(config, [seed for _ in ARMS for seed in SEEDS])
model.shared[arm_of["shared"]] = True     # every head uses head 0's W_Q, W_K, W_V
model.wide[arm_of["wide"]] = True         # every head slot is one head of width 32
for i, seed in enumerate(SEEDS):          # both heads: noisy copies of the seed's syntax head
    noisy_copies(model, [arm_of["noisy"].start + i], syntax_model, [i], NOISE,
                 torch.Generator().manual_seed(seed))
in_use = parameters_in_use(model, probe_tokens, probe_targets)             # (M,)
print({arm: in_use[arm_of[arm]].unique().tolist() for arm in ARMS}, "parameters in use")

evaluate_batched(model, probe_tokens, probe_targets)
start_weights = model.last_weights                                          # (M, B, 2, T, T)
train_batched(model, task, data_seeds=SEEDS * len(ARMS), **TRAINING)
loss, accuracy = evaluate_batched(model, probe_tokens, probe_targets)      # (M,)
weights = model.last_weights                                                # (M, B, 2, T, T)
for arm in ARMS:
    print(f"{arm:>6}: loss per seed {[round(x, 4) for x in loss[arm_of[arm]].tolist()]}")

# %% [markdown]
# ## Roles, by the definitions of C07
#
# A head takes the previous-token role if the word before is its top pick over
# all the keys it can see at at least half of the adverbs (where agreement
# needs it), beyond chance by a max-statistic permutation over the model's
# heads (p < 0.05); the entity role likewise from `it` to the animal.

# %% tags=["roles"]
import numpy as np

from explainer.head_metrics import takes_role

TOP_PICK_SHARE = 0.5   # the target is the head's top pick at at least this share of the items,
ALPHA = 0.05           # and beyond chance: corrected p below this

it_at, animal_at, thing_at = places.T                          # (B,) each
rows = torch.arange(len(it_at))
adverb_at = torch.cat([animal_at + 1, thing_at + 1])           # (2B,) positions needing t-1
adverb_row = torch.cat([rows, rows])


def roles(weights):
    """(M, nh) previous-token role and (M, nh) entity role of every model's heads."""
    previous = [takes_role(w, adverb_row, adverb_at, adverb_at - 1, TOP_PICK_SHARE, ALPHA)[0] for w in weights]
    entity = [takes_role(w, rows, it_at, animal_at, TOP_PICK_SHARE, ALPHA)[0] for w in weights]
    return torch.tensor(np.stack(previous)), torch.tensor(np.stack(entity))


previous, entity = roles(weights)                       # after training
previous_start, _ = roles(start_weights)                # at the start
split = (previous & entity.flip(1)).any(dim=1)          # (M,) one head each role
noisy = arm_of["noisy"]
moved = previous_start[noisy].all(dim=1) & entity[noisy].any(dim=1)   # (n,) a copy moved to "it"
print("free heads split the roles:", split[arm_of["free"]].tolist())
print("a noisy copy moved to the antecedent:", moved.tolist())

# %%
# Bookkeeping: per-seed comparisons and every number the page and the rule read.
MARGIN = 0.01    # nats: the rule's margin
report.number("n_seeds", n, "{:.0f}")
report.number("steps", STEPS, kind="count")
report.number("noise", NOISE, "{:.1f}")
report.number("margin", MARGIN, "{:.2f}")
report.number("top_pick_share_bar", TOP_PICK_SHARE, "{:.2f}")
report.number("top_pick_alpha", ALPHA, "{:.2f}")
loss_of = {arm: loss[arm_of[arm]] for arm in ARMS}                        # (n,) each
accuracy_of = {arm: accuracy[arm_of[arm]] for arm in ARMS}                # (n,) each
report.number("loss_free_mean", loss_of["free"].mean(), "{:.3f}", per_seed=loss_of["free"], of="mean")
report.number("loss_free_min", loss_of["free"].min(), "{:.3f}", per_seed=loss_of["free"], of="min")
report.number("loss_free_max", loss_of["free"].max(), "{:.3f}", per_seed=loss_of["free"], of="max")
report.number("parameters_free", in_use[arm_of["free"]].max(), kind="count")
report.number("accuracy_free_mean", accuracy_of["free"].mean(), "{:.3f}", per_seed=accuracy_of["free"], of="mean")
report.number("loss_shared_mean", loss_of["shared"].mean(), "{:.3f}", per_seed=loss_of["shared"], of="mean")
report.number("loss_shared_min", loss_of["shared"].min(), "{:.3f}", per_seed=loss_of["shared"], of="min")
report.number("loss_shared_max", loss_of["shared"].max(), "{:.3f}", per_seed=loss_of["shared"], of="max")
report.number("parameters_shared", in_use[arm_of["shared"]].max(), kind="count")
report.number("accuracy_shared_mean", accuracy_of["shared"].mean(), "{:.3f}", per_seed=accuracy_of["shared"], of="mean")
report.number("loss_wide_mean", loss_of["wide"].mean(), "{:.3f}", per_seed=loss_of["wide"], of="mean")
report.number("loss_wide_min", loss_of["wide"].min(), "{:.3f}", per_seed=loss_of["wide"], of="min")
report.number("loss_wide_max", loss_of["wide"].max(), "{:.3f}", per_seed=loss_of["wide"], of="max")
report.number("parameters_wide", in_use[arm_of["wide"]].max(), kind="count")
report.number("accuracy_wide_mean", accuracy_of["wide"].mean(), "{:.3f}", per_seed=accuracy_of["wide"], of="mean")
report.number("loss_noisy_mean", loss_of["noisy"].mean(), "{:.3f}", per_seed=loss_of["noisy"], of="mean")
report.number("loss_noisy_min", loss_of["noisy"].min(), "{:.3f}", per_seed=loss_of["noisy"], of="min")
report.number("loss_noisy_max", loss_of["noisy"].max(), "{:.3f}", per_seed=loss_of["noisy"], of="max")
report.number("parameters_noisy", in_use[arm_of["noisy"]].max(), kind="count")
report.number("accuracy_noisy_mean", accuracy_of["noisy"].mean(), "{:.3f}", per_seed=accuracy_of["noisy"], of="mean")
free = loss[arm_of["free"]]
free_median = float(np.median(free.numpy()))
report.number("loss_free_median", free_median, "{:.3f}")
lower = {arm: loss[arm_of[arm]] - free >= MARGIN for arm in ("shared", "wide")}
report_seed_count(report, "free_lower_than_shared_seeds", lower["shared"])
report_seed_count(report, "free_lower_than_wide_seeds", lower["wide"])
report_seed_count(report, "free_lower_than_both_seeds", lower["shared"] & lower["wide"])
report_seed_count(report, "shared_near_free_median_seeds", loss_of["shared"] <= free_median + MARGIN)
report_seed_count(report, "wide_near_free_median_seeds", loss_of["wide"] <= free_median + MARGIN)
report_seed_count(report, "noisy_near_free_median_seeds", loss_of["noisy"] <= free_median + MARGIN)
report_seed_count(report, "free_split_roles_seeds", split[arm_of["free"]])
report_seed_count(report, "syntax_head_previous_seeds", previous_start[noisy].all(dim=1))
report_seed_count(report, "noisy_moves_seeds", moved)
report_seed_count(report, "noisy_split_roles_seeds", split[noisy])
report_seed_count(report, "shared_both_roles_seeds", (previous & entity)[arm_of["shared"], 0])
report_seed_count(report, "wide_both_roles_seeds", (previous & entity)[arm_of["wide"], 0])
# Total variation between the copies' attention rows (half the summed |difference|), mean over rows.
start_gap = 0.5 * (start_weights[noisy, :, 0] - start_weights[noisy, :, 1]).abs().sum(-1).mean((1, 2))  # (n,)
report.number("noisy_start_pattern_gap_max", start_gap.max(), "{:.2f}")
wide_gap = (weights[arm_of["wide"], :, 0] - weights[arm_of["wide"], :, 1]).abs().max()
report.number("wide_pattern_gap", wide_gap, "{:.1f}")

# %% [markdown]
# ## Gaps per seed, where the second view is needed, and after twice the training
#
# Per seed, shared − free and wide − free: over all held-out predictions, and at the
# prediction after `it` alone, the one that needs the antecedent (did the free heads
# learn it?). Then free, shared and wide again for 1,200 steps (decaying over 1,200),
# from the same draws and batches, in a stack of their own: have the gaps settled?

# %% tags=["gaps"]
from explainer.report import over_seeds

it_targets = torch.full_like(probe_targets, IGNORE)            # only the prediction after "it"
it_targets[rows, it_at] = probe_targets[rows, it_at]
it_loss, it_accuracy = evaluate_batched(model, probe_tokens, it_targets)    # (M,)
gap = {arm: (loss[arm_of[arm]] - free).tolist() for arm in ("shared", "wide")}
gap_it = {arm: (it_loss[arm_of[arm]] - it_loss[arm_of["free"]]).tolist() for arm in ("shared", "wide")}
report.number("gap_shared_mean", over_seeds(gap["shared"], "mean"), "{:+.4f}", per_seed=gap["shared"], of="mean")
report.number("gap_shared_ci95_high", over_seeds(gap["shared"], "ci95_high"), "{:+.4f}", per_seed=gap["shared"], of="ci95_high")
report.number("gap_wide_mean", over_seeds(gap["wide"], "mean"), "{:+.4f}", per_seed=gap["wide"], of="mean")
report.number("gap_wide_ci95_high", over_seeds(gap["wide"], "ci95_high"), "{:+.4f}", per_seed=gap["wide"], of="ci95_high")
report.number("gap_shared_it_mean", over_seeds(gap_it["shared"], "mean"), "{:+.4f}", per_seed=gap_it["shared"], of="mean")
report.number("gap_shared_it_ci95_high", over_seeds(gap_it["shared"], "ci95_high"), "{:+.4f}",
              per_seed=gap_it["shared"], of="ci95_high")
report.number("gap_wide_it_mean", over_seeds(gap_it["wide"], "mean"), "{:+.4f}", per_seed=gap_it["wide"], of="mean")
report.number("gap_wide_it_ci95_high", over_seeds(gap_it["wide"], "ci95_high"), "{:+.4f}",
              per_seed=gap_it["wide"], of="ci95_high")
FREE_IT_BAR = 0.9   # the free heads learned "it" in a seed at this accuracy after "it" or above
free_it = it_accuracy[arm_of["free"]]
report.number("free_it_bar", FREE_IT_BAR, kind="share")
report.number("accuracy_free_it_mean", over_seeds(free_it.tolist(), "mean"), kind="share", per_seed=free_it, of="mean")
report_seed_count(report, "free_it_learned_seeds", free_it >= FREE_IT_BAR)

STEPS_LONG = 1200
LONG_ARMS = ("free", "shared", "wide")
long_model = StackedTransformer.from_seeds(config, [seed for _ in LONG_ARMS for seed in SEEDS])
long_model.shared[n:2 * n] = True
long_model.wide[2 * n:] = True
train_batched(long_model, task, data_seeds=SEEDS * len(LONG_ARMS), **dict(TRAINING, steps=STEPS_LONG))
long_loss, _ = evaluate_batched(long_model, probe_tokens, probe_targets)    # (3n,)
long_gap = {arm: (long_loss[a * n:(a + 1) * n] - long_loss[:n]).tolist()
            for a, arm in enumerate(LONG_ARMS) if arm != "free"}   # per-seed gaps at 1,200 steps
change = {arm: [g_long - g for g_long, g in zip(long_gap[arm], gap[arm])] for arm in ("shared", "wide")}
report.number("steps_long", STEPS_LONG, kind="count")
report.number("gap_shared_long_change", over_seeds(change["shared"], "mean"), "{:+.4f}",
              per_seed=change["shared"], of="mean")
report.number("gap_wide_long_change", over_seeds(change["wide"], "mean"), "{:+.4f}",
              per_seed=change["wide"], of="mean")

# The outcomes the page words, from the counts.
count = {arm: int((loss[arm_of[arm]] <= free_median + MARGIN).sum()) for arm in ("shared", "wide")}
report.category("shared_reach", "none" if count["shared"] == 0 and count["wide"] == 0 else "some")
# Did one of two heads that start alike change direction: in at least 3/4 of the seeds, in some, in none?
report.category("noisy_mechanism", "most" if moved.sum() >= 0.75 * n else "some" if moved.sum() > 0 else "none")

# %% [markdown]
# ## Figure: every seed's held-out loss, four arms

# %%
order = ("free", "shared", "wide", "noisy")
colors = {"free": "#1b9e77", "shared": "#d95f02", "wide": "#7570b3", "noisy": "#e7298a"}
TEXT = {
    "en": {"loss": "loss on held-out sentences", "median": "free median + {:.2f}", "free": "free heads",
           "shared": "shared weights", "wide": "one wide head", "noisy": "noisy copies",
           "alt": f"Held-out loss after {STEPS} steps, log scale, one dot per random seed ({n} seeds) in "
                  "four columns: free heads, shared weights, one wide shared head with the free model's "
                  f"parameter count, and free heads started as noisy copies of a syntax head. A line marks "
                  f"the free heads' median plus {MARGIN:.2f}: {count['shared']} shared and {count['wide']} "
                  "wide-head seeds lie on or below it.",
           "caption": f"Seeds at most {MARGIN:.2f} above the free median (or below it): shared weights {count['shared']} of {n}, "
                      f"one wide head {count['wide']} of {n}."},
    "zh": {"loss": "留出句子上的损失", "median": "独立的头的中位数 + {:.2f}", "free": "独立的头",
           "shared": "共享权重", "wide": "一个加宽的头", "noisy": "带噪副本",
           "alt": f"训练 {STEPS} 步后留出句子上的损失（对数坐标），每个随机种子一个点（共 {n} 个），分四列："
                  "独立的头、共享权重的头、参数量与独立模型相同的一个加宽共享头、从语法头的带噪副本出发的独立的头。"
                  f"一条线标出独立的头的中位数加 {MARGIN:.2f}：共享权重有 {count['shared']} 个种子、"
                  f"加宽的头有 {count['wide']} 个种子落在线上或线下。",
           "caption": f"损失不高于独立的头的中位数加 {MARGIN:.2f} 的种子：共享权重 {count['shared']}/{n}，"
                      f"一个加宽的头 {count['wide']}/{n}。"},
}
spread = torch.linspace(-0.15, 0.15, n)
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for x, arm in enumerate(order):
        ax.scatter(x + spread, loss[arm_of[arm]].clamp(min=1e-5), color=colors[arm], s=28, zorder=3)
    ax.axhline(free_median + MARGIN, color="grey", lw=1, ls="--", label=text["median"].format(MARGIN))
    ax.set_xticks(range(len(order)), [text[arm] for arm in order], fontsize=9)
    ax.set_yscale("log")
    plain_log_ticks(ax.yaxis)
    ax.set_ylabel(text["loss"])
    ax.legend(fontsize=9)
    fig.tight_layout()
    report.figure("loss_per_seed", fig, lang, alt=text["alt"], caption=text["caption"])

report.save()
