# %% [markdown]
# # Does dropout switch whole heads off?
#
# Source A's dropout argument rests on a premise: in training, dropout now and
# then switches head 1 off, and head 2 must take over. Count it. In training
# mode, with the standard attention dropout (p = 0.1) of
# `torch.nn.MultiheadAttention` and of the pretrained MiniLM, in how many of
# 10,000 forward passes is some head's *whole* output zero (every position of
# the sequence, before W_O)? Then the same counter on DropHead (Zhou et al.
# 2020), a separate technique that does switch whole heads off.

# %%
# Recording what the page cites (numbers): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.report import Report

report = Report("many_heads.duplicate_heads.dropout_premise")

# %% [markdown]
# ## A standard attention layer in training mode
#
# `torch.nn.MultiheadAttention` drops attention weights, each one on its own,
# with probability `dropout`, whose default is 0.0: set p = 0.1 explicitly.

# %% tags=["setup"]
import torch
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(0)

P = 0.1               # the Transformer's standard dropout
N_PASSES = 10_000     # forward passes: one sequence through one attention layer each
d_model, n_heads, T = 512, 8, 16
attention = torch.nn.MultiheadAttention(d_model, n_heads, dropout=P, batch_first=True)
attention.train()     # dropout acts only in training mode
print(f"{n_heads} heads of {d_model // n_heads}, attention dropout p = {attention.dropout}, "
      f"training mode: {attention.training}")

# %% [markdown]
# ## Each head's output, before W_O
#
# With `average_attn_weights=False` the layer returns every head's attention
# weights *after* dropout; times the head's values, they give the head's
# output. Concatenated and passed through `out_proj` (W_O), they must give the
# layer's output back.

