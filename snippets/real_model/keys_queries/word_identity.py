# %% [markdown]
# # Keys, queries and values in a real model (3): which word is it?
#
# Source B's postscript says Q and K are *more abstract* than V, which carries
# the concrete content (C20). Read as "Q and K carry less of which word it is",
# that is measured here in MiniLM, head by head, on nouns put into neutral
# sentence frames. The snippet records the numbers; the claims registry
# (docs/claims.yml) holds the rule.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report

report = Report("real_model.keys_queries.word_identity")

# %% tags=["model"]
from explainer.minilm import MiniLM, Tokenizer   # first: it pins torch's CPU kernels
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()       # all-MiniLM-L6-v2, weights on disk
L, H = model.config.n_layers, model.config.n_heads
hs = model.config.d_model // H                                     # 32 dimensions per head
print(f"{L} layers × {H} heads, {hs} dimensions per head")

# %%
report.number("n_heads", L * H, "{:.0f}")

# %% [markdown]
# ## The nouns in their frames
#
# The vectors of one token, the noun, in each of its frames: per layer, Q, K and V
# of shape (nouns, frames, heads, 32), projected from the layer's input as
# attention projects it (explainer/head_vectors.py).

# %% tags=["noun_vectors"]
from explainer.head_vectors import framed_noun_vectors
from explainer.noun_classes import FOOD_NOUNS, FRAMES, OTHER_NOUNS

nouns = FOOD_NOUNS + OTHER_NOUNS
n_nouns, n_frames = len(nouns), len(FRAMES)
n_framed = n_nouns * n_frames                                      # one sentence per noun and frame
noun_vectors, found = framed_noun_vectors(model, tokenizer)       # each (L, n, F, nh, hs)
print(f"{n_nouns} nouns × {n_frames} frames; the noun is one token in {found} of {n_framed} sentences")

# %%
report.number("n_food", len(FOOD_NOUNS), "{:.0f}")
report.number("n_other", len(OTHER_NOUNS), "{:.0f}")
report.number("n_frames", n_frames, "{:.0f}")
report.number("nouns_found", found / n_framed, "{:.0%}")

# %% [markdown]
# ## C20: how much of Q, K and V is "which word"?
#
# Leave one frame out: predict a noun's vector in that frame by the same noun's
# mean vector in the other five frames, and compare the error with predicting
# it by the mean of *all* nouns in those frames. R² = 1 − error(word) /
# error(average noun): 1 when the word alone fixes the vector, 0 when knowing
# the word does not help. A nearest-mean classifier on the same split gives a
# second, more familiar number: held-out accuracy at naming the noun.

