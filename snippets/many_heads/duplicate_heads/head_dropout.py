# %% [markdown]
# # Why heads differ (3): does dropping whole heads make them complementary?
#
# The source argues: dropout can switch a head off at any step, so a model whose
# heads duplicate each other is fragile and wasteful, and to keep the loss low
# it makes heads carry *complementary* information. Test exactly that: train a
# 1-layer, 4-head model on the pronoun language with and without *head dropout*
# (each head of each sentence switched off with probability 0.25 during
# training), 8 random seeds, both arms from the same draw and the same batches.
# Then, with dropout off, measure what each head carries:
#
# - redundancy: how well a linear regression on the other three heads' outputs
#   (what they write into the residual stream) predicts the fourth head's
#   output, R^2 on held-out sentences; complementary heads are hard to predict;
# - ablation cost: how much the loss rises when that head alone is removed.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report
from explainer.seeds import n_seeds, report_seed_count, report_seeds_past

report = Report("many_heads.duplicate_heads.head_dropout")

# %% [markdown]
# ## The language and the models
#
# The pronoun language and the batched model (one copy per seed and arm, every
# parameter with a leading model dimension) come from the project's `explainer`
# package.

# %% tags=["setup"]
import random

import torch

from explainer.head_metrics import pattern_similarity
from explainer.pronoun_language import SENTENCE_LENGTH, VOCAB, batch
from explainer.batched import StackedTransformer, evaluate_batched, train_batched
from explainer.tiny_transformer import TransformerConfig
from explainer.training import sample_from

torch.set_num_threads(1)
ARMS = ("none", "dropout")
N_HEADS, HEAD_DROPOUT, STEPS = 4, 0.25, 300
pool_tokens, pool_targets, _ = batch(random.Random(0), 8192)
task = sample_from(pool_tokens, pool_targets)
fit_tokens, fit_targets, _ = batch(random.Random(1234), 400)      # to fit the regressions
test_tokens, test_targets, _ = batch(random.Random(4321), 400)    # to score them
config = TransformerConfig(vocab_size=len(VOCAB), n_ctx=SENTENCE_LENGTH, d_model=32, n_heads=N_HEADS)
print("a sentence:", " ".join(VOCAB[i] for i in test_tokens[0].tolist()))

# %% [markdown]
# ## Train with and without head dropout
#
# For every seed, two models from the same draw, trained on the same batches:
# one without dropout, one with head dropout.

# %% tags=["train"]
def train_with_and_without(seeds, steps=STEPS):
    """Per seed, a 4-head model without and one with head dropout, trained as one batch of
    models: (model, the rows of each arm)."""
    model = StackedTransformer.from_seeds(config, [seed for _ in ARMS for seed in seeds])
    head_dropout = torch.tensor([HEAD_DROPOUT if arm == "dropout" else 0.0
                                 for arm in ARMS for _ in seeds])                  # (M,)
    train_batched(model, task, steps=steps, batch_size=16, data_seeds=seeds * len(ARMS),
                  head_dropout=head_dropout)
    n = len(seeds)
    return model, {arm: slice(a * n, (a + 1) * n) for a, arm in enumerate(ARMS)}

# %% [markdown]
# ## What each head carries
#
# A head's output at every position is a vector in the residual stream (C = 32
# numbers). Fit, on one set of sentences, a linear map from the other heads'
# outputs (3 x 32 numbers, plus a constant) to this head's output; score it on
# other sentences: R^2 = 1 - (residual sum of squares) / (total sum of squares).

# %% tags=["redundancy"]
def head_outputs(model, tokens) -> torch.Tensor:
    """What each head writes into the residual stream, flattened over positions: (M, nh, B*T, C)."""
    evaluate_batched(model, tokens, torch.zeros_like(tokens))              # eval-mode forward pass
    written = model.last_head_outputs                                      # (M, B, nh, T, C)
    return written.transpose(1, 2).flatten(2, 3)                           # (M, nh, B*T, C)


