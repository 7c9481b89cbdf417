# %% [markdown]
# # One coordinate where "eat" meets "apple"?
#
# Source B §4 says the query of 吃 (eat) and the key of 苹果 (apple) meet
# because both are high on one "edibility" *dimension* (C28). We test it in
# MiniLM with English words: eating verbs against other verbs (their queries),
# food nouns against other nouns (their keys). A coordinate of a head's
# query–key space has no meaning by itself: rotating a head's queries and keys
# by the same orthogonal matrix changes no q·k, so the model could as well have
# been trained in any rotated basis. A coordinate counts only if it beats the
# coordinates of random rotations of the same space. The snippet records the
# numbers; the claims registry (docs/claims.yml) holds the rule.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report

report = Report("real_model.dimensions")

# %% tags=["model"]
from explainer.minilm import MiniLM, Tokenizer, run_sentences   # first: it pins torch's CPU kernels
from explainer.noun_classes import FOOD_NOUNS, OTHER_NOUNS, framed_sentences
from explainer.verb_classes import EATING_VERBS, OTHER_VERBS, verb_sentences
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()       # all-MiniLM-L6-v2, weights on disk
L, H = model.config.n_layers, model.config.n_heads
C, hs = model.config.d_model, model.config.d_model // H           # 384 wide, 32 dimensions per head
print(f"{L} layers × {H} heads = {L * H} heads of {hs} dimensions")

# %% [markdown]
# ## Queries of verbs, keys of nouns
#
# Every verb goes into six neutral frames with four objects (two food nouns,
# two other nouns: the same for every verb), every noun into six neutral
# frames. One forward pass over all sentences. A verb's query is read at the
# verb (the mean of its word pieces, for *nibble* = *ni ##bble*), a noun's key
# at the noun, both averaged over the word's sentences. Q and K are affine in
# the layer's input, so averaging the inputs first gives the same vectors.

# %% tags=["vectors"]
verb_items = verb_sentences()                        # (sentence, verb, frame, object)
noun_items = framed_sentences()                      # (sentence, noun, frame)
verbs, nouns = EATING_VERBS + OTHER_VERBS, FOOD_NOUNS + OTHER_NOUNS
is_eating = np.isin(verbs, EATING_VERBS)             # (V,) bool
food_noun = np.isin(nouns, FOOD_NOUNS)               # (N,) bool
outputs = run_sentences(model, tokenizer, [item[0] for item in verb_items + noun_items])


def word_inputs(items, words, outputs) -> torch.Tensor:
    """Each word's input to every layer, averaged over its pieces and its sentences: (L, n, C)."""
    total, count = torch.zeros(L, len(words), C), torch.zeros(len(words))
    for (sentence, word, *_), out in zip(items, outputs):
        tokens, pieces = tokenizer.tokens(sentence), tokenizer.tokens(word)[1:-1]
        start = next(t for t in range(len(tokens)) if tokens[t:t + len(pieces)] == pieces)
        w = words.index(word)
        for layer in range(L):
            total[layer, w] += out.hidden_states[layer][0, start:start + len(pieces)].mean(dim=0)
        count[w] += 1
    return total / count[None, :, None]


def per_head(x: torch.Tensor, weight: str) -> np.ndarray:
    """Project inputs (L, n, C) with each layer's W_Q or W_K: (L*H, n, hs), one row per head."""
    with torch.no_grad():
        projected = torch.stack([getattr(model.layers[layer].attention, weight)(x[layer])
                                 for layer in range(L)])                 # (L, n, C)
    n = x.shape[1]
    return projected.view(L, n, H, hs).permute(0, 2, 1, 3).reshape(L * H, n, hs).double().numpy()


n_verb = len(verb_items)
queries = per_head(word_inputs(verb_items, verbs, outputs[:n_verb]), "W_Q")   # (72, V, 32)
keys = per_head(word_inputs(noun_items, nouns, outputs[n_verb:]), "W_K")     # (72, N, 32)
print(f"{is_eating.sum()} eating verbs, {(~is_eating).sum()} other verbs "
      f"({len(verb_items)} sentences); {food_noun.sum()} food nouns, {(~food_noun).sum()} other nouns "
      f"({len(noun_items)} sentences)")

