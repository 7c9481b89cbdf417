# %% [markdown]
# # The ant colony (2): what each role became
#
# verb_and_object.py trains colonies in which a verb must fetch its object
# and finds that the verb comes to look at it (C16). Here we train the same
# colonies (same seeds, same batches, so the same weights) and look at the
# vectors themselves: the table of q(verb)·k(noun) that decides every
# attention pattern, whether the keys and values of nouns of one kind grow
# alike, and whether the queries of verbs taking one kind of object do — the
# source's claim that a verb's query is a "subcategorisation signal", a code
# for what kind of object the verb takes (C26).

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.ant_colony_toy import spread
from explainer.plotting import LANGS, plt
from explainer.report import Report
from explainer.seeds import n_seeds, report_seed_count

report = Report("three_roles.ant_colony.what_each_role_became")

# %% [markdown]
# ## The colonies
#
# The toy language, the model and its training come from the project's
# `explainer` package (`explainer/ant_colony_toy.py`), as in verb_and_object.py:
# each random seed's colony (and its control, W_Q zero and frozen) trained
# for 400 steps, all of them together.

# %%
import numpy as np
import torch

from explainer.ant_colony_toy import (kinds, make_colonies, mean_table, measure, noun_kind, nouns, train,
                                      trained, verb_kind, verbs)

torch.set_num_threads(1)
SEEDS = list(range(n_seeds(10)))   # the build trains more when a verdict is undecided
N_SEEDS = len(SEEDS)
STEPS = 400
params, _ = make_colonies(SEEDS)
start = measure(params)
table_start = mean_table(params)
train(params, STEPS)
end = measure(params)
report.number("n_seeds", N_SEEDS, "{:.0f}")

# %% [markdown]
# ## The table that decides every attention pattern
#
# Without positions, the score q(verb)·k(noun)/√d decides where a verb looks.
# Averaged over the colonies (it means the same thing in every colony): for
# how many verbs does the query score a noun of its own kind highest?

# %%
tables = {0: table_start, STEPS: mean_table(params)}                 # step -> (12, 12)
own_kind_top = noun_kind[tables[STEPS].argmax(1)] == verb_kind       # (12,) rows are verbs
report.number("own_kind_top_verbs", own_kind_top.sum(), "{:.0f}")

# %% [markdown]
# ## Keys and values
#
# Do the keys of nouns of one kind grow alike? Do their values?

# %%
key_same_kind = spread(trained(end["key_same_kind"]))
report.number("key_same_kind_mean", **key_same_kind["mean"], fmt="{:.2f}")
report.number("key_same_kind_min", **key_same_kind["min"], fmt="{:.2f}")
report.number("key_same_kind_max", **key_same_kind["max"], fmt="{:.2f}")
key_same_kind_start = spread(trained(start["key_same_kind"]))
report.number("key_same_kind_start_mean", **key_same_kind_start["mean"], fmt="{:.2f}")
report.number("key_same_kind_start_min", **key_same_kind_start["min"], fmt="{:.2f}")
report.number("key_same_kind_start_max", **key_same_kind_start["max"], fmt="{:.2f}")
value_same_kind = spread(trained(end["value_same_kind"]))
report.number("value_same_kind_mean", **value_same_kind["mean"], fmt="{:.2f}")
report.number("value_same_kind_min", **value_same_kind["min"], fmt="{:.2f}")
report.number("value_same_kind_max", **value_same_kind["max"], fmt="{:.2f}")

# %% [markdown]
# ## The verb's query as a subcategorisation signal (C26)
#
# Three verbs take each kind of object. If a query says "I take food", the
# queries of 吃, 尝 and 煮 should point the same way, and a linear probe
# should read the kind from a query it was not fitted on.

# %%
QUERY_GAP_BAR = 0.2
same_class = spread(trained(end["query_same_kind"]))
report.number("query_cosine_same_class_mean", **same_class["mean"], fmt="{:.2f}")
report.number("query_cosine_same_class_min", **same_class["min"], fmt="{:.2f}")
report.number("query_cosine_same_class_max", **same_class["max"], fmt="{:.2f}")
other_class = spread(trained(end["query_other_kind"]))
report.number("query_cosine_other_class_mean", **other_class["mean"], fmt="{:.2f}")
report.number("query_cosine_other_class_min", **other_class["min"], fmt="{:.2f}")
report.number("query_cosine_other_class_max", **other_class["max"], fmt="{:.2f}")
gap = np.asarray(trained(end["query_same_kind"] - end["query_other_kind"]))     # (n_seeds,)
query_cosine_gap = spread(gap)
report.number("query_cosine_gap_mean", **query_cosine_gap["mean"], fmt="{:.2f}")
report.number("query_cosine_gap_min", **query_cosine_gap["min"], fmt="{:.2f}")
report.number("query_cosine_gap_max", **query_cosine_gap["max"], fmt="{:.2f}")
query_cosine_gap_start = spread(trained(start["query_same_kind"] - start["query_other_kind"]))
report.number("query_cosine_gap_start_mean", **query_cosine_gap_start["mean"], fmt="{:.2f}")
report.number("query_cosine_gap_start_min", **query_cosine_gap_start["min"], fmt="{:.2f}")
report.number("query_cosine_gap_start_max", **query_cosine_gap_start["max"], fmt="{:.2f}")
report_seed_count(report, "query_same_class_seeds", (gap >= QUERY_GAP_BAR))
report.number("query_gap_bar", QUERY_GAP_BAR, "{:.1f}")
probe = spread(trained(end["probe"]))
report.number("query_probe_accuracy_mean", **probe["mean"], fmt="{:.0%}")
report.number("query_probe_accuracy_min", **probe["min"], fmt="{:.0%}")
report.number("query_probe_accuracy_max", **probe["max"], fmt="{:.0%}")
probe_start = spread(trained(start["probe"]))
report.number("query_probe_accuracy_start_mean", **probe_start["mean"], fmt="{:.0%}")
report.number("query_probe_accuracy_start_min", **probe_start["min"], fmt="{:.0%}")
report.number("query_probe_accuracy_start_max", **probe_start["max"], fmt="{:.0%}")
report.number("query_probe_chance", 1 / len(kinds), "{:.0%}")

