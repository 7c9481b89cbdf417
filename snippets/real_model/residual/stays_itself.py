# %% [markdown]
# # V and the residual stream (1): does a token stay itself?
#
# Source B's postscript says that, layer after layer, a token keeps its meaning —
# "and if continuity fades, the residual path can make up for it" (C19). In
# MiniLM we measure how similar each token's vector stays to its own input
# embedding, with the residual path as trained and with it removed. The snippet
# records numbers; the rules that turn them into verdicts are in docs/claims.yml.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report

report = Report("real_model.residual.stays_itself")

# %% tags=["model"]
from explainer.minilm import MiniLM, Tokenizer, run_sentences   # first: it pins torch's CPU kernels
from explainer.sample_sentences import SENTENCES
import numpy as np
import torch
import torch.nn.functional as F

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()       # all-MiniLM-L6-v2, weights on disk
L = model.config.n_layers
print(f"{L} layers; {len(SENTENCES)} sample sentences")

# %% [markdown]
# ## Each token against its own embedding
#
# "Embedding" here is what enters layer 1: token + position + segment
# embeddings after LayerNorm, `hidden_states[0]`. For every token of every
# sentence: cosine of its vector after layer l with its own embedding, against
# the mean cosine with the embeddings of the *other* tokens of its sentence
# (BERT's vectors all share a common direction, so "other" is the baseline);
# and whether its own embedding is the nearest one in the sentence.

# %% tags=["stays_itself"]
def track_tokens(outputs):
    """own[l], other[l], identified[l] averaged over all tokens; l = 0..L."""
    own, other, identified = np.zeros(L + 1), np.zeros(L + 1), np.zeros(L + 1)
    n_tokens = 0
    for out in outputs:
        embeddings = F.normalize(out.hidden_states[0][0], dim=-1)           # (T, C)
        T = embeddings.shape[0]
        off_diagonal = ~torch.eye(T, dtype=torch.bool)
        for layer in range(L + 1):
            vectors = F.normalize(out.hidden_states[layer][0], dim=-1)      # (T, C)
            cos = vectors @ embeddings.T                                    # (T, T): token i vs embedding j
            own[layer] += cos.diagonal().sum().item()
            other[layer] += (cos[off_diagonal].view(T, T - 1).mean(dim=1)).sum().item()
            identified[layer] += (cos.argmax(dim=1) == torch.arange(T)).sum().item()
        n_tokens += T
    return own / n_tokens, other / n_tokens, identified / n_tokens


trained = run_sentences(model, tokenizer, SENTENCES)
own, other, identified = track_tokens(trained)
model.set_residual(False)   # x <- LN(attention(x)), x <- LN(feed_forward(x)): no "x +"
no_residual = run_sentences(model, tokenizer, SENTENCES)
model.set_residual(True)
own_nr, other_nr, identified_nr = track_tokens(no_residual)
print("cosine with the own embedding, after layer 0..6:", np.round(own, 2))
print("  the same, residual path removed:             ", np.round(own_nr, 2))
print("  baseline, the other tokens' embeddings:      ", np.round(other, 2))
print("own embedding the nearest (share of tokens):   ", np.round(identified, 2))
print("  the same, residual path removed:             ", np.round(identified_nr, 2))

# %%
report.number("n_sentences", len(SENTENCES), "{:.0f}")
report.number("n_tokens", sum(o.hidden_states[0].shape[1] for o in trained), "{:.0f}")
report.number("own_layer1", own[1], "{:.2f}")
report.number("other_layer1", other[1], "{:.2f}")
report.number("identified_layer1", identified[1], "{:.0%}")
report.number("own_no_residual_layer1", own_nr[1], "{:.2f}")
report.number("identified_no_residual_layer1", identified_nr[1], "{:.0%}")
report.number("own_layer6", own[L], "{:.2f}")
report.number("other_layer6", other[L], "{:.2f}")
report.number("identified_layer6", identified[L], "{:.0%}")
report.number("own_no_residual_layer6", own_nr[L], "{:.2f}")
report.number("identified_no_residual_layer6", identified_nr[L], "{:.0%}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %%
# Exercise 1: without the residual path, follow the tokens through all six layers
# (the `stays_itself` cell's identified_nr, after the last layer).
report.number("exercise_identified_no_residual_layer6", identified_nr[L], "{:.0%}")

# %% tags=["no_attention"]
# Exercise 2: keep the residual path but switch every attention head off (only the
# feed-forward parts still act). Does a token stay itself?
model.set_head_mask(torch.zeros(L, model.config.n_heads))                 # was: all ones
own_na, _, identified_na = track_tokens(run_sentences(model, tokenizer, SENTENCES))
model.set_head_mask(torch.ones(L, model.config.n_heads))
print(f"every head off, after layer {L}: cosine with the own embedding {own_na[L]:.2f}, "
      f"own embedding the nearest for {identified_na[L]:.0%} of tokens")

# %%
report.number("exercise_identified_no_attention_layer6", identified_na[L], "{:.0%}")
report.number("exercise_own_no_attention_layer6", own_na[L], "{:.2f}")

# %% [markdown]
# ## Figures

# %%
TEXT = report.figure_text()   # the figures' words: stays_itself.strings.toml
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    ax.plot(np.arange(L + 1), own, "o-", color="#d95f02", label=text["own"])
    ax.plot(np.arange(L + 1), own_nr, "s--", color="#7570b3", label=text["own_nr"])
    ax.plot(np.arange(L + 1), other, "^:", color="#666666", label=text["other"])
    ax.set_xlabel(text["layer"], fontsize=10)
    ax.set_ylabel(text["cos"], fontsize=10)
    ax.set_ylim(-0.05, 1.05)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9)
    fig.tight_layout()
    report.figure("stays_itself", fig, lang, alt=text["cos_alt"], caption=text["cos_caption"])

report.save()
