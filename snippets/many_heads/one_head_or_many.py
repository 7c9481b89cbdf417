# %% [markdown]
# # One head or many, at the same width
#
# A task that needs a near token *and* a far token at every position
# (explainer/first_and_previous.py): the target at position t is
# (previous token + first token) mod V, with V = 10 and sequences of 10.
# The claim under test: one head has one score per pair of tokens, so it
# cannot look near and far at once and must average. We train the same
# one-layer model (d_model = 32, so the same number of parameters) with
# 1, 2, 4 and 8 heads, each for 8 random seeds at once (one model with a seed
# dimension on every parameter), and look at what each head does.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.report import Report
from explainer.seeds import n_seeds, report_seed_count, report_spread

report = Report("many_heads.one_head_or_many")

# %% [markdown]
# ## The task and the model
#
# The task and the batched model (every parameter has a leading seed
# dimension) come from the project's `explainer` package.

# %% tags=["setup"]
import torch

from explainer.batched import evaluate_batched, train_batched
from explainer.first_and_previous import D_MODEL, T, V, near_and_far, one_layer, ordered_pair
from explainer.head_metrics import first_token_score, per_head, previous_token_score

torch.set_num_threads(1)
HEAD_COUNTS = (1, 2, 4, 8)        # head size 32, 16, 8, 4
tokens, targets = near_and_far(torch.Generator().manual_seed(0), 1)    # (1, T) each
print("tokens: ", tokens[0].tolist())
print("targets:", targets[0].tolist(), " (-100: no target at t = 0)")

# %% [markdown]
# ## A small run first
#
# One head and two heads, two seeds each, fewer steps: a run that takes
# seconds. The full run below trains every head count with more seeds.

# %% tags=["small_run"]
SMALL_SEEDS, SMALL_STEPS = [0, 1], 150
test_batch = near_and_far(torch.Generator().manual_seed(1234), 512)   # (512, T) tokens and targets
for n_heads in (1, 2):
    model = one_layer(n_heads, SMALL_SEEDS)
    train_batched(model, near_and_far, steps=SMALL_STEPS, batch_size=32, lr=1e-2)
    _, accuracy = evaluate_batched(model, *test_batch)  # (S,), also keeps the attention weights
    weights = model.attention_weights()[0]              # (S, B, nh, T, T)
    previous, first = per_head(previous_token_score, weights), per_head(first_token_score, weights)  # (S, nh)
    print(f"{n_heads} head(s): accuracy per seed {accuracy.numpy().round(2)}")
    for s in range(len(SMALL_SEEDS)):
        print(f"  seed {s}: previous-token score per head {previous[s].numpy().round(2)}, "
              f"first-token score per head {first[s].numpy().round(2)}")

# %%
report.number("small_run_seeds", len(SMALL_SEEDS), "{:.0f}")
report.number("small_run_steps", SMALL_STEPS, "{:.0f}")

# %% [markdown]
# ## The full run

# %%
N_SEEDS = n_seeds(8)              # the build trains more when a verdict is undecided at 8
SEEDS = list(range(N_SEEDS))      # seed s of every model: same data stream, its own initial weights
STEPS, EVAL_EVERY, BATCH = 400, 40, 32
TARGET_ACCURACY = 0.95            # the step each seed first reaches this accuracy is recorded
PAIR_STEPS = 200
AVERAGE_BAR = 0.3                 # a head averages when it puts at least this on each of the two tokens
SPLIT_BAR = 0.5                   # a near (far) head puts at least this on the previous (first) token
FAIL_BAR = 0.8                    # a single head fails the task when its accuracy ends below this
COST_MARGIN = 0.01                # one head is worse than two when it ends more than this below them
report.number("n_seeds", N_SEEDS, "{:.0f}")
report.number("steps", STEPS, "{:.0f}")
report.number("eval_every", EVAL_EVERY, "{:.0f}")
report.number("target_accuracy", TARGET_ACCURACY, kind="share")
report.number("pair_steps", PAIR_STEPS, "{:.0f}")
report.number("average_bar", AVERAGE_BAR, "{:.1f}")
report.number("split_bar", SPLIT_BAR, "{:.1f}")
report.number("fail_bar", FAIL_BAR, "{:.1f}")
report.number("cost_margin", COST_MARGIN, "{:.2f}")

