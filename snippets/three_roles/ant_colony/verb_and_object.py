# %% [markdown]
# # The ant colony, for real
#
# Ants in a young colony look alike; feedback from their work turns them
# into workers, soldiers and queens. The claim to test (C16): start an attention
# layer from random weights, train it on sentences where a verb needs its
# object (吃 "eat" → 苹果 "apple", 追逐 "chase" → 激光点 "laser dot"), and
# the verb's query will come to match its object's key — without anyone
# telling W_Q and W_K what to become. We train many colonies (random seeds)
# at once and count. (Whether the verb's query is a "subcategorisation
# signal", a code for what kind of object the verb takes, is C26:
# what_each_role_became.py trains the same colonies and asks.)

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.ant_colony_toy import spread
from explainer.plotting import LANGS, plt
from explainer.report import Report, over_seeds
from explainer.seeds import n_seeds, report_seed_count

report = Report("three_roles.ant_colony.verb_and_object")

# %% [markdown]
# ## A toy language
#
# Every sentence reads "S 在 D 旁边 V O" — *S, next to D, Vs O*, e.g.
# 猫 在 苹果 旁边 追逐 激光点 "the cat, next to the apple, chases the laser dot".
# Three verbs take each kind of object; the distractor D is always of another
# kind, so only the verb's *preference* tells D and O apart. The model gets no
# word order at all: whatever it finds, it finds by what the words are. The
# toy lives in the project's `explainer` package (`explainer/ant_colony_toy.py`),
# because the page's other script trains the same colonies; the cells below
# import it and print its code.

# %% tags=["language"]
import inspect

import numpy as np
import torch

from explainer.ant_colony_toy import CONTEXT, DISTRACTOR, OBJECT, OBJECT_IN_CONTEXT, VERB, data, index, sentences, verbs, vocab

torch.set_num_threads(1)
print(f"{len(sentences)} sentences over {len(vocab)} words, e.g.", " ".join(sentences[0]))

# %%
report.number("sentences", len(sentences), "{:.0f}")
report.number("n_verbs", len(verbs), "{:.0f}")

# %% [markdown]
# ## The smallest model where the verb must look
#
# The verb sends one query into the rest of the sentence; the prediction —
# *which object?* — is read only from what that attention brings back. There
# is no residual path around the attention, so the verb cannot answer from
# its own embedding: it has to fetch the object.

# %% tags=["model"]
from explainer.ant_colony_toy import VerbReadsSentence

print(inspect.getsource(VerbReadsSentence))

# %% [markdown]
# ## Many colonies at once
#
# Each random seed gives one colony: its own random start, its own batches.
# Instead of training them one after another, we stack their parameters
# along a new first dimension M and write the same forward pass with that
# dimension in front. Adam updates each number on its own, so this is
# exactly M independent trainings, done in one pass.
#
# For every seed there is also a control colony: its W_Q is zero and frozen,
# so every word gets the same weight. Does the verb *need* to look?

# %% tags=["colonies"]
from explainer.ant_colony_toy import control, make_colonies, query_and_keys, run, trained

for function in (make_colonies, trained, control, run, query_and_keys):
    print(inspect.getsource(function))

# %% [markdown]
# ## Named measures
#
# Each is a small function of one colony's weights or attention, so the same
# number feeds the figure, the prose and the test.

# %% tags=["measures"]
from explainer.ant_colony_toy import mean_cosine, mean_table, measure, object_first_share, probe_accuracy

for function in (object_first_share, mean_cosine, probe_accuracy, mean_table, measure):
    print(inspect.getsource(function))

# %% [markdown]
# ## Training all colonies together
#
# Every colony draws its own batches of 64 sentences.

# %% tags=["train"]
from explainer.ant_colony_toy import train

print(inspect.getsource(train))

# %% [markdown]
# ## A small run first
#
# Two colonies (and their two controls), fewer steps: a run that takes a
# second, to see the measures move. The full run below trains many more.

