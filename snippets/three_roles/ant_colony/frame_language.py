# %% [markdown]
# # A frame language: does a verb's query say what frame the verb takes?
#
# Source B says that $W_Q$ learns to put into a verb's query the feature
# "needs an object (is transitive)", and that the query is much like the
# subcategorisation (Subcat) signal of linguistics: the code of the frame a
# verb takes. In the ant colony every verb takes one object, and the query is
# the model's only route to the answer. Here we build a language where verbs
# take different frames, train models that *also* have a residual path and an
# MLP (so the frame can travel without the query), and ask a linear probe to
# read a held-out verb's frame from its query.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
import torch

from explainer.plotting import LANGS, column_figure
from explainer.report import Report, all_word
from explainer.seeds import n_seeds, report_seed_count, report_spread

torch.set_num_threads(1)
report = Report("three_roles.ant_colony.frame_language")

# %% [markdown]
# ## The language
#
# Four frames, six verbs each: no object (睡 "sleep"), a place (住 "live
# at"), an object (吃 "eat"), two objects — someone and something (喂 "feed
# someone something"). Twelve verbs are transitive, twelve intransitive.
# The words come in four pools: animals (the subjects), places, things
# (three kinds: food, drink, writing) and people. The verb comes last, as in
# Japanese or Korean; the model is causal, so the verb sees every word of its
# sentence. Each sentence has three nouns before the verb, and its *last
# token* names the verb's theme, the argument it is about: the subject if
# it takes no object, the place for a place verb, the object for a
# transitive verb, the person for a verb of two objects.
#
# Words that are no argument of the verb fill the empty slots (猫 厨房 苹果
# 睡: "the cat — kitchen, apple — sleeps"), so which pools a sentence holds
# does not tell its frame: the verb must know which pool to look in. The
# object kinds cross the frames: each kind has two verbs of one object and
# two of two objects. The toy (language, model, training, probe, baseline,
# measures) is `explainer/frame_language_toy.py`; the cells print its code.

# %% tags=["language"]
import inspect

import torch

from explainer.frame_language_toy import (COUNTS, FRAMES, VERB_AT, batch, frame_label, frame_of, frame_verbs,
                                          lexicon, sentences_of, things, transitive_label, verbs_of)

print(verbs_of)
print(inspect.getsource(sentences_of))
print(inspect.getsource(batch))
tokens, theme = batch(torch.Generator().manual_seed(0), 4)
for row, t in zip(tokens, theme):
    print(" ".join(lexicon[i] for i in row), "->", lexicon[t], f"({frame_of[lexicon[row[VERB_AT]]]})")

