# %% [markdown]
# # Data for the attention explorer
#
# The explorer page lets a reader pick a sentence, a layer and a head, and see
# where each token attends. Its data is computed here, at build time, from the
# real model: every head's attention weights for the sentences the chapter
# discusses, and a few more. The page's own script (docs/assets/explorer.js)
# draws them; nothing is fetched from elsewhere.
#
# Format: weights are rounded to thousandths and written as two base-36 digits
# each ("00" = 0.000 … "rs" = 1.000), one string per head, row after row — about
# a third of the size of plain JSON numbers.

# %%
# Recording what the page publishes (data, numbers): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.report import Report

report = Report("real_model.explorer")

# %% tags=["model"]
from explainer.minilm import MiniLM, Tokenizer, run_sentences   # first: it pins torch's CPU kernels
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()       # all-MiniLM-L6-v2, weights on disk

SENTENCES = [  # the explorer's URL names a sentence by its index here: append, don't reorder
    # The pronoun pairs of "Does it look at the animal?": one word changes what "it" is.
    "The animal didn't cross the street because it was too tired.",
    "The animal didn't cross the street because it was too wide.",
    "The trophy didn't fit in the suitcase because it was too big.",
    "The trophy didn't fit in the suitcase because it was too small.",
    # bank: money or river?
    "He walked down to the bank and looked at the money.",
    "He walked down to the bank and looked at the river.",
    "The cat chases the laser dot.",
    "The cat could not catch the bird because it was too slow.",
    "The cat could not catch the bird because it was too fast.",
    "The ship could not pass under the bridge because it was too tall.",
    "The ship could not pass under the bridge because it was too low.",
    # bank where the sense is plain
    "The bank raised its interest rates on loans.",
    "The boat drifted toward the muddy bank of the stream.",
    # a paraphrase pair of the pruning page, and a sentence of the head-roles sample
    "The cat is sleeping on the sofa.",
    "A cat naps on the couch.",
    "The teacher wrote the answer on the board and asked us to copy it.",
    # verb -> object across another noun (C22), subject -> verb across a relative clause (C32)
    "The farmer sold the man's big old wooden cart at the market.",
    "The man whom the dog bit laughed when the bell rang.",
]

# %%
# The head-roles page links its heads of C22 and C32 to the last two sentences by number.
from explainer.head_role_sets import EXPLORER_EXAMPLES, EXPLORER_INDEX  # noqa: E402

assert SENTENCES[EXPLORER_INDEX:] == list(EXPLORER_EXAMPLES.values()), "keep head_role_sets' examples here"

