# %% [markdown]
# # Self-attention in four steps
#
# "The animal didn't cross the street because it was too tired."
# Each word gets a small vector of *named* features, and three hand-built
# matrices W_Q, W_K, W_V turn it into a query, a key and a value.
# We then run the four steps of attention by hand — scores, scaling,
# softmax, weighted sum — and check them against PyTorch's fused kernel.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, column_figure
from explainer.report import Report

report = Report("four_steps")

# %% tags=["words"]
import numpy as np
import torch
import torch.nn.functional as F

tokens = ["The", "animal", "didn't", "cross", "the", "street",
          "because", "it", "was", "too", "tired"]
features = ["animate", "place", "can_tire", "pronoun", "predicate", "function"]
IT, ANIMAL, STREET = tokens.index("it"), tokens.index("animal"), tokens.index("street")


def word(**named):
    """A token vector from named features, e.g. word(animate=1, can_tire=1)."""
    return [named.get(f, 0.0) for f in features]


X = np.array([
    word(function=1),                # The
    word(animate=1, can_tire=1),     # animal
    word(function=1, predicate=0.5), # didn't
    word(predicate=1),               # cross
    word(function=1),                # the
    word(place=1),                   # street
    word(function=1),                # because
    word(pronoun=1),                 # it
    word(function=1, predicate=0.5), # was
    word(function=1),                # too
    word(predicate=1),               # tired
])  # (T, d_model) = (11, 6)
print("X:", X.shape)
print("animal:", X[ANIMAL], " street:", X[STREET], " it:", X[IT])

# %% [markdown]
# ## Three projections of the same vector
#
# The query/key space has two named axes: "can get tired" and "is a place".
# W_K writes what a token *offers* on those axes; W_Q writes what a token
# *looks for*. The pronoun looks for something that can get tired and not
# for a place. W_V simply carries every feature along, so we can read the
# output.

# %% tags=["projections"]
d_model, d_k = X.shape[1], 2
W_K = np.zeros((d_model, d_k))
W_K[features.index("can_tire"), 0] = 2.0   # offers: "I can get tired"
W_K[features.index("place"), 1] = 2.0      # offers: "I am a place"
W_Q = np.zeros((d_model, d_k))
W_Q[features.index("pronoun")] = [3.0, -1.0]  # asks: "who can get tired? not a place"
W_V = np.eye(d_model)                      # (d_model, d_v): value = the features themselves

Q = X @ W_Q  # (T, d_k)
K = X @ W_K  # (T, d_k)
V = X @ W_V  # (T, d_v)
print("q(it):", Q[IT], " k(animal):", K[ANIMAL], " k(street):", K[STREET])

# %% tags=["linear"]
# The same projections as PyTorch layers: nn.Linear stores the transpose.
x_t = torch.tensor(X)
projection_error = 0.0
for W, ours in ((W_Q, Q), (W_K, K), (W_V, V)):
    layer = torch.nn.Linear(d_model, W.shape[1], bias=False).double()
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(W.T))
        projection_error = max(projection_error, np.abs(layer(x_t).numpy() - ours).max())
print(f"largest difference from torch.nn.Linear: {projection_error:.1e}")

# %%
report.number("projection_error", projection_error, "{:.1e}")

# %% [markdown]
# ## The four steps

# %% tags=["steps"]
def softmax(z):
    """Softmax over the last axis; subtracting the row's max changes nothing but avoids overflow."""
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


scores = Q @ K.T                  # step 1: dot products, (T, T)
scaled = scores / np.sqrt(d_k)    # step 2: divide by sqrt(d_k)
weights = softmax(scaled)         # step 3: softmax over keys, rows sum to 1
output = weights @ V              # step 4: weighted sum of values, (T, d_v)

np.set_printoptions(precision=3, suppress=True, linewidth=100)
print("scores of it: ", scores[IT])
print("scaled:       ", scaled[IT])
print("weights of it:", weights[IT])

# %% tags=["fused"]
fused = F.scaled_dot_product_attention(
    torch.tensor(Q)[None], torch.tensor(K)[None], torch.tensor(V)[None])[0].numpy()  # (T, d_v)
print(f"largest difference from F.scaled_dot_product_attention: {np.abs(output - fused).max():.1e}")

# %%
report.number("fused_error", np.abs(output - fused).max(), "{:.1e}")
report.number("score_it_animal", scores[IT, ANIMAL], "{:.1f}")
report.number("score_it_street", scores[IT, STREET], "{:.1f}")
report.number("scaled_it_animal", scaled[IT, ANIMAL], "{:.2f}")
report.number("weight_it_animal", weights[IT, ANIMAL], "{:.2f}")
report.number("weight_it_street", weights[IT, STREET], "{:.3f}")
report.number("weight_it_other", np.delete(weights[IT], [ANIMAL, STREET]).max(), "{:.3f}")
report.number("entropy_it_bits", -(weights[IT] * np.log2(weights[IT])).sum(), "{:.2f}")

