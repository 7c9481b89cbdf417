# %% [markdown]
# # __TITLE_EN__
#
# Made from the page template: replace the example experiment below with yours.
# The example: the larger the scores, the more softmax concentrates on the top one.

# %%
import numpy as np

from explainer.plotting import LANGS, plt
from explainer.report import Report

report = Report("__NAME__")
rng = np.random.default_rng(0)

# %%
scores = rng.normal(size=16)                   # (16,) one query's scores over 16 keys
scales = np.array([0.25, 0.5, 1, 2, 4, 8])
largest_weight = []
for scale in scales:
    weights = np.exp(scale * scores - (scale * scores).max())
    weights /= weights.sum()                   # softmax, sums to 1
    largest_weight.append(weights.max())
largest_weight = np.array(largest_weight)

report.number("largest_weight_small_scale", largest_weight[0], "{:.2f}")
report.number("largest_weight_large_scale", largest_weight[-1], "{:.2f}")

# %%
# An example records no decision: "open" until the experiment above is yours.
report.claim("__CLAIM__", "open",
             en="Example experiment from the page template; it decides nothing yet.",
             zh="页面模板自带的示例实验，尚未判定任何论断。")

# %%
TEXT = {
    "en": {"x": "scale of the scores", "y": "largest softmax weight",
           "alt": "The largest softmax weight rises towards 1 as the scores are scaled up."},
    "zh": {"x": "分数的缩放倍数", "y": "softmax 最大权重",
           "alt": "分数放大时，softmax 的最大权重逐渐升向 1。"},
}
for lang in LANGS:
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.plot(scales, largest_weight, marker="o")
    ax.set_xscale("log", base=2)
    ax.set_xlabel(TEXT[lang]["x"])
    ax.set_ylabel(TEXT[lang]["y"])
    fig.tight_layout()
    report.figure("example", fig, lang, alt=TEXT[lang]["alt"])

report.save()
