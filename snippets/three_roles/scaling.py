# %% [markdown]
# # Why divide by √d_k?
#
# Attention divides every score q·k by √d_k before the softmax. One common
# explanation says this "prevents the gradients from exploding". Here we
# measure, for d_k from 1 to 1024, what the division changes: the spread of
# the scores, how peaked the softmax becomes, and how much gradient gets
# back through the softmax to the scores and to the query. The claim's own
# test, with 16 and 128 keys and the gradient through real values, is
# `three_roles.scaling.keys_16_128`.
#
# The setting is the one of the original paper's footnote: the components of
# q and k are independent, with mean 0 and variance 1 (roughly what a layer
# norm followed by a standard initialisation gives).

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
from explainer.plotting import LANGS, column_figure, plain_log_ticks
from explainer.report import Report

report = Report("three_roles.scaling")

# %% tags=["setup"]
import numpy as np

rng = np.random.default_rng(0)

SEQUENCES, T = 64, 32          # 64 sequences of 32 tokens: 2048 query rows per d_k
D_K = [2 ** i for i in range(11)]  # 1, 2, 4, ..., 1024


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def entropy(p):
    """Entropy in nats of each row; ln T for a uniform row, 0 for a one-hot row."""
    return -(p * np.log(np.where(p > 0, p, 1.0))).sum(axis=-1)


# %% [markdown]
# ## One measurement per d_k, with and without the division
#
# The backward pass of a softmax: if p = softmax(z) and the loss sends back
# g = ∂L/∂p, then ∂L/∂z = p ⊙ (g − p·g). When p is nearly one-hot this is
# nearly zero whatever g is. We send back a random g (what a random value
# vector and a random error at the output would give) and measure the
# gradient norm per query row, at the softmax input and at the query vector.

# %% tags=["measure"]
stats = {"raw": {}, "scaled": {}}
for d_k in D_K:
    q = rng.standard_normal((SEQUENCES, T, d_k))      # (B, T, d_k)
    k = rng.standard_normal((SEQUENCES, T, d_k))      # (B, T, d_k)
    g = rng.standard_normal((SEQUENCES, T, T))        # (B, T, T): dL/dp from upstream
    scores = q @ k.transpose(0, 2, 1)                 # (B, T, T): q·k
    for variant, scale in (("raw", 1.0), ("scaled", 1 / np.sqrt(d_k))):
        z = scores * scale                            # (B, T, T): the softmax input
        p = softmax(z)                                # (B, T, T), rows sum to 1
        grad_z = p * (g - (p * g).sum(axis=-1, keepdims=True))  # (B, T, T): dL/dz
        grad_q = (grad_z * scale) @ k                 # (B, T, d_k): dL/dq
        row_grad_z = np.linalg.norm(grad_z, axis=-1).ravel()  # (B*T,)
        row_grad_q = np.linalg.norm(grad_q, axis=-1).ravel()  # (B*T,)
        for name, value in [
            ("variance", z.var()),
            ("largest_weight", p.max(axis=-1).mean()),
            ("entropy", entropy(p).mean()),
            ("grad_softmax_median", np.median(row_grad_z)),
            ("grad_softmax_p10", np.percentile(row_grad_z, 10)),
            ("grad_softmax_p90", np.percentile(row_grad_z, 90)),
            ("dead_rows", np.mean(row_grad_z < 1e-3)),
            ("grad_query_median", np.median(row_grad_q)),
            ("grad_query_mean", row_grad_q.mean()),
            ("grad_query_p99", np.percentile(row_grad_q, 99)),
        ]:
            stats[variant].setdefault(name, []).append(float(value))
stats = {v: {name: np.array(values) for name, values in s.items()} for v, s in stats.items()}
raw, scaled = stats["raw"], stats["scaled"]
for i, d_k in enumerate(D_K):
    print(f"d_k={d_k:5d}  var raw {raw['variance'][i]:8.1f}  scaled {scaled['variance'][i]:.2f}"
          f"  | max weight {raw['largest_weight'][i]:.2f} / {scaled['largest_weight'][i]:.2f}"
          f"  | median grad {raw['grad_softmax_median'][i]:.1e} / {scaled['grad_softmax_median'][i]:.1e}")

# %% [markdown]
# ## 1. The spread of the scores
#
# q·k is a sum of d_k products of unit variance, so its variance should be
# d_k. A straight line on log-log axes with slope 1 says exactly that.

# %% tags=["variance"]
slope, intercept = np.polyfit(np.log(D_K), np.log(raw["variance"]), 1)
print(f"log-log slope of the variance against d_k: {slope:.3f}")
print(f"divided by sqrt(d_k): variance between {scaled['variance'].min():.2f} and {scaled['variance'].max():.2f}")

