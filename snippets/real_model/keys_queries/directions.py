# %% [markdown]
# # Keys, queries and values in a real model (1): how many directions?
#
# Source B's postscript says a key is an *index* of all of a token's features
# while a query is a *view* that looks for one of them (C18). If so, the keys of
# many tokens should spread over more directions of a head's space than its
# queries. Measured here in MiniLM, head by head, on every token of a sample of
# sentences: a measured note beside C18's rule (index_and_views.py decides it).
# The snippet records the numbers; the claims registry (docs/claims.yml) holds the rules.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.report import Report

report = Report("real_model.keys_queries.directions")

# %% tags=["model"]
from explainer.minilm import MiniLM, Tokenizer, run_sentences   # first: it pins torch's CPU kernels
from explainer.head_vectors import head_vectors
from explainer.noun_classes import framed_sentences
from explainer.sample_sentences import SENTENCE_PAIRS, SENTENCES
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()       # all-MiniLM-L6-v2, weights on disk
L, H = model.config.n_layers, model.config.n_heads
hs = model.config.d_model // H                                     # 32 dimensions per head
print(f"{L} layers × {H} heads, {hs} dimensions per head")

# %% [markdown]
# ## The token sample
#
# Every token (without [CLS] and [SEP]) of the project's sample sentences, of
# the sentence pairs, and of 100 concrete nouns put into six neutral frames.
# For each layer we keep the layer's input x and project it with that layer's
# W_Q, W_K and W_V, exactly as attention does.

# %% tags=["tokens"]
framed = framed_sentences()                                        # (sentence, noun, frame)
sentences = (SENTENCES + sorted({s for pair in SENTENCE_PAIRS for s in pair})
             + [sentence for sentence, _, _ in framed])
outputs = run_sentences(model, tokenizer, sentences)

inner = [out.hidden_states for out in outputs]                     # per sentence: L+1 tensors (1, T, C)
n_tokens = sum(h[0].shape[1] - 2 for h in inner)
print(f"{len(sentences)} sentences, {n_tokens} tokens")

# %%
report.number("n_sentences", len(sentences), "{:.0f}")
report.number("n_tokens", n_tokens, "{:.0f}")
report.number("n_heads", L * H, "{:.0f}")

# %% [markdown]
# ## C18: how many directions do keys and queries span?
#
# The participation ratio of a cloud of vectors, (Σλ)² / Σλ² over the
# eigenvalues λ of their covariance, counts its directions: d for a round
# cloud in d dimensions, 1 for a line. An index of *all* features should span
# more directions than a view on *one*.

# %% tags=["participation_ratio"]
def participation_ratio(vectors: torch.Tensor) -> torch.Tensor:
    """(N, nh, hs) -> (nh,): effective number of directions of each head's vectors."""
    centred = vectors - vectors.mean(dim=0)                        # (N, nh, hs)
    covariance = torch.einsum("nha,nhb->hab", centred, centred) / len(vectors)  # (nh, hs, hs)
    eigenvalues = torch.linalg.eigvalsh(covariance.double()).clamp(min=0)       # (nh, hs)
    return eigenvalues.sum(-1) ** 2 / (eigenvalues ** 2).sum(-1)


ratio = {name: np.zeros((L, H)) for name in ("Q", "K", "V")}
for layer in range(L):
    x = torch.cat([h[layer][0, 1:-1] for h in inner])              # (N, C): no [CLS], [SEP]
    for name, vectors in head_vectors(model, x, layer).items():
        ratio[name][layer] = participation_ratio(vectors).numpy()

keys_over_queries = ratio["K"] / ratio["Q"]                        # (L, H)
print("directions spanned, median over heads:",
      ", ".join(f"{name} {np.median(ratio[name]):.1f}" for name in ("Q", "K", "V")), f"(of {hs})")
print(f"heads whose keys span more directions than their queries: {(keys_over_queries > 1).sum()} of {L * H}")

# %%
report.number("keys_wider_heads", (keys_over_queries > 1).sum(), "{:.0f}")
report.number("pr_ratio_median", np.median(keys_over_queries), "{:.2f}")
report.number("pr_ratio_min", keys_over_queries.min(), "{:.2f}")
report.number("pr_ratio_max", keys_over_queries.max(), "{:.2f}")
report.number("pr_queries_median", np.median(ratio["Q"]), "{:.1f}")
report.number("pr_keys_median", np.median(ratio["K"]), "{:.1f}")
report.number("pr_values_median", np.median(ratio["V"]), "{:.1f}")
report.number("keys_wider_heads_layer1", (keys_over_queries[0] > 1).sum(), "{:.0f}")
report.number("keys_wider_heads_layer2", (keys_over_queries[1] > 1).sum(), "{:.0f}")
report.number("keys_wider_heads_layer3", (keys_over_queries[2] > 1).sum(), "{:.0f}")
report.number("keys_wider_heads_layer4", (keys_over_queries[3] > 1).sum(), "{:.0f}")
report.number("keys_wider_heads_layer5", (keys_over_queries[4] > 1).sum(), "{:.0f}")
report.number("keys_wider_heads_layer6", (keys_over_queries[5] > 1).sum(), "{:.0f}")
widest = np.unravel_index(keys_over_queries.argmax(), (L, H))
narrowest = np.unravel_index(keys_over_queries.argmin(), (L, H))
report.number("widest_layer", widest[0] + 1, "{:.0f}")
report.number("widest_head", widest[1] + 1, "{:.0f}")
report.number("narrowest_layer", narrowest[0] + 1, "{:.0f}")
report.number("narrowest_head", narrowest[1] + 1, "{:.0f}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["round_cloud"]
# Exercise 1: what does the participation ratio give for a perfectly round cloud, as
# many random Gaussian vectors in 32 dimensions as there are tokens here?
round_cloud = torch.randn(n_tokens, 1, hs, generator=torch.Generator().manual_seed(0))  # (N, 1, hs)
print(f"round cloud: {participation_ratio(round_cloud)[0]:.1f} directions of {hs}")   # was: head_vectors(model, x, layer)

# %%
report.number("exercise_pr_round_cloud", participation_ratio(round_cloud)[0], "{:.1f}")

# %% [markdown]
# ## Figures

# %%
TEXT = report.figure_text()   # the figures' words: directions.strings.toml
for lang in LANGS:
    text = TEXT[lang]

    fig, ax = plt.subplots(figsize=(5.6, 4.6))
    layer_of = np.repeat(np.arange(1, L + 1), H)
    dots = ax.scatter(ratio["Q"].ravel(), ratio["K"].ravel(), c=layer_of, cmap=SEQUENTIAL_CMAP,
                      s=28, edgecolor="black", linewidth=0.3)
    top = max(ratio["Q"].max(), ratio["K"].max()) * 1.05
    ax.plot([0, top], [0, top], color="grey", lw=1, ls="--", label=text["equal"])
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_xlabel(text["pr_q"], fontsize=10)
    ax.set_ylabel(text["pr_k"], fontsize=10)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="upper left")
    bar = fig.colorbar(dots, ax=ax, ticks=range(1, L + 1))
    bar.set_label(text["layer"], fontsize=10)
    bar.ax.tick_params(labelsize=9)
    fig.tight_layout()
    report.figure("directions", fig, lang, alt=text["pr_alt"], caption=text["pr_caption"])


report.save()
