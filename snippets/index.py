# %% [markdown]
# # What this site does, in one picture
#
# A source explanation says that in "The animal didn't cross the street because
# it was too tired", attention lets *it* find *animal*. This site does not take
# that on trust: it builds the attention, runs it and measures where the word
# *it* looks. The home page shows the hand-built layer of the first chapter as
# arcs from *it* to every word, as thick as the attention weight, above the
# three steps every page follows. The picture says it is hand-built: a trained
# model's attention is measured on the pages of the last chapter.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from explainer.plotting import LANGS, column_figure
from explainer.report import Report

report = Report("index")

# %% tags=["weights"]
import numpy as np

tokens = ["The", "animal", "didn't", "cross", "the", "street",
          "because", "it", "was", "too", "tired"]
IT, ANIMAL, STREET = tokens.index("it"), tokens.index("animal"), tokens.index("street")

# The hand-built layer of the first chapter, in brief: two key features,
# "can get tired" and "is a place"; the pronoun's query asks for the first and
# against the second.
can_tire = np.array([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], float)  # (T,)
place = np.array([0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], float)     # (T,)
keys = 2.0 * np.stack([can_tire, place], axis=1)                  # (T, d_k=2)
query_of_it = np.array([3.0, -1.0])                               # (d_k,)
scores = keys @ query_of_it / np.sqrt(2)                          # (T,)
weights = np.exp(scores - scores.max())
weights /= weights.sum()                                          # (T,) sums to 1
print("attention of it:", " ".join(f"{token} {w:.3f}" for token, w in zip(tokens, weights)))

# %%
report.number("weight_it_animal", weights[ANIMAL], "{:.0%}")
report.number("weight_it_street", weights[STREET], "{:.1%}")

# %% [markdown]
# ## The picture

# %%
TEXT = report.figure_text()   # the figures' words: index.strings.toml
ARC, BOX = "#d95f02", "#1b9e77"


def draw_narrow(text, lang):
    """The same picture for a phone's column: the sentence read downwards, the arcs from
    "it" to its right, the three steps stacked below."""
    fig, ax = column_figure(height=6.4, width=3.6)
    ax.set_xlim(-1.6, 2.0)
    ax.set_ylim(-len(tokens) - 5.4, 2.4)
    ax.axis("off")
    for i, token in enumerate(tokens):
        ax.text(0, -i, token, ha="right", va="center", fontsize=11,
                fontweight="bold" if i in (IT, ANIMAL) else "normal")
    for j, weight in enumerate(weights):
        if j == IT:
            continue
        bend = 0.45 if j < IT else -0.45  # every arc to the right of the sentence
        ax.add_patch(FancyArrowPatch((0.15, -IT), (0.15, -j), connectionstyle=f"arc3,rad={bend}",
                                     arrowstyle="-|>", mutation_scale=8,
                                     lw=0.6 + 7 * weight, color=ARC, alpha=0.35 + 0.65 * weight))
    label = text["label"].format(weights[ANIMAL]).replace("：", "：\n").replace(": ", ":\n")
    ax.text(0.2, 1.6, label, ha="center", va="center", fontsize=10.5, color=ARC)
    for k, step in enumerate(text["steps"]):
        y = -len(tokens) - 0.2 - k * 1.75
        ax.add_patch(FancyBboxPatch((-1.35, y - 1.2), 3.1, 1.2, boxstyle="round,pad=0.05",
                                    fc="none", ec=BOX, lw=1.5))
        ax.text(0.2, y - 0.6, step.replace("\n", "") if lang == "zh" else step, ha="center",
                va="center", fontsize=10)
        if k < 2:
            ax.add_patch(FancyArrowPatch((0.2, y - 1.25), (0.2, y - 1.7), arrowstyle="-|>",
                                         mutation_scale=12, color=BOX, lw=1.5))
    return fig


for lang in LANGS:
    text = TEXT[lang]
    fig, ax = column_figure(height=3.6)
    ax.set_xlim(-0.6, len(tokens) - 0.4)
    ax.set_ylim(-2.6, 2.1)
    ax.axis("off")
    for i, token in enumerate(tokens):
        ax.text(i, 0, token, ha="center", va="center", fontsize=11,
                fontweight="bold" if i in (IT, ANIMAL) else "normal")
    for j, weight in enumerate(weights):
        if j == IT:
            continue
        bend = 0.4 if j < IT else -0.4  # every arc above the sentence, higher for farther words
        ax.add_patch(FancyArrowPatch((IT, 0.3), (j, 0.3), connectionstyle=f"arc3,rad={bend}",
                                     arrowstyle="-|>", mutation_scale=8,
                                     lw=0.6 + 7 * weight, color=ARC, alpha=0.35 + 0.65 * weight))
    label = ax.text((IT + ANIMAL) / 2, 1.85, text["label"].format(weights[ANIMAL]), ha="center",
                    va="center", fontsize=10.5, color=ARC)
    label.set_gid("value:weight_it_animal")  # the key it shows (tests/test_figure_labels_agree.py)
    for k, step in enumerate(text["steps"]):
        x = 0.4 + k * 3.7
        ax.add_patch(FancyBboxPatch((x - 0.2, -2.35), 2.9, 1.25, boxstyle="round,pad=0.05",
                                    fc="none", ec=BOX, lw=1.5))
        ax.text(x + 1.25, -1.72, step, ha="center", va="center", fontsize=10)
        if k < 2:
            ax.add_patch(FancyArrowPatch((x + 2.75, -1.72), (x + 3.45, -1.72), arrowstyle="-|>",
                                         mutation_scale=12, color=BOX, lw=1.5))
    report.figure("overview", fig, lang, alt=text["alt"], caption=text["caption"],
                  narrow=lambda _, text=text, lang=lang: draw_narrow(text, lang))

report.save()
