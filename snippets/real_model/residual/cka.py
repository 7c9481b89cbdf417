# %% [markdown]
# # V and the residual stream (2): how much of the embedding do Q, K and V keep?
#
# Source B's postscript says a token's value V stays closest to its own
# embedding and changes gradually from layer to layer (C19); and that the
# values are handed on, embedding → layer-1 V → layer-2 V → …, staying
# continuous with the token's original meaning (C29). In MiniLM we measure how
# much of the embedding's structure survives in Q, K and V, and how alike the
# values of consecutive layers are. The snippet records numbers; the rules that
# turn them into verdicts are in docs/claims.yml.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report

report = Report("real_model.residual.cka")

# %% tags=["model"]
from explainer.minilm import MiniLM, Tokenizer, run_sentences   # first: it pins torch's CPU kernels
from explainer.sample_sentences import SENTENCES
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()       # all-MiniLM-L6-v2, weights on disk
L = model.config.n_layers
trained = run_sentences(model, tokenizer, SENTENCES)           # hidden states of every sentence
print(f"{L} layers; {len(SENTENCES)} sample sentences")

# %% [markdown]
# ## Where do Q, K and V sit?
#
# Q, K and V live in spaces of their own (each head's projection has its own
# basis), so a plain cosine with the embedding means nothing. Linear CKA
# (centred kernel alignment, Kornblith et al. 2019) compares *structure*
# instead: do two sets of vectors for the same tokens arrange those tokens the
# same way? 1 = the same up to rotation and scale, 0 = unrelated.

# %% tags=["cka"]
from explainer.layer_values import values_by_layer


def linear_cka(X, Y):
    """CKA between (N, d1) and (N, d2) representations of the same N tokens."""
    X = X - X.mean(dim=0)
    Y = Y - Y.mean(dim=0)
    return float((X.T @ Y).norm() ** 2 / ((X.T @ X).norm() * (Y.T @ Y).norm()))


embedding_all = torch.cat([o.hidden_states[0][0] for o in trained])        # (N, C)
values = values_by_layer(model, trained)                                   # per layer (N, C): W_V x
cka = {name: np.zeros(L) for name in ("input", "Q", "K", "V")}
for layer, block in enumerate(model.layers):
    x = torch.cat([o.hidden_states[layer][0] for o in trained])            # (N, C): layer input
    attention = block.attention
    with torch.no_grad():
        projections = {"input": x, "Q": attention.W_Q(x), "K": attention.W_K(x),
                       "V": values[layer]}                                  # each (N, C)
    for name, vectors in projections.items():
        cka[name][layer] = linear_cka(vectors, embedding_all)
v_closest = cka["V"] > np.maximum(cka["Q"], cka["K"])                     # (L,)
for name in cka:
    print(f"CKA with the embedding, {name:>5}, layers 1..{L}:", np.round(cka[name], 2))
print(f"layers in which V keeps the most of the embedding's structure: {v_closest.sum()} of {L}")

# %%
report.number("cka_input_first", cka["input"][0], "{:.2f}")
report.number("cka_input_last", cka["input"][L - 1], "{:.2f}")
report.number("cka_Q_first", cka["Q"][0], "{:.2f}")
report.number("cka_Q_last", cka["Q"][L - 1], "{:.2f}")
report.number("cka_K_first", cka["K"][0], "{:.2f}")
report.number("cka_K_last", cka["K"][L - 1], "{:.2f}")
report.number("cka_V_first", cka["V"][0], "{:.2f}")
report.number("cka_V_last", cka["V"][L - 1], "{:.2f}")
report.number("layers_v_closest", v_closest.sum(), "{:.0f}")
report.number("layers_q_closest", (cka["Q"] > np.maximum(cka["V"], cka["K"])).sum(), "{:.0f}")
report.number("layers_k_closest", (cka["K"] > np.maximum(cka["V"], cka["Q"])).sum(), "{:.0f}")

# %% [markdown]
# ## Do the values change gradually?
#
# CKA between the values of two consecutive layers (same tokens), and, as the
# chance level, the same CKA with the tokens of the later layer shuffled.

# %% tags=["consecutive"]
CKA_BAR = 0.5   # C19's and C29's bar: a step between layers keeps a CKA of at least this
shuffle = torch.from_numpy(np.random.default_rng(0).permutation(len(embedding_all)))
consecutive = np.array([linear_cka(values[l], values[l + 1]) for l in range(L - 1)])   # (L-1,)
shuffled = np.array([linear_cka(values[l], values[l + 1][shuffle]) for l in range(L - 1)])
# C19's bar, step by step: CKA at least CKA_BAR and more than twice its shuffled value
meets_bar = (consecutive >= CKA_BAR) & (consecutive > 2 * shuffled)            # (L-1,)
print("CKA of V with the previous layer's V, layers 2..6:", np.round(consecutive, 2))
print("  the same, tokens shuffled (chance):            ", np.round(shuffled, 2))
print(f"steps that meet the bar: {meets_bar.sum()} of {L - 1}")