# %% tags=["small_run"]
SMALL_SEEDS, SMALL_STEPS = [0, 1], 100
small, _ = make_colonies(SMALL_SEEDS)
small_start = measure(small)
train(small, SMALL_STEPS)
small_end = measure(small)
for name, moment in (("step 0", small_start), (f"step {SMALL_STEPS}", small_end)):
    query_gap = moment["query_same_kind"] - moment["query_other_kind"]     # (M,)
    print(f"{name}:")
    print("  object named right:          ", trained(moment["accuracy"]).numpy().round(2),
          "controls:", control(moment["accuracy"]).numpy().round(2))
    print("  verb looks hardest at object:", trained(moment["object_first"]).numpy().round(2))
    print("  query cosine, same − other:  ", trained(query_gap).numpy().round(2))

# %%
report.number("small_run_seeds", len(SMALL_SEEDS), "{:.0f}")
report.number("small_run_steps", SMALL_STEPS, "{:.0f}")

# %% [markdown]
# ## The full run
#
# The same cells, with many colonies and more steps; every few steps we
# measure all of them on all sentences.

# %%
SEEDS = list(range(n_seeds(10)))   # the build trains more when a verdict is undecided
N_SEEDS = len(SEEDS)
STEPS, EVERY = 400, 10
params, colonies = make_colonies(SEEDS)

# The stacked pass must be the module's pass: compare on colony 0, record the difference.
with torch.no_grad():
    stacked_logits, _ = run(params, data[:8])
report.number("stacked_vs_module_error", (stacked_logits[0] - colonies[0](data[:8])).abs().max(),
              "{:.1e}")

start = measure(params)
history = {"step": [], "object_first": [], "attention_on_object": []}


def watch(step):
    now = start if step == 0 else measure(params, full=False)
    history["step"].append(step)
    for key in ("object_first", "attention_on_object"):
        history[key].append(trained(now[key]).numpy())


train(params, STEPS, EVERY, watch)
end = measure(params)
curves = {key: np.array(values) for key, values in history.items()}   # (steps, n_seeds)

# %% [markdown]
# ## What the colonies learned (C16)
#
# Per colony: in what share of the sentences does the verb look hardest at
# its object, among the five words it can see? We record every measure's mean
# over the colonies and its spread (lowest, highest).

# %%
report.number("n_seeds", N_SEEDS, "{:.0f}")
report.number("steps", STEPS, "{:.0f}")
OBJECT_FIRST_BAR = 0.95
object_first_shares = np.asarray(trained(end["object_first"]))   # (n_seeds,)
object_first = spread(object_first_shares)
report.number("object_first_mean", **object_first["mean"], fmt="{:.0%}")
report.number("object_first_min", **object_first["min"], fmt="{:.0%}")
report.number("object_first_max", **object_first["max"], fmt="{:.0%}")
object_first_start = spread(trained(start["object_first"]))
report.number("object_first_start_mean", **object_first_start["mean"], fmt="{:.0%}")
report.number("object_first_start_min", **object_first_start["min"], fmt="{:.0%}")
report.number("object_first_start_max", **object_first_start["max"], fmt="{:.0%}")
report_seed_count(report, "object_first_seeds", (object_first_shares >= OBJECT_FIRST_BAR))
report.number("object_first_bar", OBJECT_FIRST_BAR, "{:.0%}")
accuracy = spread(trained(end["accuracy"]))
report.number("accuracy_mean", **accuracy["mean"], fmt="{:.0%}")
report.number("accuracy_min", **accuracy["min"], fmt="{:.0%}")
report.number("accuracy_max", **accuracy["max"], fmt="{:.0%}")
control_accuracy = spread(control(end["accuracy"]))
report.number("control_accuracy_mean", **control_accuracy["mean"], fmt="{:.0%}")
report.number("control_accuracy_min", **control_accuracy["min"], fmt="{:.0%}")
report.number("control_accuracy_max", **control_accuracy["max"], fmt="{:.0%}")
attention_on_object = spread(trained(end["attention_on_object"]))
report.number("attention_on_object_mean", **attention_on_object["mean"], fmt="{:.2f}")
report.number("attention_on_object_min", **attention_on_object["min"], fmt="{:.2f}")
report.number("attention_on_object_max", **attention_on_object["max"], fmt="{:.2f}")
attention_on_object_start = spread(trained(start["attention_on_object"]))
report.number("attention_on_object_start_mean", **attention_on_object_start["mean"], fmt="{:.2f}")
report.number("attention_on_object_start_min", **attention_on_object_start["min"], fmt="{:.2f}")
report.number("attention_on_object_start_max", **attention_on_object_start["max"], fmt="{:.2f}")
report.number("uniform_weight", 1 / len(CONTEXT), "{:.2f}")
attention_on_function_words = spread(trained(end["attention_on_function_words"]))
report.number("attention_on_function_words_mean", **attention_on_function_words["mean"], fmt="{:.2f}")
report.number("attention_on_function_words_min", **attention_on_function_words["min"], fmt="{:.2f}")
report.number("attention_on_function_words_max", **attention_on_function_words["max"], fmt="{:.2f}")