# %%
report.number("n_eating_verbs", is_eating.sum(), "{:.0f}", kind="count")
report.number("n_other_verbs", (~is_eating).sum(), "{:.0f}", kind="count")
report.number("n_food", food_noun.sum(), "{:.0f}", kind="count")
report.number("n_other", (~food_noun).sum(), "{:.0f}", kind="count")
report.number("n_heads", L * H, "{:.0f}", kind="count")
report.number("n_verb_sentences", len(verb_items), "{:.0f}", kind="count")
report.number("n_noun_sentences", len(noun_items), "{:.0f}", kind="count")

# %% [markdown]
# ## A coordinate that does both
#
# Coordinate i of a head *separates* a side when its value ranks one class
# above the other: the AUC, over the words, is the chance that a random eating
# verb's query has a larger coordinate i than a random other verb's (1 or 0:
# perfect, ½: no separation). The source's claim needs the *same* coordinate on
# both sides, with the same sign: the head's statistic is the best coordinate's
# min(AUC_q(i), AUC_k(i)), or of 1 − both when both are low.

# %% tags=["coordinate"]
from explainer.coordinates import coordinate_auc, shared_coordinate
# coordinate_auc(X, positive): per coordinate, the share of (positive, other) word pairs
# in which the positive word's value is larger. shared_coordinate: per head, the best
# coordinate's min(AUC_q, AUC_k), both high or both low, and which coordinate it is.
statistic, coordinate = shared_coordinate(queries, keys, is_eating, food_noun)   # (72,), (72,)
auc_q = coordinate_auc(queries, is_eating)[np.arange(L * H), coordinate]       # (72,)
auc_k = coordinate_auc(keys, food_noun)[np.arange(L * H), coordinate]            # (72,)
best = int(statistic.argmax())
print(f"best head {best // H + 1}-{best % H + 1}, coordinate {coordinate[best]}: "
      f"AUC over eating vs other verbs' queries {auc_q[best]:.2f}, "
      f"over food vs other nouns' keys {auc_k[best]:.2f}")

# %% [markdown]
# ## Against random rotations of the same space
#
# Rotate a head's queries and keys by the same random orthogonal matrix R
# (32 × 32): (qR)·(kR) = q·k, so the head computes exactly what it did, but its
# coordinates are new ones. If MiniLM's own coordinates are special, the
# statistic is larger in them than in rotated ones. Each draw rotates every
# head (its own R) and keeps the largest statistic of the 72 heads, so a head's
# p-value is corrected for the heads tried.

# %% tags=["rotations"]
from explainer.coordinates import random_rotations   # uniform random orthogonal matrices (n, d, d)

N_ROTATIONS = 5000
rng = np.random.default_rng(0)
null_best = np.zeros(N_ROTATIONS)                                        # best head of each draw
for draw in range(N_ROTATIONS):
    R = random_rotations(L * H, hs, rng)                                 # (72, 32, 32), one per head
    null_best[draw] = shared_coordinate(queries @ R, keys @ R, is_eating, food_noun)[0].max()
p_rotation = (1 + (null_best[:, None] >= statistic[None, :]).sum(axis=0)) / (1 + N_ROTATIONS)  # (72,)
p_first_1000 = (1 + (null_best[:1000] >= statistic.max()).sum()) / 1001              # the first 1,000 draws
unchanged = np.abs(np.einsum("hvd,hnd->hvn", queries @ R, keys @ R)
                   - np.einsum("hvd,hnd->hvn", queries, keys)).max()
print(f"largest change of any q·k under the last rotation: {unchanged:.1e}")
print(f"best head's statistic {statistic[best]:.2f}; rotated spaces, best of 72 heads: "
      f"median {np.median(null_best):.2f}, 95th percentile {np.percentile(null_best, 95):.2f}; "
      f"p = {p_rotation[best]:.3f}")

# %% [markdown]
# ## How much of the score does the coordinate carry?
#
# The eating verbs' *advantage* in a head: mean q·k(eating verb, food noun) −
# mean q·k(eating verb, other noun) = q̄_eat · (k̄_food − k̄_other), a sum of 32
# terms, one per coordinate. The share of coordinate i is its term's part of
# the sum (0 when there is no advantage to carry).

# %% tags=["advantage"]
from explainer.coordinates import advantage_terms, coordinate_share

ALPHA = 0.05       # a head's coordinate or preference counts as beyond chance when p < ALPHA
SHARE_BAR = 0.5    # C28: the best coordinate carries at least this share of the advantage
eat_query = queries[:, is_eating].mean(axis=1)                           # (72, 32): mean eating-verb query
terms = advantage_terms(eat_query, keys, food_noun)                        # (72, 32): q̄_i (k̄_food,i − k̄_other,i)
advantage = terms.sum(axis=1)                                            # (72,)
share = coordinate_share(terms, coordinate)                              # (72,): the best coordinate's part
passing = (p_rotation < ALPHA) & (share >= SHARE_BAR)                     # (72,)
print(f"head {best // H + 1}-{best % H + 1}: advantage {advantage[best]:.2f}, "
      f"coordinate {coordinate[best]} carries {share[best]:.0%} of it")
