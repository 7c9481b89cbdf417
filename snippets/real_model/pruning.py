# %% [markdown]
# # Pruning a real model
#
# Michel, Levy and Neubig (2019) found that many of a trained Transformer's
# heads can be removed at test time with little loss. We try it on MiniLM,
# scoring what this model is *for*: sentence embeddings (mean over tokens, then
# unit length, as sentence-transformers does) that put a paraphrase closer to
# its sentence than other sentences. A head is removed by zeroing its output
# *before* W_O — zeroing a slice after W_O would not remove that head.
#
# The yardstick is the project's, the same for the trained toy models: each
# head's importance is the score drop when it alone is removed, measured on one
# half of the sentences; heads are then removed together, least important
# first, and the *prunable share* is the largest share of all heads that can go
# while the score on the other half stays at least 95 % of the full model's.
# The snippet records numbers; the rule for C37 (the replication of C13) is in
# docs/claims.yml.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.report import Report

report = Report("real_model.pruning")

# %% tags=["model"]
from explainer.minilm import MiniLM, Tokenizer, mean_pool   # first: it pins torch's CPU kernels
from explainer.paraphrase_topics import ITEMS
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()       # all-MiniLM-L6-v2, weights on disk
L, H = model.config.n_layers, model.config.n_heads
KEEP = 0.95                                                      # "little loss": score >= 95 % of full
print(f"{L} layers × {H} heads; {len(ITEMS)} paraphrase items, e.g.")
for sentence in ITEMS[0]:                                        # anchor, paraphrase, related, unrelated
    print("   ", sentence)

# %% [markdown]
# ## The score: how far a paraphrase stands out
#
# An item is a sentence with three partners: a paraphrase, a related sentence
# that means something else, and an unrelated one. Its margin is the cosine
# similarity of the paraphrase minus that of the closer of the other two; the
# score is the mean margin over the items. The 200 items come in two halves
# of 100 that share no sentence: the heads are ranked on one half and the
# pruned model is judged on the other, both ways round, so the data that chose
# the pruning order never scores it — and the two halves tell how far the
# result would move with other sentences.

# %% tags=["score"]
class SentenceSet:
    """Sentences tokenised once and grouped by length, so a forward pass needs no padding."""

    def __init__(self, sentences: list[str]):
        self.sentences = sentences
        self.groups: dict[int, list[int]] = {}                   # length -> sentence indices
        ids = [tokenizer.ids(s)[0] for s in sentences]
        for n, i in enumerate(ids):
            self.groups.setdefault(len(i), []).append(n)
        self.ids = {T: torch.stack([ids[n] for n in members]) for T, members in self.groups.items()}

    def embed(self, first_layer: int = 0, inputs=None) -> torch.Tensor:
        """(N, 384) unit sentence embeddings under the current head mask; with ``inputs``
        (length -> (b, T, C) input of layer ``first_layer``) only layers from there on run."""
        out = torch.zeros(len(self.sentences), model.config.d_model)
        with torch.no_grad():
            for T, ids in self.ids.items():
                x = model.embeddings(ids) if inputs is None else inputs[T]   # (b, T, C)
                for block in model.layers[first_layer:]:
                    x = block(x)
                out[self.groups[T]] = mean_pool(x)
        return out

    def layer_inputs(self) -> list[dict[int, torch.Tensor]]:
        """With all heads on: for each layer, its input per length group."""
        with torch.no_grad():
            hidden = {T: model(ids).hidden_states for T, ids in self.ids.items()}
        return [{T: h[layer] for T, h in hidden.items()} for layer in range(L)]


def item_sentences(quadruples):
    """Flatten (anchor, paraphrase, related, unrelated) items; returns sentences, index (items, 4)."""
    sentences = sorted({s for quadruple in quadruples for s in quadruple})
    return sentences, np.array([[sentences.index(s) for s in q] for q in quadruples])


def paraphrase_margin(embeddings: torch.Tensor, index: np.ndarray) -> float:
    """Mean over items of cos(anchor, paraphrase) - max(cos(anchor, related), cos(anchor, unrelated))."""
    e = embeddings[index]                                        # (items, 4, 384)
    similarity = (e[:, :1] * e[:, 1:]).sum(-1)                   # (items, 3)
    return float((similarity[:, 0] - similarity[:, 1:].max(dim=1).values).mean())


class Half:
    """One half of the items: its sentences, and the full model's score on it."""

    def __init__(self, items):
        sentences, self.index = item_sentences(items)
        self.sentences = SentenceSet(sentences)
        self.full = paraphrase_margin(self.sentences.embed(), self.index)