# %% tags=["heads"]
def values(attention, x):
    """Each head's values for x (B, T, C): (B, nh, T, hs). Dropout does not touch them."""
    B, T, C = x.shape
    nh = attention.num_heads
    W_V, b_V = attention.in_proj_weight[2 * C:], attention.in_proj_bias[2 * C:]   # (C, C), (C,)
    return (x @ W_V.T + b_V).view(B, T, nh, C // nh).transpose(1, 2)              # (B, nh, T, hs)


def head_outputs(attention, x, v):
    """Run the layer on x (B, T, C). Returns its output (B, T, C), each head's output
    before W_O (B, nh, T, hs) and the attention weights dropout left (B, nh, T, T)."""
    output, weights = attention(x, x, x, average_attn_weights=False)  # weights after dropout
    return output, weights @ v, weights


def concat_heads(heads):
    B, nh, T, hs = heads.shape
    return heads.transpose(1, 2).reshape(B, T, nh * hs)                           # (B, T, C)

# %% [markdown]
# ## The counter
#
# A head's whole output is zero when it is zero at every position and in every
# coordinate; a pass counts when that happens to at least one head.

# %% tags=["counter"]
def whole_head_zero(heads):
    """(B, nh): True where a head's output (B, nh, T, hs) is zero at every position."""
    return (heads == 0).flatten(start_dim=2).all(dim=-1)


def passes_with_a_zero_head(heads):
    """How many passes (sequences) have at least one head whose whole output is zero."""
    return int(whole_head_zero(heads).any(dim=-1).sum())

# %% [markdown]
# ## 10,000 passes through torch.nn.MultiheadAttention
#
# A batch of sequences is a batch of passes: dropout draws its mask afresh for
# every weight of every sequence. Ten batches of 1,000 sequences of 16 tokens.

# %% tags=["count_torch"]
BATCH = 1_000
x = torch.randn(BATCH, T, d_model)                                  # (B, T, C)
zero_head_passes = zeroed_weights = n_weights = 0
with torch.no_grad():
    v = values(attention, x)                                        # (B, nh, T, hs)
    for batch in range(N_PASSES // BATCH):
        output, heads, weights = head_outputs(attention, x, v)      # fresh dropout masks
        zero_head_passes += passes_with_a_zero_head(heads)
        zeroed_weights += int((weights == 0).sum())
        n_weights += weights.numel()
        if batch == 0:                                              # the heads really are the layer's
            rebuild_error = (attention.out_proj(concat_heads(heads)) - output).abs().max().item()
print(f"passes with a whole head zero: {zero_head_passes} of {N_PASSES}")
print(f"attention weights zeroed by dropout: {zeroed_weights / n_weights:.4f} (p = {P})")
print(f"heads concatenated through W_O vs the layer's output: {rebuild_error:.1e}")

# %%
report.number("dropout_p", P, "{:.1f}")
report.number("n_passes_torch", N_PASSES, "{:,.0f}", kind="count")
report.number("tokens_torch", T, "{:.0f}", kind="count")
report.number("whole_head_zero_share_torch", zero_head_passes / N_PASSES, "{:.2%}", kind="share")
report.number("zeroed_weight_share_torch", zeroed_weights / n_weights, "{:.2%}", kind="share")
report.number("rebuild_error_torch", rebuild_error, "{:.1e}")

# %% [markdown]
# ## The same counter on DropHead
#
# DropHead (Zhou et al. 2020) switches a head off for a whole sequence: with
# probability p per head, its output is zeroed and the others are scaled up by
# 1 / (1 - p). Attention dropout off, DropHead on, the same 10,000 passes.

# %% tags=["drophead"]
def drop_head(heads, p):
    """DropHead: each head of each sequence (B, nh, T, hs) switched off with probability p."""
    B, nh = heads.shape[:2]
    keep = (torch.rand(B, nh, 1, 1) >= p).float()                   # (B, nh, 1, 1)
    return heads * keep / (1 - p)

# %% tags=["count_drophead"]
attention.eval()                                                    # no attention dropout
with torch.no_grad():
    _, heads, _ = head_outputs(attention, x, v)                     # the same in every pass
attention.train()
zero_heads = drophead_passes = 0
for _ in range(N_PASSES // BATCH):
    dropped = drop_head(heads, P)                                   # (B, nh, T, hs), fresh masks
    zero_heads += int(whole_head_zero(dropped).sum())
    drophead_passes += passes_with_a_zero_head(dropped)
print(f"DropHead: heads whose whole output is zero: {zero_heads / (N_PASSES * n_heads):.4f} of all (p = {P}); "
      f"passes with one: {drophead_passes / N_PASSES:.4f} (1 - (1 - p)^{n_heads} = {1 - (1 - P) ** n_heads:.4f})")

# %%
report.number("drophead_head_zero_share", zero_heads / (N_PASSES * n_heads), "{:.2%}", kind="share")
report.number("drophead_whole_head_zero_share", drophead_passes / N_PASSES, "{:.2%}", kind="share")
report.number("drophead_expected_share", 1 - (1 - P) ** n_heads, "{:.2%}", kind="share")

# %% [markdown]
# ## MiniLM's attention in training mode
#
# MiniLM (BERT) drops its attention weights with `attention_probs_dropout_prob`
# from its config, and its hidden states with `hidden_dropout_prob`, which acts
# after W_O on the mixed heads and so cannot zero one head. Its layers' inputs
# come from the real model on the project's sample sentences. From pass to pass
# only the dropout mask changes, so each sentence's queries, keys and values
# are computed once per layer and the passes draw their masks as a batch.

# %% tags=["heads_minilm"]
def heads_in_training(attention, x, p, n_passes):
    """n_passes training-mode passes of one sequence x (1, T, C) through one of MiniLM's
    attention layers: each head's output before W_O (n, nh, T, hs) and the weights after dropout."""
    q, k, v = (attention.split_heads(W(x)) for W in (attention.W_Q, attention.W_K, attention.W_V))
    weights = (q @ k.transpose(-2, -1) / attention.head_size ** 0.5).softmax(dim=-1)  # (1, nh, T, T)
    dropped = F.dropout(weights.expand(n_passes, -1, -1, -1), p, training=True)     # (n, nh, T, T)
    return dropped @ v, dropped                                                      # (n, nh, T, hs)

# %% tags=["count_minilm"]
import json

from explainer.minilm import MiniLM, Tokenizer, model_folder, run_sentences
from explainer.sample_sentences import SENTENCES

model, tokenizer = MiniLM.from_pretrained(), Tokenizer()
bert_config = json.loads((model_folder() / "config.json").read_text())
P_MINILM = bert_config["attention_probs_dropout_prob"]
print(f"attention_probs_dropout_prob = {P_MINILM}, hidden_dropout_prob = {bert_config['hidden_dropout_prob']}")
layer_inputs = [out.hidden_states for out in run_sentences(model, tokenizer, SENTENCES)]  # per sentence, (1, T, C)

# Spread the 10,000 passes evenly over every (sentence, layer) pair.
pairs = [(s, layer) for s in range(len(SENTENCES)) for layer in range(model.config.n_layers)]
passes_of = [N_PASSES // len(pairs) + (i < N_PASSES % len(pairs)) for i in range(len(pairs))]
minilm_zero_head_passes = minilm_zeroed = minilm_weights = 0
with torch.no_grad():
    for (s, layer), n_passes in zip(pairs, passes_of):
        heads, dropped = heads_in_training(model.layers[layer].attention, layer_inputs[s][layer], P_MINILM,
                                           n_passes)
        minilm_zero_head_passes += passes_with_a_zero_head(heads)
        minilm_zeroed += int((dropped == 0).sum())
        minilm_weights += dropped.numel()
shortest = min(len(tokenizer.tokens(sentence)) for sentence in SENTENCES)
print(f"{sum(passes_of)} passes over {len(SENTENCES)} sentences ({shortest} tokens or more) x "
      f"{model.config.n_layers} layers; with a whole head zero: {minilm_zero_head_passes}")
print(f"attention weights zeroed by dropout: {minilm_zeroed / minilm_weights:.4f} (p = {P_MINILM})")

# %%
report.number("minilm_dropout_p", P_MINILM, "{:.1f}")
report.number("n_passes_minilm", sum(passes_of), "{:,.0f}", kind="count")
report.number("n_sentences_minilm", len(SENTENCES), "{:.0f}", kind="count")
report.number("min_tokens_minilm", shortest, "{:.0f}", kind="count")
report.number("whole_head_zero_share_minilm", minilm_zero_head_passes / sum(passes_of), "{:.2%}", kind="share")
report.number("zeroed_weight_share_minilm", minilm_zeroed / minilm_weights, "{:.2%}", kind="share")
# What it would take: a head's output is zero only if dropout drops all T x T of its
# weights in that sequence, with probability p^(T·T) for the shortest sequence.
report.number("chance_shortest_exponent", shortest * shortest, "{:.0f}", kind="count")
# The outcome the page words, from the counts: did standard dropout ever switch a whole head off?
report.category("premise", "never" if zero_head_passes == 0 and minilm_zero_head_passes == 0 else "sometimes")

report.save()