test_batch = near_and_far(torch.Generator().manual_seed(1234), 512)
watch_batch = near_and_far(torch.Generator().manual_seed(4321), 128)   # during training

# %% [markdown]
# ## Train 1, 2, 4 and 8 heads on the same data, 8 seeds each

# %%
runs = {}
for n_heads in HEAD_COUNTS:
    model = one_layer(n_heads, SEEDS)
    curve = []

    def record(step, model):
        if step % EVAL_EVERY == 0:
            curve.append((step, evaluate_batched(model, *watch_batch)[1]))   # (S,)

    train_batched(model, near_and_far, steps=STEPS, batch_size=BATCH, lr=1e-2, on_step=record)
    _, accuracy = evaluate_batched(model, *test_batch)  # (S,), also keeps the attention weights
    weights = model.attention_weights()[0]              # (S, B, nh, T, T)
    runs[n_heads] = dict(model=model, curve=curve, accuracy=accuracy, weights=weights,
                         parameters=sum(p[0].numel() for p in model.parameters()),   # one seed's model
                         previous=per_head(previous_token_score, weights),          # (S, nh)
                         first=per_head(first_token_score, weights))                # (S, nh)
    print(f"{n_heads} heads: accuracy per seed {accuracy.numpy().round(3)}")

report.number("parameters_1", runs[1]["parameters"], "{:,.0f}")
report.number("parameters_2", runs[2]["parameters"], "{:,.0f}")
report.number("parameters_4", runs[4]["parameters"], "{:,.0f}")
report.number("parameters_8", runs[8]["parameters"], "{:,.0f}")


def steps_to(curve, level=TARGET_ACCURACY):
    """Per seed: first evaluated step at which accuracy reaches ``level`` (STEPS + EVAL_EVERY if never)."""
    steps = torch.tensor([step for step, _ in curve])                      # (evals,)
    reached = torch.stack([accuracy >= level for _, accuracy in curve])    # (evals, S)
    return torch.where(reached, steps[:, None], STEPS + EVAL_EVERY).min(dim=0).values  # (S,)


for run in runs.values():
    run["steps_to_95"] = steps_to(run["curve"])
report.number("never_step", STEPS + EVAL_EVERY, "{:.0f}")
report_spread(report, runs[1]["accuracy"], "{:.3f}", mean="accuracy_1_mean", std="accuracy_1_std",
              min="accuracy_1_min", max="accuracy_1_max")
report_spread(report, runs[1]["steps_to_95"], "{:.0f}", mean="steps_to_95_1_mean", std="steps_to_95_1_std",
              min="steps_to_95_1_min", max="steps_to_95_1_max")
report_spread(report, runs[2]["accuracy"], "{:.3f}", mean="accuracy_2_mean", std="accuracy_2_std",
              min="accuracy_2_min", max="accuracy_2_max")
report_spread(report, runs[2]["steps_to_95"], "{:.0f}", mean="steps_to_95_2_mean", std="steps_to_95_2_std",
              min="steps_to_95_2_min", max="steps_to_95_2_max")
report_spread(report, runs[4]["accuracy"], "{:.3f}", mean="accuracy_4_mean", std="accuracy_4_std",
              min="accuracy_4_min", max="accuracy_4_max")
report_spread(report, runs[4]["steps_to_95"], "{:.0f}", mean="steps_to_95_4_mean", std="steps_to_95_4_std",
              min="steps_to_95_4_min", max="steps_to_95_4_max")
