# %% [markdown]
# # V and the residual stream (3): do the values carry more context, layer after layer?
#
# Source B's postscript says the values are handed on, embedding → layer-1 V →
# layer-2 V → …, each layer's value carrying richer context (C29). In MiniLM two
# held-out probes read context from each layer's values: the words next to a
# token, and a word's sense. The snippet records numbers; the rules that turn
# them into verdicts are in docs/claims.yml.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report

report = Report("real_model.residual.probes")

# %% tags=["model"]
from explainer.layer_values import values_by_layer
from explainer.minilm import MiniLM, Tokenizer, run_sentences   # first: it pins torch's CPU kernels
from explainer.sample_sentences import SENTENCES
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()       # all-MiniLM-L6-v2, weights on disk
L = model.config.n_layers
trained = run_sentences(model, tokenizer, SENTENCES)           # hidden states of every sentence
values = values_by_layer(model, trained)                       # per layer (N, C): W_V x, all tokens
print(f"{L} layers; {len(SENTENCES)} sample sentences; {len(values[0])} tokens")

# %% [markdown]
# ## Do the values carry more context, layer after layer?
#
# Source B says each layer's value "carries richer context". One kind of
# context a value can carry is which words stand next to its token. A linear
# probe reads it: fitted on some sentences, it maps a token's value in layer l
# to a guess of the embedding of the word before it (and, with a second probe,
# of the word after it); on the held-out sentences a guess counts when the
# nearest word of the sample, by cosine, is the right one (explainer/probes.py,
# 5 folds of sentences, ridge penalty chosen inside the training sentences).
# Layer 1's values are projections of the embedding alone, so what its probe
# gets right comes from the token itself (after "the" comes a noun); from
# layer 2 on, the values have seen the sentence.

# %% tags=["neighbour_probe"]
from explainer.probes import word_probe_correct

token_ids = [tokenizer.ids(s)[0] for s in SENTENCES]                       # per sentence, (T,)
items = np.array([(s, p, q) for s, ids in enumerate(token_ids)
                  for p in range(1, len(ids) - 1)                 # no [CLS] / [SEP] ...
                  for q in (p - 1, p + 1) if 1 <= q <= len(ids) - 2])   # ... on either side
neighbour_ids = np.array([token_ids[s][q].item() for s, p, q in items])     # (n_items,)
words, targets = np.unique(neighbour_ids, return_inverse=True)              # candidates, (n_items,)
word_vectors = model.embeddings.token.weight.detach().double()[torch.as_tensor(words)]  # (V, C)
is_right = items[:, 2] > items[:, 1]
rows = np.cumsum([0] + [len(ids) for ids in token_ids])[items[:, 0]] + items[:, 1]  # into values[l]
correct = np.zeros((L, len(items)), dtype=bool)                            # (L, n_items)
for layer in range(L):
    X = values[layer].double()[torch.as_tensor(rows)]                      # (n_items, C)
    for side in (False, True):                 # one probe for the word before, one for after
        mask = is_right == side
        correct[layer, mask] = word_probe_correct(X[mask], targets[mask], items[mask, 0],
                                                  word_vectors)
probe_accuracy = correct.mean(axis=1)                                      # (L,)
gains = np.diff(probe_accuracy)                                            # (L-1,) steps 1→2 … 5→6
print("neighbour-word probe by layer:", np.round(probe_accuracy, 3))

# %% tags=["gain_interval"]
# How sure is the gain from layer 1 to layer 6? Resample the sentences (with replacement)
# and recompute both accuracies from the held-out hits: a 95 % interval.
hits = np.stack([np.bincount(items[:, 0], weights=correct[l], minlength=len(SENTENCES))
                 for l in (0, L - 1)])                                     # (2, n_sentences)
n_items = np.bincount(items[:, 0], minlength=len(SENTENCES))               # (n_sentences,)
draws = np.random.default_rng(0).multinomial(
    len(SENTENCES), np.full(len(SENTENCES), 1 / len(SENTENCES)), size=1000)  # (1000, n_sentences)
gain_draws = (draws @ hits[1] - draws @ hits[0]) / (draws @ n_items)       # (1000,)
gain_low, gain_high = np.percentile(gain_draws, [2.5, 97.5])
print(f"gain from layer 1 to layer {L}: {probe_accuracy[L - 1] - probe_accuracy[0]:+.3f} "
      f"(95 % interval {gain_low:+.3f} to {gain_high:+.3f})")

