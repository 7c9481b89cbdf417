# %% [markdown]
# # Where the gradients go
#
# One error signal at the output of an attention layer has to reach three
# matrices, W_Q, W_K and W_V. We derive the three gradients by hand, check
# them against PyTorch's autograd, and then look at what they are: three
# different updates from one loss — and, as we will see, updates that depend
# on each other. The source's contrast with the gates of an LSTM is
# `three_roles.gradients.lstm_gates`.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, MATH_FONT_PT, column_figure
from explainer.report import Report

report = Report("three_roles.gradients")

# %% tags=["setup"]
import numpy as np
import torch

torch.set_num_threads(1)
rng = np.random.default_rng(0)

T, d_model, d_k = 6, 8, 4      # 6 tokens, 8 features each, a 4-dimensional head (d_v = d_k)
X = rng.standard_normal((T, d_model))                        # (T, d_model): the token vectors
W_Q, W_K, W_V = (rng.standard_normal((d_model, d_k)) / np.sqrt(d_model) for _ in range(3))
Y = rng.standard_normal((T, d_k))                            # (T, d_v): what the output should be
print("X:", X.shape, " W_Q, W_K, W_V:", W_Q.shape, " Y:", Y.shape)

# %% [markdown]
# ## The forward pass and its gradients, by hand
#
# Forward: Q = XW_Q, K = XW_K, V = XW_V, S = QKᵀ/√d_k, P = softmax(S),
# O = PV, L = ½‖O − Y‖². Backward, one step at a time (the chain rule read
# from the end):
#
# - dO = O − Y
# - dV = Pᵀ dO — the **value path**: W_V learns through the weighted sum
# - dP = dO Vᵀ, then through the softmax, row by row, dS = P ⊙ (dP − rowsum(P ⊙ dP))
# - dQ = dS K / √d_k — the **query path** goes *through the keys*
# - dK = dSᵀ Q / √d_k — the **key path** goes *through the queries*
# - dW = Xᵀ d(·) for each of the three projections.

# %% tags=["backward"]
def softmax(S):
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def attention_gradients(W_Q, W_K, W_V):
    """Loss and hand-derived gradients of a single attention head."""
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V       # (T, d_k) each
    S = Q @ K.T / np.sqrt(d_k)                 # (T, T) scores
    P = softmax(S)                             # (T, T) weights, rows sum to 1
    O = P @ V                                  # (T, d_v) output
    loss = 0.5 * np.sum((O - Y) ** 2)
    dO = O - Y                                 # (T, d_v)
    dV = P.T @ dO                              # (T, d_v)  value path
    dP = dO @ V.T                              # (T, T)
    dS = P * (dP - np.sum(P * dP, axis=1, keepdims=True))  # (T, T) back through softmax
    dQ = dS @ K / np.sqrt(d_k)                 # (T, d_k)  query path, via the keys
    dK = dS.T @ Q / np.sqrt(d_k)               # (T, d_k)  key path, via the queries
    return loss, {"Q": X.T @ dQ, "K": X.T @ dK, "V": X.T @ dV}  # each (d_model, d_k)


loss, grads = attention_gradients(W_Q, W_K, W_V)
print(f"loss {loss:.3f}")

# %%
report.number("loss", loss, "{:.3f}")

# %% [markdown]
# ## The same gradients from autograd

# %% tags=["autograd"]
weights = {name: torch.tensor(W, requires_grad=True)
           for name, W in (("Q", W_Q), ("K", W_K), ("V", W_V))}
x, y = torch.tensor(X), torch.tensor(Y)
scores = (x @ weights["Q"]) @ (x @ weights["K"]).T / d_k ** 0.5   # (T, T)
output = scores.softmax(dim=-1) @ (x @ weights["V"])              # (T, d_v)
torch_loss = 0.5 * ((output - y) ** 2).sum()
torch_loss.backward()
autograd_error = max(np.abs(weights[n].grad.numpy() - grads[n]).max() for n in grads)
print(f"largest difference from autograd: {autograd_error:.1e}")

# %%
report.number("autograd_error", autograd_error, "{:.1e}")
report.number("loss_error", abs(torch_loss.item() - loss), "{:.1e}")

# %% [markdown]
# ## One loss, three different updates
#
# The three gradients have the same shape, so we can compare them directly:
# their sizes, and the cosine between them (1 = same direction, 0 = unrelated).