report_spread(report, runs[8]["accuracy"], "{:.3f}", mean="accuracy_8_mean", std="accuracy_8_std",
              min="accuracy_8_min", max="accuracy_8_max")
report_spread(report, runs[8]["steps_to_95"], "{:.0f}", mean="steps_to_95_8_mean", std="steps_to_95_8_std",
              min="steps_to_95_8_min", max="steps_to_95_8_max")

# %% [markdown]
# ## What the single head does, and what several heads do
#
# Named scores (explainer/head_metrics.py): the mean weight a position puts on
# the previous position, and on the first position.

# %%
single = runs[1]
report_spread(report, single["previous"][:, 0], "{:.2f}", mean="single_previous_mean", std="single_previous_std",
              min="single_previous_min", max="single_previous_max")
report_spread(report, single["first"][:, 0], "{:.2f}", mean="single_first_mean", std="single_first_std",
              min="single_first_min", max="single_first_max")
report_seed_count(report, "single_averages_seeds",
                  (single["previous"][:, 0] >= AVERAGE_BAR) & (single["first"][:, 0] >= AVERAGE_BAR))
report_seed_count(report, "single_slower_seeds", single["steps_to_95"] > runs[2]["steps_to_95"])
report_seed_count(report, "single_worse_seeds", single["accuracy"] < runs[2]["accuracy"] - COST_MARGIN)


def split_heads(run):
    """Per seed: one head with previous-token score >= SPLIT_BAR and ANOTHER with first-token score >= SPLIT_BAR."""
    near, far = run["previous"] >= SPLIT_BAR, run["first"] >= SPLIT_BAR               # (S, nh)
    other = ~torch.eye(near.shape[1], dtype=torch.bool)                     # (nh, nh) pairs i != j
    return (near[:, :, None] & far[:, None, :] & other).flatten(1).any(dim=1)  # (S,)


# The strongest previous-token and first-token head of each model.
report.number("best_previous_1_mean", runs[1]["previous"].max(dim=1).values.mean(), "{:.2f}")
report.number("best_first_1_mean", runs[1]["first"].max(dim=1).values.mean(), "{:.2f}")
report.number("best_previous_2_mean", runs[2]["previous"].max(dim=1).values.mean(), "{:.2f}")
report.number("best_first_2_mean", runs[2]["first"].max(dim=1).values.mean(), "{:.2f}")
report.number("split_seeds_2", split_heads(runs[2]).sum(), "{:.0f}")
report.number("best_previous_4_mean", runs[4]["previous"].max(dim=1).values.mean(), "{:.2f}")
report.number("best_first_4_mean", runs[4]["first"].max(dim=1).values.mean(), "{:.2f}")
report.number("split_seeds_4", split_heads(runs[4]).sum(), "{:.0f}")
report.number("best_previous_8_mean", runs[8]["previous"].max(dim=1).values.mean(), "{:.2f}")
report.number("best_first_8_mean", runs[8]["first"].max(dim=1).values.mean(), "{:.2f}")
report.number("split_seeds_8", split_heads(runs[8]).sum(), "{:.0f}")

# The page's answers, built from the counts above.
n_averages = int(((single["previous"][:, 0] >= AVERAGE_BAR) & (single["first"][:, 0] >= AVERAGE_BAR)).sum())
report.category("averages", "yes" if n_averages > N_SEEDS / 2 else "no")   # in most seeds; the page words it
divided = all(int(split_heads(runs[h]).sum()) > N_SEEDS / 2 for h in (2, 4, 8))
report.category("divide", "yes" if divided else "no")
stopped = int((single["accuracy"] < FAIL_BAR).sum())       # seeds in which the single head fails the task
costs = bool(single["accuracy"].mean() < runs[2]["accuracy"].mean())
report.number("single_stopped_seeds", stopped, "{:.0f}")
report.category("stopped", "most" if stopped > N_SEEDS / 2 else "few_but_costs" if costs else "few")

