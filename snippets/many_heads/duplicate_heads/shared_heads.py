# %% [markdown]
# # Why heads differ (4): heads forced to share their weights
#
# The source's last argument: only a division of labour reaches the lowest
# loss; a team of identical heads loses. Test it directly. For each of 8 random
# seeds, train the same 1-layer, 2-head model on the pronoun language twice,
# from the same draw and on the same batches:
#
# - *free*: every head has its own W_Q, W_K, W_V slice (the normal case);
# - *shared*: all heads are forced to use head 0's slices (W_O stays free),
#   so they always attend alike — whatever training does.
#
# "The lowest loss" is the loss at the end of training. We cannot train forever,
# so we stand in for it: 600 steps with a learning rate that decays to zero
# (a half cosine), and we record how much the held-out loss still moved in the
# last 100 steps — a flat curve is as low as this training gets.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plain_log_ticks, plt
from explainer.report import Report
from explainer.seeds import n_seeds, report_seed_count

report = Report("many_heads.duplicate_heads.shared_heads")

# %% [markdown]
# ## The language and the models
#
# The pronoun language and the batched model (one copy per seed and arm, every
# parameter with a leading model dimension) come from the project's `explainer`
# package.

# %% tags=["setup"]
import random

import torch

from explainer.pronoun_language import SENTENCE_LENGTH, VOCAB, batch
from explainer.batched import StackedTransformer, evaluate_batched, train_batched
from explainer.tiny_transformer import TransformerConfig
from explainer.training import sample_from

torch.set_num_threads(1)
ARMS = ("free", "shared")
STEPS, EVERY = 600, 25
pool_tokens, pool_targets, _ = batch(random.Random(0), 8192)
task = sample_from(pool_tokens, pool_targets)
probe_tokens, probe_targets, _ = batch(random.Random(1234), 400)   # held-out sentences
config = TransformerConfig(vocab_size=len(VOCAB), n_ctx=SENTENCE_LENGTH, d_model=32, n_heads=2)

# %% [markdown]
# ## Train free and shared heads
#
# For every seed, two models from the same draw, trained on the same batches.
# In the shared one, every head uses head 0's slices of W_Q, W_K and W_V (the
# model's `shared` switch); its W_O stays free.

# %% tags=["train"]
def train_free_and_shared(seeds, steps=STEPS):
    """Per seed, a 2-head model with free and one with shared heads, trained as one batch of
    models, the learning rate decaying to 0: (model, the rows of each arm, held-out loss
    every EVERY steps (M, steps / EVERY + 1))."""
    model = StackedTransformer.from_seeds(config, [seed for _ in ARMS for seed in seeds])
    n = len(seeds)
    arm_of = {arm: slice(a * n, (a + 1) * n) for a, arm in enumerate(ARMS)}
    model.shared[arm_of["shared"]] = True    # these models' heads all use head 0's W_Q, W_K, W_V
    curve = []

    def held_out(step, model):
        if step % EVERY == 0:
            curve.append(evaluate_batched(model, probe_tokens, probe_targets)[0])   # (M,)

    train_batched(model, task, steps=steps, batch_size=16, data_seeds=seeds * len(ARMS),
                  cosine_decay=True, on_step=held_out)
    return model, arm_of, torch.stack(curve, dim=1)


def largest_pattern_gap(model):
    """Largest difference between the two heads' attention weights, per model: (M,)."""
    weights = model.last_weights                                             # (M, B, 2, T, T)
    return (weights[:, :, 0] - weights[:, :, 1]).abs().flatten(1).amax(dim=1)

# %% [markdown]
# ## A small run first
#
# Two seeds, both arms: a run that takes seconds. The full run below trains
# more seeds with the same code.

