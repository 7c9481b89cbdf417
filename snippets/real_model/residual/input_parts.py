# %% [markdown]
# # V and the residual stream (4): what does the next layer read?
#
# Source B's postscript says the values are handed on, embedding → layer-1 V →
# layer-2 V → … (C29). But no layer reads the previous layer's values: each
# reads the previous layer's output. In MiniLM we split that output into what
# made it, and measure each part's share. The snippet records numbers; the rules
# that turn them into verdicts are in docs/claims.yml.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report

report = Report("real_model.residual.input_parts")

# %% tags=["model"]
from explainer.minilm import MiniLM, Tokenizer, run_sentences   # first: it pins torch's CPU kernels
from explainer.sample_sentences import SENTENCES
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()       # all-MiniLM-L6-v2, weights on disk
L = model.config.n_layers
trained = run_sentences(model, tokenizer, SENTENCES)           # hidden states of every sentence
print(f"{L} layers; {len(SENTENCES)} sample sentences")

# %% [markdown]
# ## What does the next layer read?
#
# A BERT block is x₁ = LN₁(x + attention(x)), then x₂ = LN₂(x₁ + FFN(x₁)); x₂
# is the next layer's input. LayerNorm subtracts the mean and divides by one
# number per token, so x₂ splits *exactly* into four parts: what came in (x),
# the attention output (the heads' weighted sums of values, through W_O), the
# feed-forward output, and LN₁'s offset β₁ — plus LN₂'s own offset β₂. Each
# part's share is its projection onto x₂ − β₂; the four shares add up to 1.

# %% tags=["input_shares"]
def input_shares(block, x):
    """x (B, T, C) -> share of x2 - beta2 (summed over tokens) from the residual, attention,
    feed-forward and LN1-offset parts, in that order; and the largest difference between
    the rebuilt x2 and the block's own output (a check on the split)."""
    ln1, ln2 = block.ln_attention, block.ln_feed_forward
    with torch.no_grad():
        a = block.attention(x)                                             # (B, T, C)
        h = x + a
        sigma1 = (h.var(-1, unbiased=False, keepdim=True) + ln1.eps).sqrt()  # (B, T, 1)
        centre = lambda v: v - v.mean(-1, keepdim=True)
        residual, attended = ln1.weight * centre(x) / sigma1, ln1.weight * centre(a) / sigma1
        offset = ln1.bias.expand_as(x)
        x1 = residual + attended + offset                                  # = LN1(x + a)
        f = block.feed_forward(x1)
        s = x1 + f
        sigma2 = (s.var(-1, unbiased=False, keepdim=True) + ln2.eps).sqrt()
        x2 = ln2.weight * centre(s) / sigma2                               # = LN2(s) - beta2
        parts = [ln2.weight * centre(p) / sigma2 for p in (residual, attended, f, offset)]
        error = float((x2 + ln2.bias - block(x)).abs().max())
        total = (x2 * x2).sum()
        return np.array([float((p * x2).sum() / total) for p in parts]), error


shares = np.zeros((L, 4))                                                  # (L, [residual, attention, ffn, offset])
n_total = sum(o.hidden_states[0].shape[1] for o in trained)
split_error = 0.0
for out in trained:
    weight = out.hidden_states[0].shape[1] / n_total    # sentences weighted by their tokens
    for layer, block in enumerate(model.layers):
        share, error = input_shares(block, out.hidden_states[layer])
        shares[layer] += weight * share
        split_error = max(split_error, error)
print("layer  residual  attention  feed-forward  offset")
for layer in range(L):
    print(f"{layer + 1:5d}" + "".join(f"{value:>10.1%}" for value in shares[layer]))
print(f"largest difference between the four parts' sum and the output: {split_error:.1e}")

# %%
report.number("split_error", split_error, "{:.1e}")
report.number("residual_share_layer1", shares[0, 0], "{:.0%}")
report.number("residual_share_layer2", shares[1, 0], "{:.0%}")
report.number("residual_share_layer3", shares[2, 0], "{:.0%}")
report.number("residual_share_layer4", shares[3, 0], "{:.0%}")
report.number("residual_share_layer5", shares[4, 0], "{:.0%}")
report.number("residual_share_layer6", shares[5, 0], "{:.0%}")
report.number("residual_share_mean", shares[:, 0].mean(), "{:.0%}")
report.number("attention_share_layer1", shares[0, 1], "{:.0%}")
report.number("attention_share_layer2", shares[1, 1], "{:.0%}")
report.number("attention_share_layer3", shares[2, 1], "{:.0%}")
report.number("attention_share_layer4", shares[3, 1], "{:.0%}")
report.number("attention_share_layer5", shares[4, 1], "{:.0%}")
report.number("attention_share_layer6", shares[5, 1], "{:.0%}")
report.number("attention_share_mean", shares[:, 1].mean(), "{:.0%}")
report.number("ffn_share_layer1", shares[0, 2], "{:.0%}")
report.number("ffn_share_layer2", shares[1, 2], "{:.0%}")
report.number("ffn_share_layer3", shares[2, 2], "{:.0%}")
report.number("ffn_share_layer4", shares[3, 2], "{:.0%}")
report.number("ffn_share_layer5", shares[4, 2], "{:.0%}")
report.number("ffn_share_layer6", shares[5, 2], "{:.0%}")
report.number("ffn_share_mean", shares[:, 2].mean(), "{:.0%}")
report.number("offset_share_layer1", shares[0, 3], "{:.0%}")
report.number("offset_share_layer2", shares[1, 3], "{:.0%}")
report.number("offset_share_layer3", shares[2, 3], "{:.0%}")
report.number("offset_share_layer4", shares[3, 3], "{:.0%}")
report.number("offset_share_layer5", shares[4, 3], "{:.0%}")
report.number("offset_share_layer6", shares[5, 3], "{:.0%}")
report.number("offset_share_mean", shares[:, 3].mean(), "{:.0%}")
report.number("attention_share_min", shares[:, 1].min(), "{:.0%}")
report.number("attention_share_max", shares[:, 1].max(), "{:.0%}")
report.number("residual_largest_layers", (shares[:, 0] >= shares.max(axis=1)).sum(), "{:.0f}")
report.number("attention_above_residual_layers", (shares[:, 1] > shares[:, 0]).sum(), "{:.0f}")


# %% [markdown]
# ## Figures

# %%
TEXT = report.figure_text()   # the figures' words: input_parts.strings.toml
PART_COLOURS = {"residual": "#440154", "attention": "#d95f02", "ffn": "#21918c", "offset": "#cccccc"}
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(5.6, 4.4))
    bottom_pos, bottom_neg = np.zeros(L), np.zeros(L)
    for j, part in enumerate(PART_COLOURS):
        height = shares[:, j]
        base = np.where(height >= 0, bottom_pos, bottom_neg)
        ax.bar(np.arange(1, L + 1), height, bottom=base, color=PART_COLOURS[part],
               label=text["parts"][part], edgecolor="white", linewidth=0.5)
        bottom_pos += np.clip(height, 0, None)
        bottom_neg += np.clip(height, None, 0)
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xlabel(text["layer"], fontsize=10)
    ax.set_ylabel(text["share"], fontsize=10)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    fig.tight_layout()
    report.figure("input_parts", fig, lang, alt=text["share_alt"], caption=text["share_caption"])

report.save()
