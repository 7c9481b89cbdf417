# %% [markdown]
# # Keys, queries and values in a real model (6): layer-1 probes of verbs' queries and nouns' keys
#
# Source B says that $W_Q$ puts into a verb's query the feature "needs an object (is
# transitive)" (C31), that the query is much like the subcategorisation (Subcat) code of the
# frame a verb takes (C26), and that $W_K$ makes nouns' keys carry "can be the object of an
# action" (C39). A toy model shows that training *can* do this; here we ask MiniLM. In
# layer 1 a token's query and key depend on the token and its position only, so each word,
# put in the same slot of one template, has one context-free query and key per head. A
# ridge probe held out by word reads a label from each head's 32-dimensional query or key;
# two baselines say whether the head keeps more of the label than chance images of its
# input would. The snippet records the numbers; the claims registry (docs/claims.yml)
# holds the rules.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, column_figure
from explainer.report import Report

report = Report("real_model.keys_queries.layer1_probes")

# %% tags=["model"]
from explainer.minilm import MiniLM, Tokenizer   # first: it pins torch's CPU kernels
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()       # all-MiniLM-L6-v2, weights on disk
H = model.config.n_heads
hs = model.config.d_model // H                                     # 32 dimensions per head

# %% [markdown]
# ## The words, one slot, layer 1
#
# Every word goes into the same slot of one template ("They wrote ___ on the board.").
# Layer 1's input at the slot is the word's embedding plus the slot's position embedding,
# normalised: nothing of the other words has reached it yet. Projected with layer 1's
# $W_Q$ and $W_K$ and split into heads, it gives each word 12 queries and 12 keys of 32
# dimensions (explainer/head_vectors.py). The word lists, and why each word is in them,
# are in explainer/slot_words.py; a word that is not one WordPiece token stops the run.

# %% tags=["slot_vectors"]
from explainer.head_vectors import head_vectors
from explainer.minilm import run_sentences
from explainer.slot_words import FRAMES, TEMPLATE, VERBS, WORDS, slot_position


def layer1_slot_vectors(words):
    """Layer 1's input at the slot (N, C) and its per-head queries and keys (N, nh, hs)."""
    slot = slot_position(tokenizer, words)                         # raises if a word splits
    outputs = run_sentences(model, tokenizer, [TEMPLATE.format(w) for w in words])
    x = torch.cat([out.hidden_states[0][:, slot] for out in outputs])   # (N, C): layer 1's input
    vectors = head_vectors(model, x, layer=0)
    return x, vectors["Q"], vectors["K"]


verbs = [verb for verb, _, _ in VERBS]
is_transitive = np.array([int(transitive) for _, transitive, _ in VERBS])          # (n_verbs,)
has_frame = np.array([frame is not None for _, _, frame in VERBS])
frame_label = np.array([FRAMES.index(frame) for _, _, frame in VERBS if frame is not None])
verb_x, verb_q, verb_k = layer1_slot_vectors(verbs)                # (n, C), (n, nh, hs) ×2

words = [word for word, _ in WORDS]
is_noun = np.array([int(noun) for _, noun in WORDS])                 # (n_words,): concrete noun = 1
word_x, word_q, word_k = layer1_slot_vectors(words)
print(f"{len(verbs)} verbs ({is_transitive.sum()} transitive), {has_frame.sum()} with one clear frame; "
      f"{len(words)} words ({is_noun.sum()} concrete nouns); queries and keys {tuple(verb_q.shape[1:])} each")

# %%
report.number("n_verbs", len(verbs), kind="count")
report.number("n_transitive", is_transitive.sum(), kind="count")
report.number("n_intransitive", (1 - is_transitive).sum(), kind="count")
report.number("n_frame_verbs", has_frame.sum(), kind="count")
report.number("n_frame_none", (frame_label == FRAMES.index("none")).sum(), kind="count")
report.number("n_frame_place", (frame_label == FRAMES.index("place")).sum(), kind="count")
report.number("n_frame_object", (frame_label == FRAMES.index("object")).sum(), kind="count")
report.number("n_frame_two_objects", (frame_label == FRAMES.index("two_objects")).sum(), kind="count")
report.number("n_words", len(words), kind="count")
report.number("n_nouns", is_noun.sum(), kind="count")
report.number("n_other_words", (1 - is_noun).sum(), kind="count")
report.number("slot_position", slot_position(tokenizer, words), kind="count")
report.number("d_head", hs, kind="count")