# %%
report.number("n_verbs", len(frame_verbs), kind="count")
report.number("verbs_per_frame", len(frame_verbs) // len(FRAMES), kind="count")
report.number("n_frames", len(FRAMES), kind="count")
report.number("n_transitive", int(transitive_label.sum()), kind="count")
report.number("n_intransitive", int((1 - transitive_label).sum()), kind="count")
report.number("n_kinds", len(things), kind="count")
report.number("n_sentences", int(COUNTS.sum()), "{:,.0f}", kind="count")

# %% [markdown]
# ## The model: one attention head, a residual path and an MLP
#
# Token and position embeddings of width 128, one attention head whose query,
# key and value have 32 dimensions each, the head's output added back to the
# verb's own vector (the residual path), an MLP on top, and an unembedding.
# So the verb's answer can use its own embedding twice: through the query,
# which decides where it looks, and around the attention, straight to the
# MLP. Many models (random seeds) are stacked on a leading dimension M and
# trained in one pass. Only the verb's position is scored, so only its
# row of attention is computed.

# %% tags=["model"]
import torch.nn.functional as F

from explainer.frame_language_toy import D_HEAD, WIDTH, forward, make_models, verb_inputs

for function in (make_models, verb_inputs, forward):
    print(inspect.getsource(function))

# %% [markdown]
# ## Training
#
# Adam on all models at once; each model draws its own batches. The loss is
# the sum of the models' own losses, so each trains exactly as it would alone.

# %% tags=["train"]
from explainer.frame_language_toy import train

print(inspect.getsource(train))

# %% [markdown]
# ## The probe, held out verb by verb
#
# A verb's query here depends on the verb alone (its embedding plus the fixed
# verb position), so each verb has one query: the mean over its sentences
# is that query. A ridge regression on one-hot labels is fitted on 23 verbs'
# unit-length vectors and names the 24th verb's label; every verb is held out
# once. The same probe reads any set of per-verb vectors: the queries, the
# keys, the values, or projections of the verb's input vector.

# %% tags=["probe"]
from explainer.frame_language_toy import held_out_accuracy

print(inspect.getsource(held_out_accuracy))

# %% [markdown]
# ## The baseline: random 32-dimensional projections
#
# A probe on the query reads a 32-dimensional linear image of the verb's
# 128-dimensional input. Any linear image keeps some of what the input
# holds, so the question is whether $W_Q$ keeps *more* of the frame than a
# random one would. We draw 256 random Gaussian projections to 32 dimensions,
# probe each on the same verbs, and take the 95th percentile of their
# accuracies: the query beats the baseline in a model if its accuracy is
# above that percentile.

# %% tags=["projections"]
from explainer.frame_language_toy import N_PROJECTIONS, projection_percentile, random_projections, top_components

for function in (random_projections, projection_percentile, top_components):
    print(inspect.getsource(function))

# %% tags=["measures"]
# Everything we measure on a model.
from explainer.frame_language_toy import EVAL, measure

print(inspect.getsource(measure))

# %% [markdown]
# ## A small run first
#
# Two models and a few steps, to see the numbers move.

# %% tags=["small_run"]
SMALL_SEEDS, SMALL_STEPS = [0, 1], 150
small = make_models(SMALL_SEEDS)
before = measure(small)
train(small, SMALL_STEPS)
after = measure(small)
for name, m in (("step 0", before), (f"step {SMALL_STEPS}", after)):
    print(f"{name}: theme named right {m['accuracy'].numpy().round(2)}, "
          f"frame from the query {m['frame_query'].numpy().round(2)}, "
          f"random projections' 95th percentile {m['frame_p95'].numpy().round(2)}")

# %%
report.number("small_run_seeds", len(SMALL_SEEDS), "{:.0f}")
report.number("small_run_steps", SMALL_STEPS, "{:.0f}")

# %% [markdown]
# ## The full run

# %%
SEEDS = list(range(n_seeds(16)))    # the build trains more when a verdict is undecided
STEPS = 800
params = make_models(SEEDS)
start = measure(params)
train(params, STEPS)
end = measure(params)
report.number("n_seeds", len(SEEDS), kind="count")
report.number("steps", STEPS, kind="count")
report.number("d_model", WIDTH, kind="count")
report.number("d_head", D_HEAD, kind="count")
report.number("n_projections", N_PROJECTIONS, kind="count")

# %% [markdown]
# ## Did the models learn the language?

# %%
report_spread(report, end["accuracy"], kind="share", mean="accuracy_mean", std="accuracy_std", min="accuracy_min",
              max="accuracy_max")
report_spread(report, end["attention_on_theme"], "{:.2f}", mean="attention_on_theme_mean",
              std="attention_on_theme_std", min="attention_on_theme_min", max="attention_on_theme_max")
report_spread(report, start["attention_on_theme"], "{:.2f}", mean="attention_on_theme_start_mean",
              std="attention_on_theme_start_std", min="attention_on_theme_start_min",
              max="attention_on_theme_start_max")

# %% [markdown]
# ## The rule's reading: frame and transitivity from the query (C26, C31)
#
# Per model: the probe's accuracy on the query, and the 95th percentile of the
# same probe on 256 random projections of the verb's input. A model passes if
# the query's accuracy is at least 0.75 and above that percentile.

# %%
PASS_BAR, CEILING = 0.75, 0.95
report.number("pass_bar", PASS_BAR, kind="share")
report.number("ceiling_bar", CEILING, kind="share")
report.number("frame_chance", 1 / len(FRAMES), kind="share")
report.number("transitive_chance", 0.5, kind="share")
LABELS = ("frame", "transitive")   # the two labels a probe reads

# Per label, after training and at step 0: the probe on the query, the random projections' 95th
# percentile, and the models whose query beats it.
query, p95 = end["frame_query"], end["frame_p95"]
query_start, p95_start = start["frame_query"], start["frame_p95"]
report_spread(report, query, kind="share", mean="frame_query_mean", std="frame_query_std", min="frame_query_min",
              max="frame_query_max")
report_spread(report, p95, kind="share", mean="frame_p95_mean", std="frame_p95_std", min="frame_p95_min",
              max="frame_p95_max")
report_seed_count(report, "frame_beats_seeds", query > p95)
report_seed_count(report, "frame_pass_seeds", (query >= PASS_BAR) & (query > p95))
report_seed_count(report, "frame_ceiling_seeds", p95 >= CEILING)
report_spread(report, query_start, kind="share", mean="frame_query_start_mean", std="frame_query_start_std",
              min="frame_query_start_min", max="frame_query_start_max")
report_spread(report, p95_start, kind="share", mean="frame_p95_start_mean", std="frame_p95_start_std",
              min="frame_p95_start_min", max="frame_p95_start_max")
report_seed_count(report, "frame_beats_seeds_start", query_start > p95_start)

query, p95 = end["transitive_query"], end["transitive_p95"]
query_start, p95_start = start["transitive_query"], start["transitive_p95"]
report_spread(report, query, kind="share", mean="transitive_query_mean", std="transitive_query_std",
              min="transitive_query_min", max="transitive_query_max")
report_spread(report, p95, kind="share", mean="transitive_p95_mean", std="transitive_p95_std",
              min="transitive_p95_min", max="transitive_p95_max")
report_seed_count(report, "transitive_beats_seeds", query > p95)
report_seed_count(report, "transitive_pass_seeds", (query >= PASS_BAR) & (query > p95))
report_seed_count(report, "transitive_ceiling_seeds", p95 >= CEILING)
report_spread(report, query_start, kind="share", mean="transitive_query_start_mean", std="transitive_query_start_std",
              min="transitive_query_start_min", max="transitive_query_start_max")
report_spread(report, p95_start, kind="share", mean="transitive_p95_start_mean", std="transitive_p95_start_std",
              min="transitive_p95_start_min", max="transitive_p95_start_max")
report_seed_count(report, "transitive_beats_seeds_start", query_start > p95_start)

per_model = [f"{a:.0%}>{b:.0%}" if a > b else f"{a:.0%}≤{b:.0%}"
             for a, b in zip(end["frame_query"].tolist(), end["frame_p95"].tolist())]
print("frame, query vs 95th percentile, per model:", " ".join(per_model))

# %% [markdown]
# ## Controls: the same probe on the key, the value, the input's principal components

# %%
# Each label read by the same probe from the key, the value, the input's top-32 principal components
# and the whole input.
report_spread(report, end["frame_key"], kind="share", mean="frame_key_mean", std="frame_key_std", min="frame_key_min",
              max="frame_key_max")
report_spread(report, end["frame_value"], kind="share", mean="frame_value_mean", std="frame_value_std",
              min="frame_value_min", max="frame_value_max")
report_spread(report, end["frame_pca"], kind="share", mean="frame_pca_mean", std="frame_pca_std", min="frame_pca_min",
              max="frame_pca_max")
report_spread(report, end["frame_input"], kind="share", mean="frame_input_mean", std="frame_input_std",
              min="frame_input_min", max="frame_input_max")

report_spread(report, end["transitive_key"], kind="share", mean="transitive_key_mean", std="transitive_key_std",
              min="transitive_key_min", max="transitive_key_max")
report_spread(report, end["transitive_value"], kind="share", mean="transitive_value_mean", std="transitive_value_std",
              min="transitive_value_min", max="transitive_value_max")
report_spread(report, end["transitive_pca"], kind="share", mean="transitive_pca_mean", std="transitive_pca_std",
              min="transitive_pca_min", max="transitive_pca_max")
report_spread(report, end["transitive_input"], kind="share", mean="transitive_input_mean", std="transitive_input_std",
              min="transitive_input_min", max="transitive_input_max")

report_spread(report, end["kind_query"], kind="share", mean="kind_query_mean", std="kind_query_std",
              min="kind_query_min", max="kind_query_max")
report.number("kind_chance", 1 / len(things), kind="share")

# %% [markdown]
# ## A causal check: take the frame out of the query
#
# Remove from every verb's query the directions that separate the frames (the
# differences between the four frames' mean queries: three directions) and measure the
# loss and the attention on the theme. As a control, remove three random
# directions instead.

# %% tags=["causal"]
def without(q, directions):
    """``q`` (M, n, hs) with its component in the span of ``directions`` (M, hs, r) removed."""
    basis, _ = torch.linalg.qr(directions)                                    # (M, hs, r)
    return q - q @ basis @ basis.transpose(1, 2)


@torch.no_grad()
def ablated(p, directions):
    """Loss and attention on the theme with every verb's query stripped of ``directions``."""
    tokens, theme = EVAL
    q = without(verb_inputs(p) @ p["W_Q"], directions)                         # (M, 24, hs)
    verb_row = torch.tensor([frame_verbs.index(lexicon[t]) for t in tokens[:, VERB_AT].tolist()])
    logits, weights = forward(p, tokens, query=q[:, verb_row])
    loss = F.cross_entropy(logits.transpose(1, 2), theme.expand(len(q), -1), reduction="none").mean(-1)
    return loss, (weights * (tokens == theme[:, None])).sum(-1).mean(-1)


# %%
queries = verb_inputs(params).detach() @ params["W_Q"].detach()               # (M, 24, hs)
means = torch.stack([queries[:, frame_label == f].mean(1) for f in range(len(FRAMES))], -1)  # (M, hs, 4)
frame_directions = means[..., 1:] - means[..., :1]                             # (M, hs, 3)
random_directions = torch.randn(frame_directions.shape, generator=torch.Generator().manual_seed(3))
loss_frame, attention_frame = ablated(params, frame_directions)
loss_random, attention_random = ablated(params, random_directions)

# %%
report_spread(report, end["loss"], "{:.3f}", mean="loss_mean", std="loss_std", min="loss_min", max="loss_max")
report_spread(report, loss_frame, "{:.3f}", mean="loss_without_frame_mean", std="loss_without_frame_std",
              min="loss_without_frame_min", max="loss_without_frame_max")
report_spread(report, loss_random, "{:.3f}", mean="loss_without_random_mean", std="loss_without_random_std",
              min="loss_without_random_min", max="loss_without_random_max")
report_spread(report, attention_frame, "{:.2f}", mean="attention_without_frame_mean",
              std="attention_without_frame_std", min="attention_without_frame_min", max="attention_without_frame_max")
report_spread(report, attention_random, "{:.2f}", mean="attention_without_random_mean",
              std="attention_without_random_std", min="attention_without_random_min",
              max="attention_without_random_max")
MARGIN = 0.1                        # nats: a change of the loss we call a change
moved = ((loss_frame - end["loss"]) >= MARGIN) & ((loss_random - end["loss"]) < MARGIN)
report.number("causal_margin", MARGIN, "{:.1f}")
causal = report_seed_count(report, "causal_seeds", moved)

# %%
# The outcomes the pages word, from the counts above.
n = len(SEEDS)
# How many models pass for each label (all, none, some), and whether more beat the percentile below
# the bar: the page words each case.
for_frame, for_transitive = (end["frame_query"] > end["frame_p95"]), (end["transitive_query"] > end["transitive_p95"])
report_seed_count(report, "frame_beats_below_bar_seeds", for_frame & (end["frame_query"] < PASS_BAR))
report_seed_count(report, "transitive_beats_below_bar_seeds", for_transitive & (end["transitive_query"] < PASS_BAR))
report.category("frame_models", all_word(report.numbers["frame_pass_seeds"]["value"], n))
report.category("frame_more", "yes" if report.numbers["frame_beats_below_bar_seeds"]["value"] else "no")
report.category("transitive_models", all_word(report.numbers["transitive_pass_seeds"]["value"], n))
report.category("transitive_more", "yes" if report.numbers["transitive_beats_below_bar_seeds"]["value"] else "no")
ACCURACY_MARGIN = 0.1               # accuracy: a difference we call a difference
above_input = int((end["frame_query"] >= end["frame_input"] + ACCURACY_MARGIN).sum())
report.number("frame_query_above_input_seeds", above_input, kind="count")
report.category("controls_models", all_word(above_input, n))
report.category("causal_models", all_word(causal, n))

# %% [markdown]
# ## Figure

# %%
TEXT = report.figure_text()   # the figures' words: frame_language.strings.toml
counts = {task: int(((end[f"{task}_query"] >= PASS_BAR) & (end[f"{task}_query"] > end[f"{task}_p95"])).sum())
          for task in LABELS}
chance = {"frame": 1 / len(FRAMES), "transitive": 0.5}
for lang in LANGS:
    text = TEXT[lang]
    fig, axes = column_figure(5.6, nrows=2, sharex=True)
    for ax, task, title in zip(axes, LABELS, text["panels"]):
        x = torch.arange(n)
        ax.scatter(x, end[f"{task}_p95"], marker="_", s=160, color="grey", label=text["p95"], zorder=2)
        ax.scatter(x, end[f"{task}_query"], color="#d95f02", s=24, label=text["query"], zorder=3)
        ax.axhline(PASS_BAR, color="#1b9e77", ls="--", lw=1, label=text["bar"])
        ax.axhline(chance[task], color="grey", ls=":", lw=1, label=text["chance"])
        ax.set_ylim(0, 1.05)
        ax.set_ylabel(text["accuracy"])
        ax.set_title(title, loc="left")
    axes[0].legend(fontsize=9, loc="lower right", ncols=2)
    axes[1].set_xticks(range(n), [str(s) for s in SEEDS])
    axes[1].set_xlabel(text["model"])
    report.figure("per_model", fig, lang, alt=text["alt"].format(n=n, p=N_PROJECTIONS),
                  caption=text["caption"].format(n=n, a=counts["frame"], b=counts["transitive"],
                                                 bar=f"{PASS_BAR:.0%}"))

report.save()