# %% tags=["small_run"]
SMALL_SEEDS = [0, 1]
two_head_model, two_head_arms, _ = train_free_and_shared(SMALL_SEEDS)
two_head_loss, two_head_accuracy = evaluate_batched(two_head_model, probe_tokens, probe_targets)  # (M,)
two_head_gap = largest_pattern_gap(two_head_model)                                                 # (M,)
for arm, rows in two_head_arms.items():
    print(f"{arm:>6}: held-out loss per seed {two_head_loss[rows].numpy().round(4)}, "
          f"accuracy {two_head_accuracy[rows].numpy().round(3)}, "
          f"largest gap between the heads' patterns {two_head_gap[rows].numpy().round(2)}")

# %%
report.number("small_run_seeds", len(SMALL_SEEDS), "{:.0f}")

# %% [markdown]
# ## The full run

# %%
SEEDS = list(range(n_seeds(8)))   # the build trains more when a verdict is undecided
n = len(SEEDS)
model, arm_of, curve = train_free_and_shared(SEEDS)
loss, accuracy = evaluate_batched(model, probe_tokens, probe_targets)       # (M,)
pattern_gap = largest_pattern_gap(model)                                    # (M,)

# %% [markdown]
# ## Over the seeds

# %%
report.number("n_seeds", n, "{:.0f}")
report.number("steps", STEPS, "{:.0f}")
report.number("every", EVERY, kind="count")
back = STEPS // EVERY - 100 // EVERY                                         # the eval 100 steps before the end
late = curve[:, back] - curve[:, -1]                                        # (M,) still falling by ...
free, shared = arm_of["free"], arm_of["shared"]                             # each arm's models
report.number("loss_free_mean", loss[free].mean(), "{:.3f}", per_seed=loss[free], of="mean")
report.number("loss_free_std", loss[free].std(), "{:.3f}")
report.number("loss_free_min", loss[free].min(), "{:.3f}", per_seed=loss[free], of="min")
report.number("loss_free_max", loss[free].max(), "{:.3f}", per_seed=loss[free], of="max")
report.number("accuracy_free_mean", accuracy[free].mean(), "{:.3f}", per_seed=accuracy[free], of="mean")
report.number("accuracy_free_std", accuracy[free].std(), "{:.3f}")
report.number("accuracy_free_min", accuracy[free].min(), "{:.3f}", per_seed=accuracy[free], of="min")
report.number("accuracy_free_max", accuracy[free].max(), "{:.3f}", per_seed=accuracy[free], of="max")
report.number("last_100_steps_drop_free_mean", late[free].mean(), "{:.4f}")
report.number("last_100_steps_drop_free_max", late[free].max(), "{:.4f}")
report.number("loss_shared_mean", loss[shared].mean(), "{:.3f}", per_seed=loss[shared], of="mean")
report.number("loss_shared_std", loss[shared].std(), "{:.3f}")
report.number("loss_shared_min", loss[shared].min(), "{:.3f}", per_seed=loss[shared], of="min")
report.number("loss_shared_max", loss[shared].max(), "{:.3f}", per_seed=loss[shared], of="max")
report.number("accuracy_shared_mean", accuracy[shared].mean(), "{:.3f}", per_seed=accuracy[shared], of="mean")
report.number("accuracy_shared_std", accuracy[shared].std(), "{:.3f}")
report.number("accuracy_shared_min", accuracy[shared].min(), "{:.3f}", per_seed=accuracy[shared], of="min")
report.number("accuracy_shared_max", accuracy[shared].max(), "{:.3f}", per_seed=accuracy[shared], of="max")
report.number("last_100_steps_drop_shared_mean", late[shared].mean(), "{:.4f}")
report.number("last_100_steps_drop_shared_max", late[shared].max(), "{:.4f}")
for arm in ARMS:
    s = arm_of[arm]
    print(f"{arm:>6}: loss {loss[s].mean():.4f} ± {loss[s].std():.4f}  per seed {[round(x, 4) for x in loss[s].tolist()]}")

