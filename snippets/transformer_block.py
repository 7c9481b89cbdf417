# %% [markdown]
# # Putting the block together
#
# Attention is one part of a Transformer block. Later pages train models that
# also have positions, a causal mask, residual paths with layer norm, and an
# MLP. Here we add those parts one at a time to a single attention layer and
# measure what each one changes. At the end, our block equals PyTorch's
# `nn.TransformerEncoderLayer` loaded with the same weights.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt, SEQUENTIAL_CMAP
from explainer.report import Report

report = Report("transformer_block")

# %% tags=["setup"]
import math

# The project's readable attention layer (snippets/explainer/attention.py). Imported
# before torch: explainer pins torch's CPU kernels, so every machine gets the same numbers.
from explainer.attention import AttentionConfig, MultiHeadAttention
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)

B, T, C, n_heads = 1, 8, 32, 4   # one sequence of 8 tokens, width 32, 4 heads of 8
x = torch.randn(B, T, C)         # (B, T, C) token vectors
print("x:", tuple(x.shape))

# %% [markdown]
# ## 1. Attention alone ignores order
#
# Shuffle the tokens and attention's outputs come out shuffled the same way,
# and otherwise unchanged: every score q·k depends on the two vectors only,
# not on where they sit. A model that must tell "dog bites man" from "man
# bites dog" needs the positions put into the vectors. The original paper adds
# a sinusoidal code per position; many models learn one vector per position.

# %% tags=["positions"]
def sinusoidal_positions(T: int, C: int) -> torch.Tensor:
    """(T, C): sin and cos of each position at C/2 frequencies (Vaswani et al. 2017)."""
    position = torch.arange(T).unsqueeze(1)                               # (T, 1)
    frequency = torch.exp(-math.log(10000.0) * torch.arange(0, C, 2) / C)  # (C/2,)
    codes = torch.zeros(T, C)
    codes[:, 0::2] = torch.sin(position * frequency)
    codes[:, 1::2] = torch.cos(position * frequency)
    return codes


attention = MultiHeadAttention(AttentionConfig(d_model=C, n_heads=n_heads))
shuffle = torch.randperm(T)
positions = sinusoidal_positions(T, C)                                   # (T, C)
with torch.no_grad():
    out = attention(x)                                                   # (B, T, C)
    out_shuffled = attention(x[:, shuffle])                              # (B, T, C)
    out_pos = attention(x + positions)
    out_pos_shuffled = attention(x[:, shuffle] + positions)  # tokens move, positions stay
order_error = (out_shuffled - out[:, shuffle]).abs().max().item()
order_change = ((out_pos_shuffled - out_pos[:, shuffle]).norm() / out_pos.norm()).item()
print(f"shuffled tokens, no positions: outputs differ from shuffled outputs by {order_error:.1e}")
print(f"with positions added: the outputs change by {order_change:.2f} of their size")

# %%
report.number("permutation_error_without_positions", order_error, "{:.1e}")
report.number("permutation_change_with_positions", order_change, kind="share")

# %% [markdown]
# ## 2. The causal mask: no looking ahead
#
# A language model predicts each next token from the ones before it, so
# position t must not see positions after t. The mask sets those scores to
# −∞ before the softmax; their weights become exactly 0. Test it: change only
# the last token and see which positions' outputs move.

# %% tags=["mask"]
masked = MultiHeadAttention(AttentionConfig(d_model=C, n_heads=n_heads, causal=True))
masked.load_state_dict(attention.state_dict())              # same weights, with the mask
x_changed = x.clone()
x_changed[:, -1] = torch.randn(C)                           # a different last token


def change_per_position(layer, before, after) -> torch.Tensor:
    with torch.no_grad():
        return (layer(after) - layer(before))[0].norm(dim=-1)   # (T,)


change_masked = change_per_position(masked, x, x_changed)
change_unmasked = change_per_position(attention, x, x_changed)
with torch.no_grad():
    masked(x)
mask_weights = masked.last_weights[0, 0]                    # (T, T), head 0
print("change per position, masked:  ", change_masked.numpy().round(2))
print("change per position, unmasked:", change_unmasked.numpy().round(2))
print(f"weight on later positions, masked: {mask_weights.triu(1).sum().item():.1f}")