# %%
report.number("n_probe_items", len(items), "{:.0f}", kind="count")
report.number("n_probe_words", len(words), "{:.0f}", kind="count")
report.number("neighbour_majority_share", np.bincount(targets).max() / len(targets), "{:.0%}",
              kind="share")
report.number("neighbour_probe_layer1", probe_accuracy[0], "{:.0%}", kind="share")
report.number("neighbour_probe_layer2", probe_accuracy[1], "{:.0%}", kind="share")
report.number("neighbour_probe_layer3", probe_accuracy[2], "{:.0%}", kind="share")
report.number("neighbour_probe_layer4", probe_accuracy[3], "{:.0%}", kind="share")
report.number("neighbour_probe_layer5", probe_accuracy[4], "{:.0%}", kind="share")
report.number("neighbour_probe_layer6", probe_accuracy[5], "{:.0%}", kind="share")
report.number("neighbour_probe_gain_steps", (gains > 0).sum(), "{:.0f}", kind="count")
report.number("neighbour_probe_gain", probe_accuracy[L - 1] - probe_accuracy[0], "{:+.3f}")
report.number("neighbour_probe_gain_low", gain_low, "{:+.3f}")
report.number("neighbour_probe_gain_high", gain_high, "{:+.3f}")
report.number("neighbour_probe_best_layer", int(np.argmax(probe_accuracy)) + 1, "{:.0f}")

# Do the values grow richer in context from layer 1 to 6 (the gain's interval at least GAIN_BAR),
# not (below NO_GAIN_BELOW), or can the run not tell? The page words it.
GAIN_BAR, NO_GAIN_BELOW = 0.1, 0.02
report.number("no_gain_below", NO_GAIN_BELOW, "{:.2f}")
report.category("probe_outcome", "no" if gain_high < NO_GAIN_BELOW else "yes" if gain_low >= GAIN_BAR
                else "unclear")

# %% [markdown]
# ### Could the probe have seen it at all? (G1)
#
# A probe that reads little from the values may read little from anything.
# The check: the same probe on the layer-6 *residual stream* — the model's own
# output, which has seen every word. If it cannot beat always guessing the most
# frequent neighbour by 0.1 there, this probe is too weak to tell whether the
# values carry the neighbours, and C29's rule does not count it.

# %% tags=["neighbour_g1"]
residual_correct = np.zeros(len(items), dtype=bool)
stream = torch.cat([o.hidden_states[L][0] for o in trained]).double()[torch.as_tensor(rows)]  # (n_items, C)
for side in (False, True):
    mask = is_right == side
    residual_correct[mask] = word_probe_correct(stream[mask], targets[mask], items[mask, 0], word_vectors)
majority = np.bincount(targets).max() / len(targets)
print(f"neighbour named from the layer-{L} residual stream: {residual_correct.mean():.3f} "
      f"(always the most frequent word: {majority:.3f})")

# %%
report.number("neighbour_residual6_probe", residual_correct.mean(), "{:.0%}", kind="share")
report.number("neighbour_g1_margin", residual_correct.mean() - majority, "{:+.3f}")
G1_MARGIN = 0.1   # G1: the residual probe must beat the majority guess by at least this
report.number("g1_margin_bar", G1_MARGIN, "{:.1f}")
report.number("neighbour_g1_held", float(residual_correct.mean() - majority >= G1_MARGIN), "{:.0f}")
report.category("neighbour_g1_outcome", "held" if residual_correct.mean() - majority >= G1_MARGIN else "not_held")

# %% [markdown]
# ### A context the values certainly need: a word's sense (C36's probe)
#
# C36's frames (explainer/word_senses.py) put *bank*, *bat*, *mouse*, *seal*
# and *crane* next to a cue word of one sense or the other, each frame a
# minimal pair. The same nearest-centroid probe as in C36, held out by frame,
# reads the sense from the word's value in each layer (heads concatenated).
# In layer 1 both sentences of a pair give the word the same value, so the
# probe is right exactly half the time: the context-free baseline. The gain
# is the best of layers 2–6 minus layer 1; its 95 % interval resamples the 20
# frames *before* the held-out split (a frame's copies stay in one fold) and
# chooses the best layer again each time.