# %% tags=["compare"]
def cosine(a, b):
    a, b = a.ravel(), b.ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


norms = {name: np.linalg.norm(grad) for name, grad in grads.items()}   # Frobenius norms
pairs = [("Q", "K"), ("Q", "V"), ("K", "V")]
cosines = {f"{a}{b}": cosine(grads[a], grads[b]) for a, b in pairs}
largest_cosine = max(abs(c) for c in cosines.values())
print("sizes:  ", ", ".join(f"W_{name} {n:.3f}" for name, n in norms.items()))
print("cosines:", ", ".join(f"{pair} {c:.2f}" for pair, c in cosines.items()))

# %%
report.number("norm_Q", norms["Q"], "{:.3f}")
report.number("norm_K", norms["K"], "{:.3f}")
report.number("norm_V", norms["V"], "{:.3f}")
report.number("cosine_QK", cosines["QK"], "{:.2f}")
report.number("cosine_QV", cosines["QV"], "{:.2f}")
report.number("cosine_KV", cosines["KV"], "{:.2f}")
report.number("largest_abs_cosine", largest_cosine, "{:.2f}")

# %% [markdown]
# ## Each path needs the other role
#
# The query's gradient is built from the keys, the key's gradient from the
# queries. Make every query zero (W_Q = 0) and the keys receive nothing at
# all, while the queries still do: a key only learns when somebody asks.

# %% tags=["no_queries"]
_, grads_without_queries = attention_gradients(np.zeros_like(W_Q), W_K, W_V)
print(f"W_Q = 0: gradient for W_K {np.linalg.norm(grads_without_queries['K']):.1e}, "
      f"for W_Q {np.linalg.norm(grads_without_queries['Q']):.3f}")

# %%
report.number("norm_K_when_W_Q_is_zero", np.linalg.norm(grads_without_queries["K"]), "{:.1e}")
report.number("norm_Q_when_W_Q_is_zero", np.linalg.norm(grads_without_queries["Q"]), "{:.3f}")

# %% [markdown]
# ## Do the three updates interfere?
#
# If the three updates did not interfere, W_Q's gradient would not care what
# W_K is. Move W_K alone, step by step towards an independent random matrix
# of the same size, and watch all three gradients.

# %% tags=["interfere"]
W_K_other = rng.standard_normal((d_model, d_k)) / np.sqrt(d_model)
steps = np.linspace(0, 1, 21)
change = {name: [] for name in grads}   # relative change of each gradient as W_K moves
for t in steps:
    _, moved = attention_gradients(W_Q, (1 - t) * W_K + t * W_K_other, W_V)
    for name in grads:
        change[name].append(np.linalg.norm(moved[name] - grads[name]) / np.linalg.norm(grads[name]))
change = {name: np.array(values) for name, values in change.items()}
# A small move first: one tenth of the way.
small = int(np.argmin(np.abs(steps - 0.1)))
small_move = np.linalg.norm(steps[small] * (W_K_other - W_K)) / np.linalg.norm(W_K)
_, moved = attention_gradients(W_Q, W_K_other, W_V)   # W_K replaced entirely
print(f"W_K moved by {small_move:.0%}: W_Q's gradient changes by {change['Q'][small]:.0%}")
print(f"W_K replaced: W_Q's gradient changes by {change['Q'][-1]:.0%} "
      f"(cosine before/after {cosine(grads['Q'], moved['Q']):.2f}), W_V's by {change['V'][-1]:.0%}")

# %%
report.number("small_move_of_W_K", small_move, "{:.0%}")
report.number("change_of_dW_Q_after_small_move", change["Q"][small], "{:.0%}")
report.number("change_of_dW_Q_when_W_K_moves", change["Q"][-1], "{:.0%}")
report.number("change_of_dW_V_when_W_K_moves", change["V"][-1], "{:.0%}")
report.number("cosine_dW_Q_before_after", cosine(grads["Q"], moved["Q"]), "{:.2f}")

