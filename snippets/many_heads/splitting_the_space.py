# %% [markdown]
# # Splitting the space: eight heads of 64 inside d_model = 512
#
# The project's `MultiHeadAttention` (snippets/explainer/attention.py) is
# followed shape by shape for d_model = 512 and h = 8 heads, checked against
# `torch.nn.MultiheadAttention` loaded with the same weights, and compared with
# a single head of 512 that uses *the very same matrices*.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, column_figure
from explainer.report import Report

report = Report("many_heads.splitting_the_space")

# %% tags=["setup"]
# The project's readable attention layer (snippets/explainer/attention.py). Imported
# before torch: explainer pins torch's CPU kernels, so every machine gets the same numbers.
from explainer.attention import AttentionConfig, MultiHeadAttention
import torch

torch.set_num_threads(1)
torch.manual_seed(0)

d_model, n_heads = 512, 8
d_k = d_model // n_heads          # 64 dimensions per head, for queries/keys and values
B, T = 2, 6                       # two sequences of six tokens
x = torch.randn(B, T, d_model)    # (B, T, C) token vectors

attention = MultiHeadAttention(AttentionConfig(d_model=d_model, n_heads=n_heads))
with torch.no_grad():
    # Weights with std 1/sqrt(d_model), so queries and keys have unit-size
    # entries and the attention patterns in the figure are not all flat.
    for projection in (attention.W_Q, attention.W_K, attention.W_V, attention.W_O):
        projection.weight.normal_(0.0, d_model ** -0.5)
print(f"{n_heads} heads of {d_k} inside d_model = {d_model}")

# %% [markdown]
# ## Shapes, step by step
#
# Each projection is one 512 x 512 matrix; "splitting" is only a reshape of
# its output: columns 0-63 belong to head 0, 64-127 to head 1, and so on.

# %% tags=["shapes"]
def show(name, tensor):
    print(f"{name:<34} {tuple(tensor.shape)}")


with torch.no_grad():
    show("x", x)                                   # (B, T, C)
    q_all = attention.W_Q(x)
    show("W_Q(x)", q_all)                          # (B, T, C)
    q = attention.split_heads(q_all)
    k = attention.split_heads(attention.W_K(x))
    v = attention.split_heads(attention.W_V(x))
    show("q, split into heads", q)                 # (B, nh, T, hs)
    head_scores = q @ k.transpose(-2, -1) / d_k ** 0.5
    show("scores, one T x T matrix per head", head_scores)  # (B, nh, T, T)
    head_weights = head_scores.softmax(dim=-1)
    heads = head_weights @ v
    show("each head's output", heads)              # (B, nh, T, hs)
    concat = heads.transpose(1, 2).reshape(B, T, d_model)
    show("heads concatenated", concat)             # (B, T, C)
    output = attention.W_O(concat)
    show("after W_O", output)                      # (B, T, C)

    fused = attention(x, fused=True)               # the module, fused kernel
    manual = attention(x)                          # the module, manual path (keeps its weights)
step_error = (output - manual).abs().max().item()
fused_error = (fused - manual).abs().max().item()
print(f"steps written out vs the module: {step_error:.1e}; fused vs manual: {fused_error:.1e}")

# %%
report.number("step_error", step_error, "{:.1e}")
report.number("fused_error", fused_error, "{:.1e}")

# %% [markdown]
# ## Same weights in torch.nn.MultiheadAttention
#
# PyTorch keeps W_Q, W_K, W_V stacked in one (3C, C) `in_proj_weight` and W_O
# as `out_proj`. Load ours key by key, asserting every shape, and compare.