# %%
report.number("sequences", SEQUENCES, "{:.0f}", kind="count")
report.number("sequence_length", T, "{:.0f}", kind="count")
report.number("query_rows", SEQUENCES * T, "{:.0f}", kind="count")
report.number("variance_slope", slope, "{:.3f}")
report.number("variance_raw_1024", raw["variance"][-1], "{:.0f}")
report.number("variance_scaled_min", scaled["variance"].min(), "{:.2f}")
report.number("variance_scaled_max", scaled["variance"].max(), "{:.2f}")

# %% [markdown]
# ## 2. How peaked the softmax becomes

# %% tags=["saturation"]
for variant, s in stats.items():
    print(f"{variant:6s}  d_k = 1024: largest weight {s['largest_weight'][-1]:.2f}, "
          f"entropy {s['entropy'][-1]:.2f} nats (even spread: {np.log(T):.2f})")

# %%
report.number("uniform_entropy", np.log(T), "{:.2f}")
report.number("largest_weight_raw_1024", raw["largest_weight"][-1], "{:.2f}")
report.number("entropy_raw_1024", raw["entropy"][-1], "{:.2f}")
report.number("largest_weight_scaled_1024", scaled["largest_weight"][-1], "{:.2f}")
report.number("entropy_scaled_1024", scaled["entropy"][-1], "{:.2f}")
report.number("largest_weight_scaled_min", scaled["largest_weight"].min(), "{:.2f}")
report.number("largest_weight_scaled_max", scaled["largest_weight"].max(), "{:.2f}")

# %% [markdown]
# ## 3. How much gradient gets back

# %% tags=["gradients"]
# Median gradient through the softmax at d_k = 1024, undivided over divided.
collapse = raw["grad_softmax_median"][-1] / scaled["grad_softmax_median"][-1]
# Its 99th percentile at the query: the few rows whose two best keys nearly tie.
tail_ratio = raw["grad_query_p99"][-1] / scaled["grad_query_p99"][-1]
# The weight matrices receive the *sum* over rows, so the mean matters for them.
# Does it keep growing with d_k? Slope on log-log axes over d_k >= 32;
# growth like sqrt(d_k), the length of the keys, would be a slope of 0.5.
upper = np.array(D_K) >= 32
mean_slope = np.polyfit(np.log(np.array(D_K)[upper]), np.log(raw["grad_query_mean"][upper]), 1)[0]
print(f"d_k = 1024, undivided / divided: median gradient through the softmax {collapse:.1e}, "
      f"99th percentile at the query {tail_ratio:.0f}")
print(f"log-log slope of the mean gradient at the query, undivided, d_k >= 32: {mean_slope:.2f}")

# %%
report.number("grad_softmax_raw_1", raw["grad_softmax_median"][0], "{:.2f}")
report.number("grad_softmax_raw_1024", raw["grad_softmax_median"][-1], "{:.2g}")
report.number("dead_rows_raw_1024", raw["dead_rows"][-1], "{:.0%}")
report.number("grad_query_raw_1024", raw["grad_query_median"][-1], "{:.2g}")
report.number("grad_query_mean_raw_32", raw["grad_query_mean"][D_K.index(32)], "{:.2f}")
report.number("grad_query_mean_raw_1024", raw["grad_query_mean"][-1], "{:.2f}")
report.number("grad_query_p99_raw_1024", raw["grad_query_p99"][-1], "{:.2f}")
report.number("grad_softmax_scaled_1", scaled["grad_softmax_median"][0], "{:.2f}")
report.number("grad_softmax_scaled_1024", scaled["grad_softmax_median"][-1], "{:.2g}")
report.number("dead_rows_scaled_1024", scaled["dead_rows"][-1], "{:.0%}")
report.number("grad_query_scaled_1024", scaled["grad_query_median"][-1], "{:.2g}")
report.number("grad_query_mean_scaled_32", scaled["grad_query_mean"][D_K.index(32)], "{:.2f}")
report.number("grad_query_mean_scaled_1024", scaled["grad_query_mean"][-1], "{:.2f}")
report.number("grad_query_p99_scaled_1024", scaled["grad_query_p99"][-1], "{:.2f}")
report.number("grad_softmax_ratio_1024", collapse, "{:.1e}")
report.number("grad_softmax_scaled_spread",
              scaled["grad_softmax_median"].max() / scaled["grad_softmax_median"].min(), "{:.2f}")