def predictability(fit: torch.Tensor, test: torch.Tensor) -> torch.Tensor:
    """R^2 of each head's output predicted linearly from the other heads': (M, nh)."""
    M, nh, N, C = fit.shape
    r2 = torch.empty(M, nh)
    for h in range(nh):
        others = [g for g in range(nh) if g != h]
        def design(outputs):                                               # (M, N, 3C + 1)
            x = outputs[:, others].transpose(1, 2).flatten(2)
            return torch.cat([x, torch.ones(M, x.shape[1], 1)], dim=-1)
        X = design(fit)                                                     # (M, N, 3C + 1)
        gram = X.transpose(1, 2) @ X                                        # (M, 3C + 1, 3C + 1)
        # A touch of ridge: the heads' outputs fill few directions, plain least squares
        # would amplify the empty ones on new sentences.
        ridge = 1e-3 * gram.diagonal(dim1=1, dim2=2).mean(-1)[:, None, None] * torch.eye(gram.shape[-1])
        coef = torch.linalg.solve(gram + ridge, X.transpose(1, 2) @ fit[:, h])  # (M, 3C + 1, C)
        residual = test[:, h] - design(test) @ coef                         # (M, N, C)
        total = test[:, h] - test[:, h].mean(dim=1, keepdim=True)
        r2[:, h] = 1 - residual.pow(2).sum((1, 2)) / total.pow(2).sum((1, 2)).clamp_min(1e-12)
    return r2

# %% [markdown]
# ## What losing a head costs
#
# Switch some heads off (their output zeroed before W_O) and measure how much
# the loss rises.

# %% tags=["ablation"]
def loss_rise(model, heads, tokens=test_tokens, targets=test_targets) -> torch.Tensor:
    """How much each model's loss rises when ``heads`` are switched off: (M,)."""
    loss = evaluate_batched(model, tokens, targets)[0]                      # (M,) every head on
    mask = torch.ones(model.n_models, len(tokens), N_HEADS)                 # (M, B, nh): 1 = head on
    mask[:, :, heads] = 0
    return evaluate_batched(model, tokens, targets, head_mask=mask)[0] - loss

# %% [markdown]
# ## A small run first
#
# Two seeds, both arms: a run that takes seconds. The full run below trains
# more seeds with the same code.

# %% tags=["small_run"]
SMALL_SEEDS, SMALL_STEPS = [0, 1], STEPS
small_model, small_arms = train_with_and_without(SMALL_SEEDS, SMALL_STEPS)
small_r2 = predictability(head_outputs(small_model, fit_tokens),
                          head_outputs(small_model, test_tokens))                   # (M, nh)
small_cost = torch.stack([loss_rise(small_model, [h]) for h in range(N_HEADS)], dim=1)  # (M, nh)
for arm, rows in small_arms.items():
    print(f"{arm:>7}: R^2 of a head from the others, per seed {small_r2[rows].mean(dim=1).numpy().round(3)}; "
          f"loss rise without one head, per seed {small_cost[rows].mean(dim=1).numpy().round(3)}")

# %%
report.number("small_run_seeds", len(SMALL_SEEDS), "{:.0f}")
report.number("small_run_steps", SMALL_STEPS, "{:.0f}")

# %% [markdown]
# ## The full run

# %%
SEEDS = list(range(n_seeds(8)))   # the build trains more when a verdict is undecided
n = len(SEEDS)
model, arm_of = train_with_and_without(SEEDS)
r2 = predictability(head_outputs(model, fit_tokens), head_outputs(model, test_tokens))  # (M, nh)
loss, accuracy = evaluate_batched(model, test_tokens, test_targets)         # (M,)
similarity = torch.stack([pattern_similarity(w)[~torch.eye(N_HEADS, dtype=torch.bool)].mean()
                          for w in model.last_weights])                     # (M,)
ablation_cost = torch.stack([loss_rise(model, [h]) for h in range(N_HEADS)], dim=1)  # (M, nh)

# %% [markdown]
# ## Over the seeds