# %% tags=["torch_reference"]
reference = torch.nn.MultiheadAttention(d_model, n_heads, bias=False, batch_first=True)
with torch.no_grad():
    stacked = torch.cat([attention.W_Q.weight, attention.W_K.weight, attention.W_V.weight])
    assert stacked.shape == reference.in_proj_weight.shape == (3 * d_model, d_model)
    reference.in_proj_weight.copy_(stacked)
    assert attention.W_O.weight.shape == reference.out_proj.weight.shape
    reference.out_proj.weight.copy_(attention.W_O.weight)
    torch_output, torch_weights = reference(x, x, x, average_attn_weights=False)
torch_error = (torch_output - manual).abs().max().item()
torch_weights_error = (torch_weights - attention.last_weights).abs().max().item()
print(f"largest difference from torch.nn.MultiheadAttention: output {torch_error:.1e}, "
      f"weights {torch_weights_error:.1e}")

# %%
report.number("torch_error", torch_error, "{:.1e}")
report.number("torch_weights_error", torch_weights_error, "{:.1e}")

# %% [markdown]
# ## Parameters: 8 heads of 64 cost what 1 head of 512 costs

# %% tags=["parameters"]
one_head = MultiHeadAttention(AttentionConfig(d_model=d_model, n_heads=1))


def parameter_count(module):
    return sum(p.numel() for p in module.parameters())


params_eight, params_one = parameter_count(attention), parameter_count(one_head)
params_torch = parameter_count(reference)
# One head's own share of W_Q: the 64 rows of the (out, in) weight that feed it.
params_per_head = attention.W_Q.weight[:d_k].numel()
print(f"8 heads of 64: {params_eight:,}; 1 head of 512: {params_one:,}; "
      f"torch.nn.MultiheadAttention: {params_torch:,}; one head's slice of W_Q: {params_per_head:,}")

# %%
report.number("params_eight_heads", params_eight, "{:,.0f}")
report.number("params_one_head", params_one, "{:,.0f}")
report.number("params_torch", params_torch, "{:,.0f}")
report.number("params_per_head_slice", params_per_head, "{:,.0f}")

# %% [markdown]
# ## What does change: how the scores are computed
#
# Give the single head the very same four matrices. Its score for a pair
# (t, s) is q·k over all 512 dimensions, which is the *sum* of the eight
# heads' 64-dimensional dot products. One head therefore gets one softmax over
# the summed score; eight heads get eight softmaxes over eight separate scores.

# %% tags=["one_softmax"]
with torch.no_grad():
    for mine, theirs in ((one_head.W_Q, attention.W_Q), (one_head.W_K, attention.W_K),
                         (one_head.W_V, attention.W_V), (one_head.W_O, attention.W_O)):
        mine.weight.copy_(theirs.weight)
    one_head_output = one_head(x)                             # (B, T, C)
    one_head_scores = q_all @ attention.W_K(x).transpose(-2, -1) / d_model ** 0.5  # (B, T, T)
# q·k over 512 dims = sum of the 8 per-head dot products; rescale sqrt(64) -> sqrt(512).
summed_scores = head_scores.sum(dim=1) * d_k ** 0.5 / d_model ** 0.5            # (B, T, T)
sum_error = (one_head_scores - summed_scores).abs().max().item()
relative_change = ((one_head_output - manual).norm() / manual.norm()).item()

one_head_weights = one_head.last_weights[0, 0]                # (T, T)
query = T - 1                                                 # the last token looks back
differing_argmax = (head_weights[0, :, query].argmax(-1) != head_weights[0, 0, query].argmax()).sum()
print(f"one head's score vs the eight heads' summed scores: {sum_error:.1e}")
print("favourite key of the last token, per head:", head_weights[0, :, query].argmax(-1).tolist(),
      " one head:", one_head_weights[query].argmax().item())
print(f"output, one head instead of eight (same weights): changes by {relative_change:.2f} of its norm")

# %%
report.number("sum_error", sum_error, "{:.1e}")
report.number("output_change", relative_change, "{:.2f}")
report.number("heads_with_other_favourite", differing_argmax, "{:.0f}")