# %% tags=["sense_probe"]
from explainer.centroid_probe import centroid_probe_correct
from explainer.word_senses import FRAMES, SENSES, sense_sentences

sense_items = sense_sentences()                                  # 5 words x 20 frames x 2 senses
sense_outputs = run_sentences(model, tokenizer, [s.text for s in sense_items])
sense_values = torch.zeros(len(sense_items), L, model.config.d_model)      # (N, L, C)
with torch.no_grad():
    for n, (item, out) in enumerate(zip(sense_items, sense_outputs)):
        position = tokenizer.tokens(item.text).index(item.word)
        for layer, block in enumerate(model.layers):
            sense_values[n, layer] = block.attention.W_V(out.hidden_states[layer][0, position])
sense_label = np.array([s.sense for s in sense_items])
sense_frame = np.array([s.frame for s in sense_items])
sense_word = np.array([s.word for s in sense_items])


def sense_probe_by_layer(rows):
    """Held-out accuracy of C36's probe (one per word, 5 folds of frames) on each layer's values,
    over the items ``rows`` (copies allowed: a frame's copies share its fold). Returns (L,)."""
    right = np.zeros(L)
    for word in SENSES:
        mine = rows[sense_word[rows] == word]
        hits = centroid_probe_correct(sense_values[mine], torch.as_tensor(sense_label[mine])[None],
                                      sense_frame[mine], n_folds=5)         # (1, L, n)
        right += hits[0].sum(dim=-1).numpy()
    return right / len(rows)


sense_by_layer = sense_probe_by_layer(np.arange(len(sense_items)))         # (L,)
sense_gain = sense_by_layer[1:].max() - sense_by_layer[0]
frame_rows = [np.flatnonzero(sense_frame == f) for f in range(len(FRAMES))]
rng = np.random.default_rng(0)
sense_gain_draws = np.zeros(1000)
for draw in range(1000):
    drawn = rng.integers(0, len(FRAMES), len(FRAMES))           # frames, with replacement
    accuracy = sense_probe_by_layer(np.concatenate([frame_rows[f] for f in drawn]))
    sense_gain_draws[draw] = accuracy[1:].max() - accuracy[0]
sense_gain_low, sense_gain_high = np.percentile(sense_gain_draws, [2.5, 97.5])
print("sense probe by layer:", np.round(sense_by_layer, 3))
print(f"gain, best of layers 2-{L} minus layer 1: {sense_gain:+.3f} "
      f"(95 % interval {sense_gain_low:+.3f} to {sense_gain_high:+.3f})")

# %%
report.number("n_sense_sentences", len(sense_items), "{:.0f}", kind="count")
report.number("sense_probe_layer1", sense_by_layer[0], "{:.0%}", kind="share")
report.number("sense_probe_best", sense_by_layer[1:].max(), "{:.0%}", kind="share")
report.number("sense_probe_best_layer", int(np.argmax(sense_by_layer[1:])) + 2, "{:.0f}")
report.number("sense_probe_layer6", sense_by_layer[L - 1], "{:.0%}", kind="share")
report.number("sense_probe_gain", sense_gain, "{:+.3f}")
report.number("sense_probe_gain_low", sense_gain_low, "{:+.3f}")
report.number("sense_probe_gain_high", sense_gain_high, "{:+.3f}")

# %% [markdown]
# ## Figures

# %%
TEXT = report.figure_text()   # the figures' words: probes.strings.toml
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(5.6, 4.2))
    ax.plot(np.arange(1, L + 1), probe_accuracy, "d-", color="#d95f02", label=text["probe"])
    ax.axhline(np.bincount(targets).max() / len(targets), color="#666666", ls=":",
               label=text["majority"])
    ax.plot([L], [residual_correct.mean()], "s", color="#7570b3", label=text["g1"])
    ax.plot(np.arange(1, L + 1), sense_by_layer, "o-", color="#1b9e77", label=text["sense"])
    ax.set_xlabel(text["layer"], fontsize=10)
    ax.set_ylabel(text["probe_y"], fontsize=10)
    ax.set_ylim(0, 1.02)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="center right")
    fig.tight_layout()
    report.figure("neighbour_probe", fig, lang, alt=text["probe_alt"], caption=text["probe_caption"])

report.save()