# %% tags=["coupling"]
# The same question for every pair: replace one matrix by an independent draw,
# measure how much each gradient changes.
others = {name: rng.standard_normal((d_model, d_k)) / np.sqrt(d_model) for name in "QKV"}
coupling = np.zeros((3, 3))  # rows: matrix replaced, columns: gradient measured
for i, replaced in enumerate("QKV"):
    current = {"Q": W_Q, "K": W_K, "V": W_V}
    current[replaced] = others[replaced]
    _, new = attention_gradients(current["Q"], current["K"], current["V"])
    for j, measured in enumerate("QKV"):
        coupling[i, j] = np.linalg.norm(new[measured] - grads[measured]) / np.linalg.norm(
            grads[measured])
off_diagonal = coupling[~np.eye(3, dtype=bool)]   # (6,): one matrix replaced, another measured
print("relative change of each gradient (rows: replaced Q, K, V; columns: measured Q, K, V):")
print(coupling.round(2))

# %%
report.number("smallest_cross_coupling", off_diagonal.min(), "{:.0%}")
report.number("largest_cross_coupling", off_diagonal.max(), "{:.0%}")

# %% [markdown]
# ## Does an update land on another matrix?
#
# "Do not interfere" can also mean: no parameter is shared, so a step on one
# matrix leaves the other two as they were. That is a matter of construction —
# W_Q, W_K and W_V are three separate tensors — and we measure it: count the
# pairs of tensors that overlap in memory, then take one gradient step with one
# matrix's gradient alone (each in turn) and count the entries of the other
# two that changed. Tied weights (W_K the same tensor as W_Q) show what a
# shared parameter would look like.

# %% tags=["own_matrix"]
def overlap(a, b):
    """Whether two tensors share memory: one stored number in both."""
    start_a, start_b = a.data_ptr(), b.data_ptr()
    return (start_a < start_b + b.numel() * b.element_size()
            and start_b < start_a + a.numel() * a.element_size())


def where_updates_land(W, learning_rate=0.1):
    """For weights W = {"Q", "K", "V"}: pairs overlapping in memory, entries of the
    other matrices changed by steps on one matrix's gradient, and entries of its own."""
    for w in W.values():
        w.grad = None
    scores = (x @ W["Q"]) @ (x @ W["K"]).T / d_k ** 0.5            # (T, T)
    loss = 0.5 * ((scores.softmax(dim=-1) @ (x @ W["V"]) - y) ** 2).sum()
    loss.backward()
    shared = sum(overlap(W[a], W[b]) for a, b in (("Q", "K"), ("Q", "V"), ("K", "V")))
    elsewhere = own = 0
    for stepped in "QKV":
        before = {name: w.detach().clone() for name, w in W.items()}
        with torch.no_grad():
            W[stepped] -= learning_rate * W[stepped].grad            # this matrix's update only
            for name, w in W.items():
                changed = int((w != before[name]).sum())
                own, elsewhere = (own + changed, elsewhere) if name == stepped else (own, elsewhere + changed)
            for name, w in W.items():
                w.copy_(before[name])                                # undo the step
    return shared, elsewhere, own


separate = {name: torch.tensor(W, requires_grad=True) for name, W in (("Q", W_Q), ("K", W_K), ("V", W_V))}
shared_storage_pairs, entries_changed_by_other_updates, own_entries_changed = where_updates_land(separate)
tied_W = torch.tensor(W_Q, requires_grad=True)
tied = {"Q": tied_W, "K": tied_W, "V": torch.tensor(W_V, requires_grad=True)}   # W_K is W_Q
tied_shared, tied_elsewhere, _ = where_updates_land(tied)
print(f"separate: {shared_storage_pairs} pairs share memory, {entries_changed_by_other_updates} "
      f"entries of other matrices changed, {own_entries_changed} of {3 * d_model * d_k} own entries changed")
print(f"tied W_K = W_Q: {tied_shared} pair shares memory, {tied_elsewhere} entries of other matrices changed")