print(f"heads whose coordinate beats the rotations (p < {ALPHA}) and carries ≥ {SHARE_BAR:.0%}: {passing.sum()} of {L * H}")

# %% [markdown]
# ## Do eating verbs prefer food keys at all?
#
# Whatever the coordinates do, a head may still let eating verbs prefer food
# nouns, through a direction. Each head's advantage is scaled by the spread of
# the eating-verb query's scores over all nouns (so the heads are comparable),
# and compared with 1,000 shuffles of the food / other labels of the nouns, the
# same shuffles for every head, the best head of each shuffle kept.

# %% tags=["preference"]
from explainer.coordinates import scaled_advantage   # mean scaled score of food minus other nouns

scores = np.einsum("hd,hnd->hn", eat_query, keys)                        # (72, N): q̄_eat · k
scaled = scores / scores.std(axis=1, keepdims=True)                      # (72, N)
N_SHUFFLES = 1000
shuffles = np.array([np.random.default_rng(1000 + s).permutation(food_noun) for s in range(N_SHUFFLES)])
observed = scaled_advantage(scaled, food_noun)                             # (72,)
shuffled_best = scaled_advantage(scaled, shuffles).max(axis=1)           # (1000,)
p_advantage = (1 + (shuffled_best[:, None] >= observed[None, :]).sum(axis=0)) / (1 + N_SHUFFLES)
top = int(observed.argmax())
by_size = np.sort(terms[top])[::-1]                                      # largest term first
for_half = int(np.argmax(np.cumsum(by_size) >= 0.5 * advantage[top]) + 1)   # coordinates for half of it
print(f"heads whose eating verbs prefer food keys beyond chance (p < {ALPHA}): {(p_advantage < ALPHA).sum()} of {L * H}")
print(f"strongest: head {top // H + 1}-{top % H + 1}, scaled advantage {observed[top]:.2f}, p = {p_advantage[top]:.3f}; "
      f"its largest coordinate carries {by_size[0] / advantage[top]:.0%}, {for_half} coordinates carry half")

# %%
layer_of, head_of = best // H + 1, best % H + 1
report.number("coordinate_best_layer", layer_of, "{:.0f}")
report.number("coordinate_best_head", head_of, "{:.0f}")
report.number("coordinate_best_index", coordinate[best], "{:.0f}")
report.number("coordinate_statistic", statistic[best], "{:.2f}")
report.number("coordinate_auc_q", max(auc_q[best], 1 - auc_q[best]), "{:.2f}")
report.number("coordinate_auc_k", max(auc_k[best], 1 - auc_k[best]), "{:.2f}")
report.number("coordinate_rotation_p", p_rotation[best], kind="p")
report.number("coordinate_null_median", np.median(null_best), "{:.2f}")
report.number("coordinate_null_p95", np.percentile(null_best, 95), "{:.2f}")
report.number("coordinate_heads_beating_rotations", (p_rotation < ALPHA).sum(), "{:.0f}",
              kind="count")
