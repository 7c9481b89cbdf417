# %% [markdown]
# # Three views of one token
#
# A library picture: a token's **key** is its catalogue card, listing
# everything the token offers; a **query** is one reader's question, aimed at
# one field of the cards; the **value** is the book itself, handed over once
# the card matches.
#
# Take the word 开车 ("to drive") in 司机昨天在马路上开车，汽车又快又稳
# ("the driver drove on the road yesterday; the car was fast and steady").
# Three hand-built query views of 开车 — *what is the tool?*, *who acts?*,
# *how is it done?* — read one shared key space. Each should land on its own
# word: 汽车 (car), 司机 (driver), 快/稳 (fast/steady).

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
from explainer import narrow
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, column_figure
from explainer.report import Report

report = Report("three_roles.views")

# %% tags=["words"]
import numpy as np

tokens = ["司机", "昨天", "在", "马路", "上", "开车", "汽车", "又", "快", "又", "稳"]
gloss = ["driver", "yesterday", "at", "road", "on", "drive", "car", "both", "fast", "and", "steady"]
DRIVE = tokens.index("开车")
features = ["person", "vehicle", "concrete", "mobile", "place", "time", "speed", "steady", "action",
            "function"]


def word(**named):
    """A token vector from named features, e.g. word(vehicle=1, concrete=1)."""
    return [named.get(f, 0.0) for f in features]


X = np.array([
    word(person=1, concrete=1, mobile=1),   # 司机 driver
    word(time=1),                  # 昨天 yesterday
    word(function=1),              # 在 at
    word(place=1, concrete=1),     # 马路 road
    word(function=1),              # 上 on
    word(action=1),                # 开车 drive
    word(vehicle=1, concrete=1, mobile=1),  # 汽车 car
    word(function=1),              # 又 both
    word(speed=1),                 # 快 fast
    word(function=1),              # 又 and
    word(steady=1),                # 稳 steady
])  # (T, d_model) = (11, 10)
print("X:", X.shape)

# %% [markdown]
# ## The catalogue: one key space for everyone
#
# W_K writes each token's card. The card has seven fields; a content word fills
# in every field that applies to it, so a card often lists several things
# (the car is a tool, a concrete thing, and it moves).

# %% tags=["keys"]
fields = ["tool", "agent", "manner", "place", "time", "thing", "moves"]
W_K = np.zeros((len(features), len(fields)))  # (d_model, d_k) = (10, 7)
for feature, field in [("vehicle", "tool"), ("person", "agent"), ("speed", "manner"),
                       ("steady", "manner"), ("place", "place"), ("time", "time"),
                       ("concrete", "thing"), ("mobile", "moves")]:
    W_K[features.index(feature), fields.index(field)] = 2.0
K = X @ W_K  # (T, d_k): one catalogue card per token
for t in ("汽车", "司机", "快"):
    print(t, dict((f, c) for f, c in zip(fields, K[tokens.index(t)]) if c))

# %% [markdown]
# ## Three readers with one question each
#
# Each view has its own W_Q. It reads the *action* feature of 开车 and turns it
# into a question about a single field of the cards. Other tokens have no
# action feature, so only 开车 asks anything.

# %% tags=["views"]
ASK = 5.0  # how insistently the view asks; sets how peaked its softmax is
views = {"tool": "tool", "agent": "agent", "manner": "manner"}
W_Q = {}
for view, field in views.items():
    W = np.zeros((len(features), len(fields)))  # (d_model, d_k)
    W[features.index("action"), fields.index(field)] = ASK
    W_Q[view] = W

W_V = np.eye(len(features))  # (d_model, d_v): the value is the book, i.e. the token's own features
V = X @ W_V                  # (T, d_v)
d_k = len(fields)


def softmax(row):
    e = np.exp(row - row.max())
    return e / e.sum()


weights, outputs, queries = {}, {}, {}
for view in views:
    q = X[DRIVE] @ W_Q[view]                       # (d_k,): this view's question
    scores = K @ q / np.sqrt(d_k)                  # (T,): how well each card answers it
    weights[view] = softmax(scores)                # (T,) one attention row per view
    outputs[view] = weights[view] @ V              # (d_v,): the book this view fetches
    queries[view] = q
    print(f"{view:6s} view: top key {tokens[int(weights[view].argmax())]}, weight {weights[view].max():.2f}")

