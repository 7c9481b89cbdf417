# %% [markdown]
# # Division of labour between layers: a previous-token head feeds an induction head
#
# A sequence contains a random segment twice, with random tokens around it:
# `[noise] A B C D E [noise] A B C D E`. Inside the second copy the next token
# can be read off the first copy: after `C` comes `D`. A model that has learnt
# this looks back at the token that *followed* the earlier copy of the current
# token — an induction head (Elhage et al. 2021; Olsson et al. 2022). That needs
# two steps: first each position must learn which token came just before it.
#
# We train a 2-layer, 2-head attention-only transformer, and a 1-layer control
# with the same heads, for N_SEEDS random seeds at once (one model with a seed
# dimension on every parameter), and name every head by what it measurably does.
# The division measured here is between *layers*; the far-reaching head is an
# induction head, not the entity head of source A (that one is on the page
# "A head for it"). The sequences come from explainer/repeated_segments.py.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.report import Report
from explainer.seeds import n_seeds, report_seed_count, report_spread
from explainer.training import IGNORE

report = Report("many_heads.division_of_labour")

# %% tags=["setup"]
import torch

from explainer.batched import SeededTransformer, evaluate_batched, train_batched
from explainer.head_metrics import induction_score, per_head, previous_token_score
from explainer.repeated_segments import LENGTH, VOCAB_SIZE, repeated_segment
from explainer.tiny_transformer import TransformerConfig

torch.set_num_threads(1)
V, T = VOCAB_SIZE, LENGTH  # 32 tokens, sequences of 24
STEPS, PROBE_EVERY, BATCH = 300, 25, 16
ROLE_BAR = 0.5   # a head takes a role when its score is at least this
HALFWAY = 0.5    # the first probed step at which accuracy (and the best induction score) reaches this is recorded
print("a sequence:", repeated_segment(torch.Generator().manual_seed(7), 1)[0][0].tolist())

probe = repeated_segment(torch.Generator().manual_seed(1234), 256)   # held out, same for every seed
probe_tokens = probe[0]                                              # (B, T)
watch = (probe[0][:96], probe[1][:96])                               # a smaller probe during training


def induction(weights):
    return induction_score(weights, probe_tokens[:weights.shape[0]])


def build(n_layers, seeds):
    """n_layers of 2 heads each, d_model = 32, attention only (no MLP); a copy per seed."""
    return SeededTransformer(TransformerConfig(vocab_size=V, n_ctx=T, d_model=32, n_heads=2,
                                               n_layers=n_layers, d_mlp=0), seeds)

# %% [markdown]
# ## Train every seed, and measure every head as it learns
#
# At every probe step: accuracy on held-out sequences, each layer-0 head's
# previous-token score, each last-layer head's induction score — per seed.

# %% tags=["train_and_watch"]
def train_and_watch(n_layers, seeds, steps=STEPS):
    """Train a model of n_layers for every seed; probe its heads every PROBE_EVERY steps."""
    model = build(n_layers, seeds)
    history = []

    def probe_heads(step, model):
        if step % PROBE_EVERY:
            return
        _, accuracy = evaluate_batched(model, *watch)            # (S,), keeps the weights
        weights = model.attention_weights()                       # n_layers x (S, B, nh, T, T)
        history.append(dict(step=step, accuracy=accuracy,
                            previous=per_head(previous_token_score, weights[0]),   # (S, nh)
                            induction=per_head(induction, weights[-1])))           # (S, nh)

    train_batched(model, repeated_segment, steps=steps, batch_size=BATCH, lr=1e-2,
                  on_step=probe_heads)
    return model, history

# %% tags=["small_run"]
# A small run first: two seeds of each model, which takes seconds. The full run below
# trains more seeds with the same code.
SMALL_SEEDS, SMALL_STEPS = [0, 1], 300
small_model, small_history = train_and_watch(2, SMALL_SEEDS, SMALL_STEPS)
small_control, _ = train_and_watch(1, SMALL_SEEDS, SMALL_STEPS)
small_accuracy = evaluate_batched(small_model, *probe)[1]                  # (S,)
small_weights = small_model.attention_weights()                            # [(S, B, nh, T, T)] * 2
small_previous = per_head(previous_token_score, small_weights[0])          # (S, nh): layer 0
small_induction = per_head(induction, small_weights[1])                    # (S, nh): layer 1
print(f"accuracy per seed: 2 layers {small_accuracy.numpy().round(2)}, 1-layer control "
      f"{evaluate_batched(small_control, *probe)[1].numpy().round(2)} (chance {1 / V:.2f})")
