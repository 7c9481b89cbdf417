# %% [markdown]
# # Keys, queries and values in a real model (4): a dimension for "edible"?
#
# Source B §4 says single dimensions of the trained vectors come to mean
# features such as "edible" (C28). Measured here in MiniLM's query and key
# spaces, head by head: does one coordinate tell food nouns from other nouns,
# or does it take a direction? The snippet records the numbers; the claims
# registry (docs/claims.yml) holds the rule.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report

report = Report("real_model.keys_queries.edible_dimension")

# %% tags=["model"]
from explainer.minilm import MiniLM, Tokenizer   # first: it pins torch's CPU kernels
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()       # all-MiniLM-L6-v2, weights on disk
L, H = model.config.n_layers, model.config.n_heads
hs = model.config.d_model // H                                     # 32 dimensions per head
print(f"{L} layers × {H} heads, {hs} dimensions per head")

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
# ## C28: a dimension that means "edible"?
#
# Each noun's query and key, averaged over its six frames: 144 spaces (72 heads
# × Q, K) of 32 dimensions, 100 nouns, half of them food. In each space, with
# 5-fold cross-validation over *words*: the best single coordinate (chosen on
# the training words, with its sign) and the best direction (a linear
# discriminant with shrinkage, fitted on the training words), both scored by
# AUC on the held-out words, averaged over the folds. Shuffling the labels 200
# times gives the chance level of the *best* of 144 spaces.