# %% [markdown]
# ## Harder on order: the pair (first, previous)
#
# A sum does not care which token came from where, so an average of the two
# is enough. Here the target is the *ordered* pair — 100 classes — so the
# single head must keep near and far apart.

# %%
pair_test = ordered_pair(torch.Generator().manual_seed(1234), 512)
pair_runs = {}
for n_heads in (1, 2):
    model = one_layer(n_heads, SEEDS, vocab_out=V * V)
    train_batched(model, ordered_pair, steps=PAIR_STEPS, batch_size=BATCH, lr=1e-2)
    _, accuracy = evaluate_batched(model, *pair_test)    # (S,)
    weights = model.attention_weights()[0]               # (S, B, nh, T, T)
    pair_runs[n_heads] = dict(model=model, accuracy=accuracy, weights=weights,
                              previous=per_head(previous_token_score, weights),
                              first=per_head(first_token_score, weights))
    print(f"ordered pair, {n_heads} heads: accuracy per seed {accuracy.numpy().round(3)}")
report_spread(report, pair_runs[1]["accuracy"], "{:.3f}", mean="pair_accuracy_1_mean", std="pair_accuracy_1_std",
              min="pair_accuracy_1_min", max="pair_accuracy_1_max")
report_spread(report, pair_runs[2]["accuracy"], "{:.3f}", mean="pair_accuracy_2_mean", std="pair_accuracy_2_std",
              min="pair_accuracy_2_min", max="pair_accuracy_2_max")
pair_single, pair_two = pair_runs[1], pair_runs[2]
report_spread(report, pair_single["previous"][:, 0], "{:.2f}", mean="pair_previous_mean", std="pair_previous_std",
              min="pair_previous_min", max="pair_previous_max")
report_spread(report, pair_single["first"][:, 0], "{:.2f}", mean="pair_first_mean", std="pair_first_std",
              min="pair_first_min", max="pair_first_max")
seeds = torch.arange(N_SEEDS)
near_head = pair_two["previous"].argmax(dim=1)          # (S,)
far_head = 1 - near_head
report_spread(report, pair_two["previous"][seeds, near_head], "{:.2f}", mean="pair_two_near_previous_mean",
              std="pair_two_near_previous_std", min="pair_two_near_previous_min", max="pair_two_near_previous_max")
report_spread(report, pair_two["first"][seeds, far_head], "{:.2f}", mean="pair_two_far_first_mean",
              std="pair_two_far_first_std", min="pair_two_far_first_min", max="pair_two_far_first_max")