report.number("coordinate_rotation_p_first_1000", p_first_1000, kind="p")
report.number("coordinate_head_advantage_p", p_advantage[best], kind="p")
report.number("n_rotations", N_ROTATIONS, "{:.0f}", kind="count")
report.number("alpha", ALPHA, "{:.2f}")
report.number("rotation_qk_change", unchanged, "{:.1e}")
report.number("coordinate_advantage", advantage[best], "{:.2f}")
report.number("coordinate_share", share[best], "{:.0%}", kind="share")
report.number("coordinate_heads_passing", passing.sum(), "{:.0f}", kind="count")
report.number("share_bar", SHARE_BAR, kind="share")
report.number("advantage_best_layer", top // H + 1, "{:.0f}")
report.number("advantage_best_head", top % H + 1, "{:.0f}")
report.number("advantage_best_scaled", observed[top], "{:.2f}")
report.number("advantage_p", p_advantage[top], kind="p")
report.number("advantage_heads_beyond_chance", (p_advantage < ALPHA).sum(), "{:.0f}", kind="count")
report.number("advantage_top_coordinate_share", by_size[0] / advantage[top], "{:.0%}", kind="share")
report.number("advantage_coordinates_for_half", for_half, "{:.0f}", kind="count")

# Does a single coordinate carry the preference (in some head), a direction only, or nothing beyond chance?
report.category("outcome", "coordinate" if passing.any() else "direction" if (p_advantage < ALPHA).any() else "none")

# %% [markdown]
# ## A note: do all verbs prefer food?
#
# The rule compares eating verbs' scores on food and on other nouns. If every
# verb's query preferred food keys, that preference would say nothing about
# eating. The same scaled advantage with the other verbs' mean query, in the
# head where eating verbs prefer food most:

# %%
other_query = queries[top, ~is_eating].mean(axis=0)                     # (32,)
other_scores = keys[top] @ other_query                                    # (N,)
other_advantage = (other_scores[food_noun].mean() - other_scores[~food_noun].mean()) / scores[top].std()
print(f"head {top // H + 1}-{top % H + 1}: scaled advantage of eating verbs {observed[top]:.2f}, "
      f"of other verbs {other_advantage:.2f}")
report.number("advantage_other_verbs", other_advantage, "{:.2f}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["one_rotation"]
# Exercise 1: rotate only the best head's queries and keys by one random rotation.
# Its scores q·k stay the same; what becomes of its best shared coordinate?
R1 = random_rotations(1, hs, np.random.default_rng(7))[0]               # (32, 32)
rotated_statistic = shared_coordinate(queries[best] @ R1, keys[best] @ R1, is_eating, food_noun)[0]
print(f"head {best // H + 1}-{best % H + 1}: statistic {statistic[best]:.2f} in MiniLM's basis, "
      f"{rotated_statistic:.2f} after one rotation")

# %%
report.number("exercise_rotated_statistic", rotated_statistic, "{:.2f}")

# %% tags=["all_verbs"]
# Exercise 2: in the advantage cell, take the mean query of ALL verbs instead of the
# eating verbs'. How many heads prefer food keys beyond chance then?
all_query = queries.mean(axis=1)                                         # (72, 32)
all_scores = np.einsum("hd,hnd->hn", all_query, keys)                    # (72, N)
all_scaled = all_scores / all_scores.std(axis=1, keepdims=True)
all_p = (1 + (scaled_advantage(all_scaled, shuffles).max(axis=1)[:, None]
              >= scaled_advantage(all_scaled, food_noun)[None, :]).sum(axis=0)) / (1 + N_SHUFFLES)
print(f"heads whose mean verb query prefers food keys beyond chance: {(all_p < ALPHA).sum()} of {L * H}")

# %%
report.number("exercise_all_verbs_heads", (all_p < ALPHA).sum(), "{:.0f}", kind="count")

# %% [markdown]
# ## Figure

# %%
TEXT = report.figure_text()   # the figures' words: dimensions.strings.toml
for lang in LANGS:
    text = TEXT[lang]
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.2, 3.6))
    left.hist(null_best, bins=30, color="#7570b3", alpha=0.8, label=text["null"])
    left.axvline(statistic[best], color="#d95f02", lw=2, label=text["observed"])
    left.set_xlabel(text["statistic"], fontsize=10)
    left.set_ylabel(text["draws"], fontsize=10)
    left.tick_params(labelsize=9)
    left.legend(fontsize=9, loc="upper left")
    right.bar(np.arange(hs), by_size, color=np.where(by_size >= 0, "#1b9e77", "#d95f02"))
    right.axhline(0, color="grey", lw=0.8)
    right.set_xlabel(text["coordinate_rank"], fontsize=10)
    right.set_ylabel(text["terms"], fontsize=10)
    right.set_title(text["head"].format(top // H + 1, top % H + 1), fontsize=10)
    right.tick_params(labelsize=9)
    fig.tight_layout()
    recorded = {key: report.numbers[key]["texts"][lang]
                for key in ("n_rotations", "coordinate_statistic", "coordinate_rotation_p",
                            "advantage_best_layer", "advantage_best_head", "advantage_top_coordinate_share")}
    fill = dict(n=recorded["n_rotations"], s=recorded["coordinate_statistic"], p=recorded["coordinate_rotation_p"],
                l=recorded["advantage_best_layer"], h=recorded["advantage_best_head"],
                t=recorded["advantage_top_coordinate_share"])
    report.figure("coordinate_or_direction", fig, lang, alt=text["alt"].format(**fill),
                  caption=text["caption"].format(**fill))

report.save()
