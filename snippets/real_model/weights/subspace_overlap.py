# %% [markdown]
# # Do the heads match in subspaces of their own?
#
# Source A sums up multi-head attention as heads that look for their best
# matches "in subspaces that do not interfere". What a head matches on is its
# bilinear form: it scores query token i against key token j by
# x_i W_Q W_Kᵀ x_jᵀ (biases aside), and W_Q W_Kᵀ has rank 32. We compute each
# form on the covariance Σ of the layer's input (MiniLM normalises after each
# block, so that input is layer-normed): in coordinates where the input is
# white, the form is M = Σ^{1/2} W_Q W_Kᵀ Σ^{1/2}, and its SVD M = U S Vᵀ gives
# the directions the query reads (U), those the key reads (V), and how much
# each pair of directions moves the scores on real inputs (S). The overlap of
# two heads, on each side, is the mean squared cosine of the principal angles
# between their directions, each direction weighted by its singular value; a
# pair's overlap is the mean of the query side and the key side
# (explainer/bilinear_forms.py).

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import os

os.environ["HF_HUB_OFFLINE"] = "1"

import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, column_figure
from explainer.report import Report

report = Report("real_model.weights.subspace_overlap")

# %% tags=["forms"]
from explainer.bilinear_forms import form_overlap, head_forms
from explainer.minilm import MiniLM, Tokenizer, run_sentences
from explainer.sample_sentences import SENTENCES
from explainer.subspaces import covariance_root
import numpy as np
import torch

torch.set_num_threads(1)
model = MiniLM.from_pretrained()
config = model.config
C, H = config.d_model, config.n_heads
hs = C // H                                                   # 32 dimensions per head
sample = run_sentences(model, Tokenizer(), SENTENCES)
PAIRS = [(a, b) for a in range(H) for b in range(a + 1, H)]   # 66 pairs of heads in a layer


def layer_forms(layer):
    """The layer's heads as forms on its input covariance: U, V (H, C, hs), s (H, hs); and Σ^{1/2}."""
    x = torch.cat([out.hidden_states[layer][0] for out in sample])       # (N, C): the layer's input
    root = covariance_root(x)                                            # Σ^{1/2}, (C, C)
    attention = model.layers[layer].attention
    w_q = attention.W_Q.weight.detach().double().view(H, hs, C).transpose(1, 2)   # (H, C, hs)
    w_k = attention.W_K.weight.detach().double().view(H, hs, C).transpose(1, 2)
    return head_forms(w_q, w_k, root), root


def pair_overlaps(U, s, V):
    """(66,) the overlap of every pair of heads of one layer."""
    return torch.stack([form_overlap((U[a], s[a], V[a]), (U[b], s[b], V[b])) for a, b in PAIRS])


# %% [markdown]
# ## The null: random heads with the same singular values
#
# A random head has random W_Q and W_K (isotropic Gaussian); its form is
# computed on the same covariance, so its directions follow the input's
# variance just as a trained head's would. For each pair of heads, the null
# gives a pair of random heads the pair's own singular values: 1,000 random
# heads per layer, paired k with k + 1.

# %% tags=["null"]
from explainer.bilinear_forms import weighted_mean

N_RANDOM = 1000
generator = torch.Generator().manual_seed(0)
partner = torch.roll(torch.arange(N_RANDOM), -1)              # random pair k: heads k and k + 1


def random_heads(root):
    """N_RANDOM random heads' directions on the covariance: U, V (N_RANDOM, C, hs)."""
    shape = (N_RANDOM, C, hs)
    U, _, V = head_forms(torch.randn(shape, generator=generator, dtype=torch.float64),
                         torch.randn(shape, generator=generator, dtype=torch.float64), root)
    return U, V


def null_overlaps(U_r, V_r, s):
    """(66, N_RANDOM): per pair (a, b), the overlap of random pairs given a's and b's singular values."""
    cos2_q = (U_r.transpose(1, 2) @ U_r[partner]).pow(2)    # (N_RANDOM, hs, hs)
    cos2_k = (V_r.transpose(1, 2) @ V_r[partner]).pow(2)
    return torch.stack([(weighted_mean(cos2_q, s[a], s[b]) + weighted_mean(cos2_k, s[a], s[b])) / 2
                        for a, b in PAIRS])


# %% [markdown]
# ## Could the test see a shared subspace? A planted pair
#
# A refutation needs a check that the test detects the effect it denies.
# We plant it: a pair of random heads from the null, whose second head's top 4
# query directions and top 4 key directions are replaced by the first head's.

# %% tags=["planted"]
from explainer.bilinear_forms import share_top

SHARED, N_PLANTED = 4, 200                                    # shared directions; draws per layer