# %% [markdown]
# ## What each view found

# %% tags=["found"]
intended = {"tool": ["汽车"], "agent": ["司机"], "manner": ["快", "稳"]}


def cosine(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


on_target, largest_other, output_cosine = {}, {}, {}
for view, words in intended.items():
    row = weights[view]                                          # (T,)
    on_target[view] = sum(row[tokens.index(w)] for w in words)
    largest_other[view] = max(row[j] for j, t in enumerate(tokens) if t not in words)
    target_book = np.mean([V[tokens.index(w)] for w in words], axis=0)   # (d_v,)
    output_cosine[view] = cosine(outputs[view], target_book)
    print(f"{view:6s} view: on {'+'.join(words)} {on_target[view]:.2f}, "
          f"any other word at most {largest_other[view]:.3f}, output·book cosine {output_cosine[view]:.3f}")

# %%
# What each number is, in both languages: views.strings.toml beside this file.
report.number("tool_weight_on_target", on_target["tool"], "{:.2f}")
report.number("tool_largest_other", largest_other["tool"], "{:.3f}")
report.number("tool_output_cosine_to_target_value", output_cosine["tool"], "{:.3f}")
report.number("agent_weight_on_target", on_target["agent"], "{:.2f}")
report.number("agent_largest_other", largest_other["agent"], "{:.3f}")
report.number("agent_output_cosine_to_target_value", output_cosine["agent"], "{:.3f}")
report.number("manner_weight_on_target", on_target["manner"], "{:.2f}")
report.number("manner_largest_other", largest_other["manner"], "{:.3f}")
report.number("manner_output_cosine_to_target_value", output_cosine["manner"], "{:.3f}")
report.number("manner_weight_fast", weights["manner"][tokens.index("快")], "{:.2f}")
report.number("manner_weight_steady", weights["manner"][tokens.index("稳")], "{:.2f}")


# %% [markdown]
# ## How many fields does a card list, and how many does a question ask about?
#
# The participation ratio (Σ x²)² / Σ x⁴ counts the "effective number" of
# non-zero entries of a vector: 1 if one entry carries everything, n if n
# entries are equal.

# %% tags=["fields"]
def participation_ratio(vector):
    squares = np.asarray(vector, dtype=float) ** 2
    return float(squares.sum() ** 2 / (squares ** 2).sum())


content = [tokens.index(t) for t in ("司机", "马路", "汽车", "快", "稳", "昨天")]
key_fields = np.mean([participation_ratio(K[i]) for i in content])
query_fields = np.mean([participation_ratio(q) for q in queries.values()])
print(f"fields per card (content words): {key_fields:.2f}; per question: {query_fields:.2f}")

# %%
report.number("key_fields_per_card", key_fields, "{:.2f}")
report.number("query_fields_per_view", query_fields, kind="count")

# %% [markdown]
# ## Does the key *have* to list everything?
#
# In the standard multi-head layer every head has its own W_K, not one shared
# catalogue. Give each view a one-field key of its own — just the column of
# W_K its question looks at — and compare the attention rows.

# %% tags=["per_head"]
largest_difference = 0.0
for view, field in views.items():
    W_K_head = W_K[:, [fields.index(field)]]         # (d_model, 1): a one-field card
    q_head = np.array([ASK])                          # (1,)
    # Keep the 1/sqrt(d_k) of the shared space so the two rows compare like for like.
    scores_head = (X @ W_K_head) @ q_head / np.sqrt(d_k)  # (T,)
    largest_difference = max(largest_difference,
                             np.abs(softmax(scores_head) - weights[view]).max())
print(f"largest difference from the shared catalogue: {largest_difference:.1e}")

# %%
report.number("per_head_keys_difference", largest_difference, "{:.1e}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["soft_ask"]
# Exercise 1: in the `views` cell, ask less insistently.
def view_row(W_Q_view, keys=K):
    """Attention row of 开车 for one view's W_Q, over the given keys."""
    return softmax(keys @ (X[DRIVE] @ W_Q_view) / np.sqrt(d_k))   # (T,)


CAR, DRIVER = tokens.index("汽车"), tokens.index("司机")
ASK_1 = 2.0                                                   # was: ASK = 5.0
W_tool_1 = np.zeros((len(features), len(fields)))             # (d_model, d_k)
W_tool_1[features.index("action"), fields.index("tool")] = ASK_1
print(f"tool view, ASK = 2: weight on 汽车 {view_row(W_tool_1)[CAR]:.2f}")

# %% tags=["tool_and_moves"]
# Exercise 2: in the `views` cell, the tool view also asks "does it move?".
W_tool_moves = W_Q["tool"].copy()
W_tool_moves[features.index("action"), fields.index("moves")] = ASK   # a second field
row = view_row(W_tool_moves)                                          # (T,)
print(f"tool view asking about tool and moves: 汽车 {row[CAR]:.2f}, 司机 {row[DRIVER]:.2f}")

# %%
report.number("exercise_soft_ask_tool_weight", view_row(W_tool_1)[CAR], "{:.2f}")
report.number("exercise_tool_and_moves_weight_car", row[CAR], "{:.2f}")
report.number("exercise_tool_and_moves_weight_driver", row[DRIVER], "{:.2f}")

# %% [markdown]
# ## Figures

# %%
TEXT = report.figure_text()   # the figures' words: views.strings.toml
TICKS = {"en": [f"{g} {t}" for t, g in zip(tokens, gloss)], "zh": tokens}   # tick labels: the sentence's words

query_matrix = np.array([queries[v] for v in views])  # (3, d_k)


def narrow_cards(copy):
    """For a phone: the field names upright (at 45° they collide in a narrow column) and the
    questions on two lines in rows tall enough for them, so the heat maps keep a width worth
    reading."""
    top, bottom = [ax for ax in copy.axes if ax.get_label() != "<colorbar>"]
    for ax in (top, bottom):
        for label in ax.get_xticklabels():
            label.set(rotation=90, ha="center", rotation_mode="default")
    bottom.set_yticklabels([label.get_text().replace(": ", ":\n").replace("：", "：\n")
                            for label in bottom.get_yticklabels()])
    bottom.set_aspect("auto")  # rows tall enough for two lines
    return narrow.narrow_copy(copy)


for lang in LANGS:
    text = TEXT[lang]
    # Tall, not wide: the cards above, the three questions below, on the same field axis.
    fig, (top, bottom) = column_figure(height=6.4, nrows=2, width=5.6,
                                       gridspec_kw={"height_ratios": [len(tokens), 2 * len(views)]})
    image = top.imshow(K, cmap=SEQUENTIAL_CMAP, vmin=0)
    top.set_xticks(range(len(fields)), text["fields"], rotation=45, ha="right", rotation_mode="anchor")
    top.set_yticks(range(len(tokens)), TICKS[lang])
    top.set_title(text["cards"])
    fig.colorbar(image, ax=top, shrink=0.8, label=text["value"])
    image = bottom.imshow(query_matrix, cmap=SEQUENTIAL_CMAP, vmin=0)
    bottom.set_xticks(range(len(fields)), text["fields"], rotation=45, ha="right", rotation_mode="anchor")
    bottom.set_yticks(range(len(views)), [text["views"][v] for v in views])
    bottom.set_title(text["questions"])
    fig.colorbar(image, ax=bottom, label=text["value"])
    report.figure("cards", fig, lang, alt=text["cards_alt"], caption=text["cards_caption"],
                  narrow=narrow_cards)

    # One view per row, so every token label gets room at full size.
    fig, axes = column_figure(height=7.4 if lang == "en" else 6.2, nrows=3, sharey=True)
    for ax, view in zip(axes, views):
        colors = ["#d95f02" if t in intended[view] else "#1f77b4" for t in tokens]
        ax.bar(range(len(tokens)), weights[view], color=colors)
        ax.set_xticks(range(len(tokens)), TICKS[lang], rotation=30 if lang == "en" else 0,
                      ha="right" if lang == "en" else "center", rotation_mode="anchor")
        ax.set_title(text["views"][view])
        ax.set_ylim(0, 1)
        ax.set_ylabel(text["weight"])
    report.figure("views", fig, lang, alt=text["views_alt"], caption=text["views_caption"])

report.save()