# %%
report.number("masked_change_before_last", change_masked[:-1].max().item(), "{:.1e}")
report.number("unmasked_change_before_last", change_unmasked[:-1].min().item(), "{:.2f}")
report.number("masked_weight_above_diagonal", mask_weights.triu(1).sum().item(), "{:.1f}")

# %% [markdown]
# ## 3. Residual path and layer norm
#
# A block does not replace a token's vector, it adds to it: x + attention(x).
# The sum keeps the input readable by every later layer (the "residual
# stream"), and gradients reach early layers through the plain "+". Layer norm
# rescales each token's vector to mean 0 and standard deviation 1 (then a
# learned gain and bias) before attention reads it; GPT-2 and most models
# since put it there ("pre-norm"), the original paper after the sum.

# %% tags=["residual"]
norm = nn.LayerNorm(C)
with torch.no_grad():
    normed = norm(x)                                         # (B, T, C)
    stream = x + attention(norm(x))                          # (B, T, C): the residual stream
    without_residual = attention(norm(x))                    # (B, T, C): what attention adds
cosine = nn.functional.cosine_similarity
print(f"after layer norm: largest |mean| {normed.mean(dim=-1).abs().max().item():.1e}, "
      f"mean std {normed.std(dim=-1, unbiased=False).mean().item():.3f}")
print(f"mean cosine between input and x + attention(norm(x)): {cosine(stream, x, dim=-1).mean().item():.2f}")

# %%
report.number("layer_norm_largest_mean", normed.mean(dim=-1).abs().max().item(), "{:.1e}")
report.number("layer_norm_std", normed.std(dim=-1, unbiased=False).mean().item(), "{:.3f}")
report.number("residual_cosine_mean", cosine(stream, x, dim=-1).mean().item(), "{:.2f}")

# %% [markdown]
# ## 4. The MLP works on each position alone
#
# After attention has mixed information between positions, a two-layer MLP
# (4× wider in the middle, GELU in between) transforms each position's vector
# on its own: change one token and only that position's MLP output moves. It
# holds most of a block's parameters.

# %% tags=["mlp"]
mlp = nn.Sequential(nn.Linear(C, 4 * C), nn.GELU(), nn.Linear(4 * C, C))
x_one = x.clone()
x_one[:, 0] += 1.0                                            # change token 1 only
with torch.no_grad():
    mlp_change = (mlp(x_one) - mlp(x))[0].norm(dim=-1)       # (T,)
attention_params = sum(p.numel() for p in attention.parameters())
mlp_params = sum(p.numel() for p in mlp.parameters())
print("MLP output change per position:", mlp_change.numpy().round(2))
print(f"parameters: attention {attention_params:,}, MLP {mlp_params:,}")

# %%
report.number("mlp_change_elsewhere", mlp_change[1:].max().item(), "{:.1e}")
report.number("attention_params", attention_params, "{:,.0f}")
report.number("mlp_params", mlp_params, "{:,.0f}")

# %% [markdown]
# ## 5. The whole block, checked against PyTorch
#
# Pre-norm, as in nanoGPT: x = x + attention(ln₁(x)), then x = x + mlp(ln₂(x)).
# PyTorch's `nn.TransformerEncoderLayer(norm_first=True)` is the same block;
# loaded with our weights it must give the same numbers.

# %% tags=["block"]
class Block(nn.Module):
    def __init__(self, C: int, n_heads: int):
        super().__init__()
        self.ln_1 = nn.LayerNorm(C)
        self.attention = MultiHeadAttention(AttentionConfig(d_model=C, n_heads=n_heads, bias=True))
        self.ln_2 = nn.LayerNorm(C)
        self.mlp = nn.Sequential(nn.Linear(C, 4 * C), nn.GELU(), nn.Linear(4 * C, C))

    def forward(self, x):
        x = x + self.attention(self.ln_1(x))   # (B, T, C) positions exchange information
        x = x + self.mlp(self.ln_2(x))         # (B, T, C) each position on its own
        return x