for s in range(len(SMALL_SEEDS)):
    print(f"seed {s}: previous-token score per layer-0 head {small_previous[s].numpy().round(2)}, "
          f"induction score per layer-1 head {small_induction[s].numpy().round(2)}")

# %%
report.number("small_run_seeds", len(SMALL_SEEDS), "{:.0f}")
report.number("small_run_steps", SMALL_STEPS, "{:.0f}")

# %%
# The full run.
N_SEEDS = n_seeds(8)   # the build trains more when a verdict is undecided
SEEDS = list(range(N_SEEDS))
CONTROL_GAP = 0.3      # the 1-layer control is worse when its accuracy is at least this below the 2-layer model's
NEEDED_COST = 0.2      # a head is needed when removing it costs at least this accuracy
model, history = train_and_watch(n_layers=2, seeds=SEEDS)
control, control_history = train_and_watch(n_layers=1, seeds=SEEDS)
report.number("n_seeds", N_SEEDS, "{:.0f}")
report.number("steps", STEPS, "{:.0f}")
report.number("control_gap", CONTROL_GAP, "{:.1f}")
report.number("needed_cost", NEEDED_COST, "{:.1f}")

_, accuracy = evaluate_batched(model, *probe)                   # (S,)
weights = model.attention_weights()                             # [(S, B, nh, T, T)] * 2
scores = {(layer, name): per_head(fn, weights[layer])           # (S, nh) each
          for layer in (0, 1)
          for name, fn in (("previous", previous_token_score), ("induction", induction))}
for (layer, name), values in scores.items():
    print(f"layer {layer} {name:>9} score per seed and head:\n{values.numpy().round(2)}")