# %%
report.number("n_seeds", n, "{:.0f}")
report.number("head_dropout", HEAD_DROPOUT, "{:.2f}")
per_seed = {"r2": r2.mean(dim=1), "ablation_cost": ablation_cost.mean(dim=1),
            "worst_ablation_cost": ablation_cost.amax(dim=1), "accuracy": accuracy, "loss": loss,
            "pattern_similarity": similarity}
by_arm = {(key, arm): values[arm_of[arm]] for key, values in per_seed.items() for arm in ARMS}   # per-seed values
report.number("r2_none_mean", by_arm["r2", "none"].mean(), "{:.3f}", per_seed=by_arm["r2", "none"], of="mean")
report.number("r2_none_min", by_arm["r2", "none"].min(), "{:.3f}", per_seed=by_arm["r2", "none"], of="min")
report.number("r2_none_max", by_arm["r2", "none"].max(), "{:.3f}", per_seed=by_arm["r2", "none"], of="max")
report.number("r2_dropout_mean", by_arm["r2", "dropout"].mean(), "{:.3f}", per_seed=by_arm["r2", "dropout"], of="mean")
report.number("r2_dropout_min", by_arm["r2", "dropout"].min(), "{:.3f}", per_seed=by_arm["r2", "dropout"], of="min")
report.number("r2_dropout_max", by_arm["r2", "dropout"].max(), "{:.3f}", per_seed=by_arm["r2", "dropout"], of="max")
report.number("ablation_cost_none_mean", by_arm["ablation_cost", "none"].mean(), "{:.3f}", per_seed=by_arm["ablation_cost", "none"], of="mean")
report.number("ablation_cost_none_min", by_arm["ablation_cost", "none"].min(), "{:.3f}", per_seed=by_arm["ablation_cost", "none"], of="min")
report.number("ablation_cost_none_max", by_arm["ablation_cost", "none"].max(), "{:.3f}", per_seed=by_arm["ablation_cost", "none"], of="max")
report.number("ablation_cost_dropout_mean", by_arm["ablation_cost", "dropout"].mean(), "{:.3f}", per_seed=by_arm["ablation_cost", "dropout"], of="mean")
report.number("ablation_cost_dropout_min", by_arm["ablation_cost", "dropout"].min(), "{:.3f}", per_seed=by_arm["ablation_cost", "dropout"], of="min")
report.number("ablation_cost_dropout_max", by_arm["ablation_cost", "dropout"].max(), "{:.3f}", per_seed=by_arm["ablation_cost", "dropout"], of="max")
report.number("worst_ablation_cost_none_mean", by_arm["worst_ablation_cost", "none"].mean(), "{:.3f}", per_seed=by_arm["worst_ablation_cost", "none"], of="mean")
report.number("worst_ablation_cost_none_min", by_arm["worst_ablation_cost", "none"].min(), "{:.3f}", per_seed=by_arm["worst_ablation_cost", "none"], of="min")
report.number("worst_ablation_cost_none_max", by_arm["worst_ablation_cost", "none"].max(), "{:.3f}", per_seed=by_arm["worst_ablation_cost", "none"], of="max")
report.number("worst_ablation_cost_dropout_mean", by_arm["worst_ablation_cost", "dropout"].mean(), "{:.3f}", per_seed=by_arm["worst_ablation_cost", "dropout"], of="mean")
report.number("worst_ablation_cost_dropout_min", by_arm["worst_ablation_cost", "dropout"].min(), "{:.3f}", per_seed=by_arm["worst_ablation_cost", "dropout"], of="min")
report.number("worst_ablation_cost_dropout_max", by_arm["worst_ablation_cost", "dropout"].max(), "{:.3f}", per_seed=by_arm["worst_ablation_cost", "dropout"], of="max")
report.number("accuracy_none_mean", by_arm["accuracy", "none"].mean(), "{:.3f}", per_seed=by_arm["accuracy", "none"], of="mean")
report.number("accuracy_none_min", by_arm["accuracy", "none"].min(), "{:.3f}", per_seed=by_arm["accuracy", "none"], of="min")
report.number("accuracy_none_max", by_arm["accuracy", "none"].max(), "{:.3f}", per_seed=by_arm["accuracy", "none"], of="max")
report.number("accuracy_dropout_mean", by_arm["accuracy", "dropout"].mean(), "{:.3f}", per_seed=by_arm["accuracy", "dropout"], of="mean")
report.number("accuracy_dropout_min", by_arm["accuracy", "dropout"].min(), "{:.3f}", per_seed=by_arm["accuracy", "dropout"], of="min")
report.number("accuracy_dropout_max", by_arm["accuracy", "dropout"].max(), "{:.3f}", per_seed=by_arm["accuracy", "dropout"], of="max")
report.number("loss_none_mean", by_arm["loss", "none"].mean(), "{:.3f}", per_seed=by_arm["loss", "none"], of="mean")
report.number("loss_none_min", by_arm["loss", "none"].min(), "{:.3f}", per_seed=by_arm["loss", "none"], of="min")
report.number("loss_none_max", by_arm["loss", "none"].max(), "{:.3f}", per_seed=by_arm["loss", "none"], of="max")
report.number("loss_dropout_mean", by_arm["loss", "dropout"].mean(), "{:.3f}", per_seed=by_arm["loss", "dropout"], of="mean")
report.number("loss_dropout_min", by_arm["loss", "dropout"].min(), "{:.3f}", per_seed=by_arm["loss", "dropout"], of="min")
report.number("loss_dropout_max", by_arm["loss", "dropout"].max(), "{:.3f}", per_seed=by_arm["loss", "dropout"], of="max")
report.number("pattern_similarity_none_mean", by_arm["pattern_similarity", "none"].mean(), "{:.3f}", per_seed=by_arm["pattern_similarity", "none"], of="mean")
report.number("pattern_similarity_none_min", by_arm["pattern_similarity", "none"].min(), "{:.3f}", per_seed=by_arm["pattern_similarity", "none"], of="min")
report.number("pattern_similarity_none_max", by_arm["pattern_similarity", "none"].max(), "{:.3f}", per_seed=by_arm["pattern_similarity", "none"], of="max")
report.number("pattern_similarity_dropout_mean", by_arm["pattern_similarity", "dropout"].mean(), "{:.3f}", per_seed=by_arm["pattern_similarity", "dropout"], of="mean")
report.number("pattern_similarity_dropout_min", by_arm["pattern_similarity", "dropout"].min(), "{:.3f}", per_seed=by_arm["pattern_similarity", "dropout"], of="min")
report.number("pattern_similarity_dropout_max", by_arm["pattern_similarity", "dropout"].max(), "{:.3f}", per_seed=by_arm["pattern_similarity", "dropout"], of="max")
for key, values in per_seed.items():
    print(f"{key:>20}: none {values[arm_of['none']].mean():.3f}  dropout {values[arm_of['dropout']].mean():.3f}")