# %% [markdown]
# ## Figures

# %%
gloss = {"吃": "eat", "尝": "taste", "煮": "cook", "追逐": "chase", "扑": "pounce", "抓": "catch",
         "喝": "drink", "倒": "pour", "洒": "spill", "读": "read", "写": "write", "寄": "send",
         "苹果": "apple", "面包": "bread", "鱼": "fish", "激光点": "laser dot", "球": "ball",
         "蝴蝶": "butterfly", "水": "water", "牛奶": "milk", "茶": "tea", "书": "book",
         "报纸": "newspaper", "信": "letter"}
TEXT = report.figure_text()   # the figures' words: what_each_role_became.strings.toml
TICKS = {"en": ([gloss[v] for v in verbs], [gloss[n] for n in nouns]), "zh": (verbs, nouns)}   # tick labels: verbs, nouns
plt.rcParams.update({"font.size": 10})
VIRIDIS = plt.get_cmap("viridis")
COLOR_A, COLOR_B = VIRIDIS(0.15), VIRIDIS(0.7)
limit = max(np.abs(t).max() for t in tables.values())

for lang in LANGS:
    text = TEXT[lang]

    fig, axes = plt.subplots(2, 1, figsize=(6.4, 7.6), sharex=True)
    for ax, step in zip(axes, tables):
        image = ax.imshow(tables[step], cmap="RdBu_r", vmin=-limit, vmax=limit, aspect="auto")
        ax.set_title(text["step"].format(step), fontsize=10)
        ax.set_yticks(range(len(verbs)), TICKS[lang][0], fontsize=9)
    axes[1].set_xticks(range(len(nouns)), TICKS[lang][1], rotation=90, fontsize=9)
    fig.colorbar(image, ax=axes, shrink=0.6, label=text["table_label"])
    report.figure("snapshots", fig, lang, alt=text["table_alt"].format(n=N_SEEDS),
                  caption=text["table_caption"].format(n=N_SEEDS, k=int(own_kind_top.sum()), v=len(verbs)))

    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.4), gridspec_kw={"width_ratios": [3, 2]})
    for x, (moment, label) in enumerate(((start, text["start"]), (end, text["end"]))):
        same = moment["query_same_kind"][:N_SEEDS].numpy()
        other = moment["query_other_kind"][:N_SEEDS].numpy()
        for s in range(N_SEEDS):
            left.plot([2 * x, 2 * x + 0.8], [same[s], other[s]], color="grey", lw=0.6, alpha=0.6)
        left.scatter(np.full(N_SEEDS, 2 * x), same, color=COLOR_B, s=14, zorder=3,
                     label=text["same"] if x == 0 else None)
        left.scatter(np.full(N_SEEDS, 2 * x + 0.8), other, color=COLOR_A, s=14, zorder=3,
                     label=text["other"] if x == 0 else None)
    left.set_xticks([0.4, 2.4], [text["start"], text["end"]])
    left.axhline(0, color="grey", lw=0.5)
    left.set_ylabel(text["query_cos"])
    left.legend(fontsize=9)
    for x, moment in enumerate((start, end)):
        right.scatter(x + np.linspace(-0.2, 0.2, N_SEEDS), moment["probe"][:N_SEEDS].numpy(),
                      color=COLOR_A, s=14)
    right.axhline(1 / len(kinds), color="grey", ls=":", label=text["chance"])
    right.set_xticks([0, 1], [text["start"], text["end"]])
    right.set_xlim(-0.6, 1.6)
    right.set_ylim(-0.02, 1.02)
    right.set_ylabel(text["probe"])
    right.legend(fontsize=9, loc="center right")
    fig.tight_layout()
    report.figure("queries", fig, lang, alt=text["queries_alt"],
                  caption=text["queries_caption"].format(
                      k=int((gap >= QUERY_GAP_BAR).sum()), n=N_SEEDS, bar=QUERY_GAP_BAR, chance=1 / len(kinds),
                      acc=np.asarray(trained(end["probe"])).mean(), acc0=np.asarray(trained(start["probe"])).mean()))

report.save()