# %%
report.number("shared_storage_pairs", shared_storage_pairs, "{:.0f}")
report.number("entries_changed_by_other_updates", entries_changed_by_other_updates, "{:.0f}")
report.number("own_entries_changed", own_entries_changed, "{:.0f}")
report.number("n_weight_entries", 3 * d_model * d_k, "{:.0f}")
report.number("tied_shared_storage_pairs", tied_shared, "{:.0f}")
report.number("tied_entries_changed_by_other_updates", tied_elsewhere, "{:.0f}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["no_values"]
# Exercise 1: in the `backward` cell, make every value zero.
_, grads_without_values = attention_gradients(W_Q, W_K, np.zeros_like(W_V))   # was: W_V
print("W_V = 0:", ", ".join(f"W_{name} {np.linalg.norm(g):.3g}" for name, g in grads_without_values.items()))

# %% tags=["no_keys"]
# Exercise 2: the mirror image of W_Q = 0, every key zero.
_, grads_without_keys = attention_gradients(W_Q, np.zeros_like(W_K), W_V)     # was: W_K
print("W_K = 0:", ", ".join(f"W_{name} {np.linalg.norm(g):.3g}" for name, g in grads_without_keys.items()))

# %%
report.number("exercise_norm_Q_when_W_V_is_zero", np.linalg.norm(grads_without_values["Q"]),
              "{:.3g}")
report.number("exercise_norm_K_when_W_V_is_zero", np.linalg.norm(grads_without_values["K"]),
              "{:.3g}")
report.number("exercise_norm_V_when_W_V_is_zero", np.linalg.norm(grads_without_values["V"]),
              "{:.3g}")
report.number("exercise_norm_Q_when_W_K_is_zero", np.linalg.norm(grads_without_keys["Q"]), "{:.3g}")
report.number("exercise_norm_K_when_W_K_is_zero", np.linalg.norm(grads_without_keys["K"]), "{:.3f}")

# %% [markdown]
# ## Figures

# %%
TEXT = report.figure_text()   # the figures' words: gradients.strings.toml
COLORS = {"Q": "#1b9e77", "K": "#d95f02", "V": "#7570b3"}
# Math labels read the same in both languages: ∂L/∂W_Q.
GRADIENT = {name: rf"$\partial L/\partial W_{name}$" for name in "QKV"}
limit = max(np.abs(g).max() for g in grads.values())

for lang in LANGS:
    text = TEXT[lang]
    fig, axes = column_figure(height=4.2, ncols=3)
    for ax, name in zip(axes, "QKV"):
        image = ax.imshow(grads[name], cmap="RdBu_r", vmin=-limit, vmax=limit)
        ax.set_title(GRADIENT[name], fontsize=MATH_FONT_PT)
        ax.set_xlabel(text["cols"])
        ax.set_xticks(range(d_k))
        ax.set_yticks(range(d_model))
    axes[0].set_ylabel(text["rows"])
    fig.colorbar(image, ax=axes, shrink=0.8)
    report.figure("updates", fig, lang, alt=text["updates_alt"], caption=text["updates_caption"])

    # Stacked: the curves above, the replace-one grid below.
    fig, (top, bottom) = column_figure(height=7.4, nrows=2, width=6,
                                       gridspec_kw={"height_ratios": [1, 1.1]})
    for name in "QKV":
        top.plot(steps, change[name], "o-", ms=3, color=COLORS[name], label=GRADIENT[name])
    top.set_xlabel(text["moved"], fontsize=MATH_FONT_PT if lang == "en" else None)
    top.set_ylabel(text["change"])
    top.legend(fontsize=MATH_FONT_PT)
    image = bottom.imshow(coupling, cmap="viridis", vmin=0)
    # The cells with the smallest and largest cross coupling show recorded keys (their gids).
    cross = np.where(np.eye(3, dtype=bool), np.nan, coupling)
    keyed = {np.unravel_index(np.nanargmin(cross), cross.shape): "smallest_cross_coupling",
             np.unravel_index(np.nanargmax(cross), cross.shape): "largest_cross_coupling"}
    for i in range(3):
        for j in range(3):
            cell = bottom.text(j, i, f"{coupling[i, j]:.0%}", ha="center", va="center",
                               color="white" if coupling[i, j] < coupling.max() / 2 else "black")
            if (i, j) in keyed:
                cell.set_gid(f"value:{keyed[i, j]}")
    bottom.set_xticks(range(3), [GRADIENT[n] for n in "QKV"], fontsize=MATH_FONT_PT)
    bottom.set_yticks(range(3), [f"$W_{n}$" for n in "QKV"], fontsize=MATH_FONT_PT)
    bottom.set_xlabel(text["measured"])
    bottom.set_ylabel(text["replaced"])
    bottom.set_title(text["coupling_title"])
    report.figure("coupling", fig, lang, alt=text["coupling_alt"], caption=text["coupling_caption"])

report.save()