# %% tags=["identity"]
def identity_readback(vectors: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """vectors (n, F, nh, hs) -> held-out R² (nh,) and nearest-mean accuracy (nh,)."""
    n, F = vectors.shape[:2]
    error_word = torch.zeros(vectors.shape[2])
    error_mean = torch.zeros(vectors.shape[2])
    correct = torch.zeros(vectors.shape[2])
    for frame in range(F):
        others = torch.cat([vectors[:, :frame], vectors[:, frame + 1:]], dim=1)  # (n, F-1, nh, hs)
        prototypes = others.mean(dim=1)                            # (n, nh, hs)
        held_out = vectors[:, frame]                               # (n, nh, hs)
        error_word += ((held_out - prototypes) ** 2).sum(dim=(0, 2))
        error_mean += ((held_out - prototypes.mean(dim=0)) ** 2).sum(dim=(0, 2))
        distances = torch.cdist(held_out.transpose(0, 1), prototypes.transpose(0, 1))  # (nh, n, n)
        correct += (distances.argmin(dim=-1) == torch.arange(n)).sum(dim=-1)
    return 1 - error_word / error_mean, correct / (n * F)


identity = {name: np.zeros((L, H)) for name in ("Q", "K", "V")}
accuracy = {name: np.zeros((L, H)) for name in ("Q", "K", "V")}
for name in ("Q", "K", "V"):
    for layer in range(L):
        r2, acc = identity_readback(noun_vectors[name][layer])
        identity[name][layer], accuracy[name][layer] = r2.numpy(), acc.numpy()

v_most = (identity["V"] > np.maximum(identity["Q"], identity["K"]))  # (L, H)
print("held-out identity R², median over heads:",
      ", ".join(f"{name} {np.median(identity[name]):.2f}" for name in ("Q", "K", "V")))
print(f"heads in which V is more word-specific than both Q and K: {v_most.sum()} of {L * H}")

# %% [markdown]
# The verdict must survive another draw of the nouns: 1,000 draws of whole nouns (each
# with its six frames) with replacement, food and other nouns keeping their counts, the
# R² of every head recomputed on each draw, all heads together (a draw counts how often it
# took each noun).

# %% tags=["resampled"]
from explainer.noun_identity import identity_r2
from explainer.item_resampling import stratified_draws

draws = stratified_draws([noun in FOOD_NOUNS for noun in nouns], seed=0)   # (1000, nouns)
counts = np.stack([np.bincount(items, minlength=n_nouns) for items in draws])   # (1000, nouns)
resampled_r2 = {name: identity_r2(noun_vectors[name], counts).numpy() for name in ("Q", "K", "V")}   # (1000, L, H)
again = dict(v_most=(resampled_r2["V"] > np.maximum(resampled_r2["Q"], resampled_r2["K"])).sum(axis=(1, 2)),
             **{f"median_{name}": np.median(resampled_r2[name], axis=(1, 2)) for name in ("Q", "K", "V")})

# %%
report.number("n_items", n_nouns, kind="count")
report.number("v_most_specific_heads", v_most.sum(), "{:.0f}", resampled=again["v_most"].tolist())
report.number("q_or_k_most_specific_heads", L * H - v_most.sum(), "{:.0f}")
report.number("identity_q_median", np.median(identity["Q"]), "{:.2f}", resampled=again["median_Q"].tolist())
by_vector = accuracy   # a name of this recording cell: other cells of the page bind "accuracy"
report.number("accuracy_q_median", np.median(by_vector["Q"]), "{:.0%}")
report.number("identity_q_layer1", np.median(identity["Q"][0]), "{:.2f}")
report.number("identity_q_layer6", np.median(identity["Q"][L - 1]), "{:.2f}")
report.number("identity_k_median", np.median(identity["K"]), "{:.2f}", resampled=again["median_K"].tolist())
report.number("accuracy_k_median", np.median(by_vector["K"]), "{:.0%}")
report.number("identity_k_layer1", np.median(identity["K"][0]), "{:.2f}")
report.number("identity_k_layer6", np.median(identity["K"][L - 1]), "{:.2f}")
report.number("identity_v_median", np.median(identity["V"]), "{:.2f}", resampled=again["median_V"].tolist())
report.number("accuracy_v_median", np.median(by_vector["V"]), "{:.0%}")
report.number("identity_v_layer1", np.median(identity["V"][0]), "{:.2f}")
report.number("identity_v_layer6", np.median(identity["V"][L - 1]), "{:.2f}")
report.number("identity_min", min(identity[name].min() for name in ("Q", "K", "V")), "{:.2f}")
report.number("identity_chance_accuracy", 1 / n_nouns, "{:.0%}")
report.number("v_most_specific_heads_layer1", v_most[0].sum(), "{:.0f}")
report.number("v_most_specific_heads_layer2", v_most[1].sum(), "{:.0f}")
report.number("v_most_specific_heads_layer3", v_most[2].sum(), "{:.0f}")
report.number("v_most_specific_heads_layer4", v_most[3].sum(), "{:.0f}")
report.number("v_most_specific_heads_layer5", v_most[4].sum(), "{:.0f}")
report.number("v_most_specific_heads_layer6", v_most[5].sum(), "{:.0f}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["shuffled_nouns"]
# Exercise 2: break the link between vector and word: shuffle which noun is which, frame
# by frame. What R² does V get then (median over heads)?
shuffle_rng = np.random.default_rng(1)
shuffled_r2 = []
for layer in range(L):
    v = noun_vectors["V"][layer]                                     # (n, F, nh, hs)
    mixed = torch.stack([v[torch.from_numpy(shuffle_rng.permutation(n_nouns)), f]
                         for f in range(v.shape[1])], dim=1)         # (n, F, nh, hs)
    shuffled_r2.append(identity_readback(mixed)[0].numpy())         # was: noun_vectors["V"][layer]
print(f"V with the nouns shuffled: identity R² {np.median(shuffled_r2):.2f} (median over heads)")

# %%
report.number("exercise_identity_v_shuffled_median", np.median(shuffled_r2), "{:.2f}")

# %% [markdown]
# ## Figures

# %%
TEXT = {
    "en": {
        "layer": "layer",
        "identity": "identity R² (held out)", "spread": "heads of the layer (min–max)",
        "id_alt": "Line chart over layers 1 to 6 of the held-out word-identity R² of Q, K and V: "
                  "the median over the 12 heads of each layer, with a band from the lowest to the "
                  "highest head.",
        "id_caption": "How much of each vector is fixed by which noun it is, layer by layer.",
    },
    "zh": {
        "layer": "层",
        "identity": "词身份 R²（留出）", "spread": "该层各头（最小–最大）",
        "id_alt": "第 1 到第 6 层 Q、K、V 的留出词身份 R² 折线图：每层 12 个头的中位数，"
                  "阴影带从最低的头到最高的头。",
        "id_caption": "每一层里，一个向量有多少是由“它是哪个名词”决定的。",
    },
}
COLOURS = {"Q": "#1b9e77", "K": "#7570b3", "V": "#d95f02"}
for lang in LANGS:
    text = TEXT[lang]

    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    layers = np.arange(1, L + 1)
    for name in ("Q", "K", "V"):
        ax.plot(layers, np.median(identity[name], axis=1), "o-", color=COLOURS[name], label=name)
        ax.fill_between(layers, identity[name].min(axis=1), identity[name].max(axis=1),
                        color=COLOURS[name], alpha=0.15)
    ax.set_xlabel(text["layer"], fontsize=10)
    ax.set_ylabel(text["identity"], fontsize=10)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, title=text["spread"], title_fontsize=9)
    fig.tight_layout()
    report.figure("identity", fig, lang, alt=text["id_alt"], caption=text["id_caption"])


report.save()
