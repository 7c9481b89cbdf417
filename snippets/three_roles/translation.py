# %% [markdown]
# # Does the model learn to translate 猫追逐激光点, and what does its decoder read?
#
# 猫追逐激光点 → "The cat chases the laser dot". The source explanation tells
# it like this: at first, with random weights, the query of 追逐 has nothing
# to do with the key of 激光点 and the translation is wrong; the error flows
# back until 追逐 attends to 激光点 and the translation comes out right. We
# train a tiny encoder–decoder from random weights, many seeds at once, with
# 猫追逐激光点 held out, and count the beginning and the end of that story:
# is the translation wrong at first and right at the end? The decoder's
# cross-attention (which English word reads which Chinese word) is our
# addition, measured alongside. The attention inside the Chinese sentence,
# from 追逐 to 激光点, is `three_roles.translation.link`.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.report import Report
from explainer.seeds import n_seeds, report_mean_range, report_seed_count

report = Report("three_roles.translation")

# %% [markdown]
# ## Two toy corpora: "S V O" in both languages
#
# Eleven nouns and four verbs. Some nouns are two English words and share a
# word (激光点 laser dot / 激光笔 laser pen), so after "laser" the decoder must
# look back at the Chinese. Two nouns are goals rather than things: 梦想
# dream, 目标 goal.
#
# The two corpora have the same Chinese sentences and differ in one word of
# the English. In the first, 追逐 is always "chases" (one can chase a dream).
# In the second, 追逐 is "chases" for a thing and "pursues" for a goal, as a
# translator would write it: there, translating the verb *needs* its object.

# %% tags=["corpora"]
import inspect

import numpy as np
import torch

from explainer.translation_toy import CORPORA, TEST, english, held_out, sources, train_rows

torch.set_num_threads(1)
print(f"{len(sources)} pairs, {len(train_rows)} for training, {len(held_out)} held out, e.g.")
for corpus in CORPORA:
    for s in (TEST, ["狗", "追逐", "梦想"]):
        print(f"  {corpus:>16}: {''.join(s)} → {' '.join(english(*s, corpus))}")

# %%
report.number("pairs", len(sources), "{:.0f}")
report.number("train_pairs", len(train_rows), "{:.0f}")
report.number("held_out_pairs", len(held_out), "{:.0f}")


# %% [markdown]
# ## A tiny encoder–decoder
#
# One encoder block (self-attention with two heads, MLP) and one decoder
# block (causal self-attention, cross-attention with one head, MLP), pre-norm
# with residual paths, 16 dimensions wide. Written once as a module, for one
# model. The toy lives in the project's `explainer` package
# (`explainer/translation_toy.py`), because the other experiments of the page
# train the same models; this cell prints its code.

# %% tags=["model"]
from explainer.translation_toy import Attention, Translator

print(inspect.getsource(Attention))
print(inspect.getsource(Translator))

# %% [markdown]
# ## Twenty-four models in one
#
# Three arms of eight random seeds. Two arms are the full model, one per
# corpus. The third, the *forced arm*, learns the object-dependent corpus
# with a decoder that sees the encoder only at the verb's position: its
# cross-attention may read 追逐 and nothing else, so whatever it needs of
# the subject and the object must reach the verb's position through the
# encoder's self-attention. Seed *i* starts from the same weights in every
# arm, so the arms are compared seed by seed. The toy stacks the models'
# parameters along a first dimension M and writes the same forward pass with
# M in front (`linear`, `layer_norm`, `attention` are the module's layers with
# that extra dimension). Adam treats every number on its own, so this is
# independent trainings done in one pass. The cell prints the stacked
# attention, encoder and decoder.

# %% tags=["stacked"]
from explainer.translation_toy import (ARMS, attention, batch_targets, decode, encode, make_models,
                                       model_targets, src_all)

for function in (attention, encode, decode):
    print(inspect.getsource(function))

# %% [markdown]
# ## What we measure, before and after training
#
# Whether a model translates a sentence exactly (greedy decoding), and in
# 猫追逐激光点 the encoder's attention from 追逐 to 激光点 and the link of the
# claims ledger's rule (`chase_laser_link`): the toy's measures, printed.

# %% tags=["measures"]
from explainer.translation_toy import chase_laser_link, measure, translate

for function in (translate, measure, chase_laser_link):
    print(inspect.getsource(function))

# %% [markdown]
# ## Training
#
# Batches of 32 training pairs, Adam, each model on its own corpus.

# %% tags=["train"]
from explainer.translation_toy import train

print(inspect.getsource(train))


# %% [markdown]
# ## A small run first
#
# Two seeds per arm and fewer steps: a run that takes seconds. The full
# run below trains more seeds for longer.