# %%
# The source's two examples, 追逐 → 激光点 and 吃 → 苹果, in every sentence that has them.
weights = trained(end["weights"])                                   # (n_seeds, N, 5)
chase_laser = (data[:, VERB] == index["追逐"]) & (data[:, OBJECT] == index["激光点"])   # (N,)
chase_laser_weight = spread(weights[:, chase_laser, OBJECT_IN_CONTEXT].mean(-1))
report.number("chase_laser_weight_mean", **chase_laser_weight["mean"], fmt="{:.2f}")
report.number("chase_laser_weight_min", **chase_laser_weight["min"], fmt="{:.2f}")
report.number("chase_laser_weight_max", **chase_laser_weight["max"], fmt="{:.2f}")
chase_laser_first = spread(object_first_share(weights[:, chase_laser]))
report.number("chase_laser_first_mean", **chase_laser_first["mean"], fmt="{:.0%}")
report.number("chase_laser_first_min", **chase_laser_first["min"], fmt="{:.0%}")
report.number("chase_laser_first_max", **chase_laser_first["max"], fmt="{:.0%}")
chase_laser_weight_start = spread(trained(start["weights"])[:, chase_laser, OBJECT_IN_CONTEXT].mean(-1))
report.number("chase_laser_weight_start_mean", **chase_laser_weight_start["mean"], fmt="{:.2f}")
report.number("chase_laser_weight_start_min", **chase_laser_weight_start["min"], fmt="{:.2f}")
report.number("chase_laser_weight_start_max", **chase_laser_weight_start["max"], fmt="{:.2f}")
eat_apple = (data[:, VERB] == index["吃"]) & (data[:, OBJECT] == index["苹果"])         # (N,)
eat_apple_weight = spread(weights[:, eat_apple, OBJECT_IN_CONTEXT].mean(-1))
report.number("eat_apple_weight_mean", **eat_apple_weight["mean"], fmt="{:.2f}")
report.number("eat_apple_weight_min", **eat_apple_weight["min"], fmt="{:.2f}")
report.number("eat_apple_weight_max", **eat_apple_weight["max"], fmt="{:.2f}")
eat_apple_first = spread(object_first_share(weights[:, eat_apple]))
report.number("eat_apple_first_mean", **eat_apple_first["mean"], fmt="{:.0%}")
report.number("eat_apple_first_min", **eat_apple_first["min"], fmt="{:.0%}")
report.number("eat_apple_first_max", **eat_apple_first["max"], fmt="{:.0%}")
eat_apple_weight_start = spread(trained(start["weights"])[:, eat_apple, OBJECT_IN_CONTEXT].mean(-1))
report.number("eat_apple_weight_start_mean", **eat_apple_weight_start["mean"], fmt="{:.2f}")
report.number("eat_apple_weight_start_min", **eat_apple_weight_start["min"], fmt="{:.2f}")
report.number("eat_apple_weight_start_max", **eat_apple_weight_start["max"], fmt="{:.2f}")