# %% [markdown]
# ## The probe, held out by word
#
# A ridge regression on one-hot labels, features standardised on the training words,
# fitted on nine tenths of the words and asked about the other tenth (each class dealt
# evenly to ten folds), each word held out once. Balanced accuracy — the mean over
# classes of the share named right — so a class with more words does not win by its size;
# chance is one over the number of classes. Three questions: transitive or not from the
# verbs' queries (C31), the frame from the queries of the verbs with one clear frame (C26),
# concrete noun or not from the words' keys (C39).

# %% tags=["probe"]
from explainer.projection_baseline import ridge_balanced_accuracy, stratified_folds

N_FOLDS = 10
tasks = {                      # name -> (vectors probed (n, nh, hs), layer-1 inputs (n, C), labels)
    "transitive": (verb_q, verb_x, is_transitive),
    "frame": (verb_q[has_frame], verb_x[has_frame], frame_label),
    "noun": (word_k, word_x, is_noun),
}
folds = {name: stratified_folds(labels, N_FOLDS) for name, (_, _, labels) in tasks.items()}
per_head = {name: ridge_balanced_accuracy(vectors.transpose(0, 1), labels, folds[name]).numpy()
            for name, (vectors, _, labels) in tasks.items()}              # (nh,) each
for name, accuracy in per_head.items():
    print(f"{name:>10}: heads {np.round(accuracy, 2)}")

# %% [markdown]
# ## Two baselines on the same input
#
# Any 32-dimensional linear image of the 384-dimensional input keeps part of what the
# input holds. The first baseline draws 12 random Gaussian projections to 32 dimensions —
# one per head — probes each the same way and keeps the best; 1,000 such sets give the
# distribution of the best of 12 chance images, and a head must be above its 95th
# percentile. The second is the input's top 32 principal components: the most variance a
# 32-dimensional image can keep. A head beats the baseline when it is above both.

# %% tags=["baselines"]
from explainer.projection_baseline import max_projection_null, top_components

N_SETS, PER_SET = 1000, H                    # 1,000 sets of 12 random projections
null_p95, pca_accuracy, input_accuracy = {}, {}, {}
for name, (_, x, labels) in tasks.items():
    best_of_set = max_projection_null(x, labels, folds[name], N_SETS, PER_SET, hs, seed=0)   # (N_SETS,)
    null_p95[name] = np.quantile(best_of_set, 0.95)
    pca_accuracy[name] = float(ridge_balanced_accuracy(top_components(x, hs), labels, folds[name]))
    input_accuracy[name] = float(ridge_balanced_accuracy(x, labels, folds[name]))
    print(f"{name:>10}: best head {per_head[name].max():.2f}, null 95th percentile {null_p95[name]:.2f}, "
          f"top-{hs} components {pca_accuracy[name]:.2f}, whole input {input_accuracy[name]:.2f}")

# %%
PASS_BAR = 0.75
report.number("pass_bar", PASS_BAR, "{:.2f}")
report.number("layer1_heads", H, kind="count")
report.number("n_null_sets", N_SETS, kind="count")
report.number("null_set_size", PER_SET, kind="count")
report.number("n_folds", N_FOLDS, kind="count")
WHAT = {"transitive": "query", "frame": "query", "noun": "key"}   # each question, and the vector meant to carry it
other = {"transitive": verb_k, "frame": verb_k[has_frame], "noun": word_q}   # the other vector: a note
best, beats, passes, note = {}, {}, {}, {}
for name, vector in WHAT.items():
    accuracy = per_head[name]
    best[name] = int(accuracy.argmax())
    beats[name] = (accuracy > null_p95[name]) & (accuracy > pca_accuracy[name])
    passes[name] = beats[name] & (accuracy >= PASS_BAR)
    note[name] = ridge_balanced_accuracy(other[name].transpose(0, 1), tasks[name][2], folds[name]).numpy()
    per_head[f"{name}_{'key' if vector == 'query' else 'query'}"] = note[name]