r2_change = per_seed["r2"][arm_of["dropout"]] - per_seed["r2"][arm_of["none"]]   # (n,): below 0, less redundant
less_redundant = r2_change < 0
report_seeds_past(report, "less_redundant_seeds", r2_change, of="count_below", line=0.0)
cheaper = per_seed["ablation_cost"][arm_of["dropout"]] < per_seed["ablation_cost"][arm_of["none"]]
report_seed_count(report, "cheaper_ablation_seeds", cheaper)

# The outcomes the page words, from these numbers.
mean_of = {key: {arm: float(values[arm_of[arm]].mean()) for arm in ARMS} for key, values in per_seed.items()}
easier = mean_of["r2"]["dropout"] > mean_of["r2"]["none"] and less_redundant.sum() < n / 2
harder = mean_of["r2"]["dropout"] < mean_of["r2"]["none"] and less_redundant.sum() > n / 2
robust = mean_of["ablation_cost"]["dropout"] < mean_of["ablation_cost"]["none"] and cheaper.sum() > n / 2
alike = mean_of["pattern_similarity"]["dropout"] > mean_of["pattern_similarity"]["none"]
report.category("predictability", "easier" if easier else "harder" if harder else "unclear")
report.category("patterns", "alike" if alike else "apart")
report.category("robust", "yes" if robust else "no")
report.category("conclusion", "yes" if robust and easier and alike else "no")   # robustness bought with overlap

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above. The cell tries it on the small run;
# the run records the answer of the full run so the page can show it folded
# under the question.