# Verb by verb: how much of the attention goes to the object (mean over seeds).
per_verb = np.array([weights[:, data[:, VERB] == index[v], OBJECT_IN_CONTEXT].mean(-1).numpy()
                     for v in verbs])                                # (12, n_seeds)
report.number("per_verb_attention_lowest", per_verb.mean(1).min(), "{:.2f}")
report.number("per_verb_attention_highest", per_verb.mean(1).max(), "{:.2f}")

# %% [markdown]
# ## The object against the distractor, from step 0
# Per colony, the share of sentences where the verb weighs its object above the distractor noun,
# after training minus at step 0. Could the test see a match? The least verified world: the ⌈3n/4⌉
# colonies with the highest step-0 share (ties to the lower seed) end at 0.95, the rest at 0.

# %% tags=["over_distractor"]
from explainer.least_verified import detection_share, least_verified_gains


def over_distractor(moment):
    """(n_seeds,) share of sentences in which the verb weighs its object above the distractor."""
    w = trained(moment["weights"])                                   # (n_seeds, N, 5)
    return (w[..., OBJECT_IN_CONTEXT] > w[..., CONTEXT.index(DISTRACTOR)]).double().mean(-1).numpy()


over_start, over_end = over_distractor(start), over_distractor(end)
gain, start_share, end_share = (over_end - over_start).tolist(), over_start.tolist(), over_end.tolist()
report.number("object_over_distractor_gain_mean", over_seeds(gain, "mean"), "{:+.2f}", per_seed=gain, of="mean")
report.number("object_over_distractor_gain_ci95_high", over_seeds(gain, "ci95_high"), "{:+.2f}", per_seed=gain,
              of="ci95_high")
report.number("object_over_distractor_start_mean", over_seeds(start_share, "mean"), "{:.0%}", per_seed=start_share,
              of="mean")
