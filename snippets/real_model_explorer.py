# %% [markdown]
# # Data for the attention explorer
#
# The explorer page lets a reader pick a sentence, a layer and a head, and see
# where each token attends. Its data is computed here, at build time, from the
# real model: every head's attention weights for the seed sentences. The page's
# own script (docs/assets/explorer.js) draws them; nothing is fetched from
# elsewhere.
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

SENTENCES = [
    "The animal didn't cross the street because it was too tired.",
    "The animal didn't cross the street because it was too wide.",
    "The trophy didn't fit in the suitcase because it was too big.",
    "The trophy didn't fit in the suitcase because it was too small.",
    "He walked down to the bank and looked at the money.",
    "He walked down to the bank and looked at the river.",
    "The cat chases the laser dot.",
]
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def encode(weights: torch.Tensor) -> str:
    """(T, T) weights in [0, 1] -> 2 base-36 digits per weight, row-major."""
    thousandths = (weights * 1000).round().int().flatten().tolist()
    return "".join(DIGITS[w // 36] + DIGITS[w % 36] for w in thousandths)


# %%
data = {"layers": model.config.n_layers, "heads": model.config.n_heads, "sentences": []}
for sentence, out in zip(SENTENCES, run_sentences(model, tokenizer, SENTENCES)):
    weights = torch.stack([a[0] for a in out.attentions])        # (L, nh, T, T)
    data["sentences"].append({
        "text": sentence,
        "tokens": tokenizer.tokens(sentence),
        "attention": [[encode(weights[l, h]) for h in range(weights.shape[1])]
                      for l in range(weights.shape[0])],
    })

report.data("attention", data)  # the explorer page fetches this file from the site itself
report.save()
