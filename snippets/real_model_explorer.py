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

import torch

from explainer.minilm import MiniLM, Tokenizer, run_sentences
from explainer.report import Report

torch.set_num_threads(1)
report = Report("real_model_explorer")
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()

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
]
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def encode(weights: torch.Tensor) -> str:
    """(T, T) weights in [0, 1] -> 2 base-36 digits per weight, row-major."""
    thousandths = (weights * 1000).round().int().flatten().tolist()
    return "".join(DIGITS[w // 36] + DIGITS[w % 36] for w in thousandths)


# %% [markdown]
# One file per sentence: the page loads only the sentence a reader looks at.

# %%
index = {"layers": model.config.n_layers, "heads": model.config.n_heads, "sentences": []}
for number, (sentence, out) in enumerate(zip(SENTENCES, run_sentences(model, tokenizer, SENTENCES))):
    weights = torch.stack([a[0] for a in out.attentions])        # (L, nh, T, T)
    key = f"sentence_{number}"
    index["sentences"].append({"text": sentence, "tokens": tokenizer.tokens(sentence),
                               "file": f"{key}.json"})
    report.data(key, {"attention": [[encode(weights[l, h]) for h in range(weights.shape[1])]
                                    for l in range(weights.shape[0])]})

report.data("attention", index)  # the explorer page fetches these files from the site itself
report.save()