# %% tags=["without_two_heads"]
# Exercise 1: remove a pair of heads at once: heads 0 and 1, then heads 2 and 3.
small_pair_cost = torch.stack([loss_rise(small_model, pair) for pair in ([0, 1], [2, 3])], dim=1)  # was: [h]
for arm, rows in small_arms.items():
    print(f"{arm:>7}: loss rise without two heads, per seed {small_pair_cost[rows].mean(dim=1).numpy().round(3)} "
          f"(one head: {small_cost[rows].mean(dim=1).numpy().round(3)})")

# %%
# The full run's answer to exercise 1.
pair_cost = torch.stack([loss_rise(model, pair) for pair in ([0, 1], [2, 3])], dim=1)  # (M, 2)
report.number("exercise_pair_ablation_cost_none_mean", pair_cost[arm_of["none"]].mean(), "{:.3f}")
report.number("exercise_pair_ablation_cost_dropout_mean", pair_cost[arm_of["dropout"]].mean(), "{:.3f}")

# %% [markdown]
# ## Figure: each seed, with and without head dropout

# %%
TEXT = report.figure_text()   # the figures' words: head_dropout.strings.toml
for lang in LANGS:
    text = TEXT[lang]
    fig, axes = plt.subplots(2, 1, figsize=(5.2, 5.6), sharex=True)
    for ax, key, label in ((axes[0], "r2", text["r2"]), (axes[1], "ablation_cost", text["cost"])):
        none, dropped = per_seed[key][arm_of["none"]], per_seed[key][arm_of["dropout"]]
        for a, b in zip(none, dropped):
            ax.plot([0, 1], [a, b], color="#7570b3", alpha=0.5, marker="o", ms=4)
        ax.plot([0, 1], [none.mean(), dropped.mean()], color="#d95f02", lw=2.5, marker="s", ms=7)
        ax.set_ylabel(label)
    axes[1].set_xticks([0, 1], [arm.format(dropout=HEAD_DROPOUT) for arm in text["arms"]])
    axes[1].set_xlim(-0.3, 1.3)
    fig.tight_layout()
    report.figure("what_heads_carry", fig, lang, alt=text["alt"].format(n=n), caption=text["caption"])

# %% [markdown]
# ## Could the R² comparison see complementary heads? The planted check
#
# The rule refutes the source when head dropout makes the heads *more*
# predictable from each other. That stands only if the same R² comparison
# finds heads that certainly are complementary. 32 draws (seed *i*, fixed
# whatever the run above uses): the no-dropout and head-dropout models again
# (stack A), and a planted model per draw (stack B) trained like the dropout
# model plus a penalty that makes its heads look at different places: at the
# adverbs and *it*, the heads' patterns must end at least a tenth less alike
# (`scored_similarity`) than the no-dropout model's of the same draw, on
# sentences used by neither the fit nor the test (seeded 777). The penalty's
# weight is the first of 1, 10, 100 at which 29 of 32 draws meet this; R² is
# computed only then. A draw is valid if the penalty was met, every head's
# removal raises the loss by at least 0.01, and pairs of heads are less
# duplicated than in both the no-dropout and the dropout model of the draw
# (Red: what removing two heads costs beyond the two singles, on the 777
# sentences); it is detected if valid and its R² is below the no-dropout
# model's.

# %%
from explainer.pattern_hinge import PatternHinge, hinge, similarity_on