report.number("object_over_distractor_mean", over_seeds(end_share, "mean"), "{:.0%}", per_seed=end_share, of="mean")
planted_gains = least_verified_gains(over_start, learned=OBJECT_FIRST_BAR, floor=0.0)   # G1, 1,000 redraws
report.number("c16_planted_detection_share", detection_share(planted_gains, 0.10, 1000, np.random.default_rng(16)), "{:.1%}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above. The cells try it on the small run;
# the run records the answer of the full run so the page can show it folded
# under the question.

# %% tags=["even_attention"]
# Exercise 1: freeze the trained colonies' attention to an even spread. W_Q = 0 makes every
# score in `run` 0; on a copy of the parameters, so the colonies keep their own W_Q.
def accuracy(p, tokens):
    """Share of sentences whose object each colony names, (M,)."""
    with torch.no_grad():
        logits, _ = run(p, tokens)                                   # (M, N, vocab)
    return (logits.argmax(-1) == data[:, OBJECT]).float().mean(-1)   # (M,)


even = dict(small, **{"W_Q.weight": torch.zeros_like(small["W_Q.weight"])})   # was: small
print("even attention: object named right", trained(accuracy(even, data)).numpy().round(2),
      "instead of", trained(accuracy(small, data)).numpy().round(2))

# %% tags=["reversed"]
# Exercise 2: reverse the order of the five words the verb can see (O 旁边 D 在 S).
reversed_data = data.clone()
reversed_data[:, CONTEXT] = data[:, CONTEXT[::-1]]                   # was: data
with torch.no_grad():
    change = (run(small, reversed_data)[0] - run(small, data)[0]).abs().max()
print(f"words reversed: largest change of a logit {change:.1e}, "
      f"object named right {trained(accuracy(small, reversed_data)).numpy().round(2)}")

# %%
# The full run's colonies (the cells above tried the small run's).
even_full = dict(params, **{"W_Q.weight": torch.zeros_like(params["W_Q.weight"])})
report.number("exercise_even_attention_accuracy_mean", trained(accuracy(even_full, data)).mean(), "{:.0%}")
with torch.no_grad():
    logits, _ = run(params, data)
    reversed_logits, _ = run(params, reversed_data)
report.number("exercise_reversed_largest_logit_change", (reversed_logits - logits).abs().max(), "{:.1e}")
report.number("exercise_reversed_accuracy_mean", trained(accuracy(params, reversed_data)).mean(), "{:.0%}")


# %% [markdown]
# ## Figures

# %%
TEXT = report.figure_text()   # the figures' words: verb_and_object.strings.toml
plt.rcParams.update({"font.size": 10})
VIRIDIS = plt.get_cmap("viridis")
COLOR_A, COLOR_B = VIRIDIS(0.15), VIRIDIS(0.7)
example = torch.tensor([[index[w] for w in ["猫", "在", "苹果", "旁边", "追逐", "激光点"]]])
example_rows = (data == example).all(-1)                             # the one matching sentence
example_weights = {0: start["weights"][:N_SEEDS, example_rows][:, 0].numpy(),
                   STEPS: end["weights"][:N_SEEDS, example_rows][:, 0].numpy()}  # (n_seeds, 5)

for lang in LANGS:
    text = TEXT[lang]

    fig, axes = plt.subplots(1, 2, figsize=(6.8, 3.4), sharey=True)
    for ax, step in zip(axes, example_weights):
        w = example_weights[step]                                    # (n_seeds, 5)
        colors = [COLOR_B if i == OBJECT_IN_CONTEXT else COLOR_A for i in range(len(CONTEXT))]
        ax.bar(range(len(CONTEXT)), w.mean(0), color=colors, alpha=0.6)
        jitter = np.linspace(-0.25, 0.25, N_SEEDS)
        for i in range(len(CONTEXT)):
            ax.scatter(i + jitter, w[:, i], s=10, color="black", zorder=3)
        ax.set_xticks(range(len(CONTEXT)), text["example"], rotation=45, ha="right", fontsize=9)
        ax.set_ylim(0, 1.02)
        ax.set_title(text["start"] if step == 0 else text["end"], fontsize=10)
    axes[0].set_ylabel(text["example_label"])
    fig.tight_layout()
    report.figure("example", fig, lang, caption=text["example_caption"],
                  alt=text["example_alt"].format(start=example_weights[0][:, OBJECT_IN_CONTEXT].mean(),
                                                 end=example_weights[STEPS][:, OBJECT_IN_CONTEXT].mean()))

    fig, axes = plt.subplots(2, 1, figsize=(6.4, 5.6), sharex=True)
    for ax, key, label in ((axes[0], "object_first", text["object_first"]),
                           (axes[1], "attention_on_object", text["attention"])):
        ax.plot(curves["step"], curves[key], color=COLOR_A, alpha=0.3, lw=0.8)
        ax.plot(curves["step"], curves[key].mean(1), color=COLOR_A, lw=2.2,
                label=text["mean"].format(N_SEEDS))
        ax.axhline(1 / len(CONTEXT), color="grey", ls=":", label=text["uniform"])
        ax.set_ylim(0, 1.02)
        ax.set_ylabel(label)
    bar = report.numbers["object_first_bar"]["texts"][lang]   # the recorded bar as this language writes it
    axes[0].axhline(OBJECT_FIRST_BAR, color=COLOR_B, ls="--", lw=1, label=text["bar"].format(bar=bar))
    axes[0].plot([], [], color=COLOR_A, alpha=0.3, lw=0.8, label=text["each_seed"])
    legend = axes[0].legend(fontsize=9, loc="lower right")
    legend.get_texts()[0].set_gid("value:n_seeds")   # "mean of 10 seeds" (tests/test_figure_labels_agree.py)
    axes[1].set_xlabel(text["training_step"])
    fig.tight_layout()
    report.figure("curves", fig, lang, alt=text["curves_alt"].format(n=N_SEEDS),
                  caption=text["curves_caption"].format(k=int((object_first_shares >= OBJECT_FIRST_BAR).sum()),
                                                        n=N_SEEDS, m=object_first_shares.mean(), bar=bar))

report.save()
