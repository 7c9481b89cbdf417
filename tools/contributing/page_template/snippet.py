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
report.number("largest_weight_small_scale", largest_weight[0], "{:.2f}",
              en="largest softmax weight, scores scaled by 1/4",
              zh="分数缩小到 1/4 时 softmax 的最大权重")
report.number("largest_weight_large_scale", largest_weight[-1], "{:.2f}",
              en="largest softmax weight, scores scaled by 8",
              zh="分数放大到 8 倍时 softmax 的最大权重")

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
report.number("exercise_largest_weight_scale_16", weights_16.max(), "{:.2f}",
              en="exercise 1: largest softmax weight, scores scaled by 16",
              zh="练习 1：分数放大到 16 倍时 softmax 的最大权重")
report.number("exercise_largest_weight_scale_0", equal.max(), "{:.4f}",
              en="exercise 2: largest softmax weight when every score is the same",
              zh="练习 2：所有分数都相同时 softmax 的最大权重")

# %%
TEXT = {
    "en": {"x": "scale of the scores", "y": "largest softmax weight",
           "alt": "The largest softmax weight rises towards 1 as the scores are scaled up.",
           "caption": "Scaled-up scores concentrate the softmax on one key."},
    "zh": {"x": "分数的缩放倍数", "y": "softmax 最大权重",
           "alt": "分数放大时，softmax 的最大权重逐渐升向 1。",
           "caption": "分数放大后，softmax 几乎只给一个键权重。"},
}
for lang in LANGS:
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.plot(scales, largest_weight, marker="o")
    ax.set_xscale("log", base=2)
    ax.set_xlabel(TEXT[lang]["x"])
    ax.set_ylabel(TEXT[lang]["y"])
    fig.tight_layout()
    report.figure("example", fig, lang, alt=TEXT[lang]["alt"], caption=TEXT[lang]["caption"])

report.save()