# %% [markdown]
# ## Does a head see only part of the features?
#
# The split is of the *outputs* of W_Q, W_K, W_V: head h gets rows
# h·64 … h·64+63 of each (out, in) weight. Each of those rows still reads the
# whole token vector. Count, for every head, how many of the 512 input
# features its slice of W_Q reads (a non-zero weight in that input column).

# %% tags=["features_read"]
features_read = [int((attention.W_Q.weight[h * d_k:(h + 1) * d_k] != 0).any(dim=0).sum())
                 for h in range(n_heads)]                      # per head: inputs with a weight
print(f"input features each head's slice of W_Q reads: {features_read} (of {d_model})")

# %%
report.number("d_model", d_model, "{:.0f}")
report.number("input_features_read_per_head_min", min(features_read), "{:.0f}")

# %% [markdown]
# ## Putting the heads together: W_O in a trained model
#
# In concat @ W_O.T, head h's output meets only its own block of W_O: its input
# columns of the (out, in) weight. Read the blocks of the pretrained MiniLM (6 layers
# of 12 heads of 32): is one zero (its head never reaches the next layer), or does a
# row of one ignore its head (an output coordinate that does not depend on it)?

# %% tags=["wo_blocks"]
from explainer.minilm import MiniLM, Tokenizer, run_sentences
from explainer.sample_sentences import SENTENCES

minilm, tokenizer = MiniLM.from_pretrained(), Tokenizer()
L, H = minilm.config.n_layers, minilm.config.n_heads
hs = minilm.config.d_model // H