# %% tags=["attention"]
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def encode(weights: torch.Tensor) -> str:
    """(T, T) weights in [0, 1] -> 2 base-36 digits per weight, row-major."""
    thousandths = (weights * 1000).round().int().flatten().tolist()
    return "".join(DIGITS[w // 36] + DIGITS[w % 36] for w in thousandths)


attention = [torch.stack([a[0] for a in out.attentions])      # each (L, nh, T, T)
             for out in run_sentences(model, tokenizer, SENTENCES)]
print(f"{len(attention)} sentences; sentence 0 gives {tuple(attention[0].shape)} weights (layers, heads, tokens, tokens)")
print("layer 1, head 1, first row of sentence 0, encoded:", encode(attention[0][0, 0, 0]))

# %% [markdown]
# One file per sentence: the page loads only the sentence a reader looks at.

# %%
index = {"layers": model.config.n_layers, "heads": model.config.n_heads, "sentences": []}
for number, sentence in enumerate(SENTENCES):
    index["sentences"].append({"text": sentence, "tokens": tokenizer.tokens(sentence),
                               "file": f"sentence_{number}.json"})


def encoded(weights: torch.Tensor) -> dict:
    """One sentence's (L, nh, T, T) weights, every layer's heads encoded."""
    return {"attention": [[encode(weights[l, h]) for h in range(weights.shape[1])]
                          for l in range(weights.shape[0])]}


assert len(attention) == 18   # one file per sentence, below
report.data("sentence_0", encoded(attention[0]))
report.data("sentence_1", encoded(attention[1]))
report.data("sentence_2", encoded(attention[2]))
report.data("sentence_3", encoded(attention[3]))
report.data("sentence_4", encoded(attention[4]))
report.data("sentence_5", encoded(attention[5]))
report.data("sentence_6", encoded(attention[6]))
report.data("sentence_7", encoded(attention[7]))
report.data("sentence_8", encoded(attention[8]))
report.data("sentence_9", encoded(attention[9]))
report.data("sentence_10", encoded(attention[10]))
report.data("sentence_11", encoded(attention[11]))
report.data("sentence_12", encoded(attention[12]))
report.data("sentence_13", encoded(attention[13]))
report.data("sentence_14", encoded(attention[14]))
report.data("sentence_15", encoded(attention[15]))
report.data("sentence_16", encoded(attention[16]))
report.data("sentence_17", encoded(attention[17]))

report.data("attention", index)  # the explorer page fetches these files from the site itself

# %% [markdown]
# ## Where the explorer opens
#
# The explorer opens on *it* in sentence 0, in the head that gives the referent of *it* the most
# attention over the eight sentences above where one word moves what *it* means — read as
# the explorer shows it: [CLS] and [SEP] hidden, the other weights scaled to sum to 1, from
# the weights as published (rounded to thousandths).

# %% tags=["opening_view"]
from explainer.role_sentences import word_position  # noqa: E402

REFERENTS = {0: "animal", 1: "street", 2: "trophy", 3: "suitcase",   # sentence -> what "it" means
             7: "cat", 8: "bird", 9: "ship", 10: "bridge"}


def shown_row(weights: torch.Tensor, tokens: list[str], query: int) -> torch.Tensor:
    """(L, nh, T) rows from ``query`` as the explorer shows them: the published thousandths,
    [CLS] and [SEP] set to 0 and the rest renormalised."""
    rows = (weights[:, :, query] * 1000).round() / 1000
    rows[..., [i for i, t in enumerate(tokens) if t in ("[CLS]", "[SEP]")]] = 0
    return rows / rows.sum(-1, keepdim=True)


def from_it_to(n: int, word: str) -> torch.Tensor:
    """(L, nh): every head's shown weight from "it" to ``word`` in sentence ``n``."""
    tokens = tokenizer.tokens(SENTENCES[n])
    return shown_row(attention[n], tokens, word_position(tokens, "it"))[..., word_position(tokens, word)]


to_referent = torch.stack([from_it_to(n, word) for n, word in REFERENTS.items()])      # (8, L, nh)
opening = np.unravel_index(int(to_referent.mean(0).argmax()), tuple(to_referent.shape[1:]))
tokens_0 = tokenizer.tokens(SENTENCES[0])
raw_to_animal = attention[0][opening[0], opening[1], word_position(tokens_0, "it"), word_position(tokens_0, "animal")]
print(f"opens on head {opening[0] + 1}-{opening[1] + 1}: it → referent {to_referent.mean(0)[opening]:.2f} on average, "
      f"it → animal {to_referent[0][opening]:.2f} in sentence 0 ({raw_to_animal:.2f} with [CLS] and [SEP])")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["most_animal"]
from explainer.role_sentences import word_position


outputs = run_sentences(model, tokenizer, SENTENCES[:4])
# Exercise 1: in sentence 0 ("…too tired"), pin "it" and look through all 72 heads:
# which head prefers "animal" to "street" the most, and how much does it give "animal"?
tokens = tokenizer.tokens(SENTENCES[0])
it, animal, street = (word_position(tokens, w) for w in ("it", "animal", "street"))
rows = torch.stack([a[0, :, it] for a in outputs[0].attentions])                  # (L, nh, T)
preference = rows[..., animal] - rows[..., street]                                 # (L, nh)
layer, head = np.unravel_index(int(preference.argmax()), tuple(preference.shape))
print(f"head {layer + 1}-{head + 1} prefers animal to street the most: it → animal {rows[layer, head, animal]:.2f}")

# %%
report.number("exercise_it_animal_layer", layer + 1, "{:.0f}")
report.number("exercise_it_animal_head", head + 1, "{:.0f}")
report.number("exercise_it_animal_weight", rows[layer, head, animal], "{:.2f}")
# %% tags=["trophy_pair"]
# Exercise 2: sentences 2 and 3, the trophy and the suitcase: "…too big" means the trophy,
# "…too small" the suitcase. In how many heads does "it" prefer the right noun in both?
right_both = torch.ones(model.config.n_layers, model.config.n_heads, dtype=torch.bool)
for number, right, wrong in ((2, "trophy", "suitcase"), (3, "suitcase", "trophy")):
    words = tokenizer.tokens(SENTENCES[number])
    it_row = torch.stack([a[0, :, word_position(words, "it")] for a in outputs[number].attentions])  # (L, nh, T)
    right_both &= it_row[..., word_position(words, right)] > it_row[..., word_position(words, wrong)]
print("heads in which it prefers the right noun in both sentences:", int(right_both.sum()))

# %%
report.number("exercise_trophy_pair_right_heads", right_both.sum(), "{:.0f}")

report.number("opening_layer", opening[0] + 1, "{:.0f}", kind="count")
report.number("opening_head", opening[1] + 1, "{:.0f}", kind="count")
report.number("opening_to_referent_mean", to_referent.mean(0)[opening], "{:.2f}")
report.number("opening_it_animal", to_referent[0][opening], "{:.2f}")
report.number("opening_it_animal_with_special", raw_to_animal, "{:.2f}")
report.save()