DRAWS, LAMBDAS, MARGIN = list(range(32)), (1.0, 10.0, 100.0), 0.9
HINGE_NEEDED = 29   # the ladder stops at the first weight met in this many draws
USED_AT = 0.01      # nats: a planted head is used if removing it alone raises the loss by this much
hinge_tokens, hinge_targets, _ = batch(random.Random(777), 400)   # neither the fit nor the test sentences
stack_a, arms_a = train_with_and_without(DRAWS)
none_a, dropout_a = arms_a["none"], arms_a["dropout"]
target = similarity_on(stack_a, hinge_tokens)[none_a]               # T_i: (32,)
for lam in LAMBDAS:                                                 # the ladder reads S on 777 only
    planted = PatternHinge.from_seeds(config, DRAWS)
    train_batched(planted, task, steps=STEPS, batch_size=16, data_seeds=DRAWS,
                  head_dropout=torch.full((len(DRAWS),), HEAD_DROPOUT),
                  extra_loss=lambda m: hinge(m, target, lam, MARGIN))
    planted_similarity = similarity_on(planted, hinge_tokens)
    hinge_met = planted_similarity <= MARGIN * target                # (32,)
    print(f"lambda {lam:g}: hinge met in {int(hinge_met.sum())} of {len(DRAWS)} draws")
    if hinge_met.sum() >= HINGE_NEEDED:
        break


def duplication(model):
    """Red per model on the 777 sentences: mean over the 6 pairs of heads of what removing both
    costs beyond removing each alone, (M,); and each head's own cost, (M, nh)."""
    single = torch.stack([loss_rise(model, [h], hinge_tokens, hinge_targets) for h in range(N_HEADS)], 1)
    pairs = [(g, h) for g in range(N_HEADS) for h in range(g + 1, N_HEADS)]
    extra = [loss_rise(model, [g, h], hinge_tokens, hinge_targets) - single[:, g] - single[:, h] for g, h in pairs]
    return torch.stack(extra, 1).mean(1), single


red_a, _ = duplication(stack_a)
red_planted, single_planted = duplication(planted)
heads_all_used = single_planted.amin(1) >= USED_AT
less_duplicated = red_planted < red_a[none_a]
less_duplicated_than_dropout = red_planted < red_a[dropout_a]
valid = hinge_met & heads_all_used & less_duplicated & less_duplicated_than_dropout
r2_none_a = predictability(head_outputs(stack_a, fit_tokens)[none_a],
                           head_outputs(stack_a, test_tokens)[none_a]).mean(1)        # (32,)
r2_planted = predictability(head_outputs(planted, fit_tokens), head_outputs(planted, test_tokens)).mean(1)
planted_less_redundant = r2_planted - r2_none_a < 0                                   # the rule's test
detected = valid & planted_less_redundant
_, planted_accuracy = evaluate_batched(planted, test_tokens, test_targets)
print({"valid": valid.int().tolist(), "less_redundant": planted_less_redundant.int().tolist()})

# %%
report.number("planted_draws", len(DRAWS), kind="count")
report.number("planted_detected", detected.sum(), kind="count")
report.number("planted_detection_share", detected.float().mean(), kind="share")
report.number("planted_valid_draws", valid.sum(), kind="count")
report.number("planted_hinge_met_draws", hinge_met.sum(), kind="count")
report.number("planted_heads_all_used_draws", heads_all_used.sum(), kind="count")
report.number("planted_less_duplicated_draws", less_duplicated.sum(), kind="count")
report.number("planted_less_duplicated_than_dropout_draws", less_duplicated_than_dropout.sum(), kind="count")
report.number("planted_lambda", lam, "{:g}")
report.number("planted_hinge_failed", int(hinge_met.sum() < HINGE_NEEDED), kind="count")
report.number("planted_less_redundant_draws", planted_less_redundant.sum(), kind="count")
report.number("planted_pattern_similarity_mean", planted_similarity.mean(), "{:.3f}")
report.number("none_pattern_similarity_mean", target.mean(), "{:.3f}")
report.number("planted_accuracy_mean", planted_accuracy.mean(), kind="share")
report.number("planted_margin", MARGIN, "{:.1f}")
report.number("hinge_needed", HINGE_NEEDED, kind="count")
report.number("used_at", USED_AT, "{:.2f}")

report.save()
