# %% [markdown]
# # Self-attention in four steps
#
# "The animal didn't cross the street because it was too tired."
# Each word gets a small vector of *named* features, and three hand-built
# matrices W_Q, W_K, W_V turn it into a query, a key and a value.
# We then run the four steps of attention by hand — scores, scaling,
# softmax, weighted sum — and check them against PyTorch's fused kernel.

# %%
import numpy as np
import torch
import torch.nn.functional as F

from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.report import Report

report = Report("four_steps")

tokens = ["The", "animal", "didn't", "cross", "the", "street",
          "because", "it", "was", "too", "tired"]
features = ["animate", "place", "can_tire", "pronoun", "predicate", "function"]
IT, ANIMAL, STREET = tokens.index("it"), tokens.index("animal"), tokens.index("street")


def word(**named):
    """A token vector from named features, e.g. word(animate=1, can_tire=1)."""
    return [named.get(f, 0.0) for f in features]


X = np.array([
    word(function=1),                # The
    word(animate=1, can_tire=1),     # animal
    word(function=1, predicate=0.5), # didn't
    word(predicate=1),               # cross
    word(function=1),                # the
    word(place=1),                   # street
    word(function=1),                # because
    word(pronoun=1),                 # it
    word(function=1, predicate=0.5), # was
    word(function=1),                # too
    word(predicate=1),               # tired
])  # (T, d_model) = (11, 6)

# %% [markdown]
# ## Three projections of the same vector
#
# The query/key space has two named axes: "can get tired" and "is a place".
# W_K writes what a token *offers* on those axes; W_Q writes what a token
# *looks for*. The pronoun looks for something that can get tired and not
# for a place. W_V simply carries every feature along, so we can read the
# output.

# %%
d_model, d_k = X.shape[1], 2
W_K = np.zeros((d_model, d_k))
W_K[features.index("can_tire"), 0] = 2.0   # offers: "I can get tired"
W_K[features.index("place"), 1] = 2.0      # offers: "I am a place"
W_Q = np.zeros((d_model, d_k))
W_Q[features.index("pronoun")] = [3.0, -1.0]  # asks: "who can get tired? not a place"
W_V = np.eye(d_model)                      # (d_model, d_v): value = the features themselves

Q = X @ W_Q  # (T, d_k)
K = X @ W_K  # (T, d_k)
V = X @ W_V  # (T, d_v)

# The same projections as PyTorch layers: nn.Linear stores the transpose.
x_t = torch.tensor(X)
projection_error = 0.0
for W, ours in ((W_Q, Q), (W_K, K), (W_V, V)):
    layer = torch.nn.Linear(d_model, W.shape[1], bias=False).double()
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(W.T))
        projection_error = max(projection_error, (layer(x_t).numpy() - ours).__abs__().max())
report.number("projection_error", projection_error, "{:.1e}")

# %% [markdown]
# ## The four steps

# %%
scores = Q @ K.T                      # step 1: dot products, (T, T)
scaled = scores / np.sqrt(d_k)        # step 2: divide by sqrt(d_k)
weights = np.exp(scaled - scaled.max(axis=1, keepdims=True))
weights /= weights.sum(axis=1, keepdims=True)  # step 3: softmax over keys, rows sum to 1
output = weights @ V                  # step 4: weighted sum of values, (T, d_v)

fused = F.scaled_dot_product_attention(
    torch.tensor(Q)[None], torch.tensor(K)[None], torch.tensor(V)[None])[0].numpy()
fused_error = np.abs(output - fused).max()
report.number("fused_error", fused_error, "{:.1e}")

report.number("score_it_animal", scores[IT, ANIMAL], "{:.1f}")
report.number("score_it_street", scores[IT, STREET], "{:.1f}")
report.number("scaled_it_animal", scaled[IT, ANIMAL], "{:.2f}")
report.number("weight_it_animal", weights[IT, ANIMAL], "{:.2f}")
report.number("weight_it_street", weights[IT, STREET], "{:.3f}")
others = np.delete(weights[IT], [ANIMAL, STREET])
report.number("weight_it_other", others.max(), "{:.3f}")

# %% [markdown]
# ## What the output at "it" is made of

# %%
def cosine(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


cos_animal = report.number("cos_output_animal", cosine(output[IT], V[ANIMAL]), "{:.2f}")
cos_street = report.number("cos_output_street", cosine(output[IT], V[STREET]), "{:.2f}")
for f in ("animate", "can_tire", "place", "pronoun"):
    report.number(f"output_it_{f}", output[IT, features.index(f)], "{:.2f}")

# %% [markdown]
# ## Figures, labelled in the reader's language

# %%
TEXT = {
    "en": {
        "steps": ["1. score q·k", "2. scaled by √d_k", "3. softmax weights"],
        "output": "4. output at “it”",
        "features": ["animate", "place", "can get tired", "pronoun", "predicate", "function word"],
        "key": "key (attended-to word)", "query": "query (attending word)",
        "colorbar": "attention weight",
        "steps_alt": "Four bar charts for the word it: its raw scores, the scaled scores, the "
                     "softmax weights (tallest at animal) and its output features "
                     "(high on animate and can get tired).",
        "heatmap_alt": "Attention weights of every word to every word. Rows without a query "
                       "are flat; the row of it is bright only at animal.",
    },
    "zh": {
        "steps": ["1. 打分 q·k", "2. 除以 √d_k", "3. softmax 权重"],
        "output": "4. “it” 处的输出",
        "features": ["有生命", "地点", "会累", "代词", "谓词", "虚词"],
        "key": "键（被关注的词）", "query": "查询（发出关注的词）",
        "colorbar": "注意力权重",
        "steps_alt": "关于 it 的四幅柱状图：原始打分、缩放后的打分、softmax 权重（animal 最高），"
                     "以及输出的特征（“有生命”“会累”两项高）。",
        "heatmap_alt": "每个词对每个词的注意力权重。没有查询的词整行平均；"
                       "it 这一行只在 animal 处发亮。",
    },
}

for lang in LANGS:
    text = TEXT[lang]
    fig, axes = plt.subplots(1, 4, figsize=(13, 3.2))
    for ax, row, title in zip(axes[:3], (scores[IT], scaled[IT], weights[IT]), text["steps"]):
        colors = ["#1f77b4" if j != ANIMAL else "#d95f02" for j in range(len(tokens))]
        ax.bar(range(len(tokens)), row, color=colors)
        ax.set_xticks(range(len(tokens)), tokens, rotation=60, fontsize=8)
        ax.set_title(title)
        ax.axhline(0, color="grey", lw=0.5)
    axes[3].barh(range(d_model), output[IT], color="#7570b3")
    axes[3].set_yticks(range(d_model), text["features"], fontsize=8)
    axes[3].invert_yaxis()
    axes[3].set_title(text["output"])
    fig.tight_layout()
    report.figure("steps", fig, lang, alt=text["steps_alt"])

    fig, ax = plt.subplots(figsize=(6, 5))
    image = ax.imshow(weights, cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1)
    ax.set_xticks(range(len(tokens)), tokens, rotation=60)
    ax.set_yticks(range(len(tokens)), tokens)
    ax.set_xlabel(text["key"])
    ax.set_ylabel(text["query"])
    fig.colorbar(image, ax=ax, label=text["colorbar"])
    fig.tight_layout()
    report.figure("heatmap", fig, lang, alt=text["heatmap_alt"])

report.save()