free_wins = loss[arm_of["free"]] < loss[arm_of["shared"]]
report_seed_count(report, "free_wins_seeds", free_wins)
report.number("loss_gap_mean", (loss[arm_of["shared"]] - loss[arm_of["free"]]).mean(), "{:.3f}")
# The page's conclusions, built from these numbers.
wins, n_models = int(free_wins.sum()), len(free_wins)
free_mean, shared_mean = loss[arm_of["free"]].mean(), loss[arm_of["shared"]].mean()
# Do identical heads lose: in every seed, in most (and on average), or not as a rule?
identical_lose = ("every" if wins == n_models else "most" if wins > n_models / 2 and free_mean < shared_mean
                  else "not_as_a_rule")
report.category("free_on_average", "lower" if free_mean < shared_mean else "not_lower")
report.category("identical_lose", identical_lose)
gap = abs(float(shared_mean - free_mean))
flat = all(abs(float((curve[arm_of[arm], back] - curve[arm_of[arm], -1]).mean())) < gap / 10 for arm in ARMS)
report.category("flattened", "yes" if flat else "no")
report.number("shared_pattern_gap", pattern_gap[arm_of["shared"]].max(), "{:.1f}")
report.number("free_pattern_gap_mean", pattern_gap[arm_of["free"]].mean(), "{:.2f}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above. The cell tries it on the small run;
# the run records the answer of the full run so the page can show it folded
# under the question.

# %% tags=["merged_heads"]
# Exercise 2: merge the two heads into one. Keep head 0, give it both heads' columns of
# W_O (their sum), switch head 1 off. How much does the output change, per arm?
def merged_change(model, tokens=probe_tokens):
    """Relative change of every model's output when head 0 takes both heads' columns of W_O: (M,)."""
    hs = model.head_size
    only_head_0 = torch.tensor([1.0, 0.0]).expand(model.n_models, len(tokens), 2)   # (M, B, nh)
    with torch.no_grad():
        both = model(tokens)                                                # (M, B, T, V)
        saved = model.W_O.clone()
        model.W_O[:, :, :hs] += model.W_O[:, :, hs:2 * hs]                  # head 0 gets head 1's columns too
        merged = model(tokens, head_mask=only_head_0)                       # (M, B, T, V)
        model.W_O.copy_(saved)
    return (merged - both).flatten(1).norm(dim=1) / both.flatten(1).norm(dim=1)


two_head_change = merged_change(two_head_model)                             # (M,)
for arm, rows in two_head_arms.items():
    print(f"{arm:>6}: relative change of the output, per seed {two_head_change[rows].numpy()}")

# %%
change = merged_change(model)                                               # (M,) the full run
report.number("exercise_merged_change_free_max", change[free].max(), "{:.2g}")
report.number("exercise_merged_change_shared_max", change[shared].max(), "{:.2g}")

# %% [markdown]
# ## Figure: held-out loss of every seed, free vs shared

# %%
TEXT = report.figure_text()   # the figures' words: shared_heads.strings.toml
colors = {"free": "#1b9e77", "shared": "#d95f02"}
steps = torch.arange(0, STEPS + 1, EVERY)
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for arm in ARMS:
        for seed_curve in curve[arm_of[arm]]:
            ax.plot(steps, seed_curve, color=colors[arm], alpha=0.3, lw=0.8)
        ax.plot(steps, curve[arm_of[arm]].mean(dim=0), color=colors[arm], lw=2.2,
                label=text[arm] + text["mean"].format(n))
    ax.set_yscale("log")
    plain_log_ticks(ax.yaxis)  # 0.01, not 10⁻² with a tiny exponent
    ax.set_xlabel(text["step"])
    ax.set_ylabel(text["loss"])
    ax.legend(fontsize=9)
    fig.tight_layout()
    report.figure("loss_curves", fig, lang, alt=text["alt"].format(steps=STEPS, n=n), caption=text["caption"])

report.save()