block = Block(C, n_heads)
reference = nn.TransformerEncoderLayer(C, n_heads, dim_feedforward=4 * C, dropout=0.0,
                                       activation="gelu", batch_first=True, norm_first=True)
with torch.no_grad():
    a = block.attention
    reference.self_attn.in_proj_weight.copy_(torch.cat([a.W_Q.weight, a.W_K.weight, a.W_V.weight]))
    reference.self_attn.in_proj_bias.copy_(torch.cat([a.W_Q.bias, a.W_K.bias, a.W_V.bias]))
    reference.self_attn.out_proj.load_state_dict(a.W_O.state_dict())
    reference.linear1.load_state_dict(block.mlp[0].state_dict())
    reference.linear2.load_state_dict(block.mlp[2].state_dict())
    reference.norm1.load_state_dict(block.ln_1.state_dict())
    reference.norm2.load_state_dict(block.ln_2.state_dict())
    reference.eval()
    block_error = (block(x) - reference(x)).abs().max().item()
print(f"largest difference from nn.TransformerEncoderLayer: {block_error:.1e}")

# %%
report.number("block_vs_torch_error", block_error, "{:.1e}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the page
# can show it folded under the question.

# %% tags=["first_token"]
# Exercise 1: in the `mask` cell, change the FIRST token instead of the last.
x_first = x.clone()
x_first[:, 0] = torch.randn(C)                              # was: x_changed[:, -1] = torch.randn(C)
last_unmasked = change_per_position(attention, x, x_first)[-1].item()
last_masked = change_per_position(masked, x, x_first)[-1].item()
print(f"change at the last position: {last_unmasked:.2f} without the mask, {last_masked:.2f} with it")

# %% tags=["no_residual"]
# Exercise 2: in the `residual` cell, drop the "x +".
print(f"mean cosine between input and attention(norm(x)): "
      f"{cosine(without_residual, x, dim=-1).mean().item():.2f}")

# %% tags=["narrow_mlp"]
# Exercise 3: in the `mlp` cell, a middle layer as wide as the stream (C instead of 4 * C).
narrow = nn.Sequential(nn.Linear(C, C), nn.GELU(), nn.Linear(C, C))
print(f"parameters of the 1x MLP: {sum(p.numel() for p in narrow.parameters()):,}")

# %%
report.number("exercise_last_moves_unmasked", last_unmasked, "{:.2f}")
report.number("exercise_last_moves_masked", last_masked, "{:.2f}")
report.number("exercise_cosine_without_residual",
              cosine(without_residual, x, dim=-1).mean().item(), "{:.2f}")
report.number("exercise_mlp_params_1x", sum(p.numel() for p in narrow.parameters()), "{:,.0f}")

# %% [markdown]
# ## Figures

# %%
TEXT = report.figure_text()   # the figures' words: transformer_block.strings.toml
labels = [str(i + 1) for i in range(T)]
for lang in LANGS:
    t = TEXT[lang]
    fig, ax = plt.subplots(figsize=(4.6, 3.9))
    image = ax.imshow(mask_weights.numpy(), cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1)
    ax.set_xticks(range(T), labels)
    ax.set_yticks(range(T), labels)
    ax.set_xlabel(t["key"])
    ax.set_ylabel(t["query"])
    fig.colorbar(image, ax=ax, label=t["weight"])
    fig.tight_layout()
    report.figure("causal_mask", fig, lang, alt=t["mask_alt"], caption=t["mask_caption"])

    fig, ax = plt.subplots(figsize=(5.6, 3.2))
    width = 0.4
    where = torch.arange(T)
    ax.bar(where - width / 2, change_unmasked.numpy(), width, label=t["unmasked"], color="#5b8fc9")
    ax.bar(where + width / 2, change_masked.numpy(), width, label=t["masked"], color="#e08a2e")
    ax.set_xticks(range(T), labels)
    ax.set_xlabel(t["position"])
    ax.set_ylabel(t["change"])
    ax.legend(frameon=False, loc="lower left", bbox_to_anchor=(0, 1), ncol=2)  # above the bars
    fig.tight_layout()
    report.figure("change_per_position", fig, lang, alt=t["change_alt"], caption=t["change_caption"])

report.save()