def planted_overlaps(U_r, V_r, s):
    """N_PLANTED planted pairs: which pair of the layer lends its singular values, and the overlap."""
    pick = torch.randint(len(PAIRS), (N_PLANTED,), generator=generator)
    first = torch.randint(N_RANDOM, (N_PLANTED,), generator=generator)
    second = partner[first]
    s_a = s[[PAIRS[p][0] for p in pick]]                      # (N_PLANTED, hs)
    s_b = s[[PAIRS[p][1] for p in pick]]
    U_b = share_top(U_r[first], U_r[second], SHARED)         # the second head's top 4: the first's
    V_b = share_top(V_r[first], V_r[second], SHARED)
    return pick, form_overlap((U_r[first], s_a, V_r[first]), (U_b, s_b, V_b))


# %% [markdown]
# ## Every layer
#
# A pair reads apart when its overlap is at or below its null's median, and
# together when it is above the null's 95th percentile.

# %% tags=["measure"]
overlaps, medians, tops, planted, planted_tops, top_shares = [], [], [], [], [], []
for layer in range(config.n_layers):
    (U, s, V), root = layer_forms(layer)
    overlaps.append(pair_overlaps(U, s, V))                   # (66,)
    U_r, V_r = random_heads(root)
    median, top = np.percentile(null_overlaps(U_r, V_r, s).numpy(), [50, 95], axis=1)   # (66,) each
    medians.append(median)
    tops.append(top)
    pick, planted_overlap = planted_overlaps(U_r, V_r, s)
    planted.append(planted_overlap)
    planted_tops.append(top[pick])
    top_shares.append(s[:, :SHARED].sum(1) / s.sum(1))        # (H,) weight of the top 4 directions
overlaps, medians, tops = torch.cat(overlaps).numpy(), np.concatenate(medians), np.concatenate(tops)
planted, planted_tops = torch.cat(planted).numpy(), np.concatenate(planted_tops)
apart, together = overlaps <= medians, overlaps > tops          # (396,) each
detected = planted > planted_tops
print(f"{len(overlaps)} pairs: {apart.mean():.2f} read apart, {together.mean():.2f} together; "
      f"median overlap {np.median(overlaps):.2f}, null median {np.median(medians):.2f}, "
      f"95th {np.median(tops):.2f}; planted pairs read together in {detected.mean():.1%}")

# %%
n_tokens = sum(out.hidden_states[0].shape[1] for out in sample)
report.number("n_tokens", n_tokens, "{:.0f}", kind="count")
report.number("pairs", len(overlaps), "{:.0f}", kind="count")
report.number("apart_share", apart.mean(), "{:.0%}", kind="share")
report.number("together_share", together.mean(), "{:.0%}", kind="share")
report.number("overlap_median", np.median(overlaps), "{:.2f}")
report.number("null_median", np.median(medians), "{:.2f}")
report.number("null_p95", np.median(tops), "{:.2f}")
report.number("n_random_heads", N_RANDOM, "{:.0f}", kind="count")
report.number("shared_directions", SHARED, "{:.0f}", kind="count")
report.number("n_planted", len(planted), "{:.0f}", kind="count")
report.number("planted_detection_share", detected.mean(), "{:.1%}", kind="share")
report.number("planted_overlap_median", np.median(planted), "{:.2f}")
report.number("top_weight_share", float(torch.cat(top_shares).median()), "{:.0%}", kind="share")
# How most pairs of heads read (at least 3/4 of them), for the page to word.
report.category("outcome", "apart" if apart.mean() >= 0.75 else "together" if together.mean() >= 0.75 else "neither")

# %% [markdown]
# ## Figure

# %%
TEXT = report.figure_text()   # the figures' words: subspace_overlap.strings.toml
neither = ~apart & ~together
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = column_figure(height=4.2)
    ax.plot(planted_tops, planted, "x", ms=3, color="#bbbbbb", label=text["planted"])
    for mask, colour, key in ((together, "#d95f02", "together"), (apart, "#1b9e77", "apart"),
                              (neither, "#7570b3", "neither")):
        ax.plot(tops[mask], overlaps[mask], "o", ms=3, alpha=0.8, color=colour, label=text[key])
    line = [0, max(overlaps.max(), planted.max()) * 1.05]
    ax.plot(line, line, color="#555555", lw=1)
    ax.set_xlim(min(tops.min(), planted_tops.min()) * 0.9, tops.max() * 1.05)
    ax.set_ylim(0, line[1])
    ax.set_xlabel(text["x"], fontsize=10)
    ax.set_ylabel(text["y"], fontsize=10)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="upper left")
    report.figure("pairs_against_null", fig, lang, alt=text["alt"].format(together=together.mean()),
                  caption=text["caption"])

report.save()