def head_blocks(W_O, n_heads):
    """Each head's block of W_O (out, in): its input columns, (nh, C_out, hs)."""
    C_out, C_in = W_O.shape
    return W_O.view(C_out, n_heads, C_in // n_heads).transpose(0, 1)


W_O_blocks = torch.stack([head_blocks(layer.attention.W_O.weight.detach(), H)
                          for layer in minilm.layers])              # (L, nh, C, hs)
block_norms = W_O_blocks.flatten(start_dim=2).norm(dim=-1)           # (L, nh)
zero_rows = int((W_O_blocks == 0).all(dim=-1).sum())                 # block rows that are all zero
print(f"norm of a head's block of W_O: smallest {block_norms.min():.2f}, largest {block_norms.max():.2f}")
print(f"rows of zeros in the {L * H} blocks: {zero_rows}")

# %% [markdown]
# How much does each head add? A head's contribution is its output times its
# block. The output's variance (summed over coordinates, on the sample sentences)
# is the heads' own variances plus their cross-covariances: a head's share is its
# own variance over the sum of the own ones; the cross-covariances come apart.

# %% tags=["variance_shares"]
outputs = run_sentences(minilm, tokenizer, SENTENCES)                # one EncoderOutput per sentence


def head_contributions(layer):
    """Each head's contribution to layer ``layer``'s attention output, all tokens: (nh, N, C)."""
    attention, parts = minilm.layers[layer].attention, []
    with torch.no_grad():
        for out in outputs:
            v = attention.split_heads(attention.W_V(out.hidden_states[layer]))  # (1, nh, T, hs)
            heads = (out.attentions[layer] @ v)[0]                              # (nh, T, hs)
            parts.append(heads @ W_O_blocks[layer].transpose(1, 2))             # (nh, T, C)
    return torch.cat(parts, dim=1)                                              # (nh, N, C)


def variance_split(contributions):
    """Per head Var(contribution) summed over coordinates (nh,), and the sum of the cross-covariances."""
    centred = contributions - contributions.mean(dim=1, keepdim=True)           # (nh, N, C)
    covariance = torch.einsum("gnc,hnc->gh", centred, centred) / (centred.shape[1] - 1)  # (nh, nh)
    own = covariance.diagonal()                                                 # (nh,)
    return own, covariance.sum() - own.sum()


contributions = [head_contributions(layer) for layer in range(L)]
splits = [variance_split(c) for c in contributions]
shares = torch.stack([own / own.sum() for own, _ in splits])                   # (L, nh)
cross_shares = torch.stack([cross / own.sum() for own, cross in splits])       # (L,)
print("each head's share of its layer's variance, smallest and largest per layer:")
for layer in range(L):
    print(f"  layer {layer + 1}: {shares[layer].min():.3f} – {shares[layer].max():.3f}; "
          f"cross-covariances {cross_shares[layer]:+.3f} of the heads' own")
with torch.no_grad():   # the contributions plus W_O's bias are the attention output itself
    contribution_error = max((contributions[layer].sum(0) + minilm.layers[layer].attention.W_O.bias
                     - torch.cat([minilm.layers[layer].attention(out.hidden_states[layer])[0] for out in outputs])
                     ).abs().max().item() for layer in range(L))
print(f"the heads' contributions plus the bias vs the attention output: {contribution_error:.1e}")

# %%
report.number("minilm_wo_blocks", L * H, "{:.0f}", kind="count")
report.number("minilm_wo_block_norm_min", block_norms.min(), "{:.2f}")
report.number("minilm_wo_block_norm_max", block_norms.max(), "{:.2f}")
report.number("minilm_wo_block_zero_rows", zero_rows, "{:.0f}", kind="count")
report.number("minilm_n_sentences", len(SENTENCES), "{:.0f}", kind="count")
report.number("minilm_n_tokens", contributions[0].shape[1], "{:.0f}", kind="count")
report.number("minilm_variance_share_min", shares.min(), "{:.1%}", kind="share")
report.number("minilm_variance_share_max", shares.max(), "{:.1%}", kind="share")
report.number("minilm_variance_share_even", 1 / H, "{:.1%}", kind="share")
report.number("minilm_cross_covariance_share_min", cross_shares.min(), "{:+.3f}")
report.number("minilm_cross_covariance_share_max", cross_shares.max(), "{:+.3f}")
report.number("minilm_contribution_sum_error", contribution_error, "{:.1e}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["sixteen_heads"]
# Exercise 1: in the `setup` cell, sixteen heads of 32 instead of eight of 64.
sixteen = MultiHeadAttention(AttentionConfig(d_model=d_model, n_heads=16))   # was: n_heads=8
print(f"16 heads of 32: {parameter_count(sixteen):,} parameters")

# %% tags=["two_heads"]
# Exercise 2: in the `one_softmax` cell, the same four matrices as two heads of 256.
two_heads = MultiHeadAttention(AttentionConfig(d_model=d_model, n_heads=2))   # was: n_heads=1
with torch.no_grad():
    for mine, theirs in ((two_heads.W_Q, attention.W_Q), (two_heads.W_K, attention.W_K),
                         (two_heads.W_V, attention.W_V), (two_heads.W_O, attention.W_O)):
        mine.weight.copy_(theirs.weight)
    two_heads_output = two_heads(x)                                       # (B, T, C)
two_heads_change = ((two_heads_output - manual).norm() / manual.norm()).item()
print(f"2 heads of 256 vs 8 heads of 64: the output changes by {two_heads_change:.2f} of its norm "
      f"(1 head of 512: {relative_change:.2f})")

# %%
report.number("exercise_params_sixteen_heads", parameter_count(sixteen), "{:,.0f}")
report.number("exercise_two_heads_change", two_heads_change, "{:.2f}")

# %% [markdown]
# ## Figure: eight softmaxes versus one

# %%
TEXT = {
    "en": {
        "scores": "scores of the last token", "weights": "attention weights of the last token",
        "head": "head {}", "one": "1 head of 512\n(same weights)", "key": "key position",
        "score_bar": "score", "weight_bar": "weight",
        "alt": "Two heatmaps for the last token of a random sequence. Top: the eight heads' "
               "scores over six keys, and below them the single 512-wide head's score, which "
               "is their sum divided by the square root of 8. Bottom: the softmax weights; the "
               "eight heads favour different keys, the single head has one pattern.",
        "caption": "Same weights, split or not: eight heads make eight softmaxes and favour "
                   "different keys; one head sees only their summed score.",
    },
    "zh": {
        "scores": "最后一个词元的分数", "weights": "最后一个词元的注意力权重",
        "head": "头 {}", "one": "1 个 512 维的头\n（同样的权重）", "key": "键的位置",
        "score_bar": "分数", "weight_bar": "权重",
        "alt": "随机序列中最后一个词元的两幅热力图。上图：8 个头对 6 个键的分数，最下面一行是 512 维单头的"
               "分数，等于前 8 行之和除以根号 8。下图：softmax 之后的权重；8 个头各自偏爱不同的键，"
               "单头只有一种分布。",
        "caption": "权重相同，只是切不切分：8 个头做 8 次 softmax，偏爱不同的键；单头只看到它们分数的总和。",
    },
}
score_rows = torch.cat([head_scores[0, :, query], one_head_scores[0, query][None]])  # (nh+1, T)
weight_rows = torch.cat([head_weights[0, :, query], one_head_weights[query][None]])  # (nh+1, T)
for lang in LANGS:
    text = TEXT[lang]
    labels = [text["head"].format(h) for h in range(n_heads)] + [text["one"]]
    # Scores above, weights below: one column of panels, labels at full size.
    fig, axes = column_figure(height=8, nrows=2, width=6)
    for ax, rows, title, bar, cmap in ((axes[0], score_rows, text["scores"], text["score_bar"], "RdBu_r"),
                                       (axes[1], weight_rows, text["weights"], text["weight_bar"],
                                        SEQUENTIAL_CMAP)):
        limit = rows.abs().max().item()
        image = ax.imshow(rows, cmap=cmap, vmin=-limit if cmap == "RdBu_r" else 0, vmax=limit,
                          aspect="auto")
        ax.axhline(n_heads - 0.5, color="black", lw=2)
        ax.set_yticks(range(n_heads + 1), labels)
        ax.set_xticks(range(T))
        ax.set_xlabel(text["key"])
        ax.set_title(title)
        fig.colorbar(image, ax=ax, label=bar)
    report.figure("eight_vs_one", fig, lang, alt=text["alt"], caption=text["caption"])

SHARES_TEXT = {
    "en": {"x": "head", "y": "layer", "bar": "share of the layer's variance",
           "alt": f"Heatmap, {L} layers by {H} heads of MiniLM: each head's share of the variance of its layer's "
                  f"attention output on the sample sentences, from {shares.min():.1%} to {shares.max():.1%}.",
           "caption": f"Each cell is a head's share of its layer's variance; the smallest norm of a head's "
                      f"block of Wᴼ is {block_norms.min():.2f}."},
    "zh": {"x": "头", "y": "层", "bar": "占该层方差的比例",
           "alt": f"热力图，MiniLM 的 {L} 层 × {H} 个头：在示例句子上，每个头在所在层注意力输出方差中的占比，"
                  f"从 {shares.min():.1%} 到 {shares.max():.1%}。",
           "caption": f"每一格是一个头在所在层方差中的占比；各头在 Wᴼ 中的块，范数最小为 {block_norms.min():.2f}。"},
}
for lang in LANGS:
    text = SHARES_TEXT[lang]
    fig, ax = column_figure(height=3.6, width=6)
    image = ax.imshow(shares, cmap=SEQUENTIAL_CMAP, vmin=0, aspect="auto")
    ax.set_xticks(range(H), [str(h) for h in range(H)])
    ax.set_yticks(range(L), [str(layer + 1) for layer in range(L)])
    ax.set_xlabel(text["x"])
    ax.set_ylabel(text["y"])
    fig.colorbar(image, ax=ax, label=text["bar"])
    report.figure("variance_shares", fig, lang, alt=text["alt"], caption=text["caption"])

report.save()