# %% tags=["small_run"]
SMALL_SEEDS, SMALL_STEPS = [0, 1], 200
small, _, small_arm = make_models(SMALL_SEEDS)             # M = 6: two seeds per arm
small_tgt = model_targets(small_arm)
small_start = measure(small, small_tgt)
train(small, small_tgt, SMALL_STEPS)
small_end = measure(small, small_tgt)
print("arm of each model:", [list(ARMS)[a] for a in small_arm.tolist()])
for name, moment in (("step 0", small_start), (f"step {SMALL_STEPS}", small_end)):
    print(f"{name}: 猫追逐激光点 exact {moment['test_correct'].int().tolist()}, "
          f"追逐 → 激光点 (larger head) {moment['chase_laser_weight'].numpy().round(2)}, "
          f"linked {moment['link'].int().tolist()}")
print("held-out sentences exact:", translate(small, small_tgt, held_out).float().mean(-1).numpy().round(2))

# %%
report.number("small_run_seeds", len(SMALL_SEEDS), "{:.0f}")
report.number("small_run_steps", SMALL_STEPS, "{:.0f}")

# %% [markdown]
# ## The full run
#
# Eight random seeds for each arm, the same cells.

# %%
SEEDS = list(range(n_seeds(8)))   # the build trains more when a verdict is undecided
STEPS = 400
params, models, arm_of = make_models(SEEDS)                # M = 24
tgt = model_targets(arm_of)

# The stacked pass must be the module's pass: compare on model 0, record the difference.
with torch.no_grad():
    tgt_in, _ = batch_targets(tgt, list(range(8)))
    stacked = decode(params, encode(params, src_all[:8])[0], tgt_in)[0][0]
    error = (stacked - models[0](src_all[:8], tgt_in[0])).abs().max()
report.number("stacked_vs_module_error", error, "{:.1e}")

start = measure(params, tgt)
train(params, tgt, STEPS)
end = measure(params, tgt)
held_out_exact = translate(params, tgt, held_out).float().mean(-1)       # (M,)
train_exact = translate(params, tgt, train_rows).float().mean(-1)        # (M,)

# %% [markdown]
# ## Is the translation wrong at first and right at the end?
#
# Per arm, over the seeds: how many translate 猫追逐激光点 exactly, and the
# share of held-out and training sentences translated exactly. Each number is
# one line, its key written out.

# %%
N_SEEDS = len(SEEDS)
report.number("n_seeds", N_SEEDS, "{:.0f}")
report.number("steps", STEPS, "{:.0f}")


def per_arm(arm):
    """The per-seed values of one arm (its index in ARMS), as numpy arrays."""
    mine = arm_of == arm
    return mine, {"held_out_exact": held_out_exact[mine].numpy(), "train_exact": train_exact[mine].numpy(),
                  "alignment_accuracy_start": start["alignment"][mine].numpy(),
                  "alignment_accuracy": end["alignment"][mine].numpy()}


in_fixed, fixed_seeds = per_arm(0)
in_object_dependent, object_dependent_seeds = per_arm(1)
in_forced, forced_seeds = per_arm(2)


# fixed
report_seed_count(report, "correct_start_seeds", start["test_correct"][in_fixed])
report_seed_count(report, "correct_seeds", end["test_correct"][in_fixed])
report_mean_range(report, fixed_seeds["held_out_exact"], "{:.0%}", mean="held_out_exact_mean",
                  min="held_out_exact_min", max="held_out_exact_max")
report_mean_range(report, fixed_seeds["train_exact"], "{:.0%}", mean="train_exact_mean", min="train_exact_min",
                  max="train_exact_max")

# object dependent
report_seed_count(report, "object_dependent_correct_start_seeds", start["test_correct"][in_object_dependent])
report_seed_count(report, "object_dependent_correct_seeds", end["test_correct"][in_object_dependent])
report_mean_range(report, object_dependent_seeds["held_out_exact"], "{:.0%}",
                  mean="object_dependent_held_out_exact_mean", min="object_dependent_held_out_exact_min",
                  max="object_dependent_held_out_exact_max")
report_mean_range(report, object_dependent_seeds["train_exact"], "{:.0%}", mean="object_dependent_train_exact_mean",
                  min="object_dependent_train_exact_min", max="object_dependent_train_exact_max")

# forced (the forced arm)
report_seed_count(report, "forced_correct_start_seeds", start["test_correct"][in_forced])
report_seed_count(report, "forced_correct_seeds", end["test_correct"][in_forced])
report_mean_range(report, forced_seeds["held_out_exact"], "{:.0%}", mean="forced_held_out_exact_mean",
                  min="forced_held_out_exact_min", max="forced_held_out_exact_max")
