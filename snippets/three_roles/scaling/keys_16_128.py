# %% [markdown]
# # Why divide by √d_k? The claim's test: 16 and 128 keys, the gradient through real values
#
# In `three_roles.scaling` the error sent back to each weight was a random
# number. In a layer it is g·v_j: the error g arriving at the output, dotted
# with the value v_j the weight p_j multiplied. Scaled by 1/sqrt(d_v), it has
# unit variance. We repeat the measurement that way with 16 and with 128 keys per query (2,048 query rows each)
# and ask two questions at d_k = 1024:
#
# - explosion: is the mean gradient at the query, undivided, more than 10 times
#   the divided one?
# - vanishing: is the median gradient through the undivided softmax below 1 %
#   of the divided one?
#
# A test that says "no explosion" must be able to see one: the divided gradient
# multiplied by sqrt(d_k), a gradient that does grow with d_k, must read as one.

# %%
# Recording what the page cites (numbers): the build reads it; a reader may skip it.
from explainer.report import Report

report = Report("three_roles.scaling.keys_16_128")

# %%
# The softmax of the page's `setup` cell.
import numpy as np


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# %% tags=["keys_16_128"]
EXPLOSION, VANISHING = 10.0, 0.01   # the rule's thresholds (C05)
ROWS = 2048


def gradients_at_1024(n_keys, rng, d_k=1024):
    """Per variant: the median gradient through the softmax and the
    mean gradient at the query."""
    shape = (ROWS // n_keys, n_keys, d_k)               # (B, T, d_k)
    q = rng.standard_normal(shape)
    k = rng.standard_normal(shape)
    v = rng.standard_normal(shape)                      # d_v = d_k
    g_out = rng.standard_normal(shape)                  # dL/d(output)
    # dL/dp_j = g·v_j, scaled to unit variance: (B, T, T)
    g = g_out @ v.transpose(0, 2, 1) / np.sqrt(d_k)
    scores = q @ k.transpose(0, 2, 1)                   # (B, T, T)
    result = {}
    for variant, scale in (("raw", 1.0), ("scaled", 1 / np.sqrt(d_k))):
        p = softmax(scores * scale)
        grad_z = p * (g - (p * g).sum(axis=-1, keepdims=True))
        grad_q = (grad_z * scale) @ k                   # (B, T, d_k)
        result[variant] = {
            "softmax_median": np.median(np.linalg.norm(grad_z, axis=-1)),
            "query_mean": np.linalg.norm(grad_q, axis=-1).mean()}
    return result


keys_rng = np.random.default_rng(1)
by_keys = {}
for n_keys in (16, 128):
    r = gradients_at_1024(n_keys, keys_rng)
    undivided, divided = r["raw"], r["scaled"]
    explosion = undivided["query_mean"] / divided["query_mean"]
    vanishing = undivided["softmax_median"] / divided["softmax_median"]
    # Planted: the divided gradient times sqrt(d_k), same statistic.
    planted = divided["query_mean"] * np.sqrt(1024) / divided["query_mean"]
    by_keys[n_keys] = {"explosion": explosion, "vanishing": vanishing,
                       "planted": planted}
    print(f"{n_keys:>3} keys: explosion {explosion:.2f} (> {EXPLOSION:g}?), "
          f"vanishing {vanishing:.1e} (< {VANISHING:g}?), "
          f"planted {planted:.0f}")

# %%
report.number("explosion_ratio_keys16", by_keys[16]["explosion"], "{:.2f}")
report.number("vanishing_ratio_keys16", by_keys[16]["vanishing"], "{:.1e}")
report.number("planted_explosion_ratio_keys16", by_keys[16]["planted"], "{:.0f}")
report.number("explosion_ratio_keys128", by_keys[128]["explosion"], "{:.2f}")
report.number("vanishing_ratio_keys128", by_keys[128]["vanishing"], "{:.1e}")
report.number("planted_explosion_ratio_keys128", by_keys[128]["planted"], "{:.0f}")
report.number("explosion_threshold", EXPLOSION, "{:g}")
report.number("vanishing_threshold", VANISHING, "{:.0%}")

report.save()