# %% [markdown]
# ## What the output at "it" is made of

# %% tags=["output"]
def cosine(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


print("output at it:", ", ".join(f"{f} {x:.2f}" for f, x in zip(features, output[IT])))
print(f"cosine with v(animal): {cosine(output[IT], V[ANIMAL]):.2f}, "
      f"with v(street): {cosine(output[IT], V[STREET]):.2f}")

# %%
report.number("cos_output_animal", cosine(output[IT], V[ANIMAL]), "{:.2f}")
report.number("cos_output_street", cosine(output[IT], V[STREET]), "{:.2f}")
report.number("output_it_animate", output[IT, features.index("animate")], "{:.2f}")
report.number("output_it_can_tire", output[IT, features.index("can_tire")], "{:.2f}")
report.number("output_it_place", output[IT, features.index("place")], "{:.2f}")
report.number("output_it_pronoun", output[IT, features.index("pronoun")], "{:.2f}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["no_scaling"]
# Exercise 1: in the `steps` cell, drop `/ np.sqrt(d_k)`.
scaled_1 = scores                 # was: scores / np.sqrt(d_k)
weights_1 = softmax(scaled_1)
print(f"weight of it on animal: {weights_1[IT, ANIMAL]:.2f}")

# %% tags=["tired_street"]
# Exercise 2: in the `words` cell, the street can get tired too.
X_2 = X.copy()
X_2[STREET] = word(place=1, can_tire=1)   # was: word(place=1)
weights_2 = softmax(Q @ (X_2 @ W_K).T / np.sqrt(d_k))
print(f"it on animal: {weights_2[IT, ANIMAL]:.2f}, on street: {weights_2[IT, STREET]:.2f}")

# %% tags=["no_place"]
# Exercise 3: keep the tired street; in the `projections` cell, the query no longer avoids places.
W_Q_3 = W_Q.copy()
W_Q_3[features.index("pronoun")] = [3.0, 0.0]   # was: [3.0, -1.0]
weights_3 = softmax((X_2 @ W_Q_3) @ (X_2 @ W_K).T / np.sqrt(d_k))
print(f"it on street: {weights_3[IT, STREET]:.2f}, on animal: {weights_3[IT, ANIMAL]:.2f}")

# %%
report.number("exercise_unscaled_weight_it_animal", weights_1[IT, ANIMAL], "{:.2f}")
report.number("exercise_tired_street_weight_animal", weights_2[IT, ANIMAL], "{:.2f}")
report.number("exercise_tired_street_weight_street", weights_2[IT, STREET], "{:.2f}")
report.number("exercise_no_place_weight_street", weights_3[IT, STREET], "{:.2f}")
report.number("exercise_no_place_weight_animal", weights_3[IT, ANIMAL], "{:.2f}")

# %% [markdown]
# ## Figures, labelled in the reader's language

# %%
TEXT = report.figure_text()   # the figures' words: four_steps.strings.toml

for lang in LANGS:
    text = TEXT[lang]
    # Two by two, not four in a row: each panel gets half the column, its labels stay legible.
    fig, axes = column_figure(height=6.2, nrows=2, ncols=2)
    axes = axes.ravel()
    for ax, row, title in zip(axes[:3], (scores[IT], scaled[IT], weights[IT]), text["steps"]):
        colors = ["#1f77b4" if j != ANIMAL else "#d95f02" for j in range(len(tokens))]
        ax.bar(range(len(tokens)), row, color=colors)
        ax.set_xticks(range(len(tokens)), tokens, rotation=60, ha="right", rotation_mode="anchor")
        ax.set_title(title)
        ax.axhline(0, color="grey", lw=0.5)
    axes[3].barh(range(d_model), output[IT], color="#7570b3")
    axes[3].set_yticks(range(d_model), text["features"])
    axes[3].invert_yaxis()
    axes[3].set_title(text["output"])
    report.figure("steps", fig, lang, alt=text["steps_alt"], caption=text["steps_caption"])

    fig, ax = column_figure(height=4.6, width=5.6)
    image = ax.imshow(weights, cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1)
    ax.set_xticks(range(len(tokens)), tokens, rotation=60, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(len(tokens)), tokens)
    ax.set_xlabel(text["key"])
    ax.set_ylabel(text["query"])
    fig.colorbar(image, ax=ax, label=text["colorbar"])
    report.figure("heatmap", fig, lang, alt=text["heatmap_alt"], caption=text["heatmap_caption"])

report.save()
