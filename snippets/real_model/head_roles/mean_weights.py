# %% [markdown]
# # Where each layer's attention goes, by mean weight
#
# Part of the page "Head roles in a real model". roles.py asks of every head whether
# its *top pick* is the previous token, the next token, [CLS] or [SEP]. Here the same
# sample sentences are read the other way, TransformerLens-style: the mean weight
# a head puts on each of those keys, averaged over the query tokens.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report

report = Report("real_model.head_roles.mean_weights")

# %%
from explainer.minilm import MiniLM, Tokenizer, run_sentences   # first: it pins torch's CPU kernels
from explainer.head_metrics import (first_token_score, last_token_score, next_token_score,
                                    previous_token_score)
from explainer.head_picks import stacked_attention
from explainer.sample_sentences import SENTENCES
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()         # all-MiniLM-L6-v2, weights on disk
L, H = model.config.n_layers, model.config.n_heads
sample = stacked_attention(run_sentences(model, tokenizer, SENTENCES))   # per sentence (L, nh, T, T)

# %% [markdown]
# ## Mean weight by head and by layer

# %%
scores = {name: np.zeros((L, H)) for name in ("previous", "next", "cls", "sep")}
for a in sample:
    for name, score in (("previous", previous_token_score), ("next", next_token_score),
                        ("cls", first_token_score), ("sep", last_token_score)):
        per_layer = torch.stack([score(a[l:l + 1]) for l in range(L)])  # (L, nh), batch of 1
        scores[name] += per_layer.numpy() / len(sample)
top_previous = np.unravel_index(scores["previous"].argmax(), (L, H))   # (layer, head)
top_next = np.unravel_index(scores["next"].argmax(), (L, H))
by_layer = {name: s.mean(axis=1) for name, s in scores.items()}   # (L,) each
# What each number is, in both languages: mean_weights.strings.toml beside this file.
report.number("top_previous", scores["previous"][top_previous], "{:.2f}")
report.number("top_previous_layer", top_previous[0] + 1, "{:.0f}")
report.number("top_previous_head", top_previous[1] + 1, "{:.0f}")
report.number("top_next", scores["next"][top_next], "{:.2f}")
report.number("top_next_layer", top_next[0] + 1, "{:.0f}")
report.number("top_next_head", top_next[1] + 1, "{:.0f}")
report.number("cls_weight_max_layer", by_layer["cls"].max(), "{:.2f}")
report.number("sep_weight_max_layer", by_layer["sep"].max(), "{:.2f}")

# %% [markdown]
# ## Exercise, answered by the run
#
# The page's second exercise judges the previous-token role by this mean weight
# instead of roles.py's top pick.

# %% tags=["mean_weight"]
# Exercise 2: judge the previous-token role by the mean weight on the token before instead
# of the top pick (top_key_hits(…) in the positions cell): how many heads put more than half
# of their attention there, on average?
from explainer.head_metrics import previous_token_score

WEIGHT_BAR = 0.5   # "more than half of their attention"
previous_weight = np.zeros((L, H))
for a in sample:                                                # (L, nh, T, T)
    previous_weight += torch.stack([previous_token_score(a[l:l + 1]) for l in range(L)]).numpy() / len(sample)
print(f"heads with a mean weight above {WEIGHT_BAR} on the previous token: {(previous_weight > WEIGHT_BAR).sum()}")

# %%
report.number("exercise_weight_bar", WEIGHT_BAR, "{:.1f}")
report.number("exercise_previous_token_mean_weight_heads", (previous_weight > WEIGHT_BAR).sum(), "{:.0f}")

# %% [markdown]
# ## Figure

# %%
TEXT = report.figure_text()   # the figures' words: mean_weights.strings.toml
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(7.2, 3.2))
    for name, style, colour in (("cls", "o-", "#7570b3"), ("sep", "s-", "#e7298a"),
                                ("previous", "v--", "#1b9e77"), ("next", "d--", "#d95f02")):
        ax.plot(range(1, L + 1), by_layer[name], style, color=colour, label=text["lines"][name])
    ax.set_ylim(0, 1)
    ax.set_xlabel(text["layer"], fontsize=10)
    ax.set_ylabel(text["weight"], fontsize=10)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="upper center", ncol=2)
    ax.set_title(text["title"], fontsize=10)
    fig.tight_layout()
    report.figure("by_layer", fig, lang, alt=text["alt"],
                  caption=text["caption"].format(cls=by_layer["cls"].max(), sep=by_layer["sep"].max()))

report.save()