report.number("grad_query_p99_ratio_1024", tail_ratio, "{:.0f}")
report.number("grad_query_mean_slope", mean_slope, "{:.2f}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["no_division_256"]
# Exercise 1: the `measure` cell's "raw" variant drops the division (scale 1.0, not
# 1 / np.sqrt(d_k)). Largest weight in a row at d_k = 256, on average?
i256 = D_K.index(256)
print(f"d_k = 256: largest weight {raw['largest_weight'][i256]:.2f} undivided, "
      f"{scaled['largest_weight'][i256]:.2f} divided")

# %% tags=["divide_by_d_k"]
# Exercise 2: in the `measure` cell, the "scaled" variant's scale 1 / d_k instead of
# 1 / np.sqrt(d_k). The loop ended at d_k = 1024, so `scores` still holds that run's q·k.
over = softmax(scores * (1 / d_k))                    # (B, T, T)
print(f"d_k = 1024, divided by d_k: largest weight {over.max(axis=-1).mean():.3f}, "
      f"entropy {entropy(over).mean():.2f} nats")

# %%
report.number("exercise_largest_weight_raw_256", raw["largest_weight"][i256], "{:.2f}")
report.number("exercise_largest_weight_scaled_256", scaled["largest_weight"][i256], "{:.2f}")
report.number("exercise_divide_by_d_k_largest_weight", over.max(axis=-1).mean(), "{:.3f}")
report.number("exercise_divide_by_d_k_entropy", entropy(over).mean(), "{:.2f}")

# %% [markdown]
# ## Figures

# %%
TEXT = report.figure_text()   # the figures' words: scaling.strings.toml
CAPTIONS = {lang: TEXT[lang]["captions"] for lang in TEXT}   # its inline table "captions"
COLORS = {"raw": "#d95f02", "scaled": "#1b9e77"}
D_K_LABEL = "dₖ"

for lang in LANGS:
    text = TEXT[lang]
    fig, ax = column_figure(height=4, width=5.6)
    for variant in ("raw", "scaled"):
        ax.loglog(D_K, stats[variant]["variance"], "o-", color=COLORS[variant], base=2,
                  label=text[variant])
    ax.loglog(D_K, np.exp(intercept) * np.array(D_K, float) ** slope, ":", color="grey", base=2,
              label=text["slope"].format(slope))
    ax.set_xlabel(D_K_LABEL)
    ax.set_ylabel(text["variance"])
    plain_log_ticks(ax.xaxis, D_K[::2])
    plain_log_ticks(ax.yaxis, D_K[::2])
    ax.legend()
    report.figure("variance", fig, lang, alt=text["variance_alt"], caption=CAPTIONS[lang]["variance"])

    # Stacked, sharing the d_k axis: each panel gets the column's full width.
    fig, (top, bottom) = column_figure(height=6, nrows=2, width=6, sharex=True)
    for variant in ("raw", "scaled"):
        top.semilogx(D_K, stats[variant]["largest_weight"], "o-", base=2,
                     color=COLORS[variant], label=text[variant])
        bottom.semilogx(D_K, stats[variant]["entropy"], "o-", base=2, color=COLORS[variant],
                        label=text[variant])
    bottom.axhline(np.log(T), color="grey", ls=":", label=text["uniform"].format(T))
    top.set_ylim(0, 1)
    bottom.set_ylim(0, np.log(T) * 1.1)
    top.set_ylabel(text["largest"])
    bottom.set_ylabel(text["entropy"])
    bottom.set_xlabel(D_K_LABEL)
    plain_log_ticks(bottom.xaxis, D_K[::2])
    top.legend()
    bottom.legend()
    report.figure("softmax", fig, lang, alt=text["softmax_alt"], caption=CAPTIONS[lang]["softmax"])

    fig, (top, bottom) = column_figure(height=7, nrows=2, width=6, sharex=True)
    for variant in ("raw", "scaled"):
        s = stats[variant]
        top.fill_between(D_K, s["grad_softmax_p10"], s["grad_softmax_p90"],
                         color=COLORS[variant], alpha=0.2)
        top.loglog(D_K, s["grad_softmax_median"], "o-", base=2, color=COLORS[variant],
                   label=f"{text[variant]}{text['sep']}{text['median']}")
        bottom.loglog(D_K, s["grad_query_median"], "o-", base=2, color=COLORS[variant],
                      label=f"{text[variant]}{text['sep']}{text['median']}")
        bottom.loglog(D_K, s["grad_query_mean"], "^--", base=2, color=COLORS[variant],
                      label=f"{text[variant]}{text['sep']}{text['mean']}")
    top.fill_between([], [], [], color="grey", alpha=0.2, label=text["band"])
    top.set_title(text["grad_softmax"])
    bottom.set_title(text["grad_query"])
    for ax in (top, bottom):
        ax.set_yscale("log")  # base 10: the raw curve falls by orders of magnitude
        plain_log_ticks(ax.yaxis)
        ax.legend(loc="lower left")
    bottom.set_xlabel(D_K_LABEL)
    plain_log_ticks(bottom.xaxis, D_K[::2])
    report.figure("gradients", fig, lang, alt=text["gradients_alt"].format(collapse=collapse),
                  caption=CAPTIONS[lang]["gradients"].format(collapse=collapse, tail=tail_ratio,
                                                             dead=stats["raw"]["dead_rows"][-1]))

report.save()