# %% tags=["held_out_aucs"]
def rank_auc(ranks: torch.Tensor, positive: torch.Tensor) -> torch.Tensor:
    """AUC from ranks (1 = lowest score) and a 0/1 mask of positives, both (..., n): (...,)."""
    n_pos = positive.sum(dim=-1)
    n_neg = positive.shape[-1] - n_pos
    return ((ranks * positive).sum(dim=-1) - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def ranks_of(scores: torch.Tensor, dim: int) -> torch.Tensor:
    return scores.argsort(dim=dim).argsort(dim=dim).double() + 1


def held_out_aucs(X: torch.Tensor, labels: torch.Tensor, folds: list, shrinkage: float = 0.2):
    """X (S, n, d): S spaces; labels (P, n) bool (row 0 the true labels, the rest shuffled).

    Returns the fold-averaged held-out AUC of the best coordinate and of the best
    direction, each (P, S)."""
    P, (S, n, d) = labels.shape[0], X.shape
    X, y = X.double(), labels.double()
    coordinate, direction = torch.zeros(P, S), torch.zeros(P, S)
    for test in folds:
        train = np.setdiff1d(np.arange(n), test)
        Xtr, Xte, ytr, yte = X[:, train], X[:, test], y[:, train], y[:, test]
        # best coordinate: chosen on the training words, with its sign
        train_ranks = ranks_of(Xtr, dim=1)                          # (S, ntr, d)
        test_ranks = ranks_of(Xte, dim=1)                           # (S, nte, d)
        n_pos, n_neg = ytr.sum(1)[:, None, None], (1 - ytr).sum(1)[:, None, None]
        train_auc = (torch.einsum("snd,pn->psd", train_ranks, ytr)
                     - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)   # (P, S, d)
        t_pos, t_neg = yte.sum(1)[:, None, None], (1 - yte).sum(1)[:, None, None]
        test_auc = (torch.einsum("snd,pn->psd", test_ranks, yte)
                    - t_pos * (t_pos + 1) / 2) / (t_pos * t_neg)    # (P, S, d)
        best = (train_auc - 0.5).abs().argmax(dim=-1, keepdim=True)  # (P, S, 1)
        chosen = test_auc.gather(-1, best)[..., 0]                  # (P, S)
        above = train_auc.gather(-1, best)[..., 0] >= 0.5
        coordinate += torch.where(above, chosen, 1 - chosen) / len(folds)
        # best direction: a linear discriminant with shrinkage, w = B⁻¹ (μ_food − μ_other).
        # For two classes the within-class scatter is the total scatter minus a
        # multiple of δδᵀ (δ = μ_food − μ_other), which changes B⁻¹δ only by a
        # positive factor (Sherman-Morrison). So B is built from the total
        # covariance (shrunk towards its mean variance), once per space,
        # whatever the labels: one inverse serves all 200 shuffles.
        mean_pos = torch.einsum("snd,pn->psd", Xtr, ytr) / ytr.sum(1)[:, None, None]      # (P, S, d)
        mean_neg = torch.einsum("snd,pn->psd", Xtr, 1 - ytr) / (1 - ytr).sum(1)[:, None, None]
        centred = Xtr - Xtr.mean(dim=1, keepdim=True)               # (S, ntr, d)
        total = centred.transpose(1, 2) @ centred / len(train)      # (S, d, d), label-free
        scale = total.diagonal(dim1=-2, dim2=-1).mean(-1)[:, None, None]
        B = (1 - shrinkage) * total + shrinkage * scale * torch.eye(d, dtype=X.dtype)
        w = torch.einsum("sde,pse->psd", torch.linalg.inv(B), mean_pos - mean_neg)  # (P, S, d)
        scores = torch.einsum("snd,psd->psn", Xte, w)               # (P, S, nte)
        direction += rank_auc(ranks_of(scores, dim=-1), yte[:, None, :]) / len(folds)
    return coordinate, direction


# %% tags=["food_vs_other"]
is_food = torch.tensor([noun in FOOD_NOUNS for noun in nouns])    # (n,)
rng = np.random.default_rng(0)
folds = [np.concatenate(parts) for parts in zip(
    *(np.array_split(rng.permutation(np.flatnonzero(is_food.numpy() == c)), 5) for c in (True, False)))]
N_SHUFFLES = 200
labels = torch.stack([is_food] + [is_food[torch.from_numpy(rng.permutation(n_nouns))]
                                  for _ in range(N_SHUFFLES)])    # (P, n)
spaces = torch.stack([noun_vectors[name][layer].mean(dim=1)[:, head]
                      for name in ("Q", "K") for layer in range(L) for head in range(H)])  # (S, n, hs)
coordinate, direction = held_out_aucs(spaces, labels, folds)      # (P, S) each
coordinate_null = np.quantile(coordinate[1:].max(dim=1).values.numpy(), 0.95)
direction_null = np.quantile(direction[1:].max(dim=1).values.numpy(), 0.95)
coordinate_true, direction_true = coordinate[0].numpy(), direction[0].numpy()  # (S,)


def space_name(s: int) -> tuple[str, int, int]:
    """Index into the 144 spaces -> (projection, layer 1-6, head 1-12)."""
    return ("Q", "K")[s // (L * H)], (s % (L * H)) // H + 1, s % H + 1


for what, auc, null in (("coordinate", coordinate_true, coordinate_null),
                        ("direction", direction_true, direction_null)):
    projection, layer, head = space_name(int(auc.argmax()))
    print(f"best {what:<10}: AUC {auc.max():.2f} ({projection} of head {layer}-{head}), "
          f"median {np.median(auc):.2f}, beyond chance ({null:.2f}) in {(auc > null).sum()} of {len(auc)}")
print(f"the direction beats the best coordinate in {(direction_true > coordinate_true).sum()} of {len(spaces)} spaces")

# %%
report.number("coordinate_auc_best", coordinate_true.max(), "{:.2f}")
report.number("direction_auc_best", direction_true.max(), "{:.2f}")
report.number("coordinate_auc_median", np.median(coordinate_true), "{:.2f}")
report.number("direction_auc_median", np.median(direction_true), "{:.2f}")
report.number("coordinate_null_p95", coordinate_null, "{:.2f}")
report.number("direction_null_p95", direction_null, "{:.2f}")
report.number("coordinate_heads_beyond_chance", (coordinate_true > coordinate_null).sum(), "{:.0f}")
report.number("direction_heads_beyond_chance", (direction_true > direction_null).sum(), "{:.0f}")
report.number("direction_wins_spaces", (direction_true > coordinate_true).sum(), "{:.0f}")
NEAR_AUC = 0.05   # a coordinate "comes near" the direction within this much AUC
report.number("near_auc", NEAR_AUC, "{:.2f}")
report.number("coordinate_near_direction_spaces", (coordinate_true >= direction_true - NEAR_AUC).sum(),
              "{:.0f}")
report.number("n_spaces", len(spaces), "{:.0f}")
report.number("n_shuffles", N_SHUFFLES, "{:.0f}")
coordinate_projection, coordinate_layer, coordinate_head = space_name(int(coordinate_true.argmax()))
direction_projection, direction_layer, direction_head = space_name(int(direction_true.argmax()))
report.number("coordinate_best_is_key", coordinate_projection == "K", "{:.0f}")
report.number("coordinate_best_layer", coordinate_layer, "{:.0f}")
report.number("coordinate_best_head", coordinate_head, "{:.0f}")
report.number("direction_best_is_key", direction_projection == "K", "{:.0f}")
report.number("direction_best_layer", direction_layer, "{:.0f}")
report.number("direction_best_head", direction_head, "{:.0f}")
best_space = int(direction_true.argmax())
report.number("coordinate_auc_in_best_direction_space", coordinate_true[best_space], "{:.2f}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["in_sample"]
# Exercise 1 of the "edible" page: skip the cross-validation. Choose each space's best
# coordinate on ALL the words and score it on the same words. Median AUC over the 144 spaces?
all_ranks = ranks_of(spaces, dim=1)                                 # (S, n, hs); was: train_ranks, test_ranks
in_sample = rank_auc(all_ranks.transpose(1, 2), is_food.double())   # (S, hs)
in_sample = torch.maximum(in_sample, 1 - in_sample).amax(dim=1)     # (S,): best coordinate, either sign
print(f"best coordinate chosen and scored on the same words: median AUC {in_sample.median():.2f}")

# %%
report.number("exercise_coordinate_auc_in_sample_median", in_sample.median(), "{:.2f}")

# %% tags=["no_shrinkage"]
# Exercise 2 of the "edible" page: fit the direction without shrinkage (32 dimensions,
# 80 training words). The true labels only: no chance level needed here.
_, unshrunk = held_out_aucs(spaces, labels[:1], folds, shrinkage=0.0)  # (1, S); was: shrinkage=0.2
print(f"direction without shrinkage: median held-out AUC {np.median(unshrunk[0].numpy()):.2f}")

# %%
report.number("exercise_direction_auc_median_no_shrinkage", np.median(unshrunk[0].numpy()),
              "{:.2f}")

# %% [markdown]
# ## Figures

# %%
TEXT = report.figure_text()   # the figures' words: edible_dimension.strings.toml
COLOURS = {"Q": "#1b9e77", "K": "#7570b3", "V": "#d95f02"}
for lang in LANGS:
    text = TEXT[lang]

    fig, ax = plt.subplots(figsize=(5.6, 4.6))
    half = L * H
    ax.scatter(coordinate_true[:half], direction_true[:half], s=22, marker="o",
               color=COLOURS["Q"], label=text["query"], alpha=0.8)
    ax.scatter(coordinate_true[half:], direction_true[half:], s=22, marker="^",
               color=COLOURS["K"], label=text["key"], alpha=0.8)
    ax.axvline(coordinate_null, color="grey", lw=1, ls="--")
    ax.axhline(direction_null, color="grey", lw=1, ls="--", label=text["chance"])
    ax.plot([0.3, 1], [0.3, 1], color="black", lw=0.6, ls=":")
    ax.set_xlim(0.3, 1.01)
    ax.set_ylim(0.3, 1.01)
    ax.set_xlabel(text["coordinate"], fontsize=10)
    ax.set_ylabel(text["direction"], fontsize=10)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="lower right")
    fig.tight_layout()
    report.figure("dimensions", fig, lang, alt=text["dim_alt"], caption=text["dim_caption"])

report.save()