report.number("pair_two_split_seeds", split_heads(pair_two).sum(), "{:.0f}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above. The cells try it on a small run;
# the run records the answer of the full run so the page can show it folded
# under the question.

# %% tags=["without_far_head"]
# Exercise 1: two heads on the ordered pair (small run); zero the far head's output before W_O.
def accuracy_without(model, head_of_seed, batch):
    """Accuracy of 2-head models with one head per seed ablated (output zeroed before W_O): (S,)."""
    S = model.n_seeds
    mask = torch.ones(S, 1, 2)                              # (S, layers, heads): 1 = head on
    mask[torch.arange(S), 0, head_of_seed] = 0
    model.set_head_mask(mask)
    accuracy = evaluate_batched(model, *batch)[1]
    model.set_head_mask(torch.ones(S, 1, 2))
    return accuracy


pair_batch = ordered_pair(torch.Generator().manual_seed(1234), 512)
pair_model = one_layer(2, SMALL_SEEDS, vocab_out=V * V)
train_batched(pair_model, ordered_pair, steps=SMALL_STEPS, batch_size=32, lr=1e-2)
_, with_both = evaluate_batched(pair_model, *pair_batch)
previous = per_head(previous_token_score, pair_model.attention_weights()[0])   # (S, 2)
near, far = previous.argmax(dim=1), 1 - previous.argmax(dim=1)                # (S,) each
print("both heads:      ", with_both.numpy().round(2))
print("without far head:", accuracy_without(pair_model, far, pair_batch).numpy().round(2))

# %% tags=["without_near_head"]
# Exercise 2: put the far head back, remove the near head instead.
print("without near head:", accuracy_without(pair_model, near, pair_batch).numpy().round(2))   # was: far

# %%
# The full run's two-head models on the ordered pair: `model` is still the last one trained.
report.number("exercise_pair_without_far_head_mean",
              accuracy_without(model, far_head, pair_test).mean(), "{:.2f}")
report.number("exercise_pair_without_near_head_mean",
              accuracy_without(model, near_head, pair_test).mean(), "{:.2f}")

# %% [markdown]
# ## Figures
#
# The attention maps are those of the first seed (an example, not the best);
# the learning curves show every seed faintly and the mean boldly.

# %%
TEXT = report.figure_text()   # the figures' words: one_head_or_many.strings.toml


def per_model(text, item, value):
    """One value per model in a language's words: "1 head 120, 2 heads 80, …"."""
    return text["sep"].join(text[item].format(h=h, s="s" if h > 1 else "", value=value(h)) for h in HEAD_COUNTS)


example_seed, example = 0, 0
colors = dict(zip(HEAD_COUNTS, plt.get_cmap("viridis")([0.0, 0.35, 0.65, 0.9])))
for lang in LANGS:
    text = TEXT[lang]
    near, far = int(near_head[example_seed]), int(far_head[example_seed])
    panels = [(single["weights"][example_seed, example, 0], text["one"]),
              (pair_single["weights"][example_seed, example, 0], text["pair"]),
              (pair_two["weights"][example_seed, example, near], text["two"].format(near)),
              (pair_two["weights"][example_seed, example, far], text["two"].format(far))]
    fig, axes = plt.subplots(2, 2, figsize=(7.2, 7.0))
    for ax, (pattern, title) in zip(axes.flat, panels):
        ax.imshow(pattern, cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1)
        ax.set_title(title, fontsize=10)
        ax.set_xticks(range(T))
        ax.set_yticks(range(T))
    for ax in axes[1]:
        ax.set_xlabel(text["key"])
    for ax in axes[:, 0]:
        ax.set_ylabel(text["query"])
    fig.tight_layout()
    report.figure("attention_maps", fig, lang, caption=text["maps_caption"], alt=text["maps_alt"].format(
        single_previous=single["previous"][0, 0], single_first=single["first"][0, 0],
        pair_previous=pair_single["previous"][0, 0], pair_first=pair_single["first"][0, 0]))

    fig, ax = plt.subplots(figsize=(7.2, 4.4))
    for n_heads, run in runs.items():
        steps = [step for step, _ in run["curve"]]
        accuracies = torch.stack([accuracy for _, accuracy in run["curve"]])   # (evals, S)
        ax.plot(steps, accuracies, color=colors[n_heads], lw=0.8, alpha=0.3)
        ax.plot(steps, accuracies.mean(dim=1), color=colors[n_heads], lw=2.2, marker=".",
                label=text["heads"].format(n_heads, D_MODEL // n_heads))
    ax.axhline(1 / V, color="grey", lw=0.8, ls=":")
    ax.set_xlabel(text["step"])
    ax.set_ylabel(text["accuracy"])
    ax.set_ylim(0, 1.02)
    ax.legend(loc="lower right", fontsize=10)
    fig.tight_layout()
    mean_steps = per_model(text, "steps_item", lambda h: runs[h]["steps_to_95"].float().mean())
    mean_accuracy = per_model(text, "accuracy_item", lambda h: runs[h]["accuracy"].mean())
    target = report.numbers["target_accuracy"]["texts"][lang]
    report.figure("learning_curves", fig, lang,
                  alt=text["curve_alt"].format(steps=mean_steps, never=STEPS + EVAL_EVERY, n_steps=STEPS, target=target),
                  caption=text["curve_caption"].format(accuracies=mean_accuracy, n_steps=STEPS))

report.save()