report.number("transitive_chance", 1 / len(np.unique(tasks["transitive"][2])), "{:.2f}")
best_of = best   # a name of this recording cell: other cells of the page bind "best"
report.number("transitive_best_query", per_head["transitive"][best_of["transitive"]], "{:.2f}")
report.number("transitive_best_query_head", best_of["transitive"] + 1, kind="count")
report.number("transitive_query_median", np.median(per_head["transitive"]), "{:.2f}")
report.number("transitive_null_p95", null_p95["transitive"], "{:.2f}")
report.number("transitive_pca", pca_accuracy["transitive"], "{:.2f}")
report.number("transitive_input", input_accuracy["transitive"], "{:.2f}")
report.number("transitive_beating_heads", beats["transitive"].sum(), kind="count")
report.number("transitive_passing_heads", passes["transitive"].sum(), kind="count")
report.number("transitive_best_key", note["transitive"].max(), "{:.2f}")
report.number("frame_chance", 1 / len(np.unique(tasks["frame"][2])), "{:.2f}")
report.number("frame_best_query", per_head["frame"][best_of["frame"]], "{:.2f}")
report.number("frame_best_query_head", best_of["frame"] + 1, kind="count")
report.number("frame_query_median", np.median(per_head["frame"]), "{:.2f}")
report.number("frame_null_p95", null_p95["frame"], "{:.2f}")
report.number("frame_pca", pca_accuracy["frame"], "{:.2f}")
report.number("frame_input", input_accuracy["frame"], "{:.2f}")
report.number("frame_beating_heads", beats["frame"].sum(), kind="count")
report.number("frame_passing_heads", passes["frame"].sum(), kind="count")
report.number("frame_best_key", note["frame"].max(), "{:.2f}")
report.number("noun_chance", 1 / len(np.unique(tasks["noun"][2])), "{:.2f}")
report.number("noun_best_key", per_head["noun"][best_of["noun"]], "{:.2f}")
report.number("noun_best_key_head", best_of["noun"] + 1, kind="count")
report.number("noun_key_median", np.median(per_head["noun"]), "{:.2f}")
report.number("noun_null_p95", null_p95["noun"], "{:.2f}")
report.number("noun_pca", pca_accuracy["noun"], "{:.2f}")
report.number("noun_input", input_accuracy["noun"], "{:.2f}")
report.number("noun_beating_heads", beats["noun"].sum(), kind="count")
report.number("noun_passing_heads", passes["noun"].sum(), kind="count")
report.number("noun_best_query", note["noun"].max(), "{:.2f}")
report.data("per_head", {name: [round(float(a), 4) for a in accuracy] for name, accuracy in per_head.items()})

# %% [markdown]
# ## Could the test see a key that carries the label? (C39's power check)
#
# C39 can be refuted only if the test could have seen the effect. A planted head: one of
# layer 1's twelve key sets, drawn at random, with the noun / other class means made
# equal (so it no longer carries the label on average), plus one random direction along
# which the two classes are moved apart by `size` standard deviations (of the head along
# that direction), each class by half of it. The size is the smallest
# (in steps of 0.1) at which planted heads reach 0.75 balanced accuracy on average — the
# size at which the claim would be verified. The detection share: of 1,000 planted heads,
# how many are above both baselines.

# %% tags=["planted"]
from explainer.projection_baseline import planted_detection, planted_size

keys = word_k.transpose(0, 1)                                        # (nh, n_words, hs)
size, size_accuracy = planted_size(keys, is_noun, folds["noun"], PASS_BAR, np.round(np.arange(0.1, 6.01, 0.1), 1), draws=200)
baseline = max(null_p95["noun"], pca_accuracy["noun"])
detected, planted_accuracy = planted_detection(keys, is_noun, folds["noun"], size, baseline, draws=1000)
print(f"planted size {size:.1f} standard deviations: mean balanced accuracy {planted_accuracy.mean():.2f}; "
      f"above both baselines in {detected:.1%} of 1,000 draws")

# %%
report.number("key_planted_size", size, "{:.1f}")
report.number("key_planted_accuracy_mean", planted_accuracy.mean(), "{:.2f}")
report.number("key_planted_detection_share", detected, kind="share")
report.number("n_planted_draws", len(planted_accuracy), kind="count")
POWERED = 0.8                        # the share a refutation needs (G1)
report.number("powered_share", POWERED, kind="share")
report.category("power", "powered" if detected >= POWERED else "underpowered")