report_mean_range(report, forced_seeds["train_exact"], "{:.0%}", mean="forced_train_exact_mean",
                  min="forced_train_exact_min", max="forced_train_exact_max")

# The page's answer, from the counts above (both corpora): did every model learn?
learned = (report.numbers["correct_seeds"]["value"] == N_SEEDS
           and report.numbers["object_dependent_correct_seeds"]["value"] == N_SEEDS
           and report.numbers["correct_start_seeds"]["value"] == 0
           and report.numbers["object_dependent_correct_start_seeds"]["value"] == 0)
report.category("learned", "yes" if learned else "no")   # the page words it: choose("learned", …)

# %% [markdown]
# ## Our addition: the decoder's cross-attention
#
# For every content word of every sentence (the two corpora's full models):
# does its cross-attention weigh its own Chinese source word most?

# %%
report_mean_range(report, fixed_seeds["alignment_accuracy_start"], "{:.0%}", mean="alignment_accuracy_start_mean",
                  min="alignment_accuracy_start_min", max="alignment_accuracy_start_max")
report_mean_range(report, fixed_seeds["alignment_accuracy"], "{:.0%}", mean="alignment_accuracy_mean",
                  min="alignment_accuracy_min", max="alignment_accuracy_max")
report_mean_range(report, object_dependent_seeds["alignment_accuracy_start"], "{:.0%}",
                  mean="object_dependent_alignment_accuracy_start_mean",
                  min="object_dependent_alignment_accuracy_start_min",
                  max="object_dependent_alignment_accuracy_start_max")
report_mean_range(report, object_dependent_seeds["alignment_accuracy"], "{:.0%}",
                  mean="object_dependent_alignment_accuracy_mean", min="object_dependent_alignment_accuracy_min",
                  max="object_dependent_alignment_accuracy_max")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above. The cells try it on the small run;
# the run records the answer of the full run so the page can show it folded
# under the question.

# %% tags=["no_cross_attention"]
# Exercise 1: cut the decoder off from the Chinese: cross-attention's W_O set to zero (on a copy).
cut = dict(small, **{"cross.W_O.weight": torch.zeros_like(small["cross.W_O.weight"])})   # was: small
print("held-out sentences exact without cross-attention:",
      translate(cut, small_tgt, held_out).float().mean(-1).numpy().round(2))

# %% tags=["unmasked_decoding"]
# Exercise 2: greedy decoding with the decoder's causal mask switched off.
print("held-out sentences exact without the causal mask:",
      translate(small, small_tgt, held_out, causal=False).float().mean(-1).numpy().round(2))  # was: True

# %%
cut_full = dict(params, **{"cross.W_O.weight": torch.zeros_like(params["cross.W_O.weight"])})
report.number("exercise_no_cross_attention_held_out_exact",
              translate(cut_full, tgt, held_out).float().mean(-1)[in_fixed].mean(), "{:.0%}")
report.number("exercise_unmasked_decoding_held_out_exact",
              translate(params, tgt, held_out, causal=False).float().mean(-1)[in_fixed].mean(), "{:.0%}")

# %% [markdown]
# ## Figure

# %%
TEXT = report.figure_text()   # the figures' words: translation.strings.toml
plt.rcParams.update({"font.size": 10})
test_en = english(*TEST, "fixed")

for lang in LANGS:
    text = TEXT[lang]
    fig, axes = plt.subplots(1, 2, figsize=(6.8, 3.8), sharey=True)
    for ax, moment, key in ((axes[0], start, "start"), (axes[1], end, "end")):
        weights = moment["test_cross"][in_fixed].mean(0).numpy()              # (6, 3)
        image = ax.imshow(weights, cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1, aspect="auto")
        for i in range(weights.shape[0]):
            for j in range(weights.shape[1]):
                ax.text(j, i, f"{weights[i, j]:.2f}", ha="center", va="center", fontsize=9,
                        color="black" if weights[i, j] > 0.6 else "white")
        ax.set_xticks(range(3), TEST, fontsize=9)
        ax.set_yticks(range(len(test_en)), test_en, fontsize=9)
        ax.set_title(text[key], fontsize=10)
        ax.set_xlabel(text["cols"])
    axes[0].set_ylabel(text["rows"])
    fig.colorbar(image, ax=axes, shrink=0.8, label=text["weight"].format(n=N_SEEDS))
    shares = {"before": report.numbers["alignment_accuracy_start_mean"]["texts"][lang],
              "after": report.numbers["alignment_accuracy_mean"]["texts"][lang]}
    report.figure("alignment", fig, lang, alt=text["cross_alt"].format(n=N_SEEDS, **shares),
                  caption=text["cross_caption"].format(n=N_SEEDS))

report.save()