# %%
report.number("cka_V_consecutive_min", consecutive.min(), "{:.2f}")
report.number("cka_V_consecutive_max", consecutive.max(), "{:.2f}")
report.number("cka_V_shuffled_max", shuffled.max(), "{:.2f}")
report.number("cka_V_bar_layers", meets_bar.sum(), "{:.0f}", kind="count")
report.number("cka_bar", CKA_BAR, "{:.1f}")

# %% [markdown]
# ### The same question with a debiased CKA (C29)
#
# With 384 dimensions on a few hundred tokens, plain linear CKA is biased
# upwards: two unrelated sets of vectors already score well above 0. The
# debiased CKA (Song et al. 2012's unbiased HSIC, explainer/cka.py) is about 0
# for unrelated sets. Chance is now a distribution: the same CKA with the token
# order of one side shuffled, 200 times; a step counts when its CKA is at least
# 0.5 and above the shuffles' 95th percentile. Last, are the layer-6 values
# still related to the embeddings they started from?

# %% tags=["debiased_cka"]
from explainer.cka import debiased_cka, shuffled_cka

step_cka = np.array([debiased_cka(values[l], values[l + 1]) for l in range(L - 1)])    # (L-1,)
step_null95 = np.array([np.percentile(shuffled_cka(values[l], values[l + 1], 200, seed=l), 95)
                        for l in range(L - 1)])                                         # (L-1,)
step_passes = (step_cka >= CKA_BAR) & (step_cka > step_null95)
v6_embedding = debiased_cka(values[L - 1], embedding_all)
v6_embedding_null95 = np.percentile(shuffled_cka(values[L - 1], embedding_all, 200, seed=L), 95)
print("debiased CKA of V with the previous layer's V, layers 2..6:", np.round(step_cka, 3))
print("  95th percentile of 200 shuffles:                        ", np.round(step_null95, 3))
print(f"steps with CKA >= {CKA_BAR} and above the shuffles: {step_passes.sum()} of {L - 1}")
print(f"layer-{L} values vs the embeddings: {v6_embedding:.3f} (shuffled 95th percentile "
      f"{v6_embedding_null95:.3f})")

# %%
report.number("cka_steps_passing", step_passes.sum(), "{:.0f}", kind="count")
report.number("cka_step1", step_cka[0], "{:.3f}")
report.number("cka_step1_null95", step_null95[0], "{:.3f}")
report.number("cka_step2", step_cka[1], "{:.3f}")
report.number("cka_step2_null95", step_null95[1], "{:.3f}")
report.number("cka_step3", step_cka[2], "{:.3f}")
report.number("cka_step3_null95", step_null95[2], "{:.3f}")
report.number("cka_step4", step_cka[3], "{:.3f}")
report.number("cka_step4_null95", step_null95[3], "{:.3f}")
report.number("cka_step5", step_cka[4], "{:.3f}")
report.number("cka_step5_null95", step_null95[4], "{:.3f}")
report.number("cka_step_min", step_cka.min(), "{:.2f}")
report.number("cka_step_null95_max", step_null95.max(), "{:.3f}")
report.number("cka_v6_embedding", v6_embedding, "{:.3f}")
report.number("cka_v6_embedding_null95", v6_embedding_null95, "{:.3f}")

# %% [markdown]
# ## Figures

# %%
TEXT = report.figure_text()   # the figures' words: cka.strings.toml
STYLE = {"input": ("o-", "#444444"), "Q": ("s-", "#1b9e77"), "K": ("^-", "#7570b3"),
         "V": ("d-", "#d95f02")}
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    for name, (style, colour) in STYLE.items():
        ax.plot(np.arange(1, L + 1), cka[name], style, color=colour, label=text["names"][name])
    ax.plot(np.arange(2, L + 1), consecutive, "d:", color="#d95f02", alpha=0.6,
            label=text["consecutive"])
    ax.set_xlabel(text["cka_layer"], fontsize=10)
    ax.set_ylabel(text["cka"], fontsize=10)
    ax.set_ylim(0, 1.05)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="lower left")
    fig.tight_layout()
    report.figure("cka", fig, lang, alt=text["cka_alt"], caption=text["cka_caption"])

report.save()