# %% [markdown]
# ## Figure

# %%
TEXT = {
    "en": {"panels": {"transitive": "(a) transitive or not, from the verbs' queries",
                      "frame": "(b) the frame (four), from the queries",
                      "noun": "(c) concrete noun or not, from the words' keys"},
           "main": {"query": "query", "key": "key"}, "note": {"query": "query (note)", "key": "key (note)"},
           "null": "best of 12 random projections: 95th pct.", "pca": "top 32 principal components",
           "bar": "bar", "chance": "chance", "head": "layer-1 head", "accuracy": "balanced accuracy",
           "alt": "Three panels, one per question: transitive or not and the frame, read from the verbs' "
                  "queries, and concrete noun or not, read from the words' keys. For each of the 12 heads of "
                  "layer 1, a dot for the held-out balanced accuracy of the probe, an open mark for the other "
                  "vector (keys, or queries) as a note, and horizontal lines for the 95th percentile of the best "
                  "of 12 random projections, the input's top 32 principal components, the bar and chance.",
           "caption": "Layer 1, head by head: {t} of 12 queries pass on transitivity, {f} on the frame; "
                      "{n} of 12 keys on concrete nouns (pass: {bar} or more, above both lines)."},
    "zh": {"panels": {"transitive": "(a) 及物与否，读动词的查询", "frame": "(b) 句型（四种），读查询",
                      "noun": "(c) 是否具体名词，读词的键"},
           "main": {"query": "查询", "key": "键"}, "note": {"query": "查询（注）", "key": "键（注）"},
           "null": "12 个随机投影的最好者：第 95 百分位", "pca": "前 32 个主成分",
           "bar": "门槛", "chance": "偶然水平", "head": "第 1 层的头", "accuracy": "平衡准确率",
           "alt": "三幅图，各对应一个问题：及物与否和句型，读自动词的查询；是否具体名词，读自词的键。第 1 层 12 个头中的"
                  "每一个：一个实心点是探针在留出词上的平衡准确率，一个空心记号是另一种向量（键或查询）的结果，只作注；"
                  "水平线依次是 12 个随机投影中最好者的第 95 百分位、输入前 32 个主成分、门槛和偶然水平。",
           "caption": "第 1 层逐个头看：在及物与否上 12 个查询中有 {t} 个达标，在句型上有 {f} 个；在具体名词上 12 个键中"
                      "有 {n} 个达标（达标：不低于 {bar}，且高于两条线）。"},
}
for lang in LANGS:
    text = TEXT[lang]
    fig, axes = column_figure(7.6, nrows=3, sharex=True)
    x = np.arange(1, H + 1)
    for ax, name in zip(axes, WHAT):
        vector, note = ("key", "query") if name == "noun" else ("query", "key")
        ax.axhline(null_p95[name], color="grey", ls="--", lw=1.2, label=text["null"])
        ax.axhline(pca_accuracy[name], color="#7570b3", ls="-.", lw=1.2, label=text["pca"])
        ax.axhline(PASS_BAR, color="#1b9e77", ls="-", lw=1, label=text["bar"])
        ax.axhline(1 / len(np.unique(tasks[name][2])), color="grey", ls=":", lw=1, label=text["chance"])
        lines = ax.get_legend_handles_labels()
        note_marks = ax.scatter(x, per_head[f"{name}_{note}"], marker="o", s=30, facecolors="none",
                                edgecolors="#555555", zorder=3)
        main_marks = ax.scatter(x, per_head[name], color="#d95f02", s=34, zorder=4)
        ax.legend([main_marks, note_marks], [text["main"][vector], text["note"][note]],
                  fontsize=9, loc="lower left", ncols=2)
        ax.set_ylim(0.2, 1.03)
        ax.set_ylabel(text["accuracy"])
        ax.set_title(text["panels"][name], loc="left")
    fig.legend(*lines, loc="outside lower center", ncols=2, fontsize=9)
    axes[-1].set_xticks(x)
    axes[-1].set_xlabel(text["head"])
    report.figure("per_head", fig, lang, alt=text["alt"],
                  caption=text["caption"].format(t=passes["transitive"].sum(), f=passes["frame"].sum(),
                                                 n=passes["noun"].sum(), bar=f"{PASS_BAR:.2f}"))

report.save()