# the first and the last 100 items share no sentence (explainer/paraphrase_topics.py)
half_a, half_b = Half(ITEMS[: len(ITEMS) // 2]), Half(ITEMS[len(ITEMS) // 2:])
print(f"full model's score: half A {half_a.full:.3f}, half B {half_b.full:.3f}")

# %%
report.number("n_items", len(ITEMS), "{:.0f}", kind="count")
report.number("n_half_items", len(ITEMS) // 2, "{:.0f}", kind="count")
report.number("full_margin", (half_a.full + half_b.full) / 2, "{:.2f}")
report.number("full_margin_half_a", half_a.full, "{:.2f}")
report.number("full_margin_half_b", half_b.full, "{:.2f}")

# %% [markdown]
# ## Importance of each head
#
# Remove one head at a time and measure the drop of the score on a half.
# Removing a head of layer l leaves layers 1..l-1 untouched, so we keep their
# output and re-run only layers l..6.

# %% tags=["importance"]
def head_importance(half: Half) -> np.ndarray:
    """(L, H): the score drop on ``half`` when each head alone is removed."""
    inputs = half.sentences.layer_inputs()
    importance = np.zeros((L, H))
    for layer in range(L):
        for head in range(H):
            mask = torch.ones(L, H)
            mask[layer, head] = 0
            model.set_head_mask(mask)
            importance[layer, head] = half.full - paraphrase_margin(
                half.sentences.embed(layer, inputs[layer]), half.index)
    model.set_head_mask(torch.ones(L, H))
    return importance


def rank_correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's correlation of two score arrays (no ties expected in real numbers)."""
    rank_a, rank_b = a.ravel().argsort().argsort(), b.ravel().argsort().argsort()
    return float(np.corrcoef(rank_a, rank_b)[0, 1])


importance_a, importance_b = head_importance(half_a), head_importance(half_b)
importance = importance_a                                        # shown: ranked on half A
most = np.unravel_index(importance.argmax(), (L, H))
print(f"most important head (half A): {most[0] + 1}-{most[1] + 1}, drop {importance.max():.3f}; "
      f"median drop {np.median(importance):.4f}; {(importance < 0).sum()} heads help when removed")
print(f"rank correlation of the importances between the halves: "
      f"{rank_correlation(importance_a, importance_b):.2f}")

# %%
report.number("top_importance", importance.max(), "{:.3f}")
report.number("top_importance_layer", most[0] + 1, "{:.0f}")
report.number("top_importance_head", most[1] + 1, "{:.0f}")
report.number("median_importance", np.median(importance), "{:.4f}")
report.number("heads_helping_when_removed", (importance < 0).sum(), "{:.0f}", kind="count")
report.number("importance_rank_correlation", rank_correlation(importance_a, importance_b), "{:.2f}")

# %% [markdown]
# ## Pruning curve
#
# Remove heads together, least important first (ranked on the other half), and
# score the judging half: every STEP heads up to half of them (every 2 x STEP
# beyond), then head by head between the last step that keeps 95 % of the full
# score and the first that does not. The prunable share is the number of heads
# removed just before the first failure, over 72. A random order (fixed seed,
# checked every 2 x STEP heads) is the baseline.

# %% tags=["pruning_curve"]
STEP = 6


def judged_score(removal_order, k: int, half: Half) -> float:
    mask = torch.ones(L * H)
    mask[torch.as_tensor(removal_order[:k], dtype=torch.long)] = 0
    model.set_head_mask(mask.view(L, H))
    score = paraphrase_margin(half.sentences.embed(), half.index)
    model.set_head_mask(torch.ones(L, H))
    return score


def pruning_curve(removal_order, half: Half, refine: bool) -> tuple[dict[int, float], int]:
    """Scores on ``half`` by heads removed, and the most heads removed before the score
    first drops below KEEP x full (72 if it never does)."""
    if refine:   # fine steps up to half of the heads, coarse beyond
        checks = list(range(STEP, L * H // 2, STEP)) + list(range(L * H // 2, L * H + 1, 2 * STEP))
    else:
        checks = list(range(2 * STEP, L * H + 1, 2 * STEP))
    scores = {0: half.full}
    for k in checks:
        scores[k] = judged_score(removal_order, k, half)
    ks = sorted(scores)
    first_fail = next((k for k in ks if scores[k] < KEEP * half.full), None)
    if first_fail is None:
        return scores, L * H
    last_pass = ks[ks.index(first_fail) - 1]
    if refine:
        for k in range(last_pass + 1, first_fail):
            scores[k] = judged_score(removal_order, k, half)
            if scores[k] < KEEP * half.full:
                return scores, k - 1
    return scores, last_pass


# judged on A, ranked on B; judged on B, ranked on A
order_a, order_b = np.argsort(importance_b, axis=None), np.argsort(importance_a, axis=None)
curve_a, prunable_a = pruning_curve(order_a, half_a, refine=True)
curve, prunable_b = pruning_curve(order_b, half_b, refine=True)   # shown: judged on half B
order = order_b
random_order = np.random.default_rng(0).permutation(L * H)
curve_random, prunable_random = pruning_curve(random_order, half_b, refine=False)
full_judging = half_b.full
prunable_share = (prunable_a + prunable_b) / 2 / (L * H)
print(f"heads that can go, least important first: {prunable_a} judged on half A, "
      f"{prunable_b} on half B; in a random order {prunable_random} (half B)")
print("score on half B, share of full, by heads removed:",
      ", ".join(f"{k}: {curve[k] / full_judging:.0%}" for k in (0, L * H // 4, L * H // 2, L * H)))

# %%
report.number("prunable_heads_half_a", prunable_a, "{:.0f}", kind="count")
report.number("prunable_share_half_a", prunable_a / (L * H), "{:.0%}", kind="share")
report.number("prunable_heads_half_b", prunable_b, "{:.0f}", kind="count")
report.number("prunable_share_half_b", prunable_b / (L * H), "{:.0%}", kind="share")
report.number("prunable_share", prunable_share, "{:.0%}", kind="share")
report.number("split_half_difference", abs(prunable_a - prunable_b) / (L * H), "{:.0%}",
              kind="share")
report.number("prunable_heads_random", prunable_random, "{:.0f}", kind="count")
report.number("prunable_share_random", prunable_random / (L * H), "{:.0%}", kind="share")
report.number("step", STEP, "{:.0f}")
report.number("keep", KEEP, "{:.0%}", kind="share")
quarter, half = L * H // 4, L * H // 2
report.number("margin_quarter_share", curve[quarter] / full_judging, "{:.0%}")
report.number("margin_half_share", curve[half] / full_judging, "{:.0%}")
report.number("margin_half_share_random", curve_random[half] / full_judging, "{:.0%}")
report.number("margin_all_removed_share", curve[L * H] / full_judging, "{:.0%}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["loosen_to_90"]
# Exercise 1: loosen the yardstick to 90 % of the full score. How many heads can go
# (least important first)? The curve's checks first, then head by head in between.
checked = sorted(curve)
first_fail = next((k for k in checked if curve[k] < 0.90 * full_judging), None)
prunable_at_90 = L * H if first_fail is None else checked[checked.index(first_fail) - 1]
if first_fail is not None:
    for k in range(prunable_at_90 + 1, first_fail):
        if (curve[k] if k in curve else judged_score(order, k, half_b)) < 0.90 * full_judging:
            break
        prunable_at_90 = k
print(f"heads that can go at 90 % (half B): {prunable_at_90}")            # was: KEEP = 0.95

# %%
report.number("exercise_prunable_heads_at_90", prunable_at_90, "{:.0f}", kind="count")

# %% tags=["most_important_first"]
# Exercise 2: remove a quarter of the heads, the MOST important first.
most_first = judged_score(order[::-1].copy(), L * H // 4, half_b) / full_judging   # was: order
print(f"a quarter removed, most important first: {most_first:.0%} of the full score (half B)")

# %%
report.number("exercise_quarter_most_important_removed_share", most_first, "{:.0%}")

# %% [markdown]
# ## Figures

# %%
TEXT = report.figure_text()   # the figures' words: pruning.strings.toml
for lang in LANGS:
    text = TEXT[lang]

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    image = ax.imshow(importance, cmap=SEQUENTIAL_CMAP)
    ax.set_xticks(range(H), [str(h + 1) for h in range(H)], fontsize=9)
    ax.set_yticks(range(L), [str(l + 1) for l in range(L)], fontsize=9)
    ax.set_xlabel(text["head"], fontsize=10)
    ax.set_ylabel(text["layer"], fontsize=10)
    bar = fig.colorbar(image, ax=ax, shrink=0.8)
    bar.set_label(text["importance"], fontsize=10)
    bar.ax.tick_params(labelsize=9)
    fig.tight_layout()
    report.figure("importance", fig, lang, alt=text["grid_alt"], caption=text["grid_caption"])

    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    for scores, full, style, color, label in (
            (curve, half_b.full, "o-", "#d95f02", text["by_importance"]),
            (curve_a, half_a.full, "^-", "#1b9e77", text["by_importance_a"]),
            (curve_random, half_b.full, "s:", "#7570b3", text["random"])):
        ks = sorted(scores)
        ax.plot(ks, [scores[k] / full for k in ks], style, color=color, markersize=4, label=label)
    keep = report.numbers["keep"]["texts"][lang]                   # the recorded yardstick, "95%"
    ax.axhline(KEEP, color="grey", lw=1, ls="--", label=text["keep"].format(keep=keep))
    ax.set_xlabel(text["removed"], fontsize=10)
    ax.set_ylabel(text["score"], fontsize=10)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="lower left")
    fig.tight_layout()
    report.figure("pruning_curve", fig, lang, alt=text["curve_alt"].format(keep=keep), caption=text["curve_caption"])

report.save()
