# %% [markdown]
# # __TITLE_EN__
#
# Made from the page template: replace the example experiment below with yours.
# The example: the larger the scores, the more softmax concentrates on the top one.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
from explainer.plotting import LANGS, plt
from explainer.report import Report

report = Report("__NAME__")

# %% tags=["softmax"]
# A tagged cell is one a page may show ({{ code("softmax") }}): computation only.
import numpy as np

rng = np.random.default_rng(0)
scores = rng.normal(size=16)                   # (16,) one query's scores over 16 keys
scales = np.array([0.25, 0.5, 1, 2, 4, 8])
largest_weight = []
for scale in scales:
    weights = np.exp(scale * scores - (scale * scores).max())
    weights /= weights.sum()                   # softmax, sums to 1
    largest_weight.append(weights.max())
largest_weight = np.array(largest_weight)
print("largest weight per scale:", largest_weight.round(2))

# %%
# A snippet records numbers; it never decides a claim. The claim's rule in
# docs/claims.yml (written before you run this) reads them as __NAME__.<key>.
# What each number is, in English and Chinese, is in the strings file beside this one
# (__FILE__.strings.toml), a table per key.
report.number("largest_weight_small_scale", largest_weight[0], "{:.2f}")
report.number("largest_weight_large_scale", largest_weight[-1], "{:.2f}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["scale_16"]
# Exercise 1 (replace with yours): in the `softmax` cell, scale the scores by 16.
scaled = 16 * scores
weights_16 = np.exp(scaled - scaled.max())
weights_16 /= weights_16.sum()                 # (16,) softmax
print(f"largest weight, scores scaled by 16: {weights_16.max():.2f}")

# %% tags=["scale_0"]
# Exercise 2: scale them by 0, so that every score is the same.
equal = np.exp(0 * scores)                     # (16,) every score the same
equal /= equal.sum()
print(f"largest weight, equal scores: {equal.max():.4f}")

# %%
report.number("exercise_largest_weight_scale_16", weights_16.max(), "{:.2f}")
report.number("exercise_largest_weight_scale_0", equal.max(), "{:.4f}")

# %%
TEXT = report.figure_text()   # the figures' words, by language: __FILE__.strings.toml
for lang in LANGS:
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.plot(scales, largest_weight, marker="o")
    ax.set_xscale("log", base=2)
    ax.set_xlabel(TEXT[lang]["x"])
    ax.set_ylabel(TEXT[lang]["y"])
    fig.tight_layout()
    report.figure("example", fig, lang, alt=TEXT[lang]["alt"], caption=TEXT[lang]["caption"])

report.save()