seeds = torch.arange(N_SEEDS)
previous_head = scores[0, "previous"].argmax(dim=1)             # (S,) the layer-0 previous-token head
induction_head = scores[1, "induction"].argmax(dim=1)           # (S,) the stronger layer-1 induction head
# The previous-token score on the first 12 positions only (the top-left block
# of the pattern), where the first copy — the keys the induction head reads — lives.
first_half = per_head(previous_token_score, weights[0][..., :T // 2, :T // 2])      # (S, nh)
previous_first_half = first_half[seeds, previous_head]                               # (S,)
control_induction = control_history[-1]["induction"].max(dim=1).values              # (S,)
control_accuracy = control_history[-1]["accuracy"]                                   # (S,)

report_spread(report, accuracy, "{:.2f}", mean="accuracy_mean", std="accuracy_std", min="accuracy_min",
              max="accuracy_max")
report_spread(report, control_accuracy, "{:.2f}", mean="control_accuracy_mean", std="control_accuracy_std",
              min="control_accuracy_min", max="control_accuracy_max")
report.number("chance", 1 / V, "{:.2f}")
report_spread(report, scores[0, "previous"][seeds, previous_head], "{:.2f}", mean="previous_score_mean",
              std="previous_score_std", min="previous_score_min", max="previous_score_max")
report.number("previous_score_other_mean", scores[0, "previous"][seeds, 1 - previous_head].mean(),
              "{:.2f}")
report_spread(report, previous_first_half, "{:.2f}", mean="previous_score_first_half_mean",
              std="previous_score_first_half_std", min="previous_score_first_half_min",
              max="previous_score_first_half_max")
report.number("previous_score_layer1_mean", scores[1, "previous"].max(dim=1).values.mean(),
              "{:.2f}")
report_spread(report, scores[1, "induction"][seeds, induction_head], "{:.2f}", mean="induction_score_mean",
              std="induction_score_std", min="induction_score_min", max="induction_score_max")
report.number("induction_score_other_mean",
              scores[1, "induction"][seeds, 1 - induction_head].mean(), "{:.2f}")
report.number("induction_score_layer0_mean", scores[0, "induction"].max(dim=1).values.mean(),
              "{:.2f}")
report_spread(report, control_induction, "{:.2f}", mean="control_induction_score_mean",
              std="control_induction_score_std", min="control_induction_score_min", max="control_induction_score_max")
report.number("previous_score_at_init_mean", history[0]["previous"].max(dim=1).values.mean(),
              "{:.2f}")
report.number("induction_score_at_init_mean", history[0]["induction"].max(dim=1).values.mean(),
              "{:.2f}")

# How many seeds show each role, and the division between the two layers.
has_previous_head = previous_first_half >= ROLE_BAR
has_induction_head = scores[1, "induction"][seeds, induction_head] >= ROLE_BAR
report.number("role_bar", ROLE_BAR, "{:.1f}")
report_seed_count(report, "previous_head_seeds", has_previous_head)
report_seed_count(report, "induction_head_seeds", has_induction_head)
report_seed_count(report, "layer_split_seeds", has_previous_head & has_induction_head)
report_seed_count(report, "control_worse_seeds", control_accuracy <= accuracy - CONTROL_GAP)


def first_step(history, values, level):
    """Per seed: the first probed step at which ``values(h)`` (S,) reaches ``level``;
    STEPS + PROBE_EVERY for a seed that never does."""
    reached = torch.stack([values(h) >= level for h in history])          # (probes, S)
    steps = torch.tensor([h["step"] for h in history])                    # (probes,)
    first = torch.where(reached, steps[:, None], STEPS + PROBE_EVERY)     # (probes, S)
    return first.min(dim=0).values                                        # (S,)


step_accuracy_half = first_step(history, lambda h: h["accuracy"], HALFWAY)
step_induction_half = first_step(history, lambda h: h["induction"].max(dim=1).values, HALFWAY)
report.number("probe_every", PROBE_EVERY, "{:.0f}")
report.number("halfway", HALFWAY, "{:.1f}")
report_spread(report, step_accuracy_half, "{:.0f}", mean="step_accuracy_half_mean", std="step_accuracy_half_std",
              min="step_accuracy_half_min", max="step_accuracy_half_max")
report_spread(report, step_induction_half, "{:.0f}", mean="step_induction_half_mean", std="step_induction_half_std",
              min="step_induction_half_min", max="step_induction_half_max")

# %% [markdown]
# ## Remove one head at a time
#
# Ablating a head zeroes its output before W_O (the `head_mask`, one per
# seed). If the layer-0 previous-token head really feeds the layer-1
# induction head, removing it must break the model although it never looks
# at the answer itself.

# %% tags=["ablation"]
def accuracy_without(model, layer, head_of_seed):
    """Accuracy of every seed with head ``head_of_seed[s]`` of ``layer`` ablated: (S,)."""
    S = model.n_seeds
    mask = torch.ones(S, 2, 2)                                   # (S, n_layers, nh): 1 = head on
    mask[torch.arange(S), layer, head_of_seed] = 0
    model.set_head_mask(mask)
    result = evaluate_batched(model, *probe)[1]
    model.set_head_mask(torch.ones(S, 2, 2))
    return result


# In the small run: each seed's layer-0 previous-token head and stronger layer-1 induction head.
small_previous_head = small_previous.argmax(dim=1)                         # (S,)
small_induction_head = small_induction.argmax(dim=1)                       # (S,)
print("accuracy per seed, every head on:         ", small_accuracy.numpy().round(2))
for about, layer, head in (("the previous-token head", 0, small_previous_head),
                           ("the other layer-0 head", 0, 1 - small_previous_head),
                           ("the induction head", 1, small_induction_head),
                           ("the other layer-1 head", 1, 1 - small_induction_head)):
    print(f"without {about + ':':<33}", accuracy_without(small_model, layer, head).numpy().round(2))

# %%
ablated = {"previous_head": accuracy_without(model, 0, previous_head),
           "other_layer0_head": accuracy_without(model, 0, 1 - previous_head),
           "induction_head": accuracy_without(model, 1, induction_head),
           "other_layer1_head": accuracy_without(model, 1, 1 - induction_head)}
report_spread(report, ablated["previous_head"], "{:.2f}", mean="ablate_previous_head_mean",
              std="ablate_previous_head_std", min="ablate_previous_head_min", max="ablate_previous_head_max")
report_spread(report, ablated["other_layer0_head"], "{:.2f}", mean="ablate_other_layer0_head_mean",
              std="ablate_other_layer0_head_std", min="ablate_other_layer0_head_min",
              max="ablate_other_layer0_head_max")
report_spread(report, ablated["induction_head"], "{:.2f}", mean="ablate_induction_head_mean",
              std="ablate_induction_head_std", min="ablate_induction_head_min", max="ablate_induction_head_max")
report_spread(report, ablated["other_layer1_head"], "{:.2f}", mean="ablate_other_layer1_head_mean",
              std="ablate_other_layer1_head_std", min="ablate_other_layer1_head_min",
              max="ablate_other_layer1_head_max")
report_seed_count(report, "previous_head_needed_seeds", ablated["previous_head"] <= accuracy - NEEDED_COST)

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["without_layer1"]
# Exercise 1: remove BOTH layer-1 heads at once (each one alone is removed above).
mask = torch.ones(len(SMALL_SEEDS), 2, 2)                # was: one head per seed, in accuracy_without
mask[:, 1] = 0
small_model.set_head_mask(mask)
print("accuracy per seed without both layer-1 heads:", evaluate_batched(small_model, *probe)[1].numpy().round(2))
small_model.set_head_mask(torch.ones(len(SMALL_SEEDS), 2, 2))

# %%
# Exercise 1 in the full run.
mask = torch.ones(N_SEEDS, 2, 2)
mask[:, 1] = 0
model.set_head_mask(mask)
report_spread(report, evaluate_batched(model, *probe)[1], "{:.2f}", mean="exercise_without_layer1_mean",
              std="exercise_without_layer1_std", min="exercise_without_layer1_min", max="exercise_without_layer1_max")
model.set_head_mask(torch.ones(N_SEEDS, 2, 2))

# %% tags=["without_positions"]
# Exercise 2: set the learned position embeddings to zero. Can the model still find
# "the token before"?
saved = small_model.position_embedding.data.clone()                       # (S, T, C)
small_model.position_embedding.data.zero_()
print("accuracy per seed without positions:", evaluate_batched(small_model, *probe)[1].numpy().round(2))
small_model.position_embedding.data.copy_(saved)

# %%
# Exercise 2 in the full run.
saved = model.position_embedding.data.clone()
model.position_embedding.data.zero_()
report_spread(report, evaluate_batched(model, *probe)[1], "{:.2f}", mean="exercise_without_positions_mean",
              std="exercise_without_positions_std", min="exercise_without_positions_min",
              max="exercise_without_positions_max")
model.position_embedding.data.copy_(saved)

# %% [markdown]
# ## Figures
#
# The attention maps are those of the first seed (an example, not the best);
# the curves show every seed faintly and the mean over seeds boldly.

# %%
TEXT = report.figure_text()   # the figures' words: division_of_labour.strings.toml
example_seed = 0
example = int((probe[1] != IGNORE).sum(dim=1).argmax())        # a sequence with a long repeat
steps = [h["step"] for h in history]
curves = {"acc": (torch.stack([h["accuracy"] for h in history]), "black", "-"),
          "prev": (torch.stack([h["previous"].max(dim=1).values for h in history]), "#1b9e77", "-"),
          "ind": (torch.stack([h["induction"].max(dim=1).values for h in history]), "#d95f02", "-"),
          "c_acc": (torch.stack([h["accuracy"] for h in control_history]), "black", "--")}
for lang in LANGS:
    text = TEXT[lang]
    fig, axes = plt.subplots(2, 2, figsize=(7.2, 7.4))
    for ax, (layer, head) in zip(axes.flat, [(0, 0), (0, 1), (1, 0), (1, 1)]):
        ax.imshow(weights[layer][example_seed, example, head], cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1)
        ax.set_title(text["head"].format(layer, head) + "\n"
                     + text["previous"].format(scores[layer, "previous"][example_seed, head].item()) + " · "
                     + text["induction"].format(scores[layer, "induction"][example_seed, head].item()),
                     fontsize=10)
    for ax in axes[1]:
        ax.set_xlabel(text["key"])
    for ax in axes[:, 0]:
        ax.set_ylabel(text["query"])
    fig.tight_layout()
    report.figure("attention_maps", fig, lang, alt=text["maps_alt"],
                  caption=text["maps_caption"].format(p=scores[0, "previous"][example_seed].max().item(),
                                                      i=scores[1, "induction"][example_seed].max().item()))

    fig, ax = plt.subplots(figsize=(7.2, 4.6))
    for key, (values, color, style) in curves.items():          # values (probes, S)
        ax.plot(steps, values, color=color, ls=style, lw=0.8, alpha=0.25)
        ax.plot(steps, values.mean(dim=1), color=color, ls=style, lw=2.2, label=text[key])
    ax.set_xlabel(text["step"])
    ax.set_ylabel(text["score"])
    ax.set_ylim(0, 1)
    ax.legend(fontsize=10, loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=2, frameon=False)
    fig.tight_layout()
    caption = text["curve_caption"].format(split=int((has_previous_head & has_induction_head).sum()),
                                           seeds=len(accuracy), acc=accuracy.mean().item(),
                                           control=control_accuracy.mean().item())
    report.figure("roles_over_training", fig, lang, alt=text["curve_alt"].format(steps=STEPS), caption=caption)

report.save()
