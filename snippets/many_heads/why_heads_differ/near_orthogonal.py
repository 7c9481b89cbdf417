# %% [markdown]
# # Why heads differ (2): random vectors in high dimension are nearly orthogonal
#
# Draw two random Gaussian vectors in d dimensions and take their cosine.
# Its typical size shrinks like 1/sqrt(d): for large d, E|cos| -> sqrt(2/(pi d)).
# We measure it for d = 2 ... 4096, then look at what it means for two heads
# of a freshly initialised attention layer. Whether that is what keeps trained
# heads apart (C10) is measured in pull_together.py.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plain_log_ticks, plt
from explainer.report import Report

report = Report("many_heads.why_heads_differ.near_orthogonal")

# %% tags=["random_cosines"]
import numpy as np

rng = np.random.default_rng(0)
dims = 2 ** np.arange(1, 13)           # 2, 4, ..., 4096
pairs = 2000
mean_abs_cos, theory = [], []
for d in dims:
    a = rng.standard_normal((pairs, d))
    b = rng.standard_normal((pairs, d))
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))  # (pairs,)
    mean_abs_cos.append(np.abs(cos).mean())
    theory.append(np.sqrt(2 / (np.pi * d)))
    print(f"d = {d:>4}: mean |cos| = {mean_abs_cos[-1]:.4f}   sqrt(2/(pi d)) = {theory[-1]:.4f}")
mean_abs_cos, theory = np.array(mean_abs_cos), np.array(theory)

# Slope of log E|cos| against log d: -0.5 means "like 1/sqrt(d)".
slope = np.polyfit(np.log(dims), np.log(mean_abs_cos), 1)[0]
print(f"slope of log mean |cos| against log d: {slope:.3f}")

# %%
report.number("slope", slope, "{:.3f}")
report.number("cos_d2", mean_abs_cos[0], "{:.2f}")
report.number("cos_d64", mean_abs_cos[list(dims).index(64)], "{:.3f}")
report.number("cos_d512", mean_abs_cos[list(dims).index(512)], "{:.3f}")
report.number("cos_d4096", mean_abs_cos[-1], "{:.4f}")
report.number("max_ratio_to_theory", np.abs(mean_abs_cos / theory - 1)[2:].max(), "{:.3f}")

# %% [markdown]
# ## Two heads of a fresh layer
#
# d_model = 512, 8 heads: each head's W_Q slice is 64 x 512 = 32,768 numbers.
# Flatten the slices and compare heads pairwise; then compare the queries the
# heads make of the same token.

# %% tags=["fresh_layer"]
import torch

from explainer.attention import AttentionConfig, MultiHeadAttention

torch.set_num_threads(1)
torch.manual_seed(0)
attention = MultiHeadAttention(AttentionConfig(d_model=512, n_heads=8))
hs = attention.head_size
slices = attention.W_Q.weight.detach().view(8, hs, 512).flatten(1)        # (nh, hs*C)
slices = torch.nn.functional.normalize(slices, dim=1)
slice_cos = slices @ slices.T                                              # (nh, nh)
off_diagonal = slice_cos[~torch.eye(8, dtype=torch.bool)]
tokens = torch.randn(1000, 512)                                            # (N, C)
with torch.no_grad():
    queries = attention.W_Q(tokens).view(1000, 8, hs)                      # (N, nh, hs)
# Cosine between what head 0 and head 1 ask of the same token, both 64-dim.
query_cos = torch.cosine_similarity(queries[:, 0], queries[:, 1], dim=-1)
print(f"largest |cos| between two heads' W_Q slices: {off_diagonal.abs().max():.3f}")
print(f"mean |cos| between two heads' queries of the same token: {query_cos.abs().mean():.3f} "
      f"(sqrt(2/(pi d)) for d = {hs}: {np.sqrt(2 / (np.pi * hs)):.3f})")

# %%
report.number("slice_cos_max", off_diagonal.abs().max(), "{:.3f}")
report.number("query_cos_mean_abs", query_cos.abs().mean(), "{:.3f}")
report.number("query_cos_theory", np.sqrt(2 / (np.pi * hs)), "{:.3f}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["d_16384"]
# Exercise 1: go far beyond the figure, to d = 16384. Predict the mean |cos| from
# sqrt(2/(pi d)) first, then measure it (2000 pairs, 500 at a time to keep memory small).
d_big = 16384                                                               # was: d in dims
cos_big = []
for _ in range(4):
    a = rng.standard_normal((500, d_big), dtype=np.float32)
    b = rng.standard_normal((500, d_big), dtype=np.float32)
    cos_big.append((a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)))  # (500,)
print(f"d = {d_big}: mean |cos| = {np.abs(np.concatenate(cos_big)).mean():.4f}   "
      f"sqrt(2/(pi d)) = {np.sqrt(2 / (np.pi * d_big)):.4f}")

# %%
report.number("exercise_cos_d16384", np.abs(np.concatenate(cos_big)).mean(), "{:.4f}")
report.number("exercise_cos_d16384_theory", np.sqrt(2 / (np.pi * d_big)), "{:.4f}")

# %% [markdown]
# ## Figure

# %%
TEXT = report.figure_text()   # the figures' words: near_orthogonal.strings.toml
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(dims, theory, color="grey", lw=1, label=text["theory"])
    ax.loglog(dims, mean_abs_cos, "o", color="#d95f02", label=text["measured"])
    ax.set_xscale("log", base=2)
    plain_log_ticks(ax.xaxis)  # 4, 16, 64, not 2² with a tiny exponent
    ax.yaxis.set_minor_formatter(plt.NullFormatter())
    ax.set_yticks([0.01, 0.03, 0.1, 0.3], ["0.01", "0.03", "0.1", "0.3"])
    ax.set_xlabel(text["d"])
    ax.set_ylabel(text["cos"])
    ax.legend(fontsize=10)
    fig.tight_layout()
    report.figure("cosine_vs_dimension", fig, lang, alt=text["alt"], caption=text["caption"])

report.save()
