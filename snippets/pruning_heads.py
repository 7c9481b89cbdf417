# %% [markdown]
# # Are sixteen heads better than one? Pruning a trained model
#
# Michel et al. (2019) removed attention heads from trained translation and
# BERT models and found many could go with little loss. We do the same to a
# 2-layer, 16-head attention-only model trained on the ordered pair
# (first token, previous token) of explainer/first_and_previous.py — a task
# that needs only two kinds of attention. A head is removed the way that
# really removes it: its output is zeroed *before* W_O (`head_mask`), so
# nothing of it reaches the residual stream.
#
# Three orders of removal:
# (i)   ablation damage — first the heads whose single removal hurts least;
# (ii)  random — ten random orders;
# (iii) Michel et al.'s gradient importance I_h = E_x |Att_h(x)ᵀ ∂L/∂Att_h(x)|,
#       normalised per layer — first the least important.

# %%
import copy

import torch

from explainer.first_and_previous import T, V, ordered_pair
from explainer.plotting import LANGS, plt
from explainer.report import Report
from explainer.tiny_transformer import TinyTransformer, TransformerConfig
from explainer.training import TrainingConfig, evaluate, loss_on, train

torch.set_num_threads(1)
report = Report("pruning_heads")

N_LAYERS, N_HEADS = 2, 8
STEPS, EARLY = 200, 30             # EARLY: a checkpoint while the loss is still high
torch.manual_seed(0)
model = TinyTransformer(TransformerConfig(vocab_size=V * V, n_ctx=T, d_model=32,
                                          n_heads=N_HEADS, n_layers=N_LAYERS))
snapshots = {}
train(model, ordered_pair, TrainingConfig(steps=STEPS, batch_size=64, lr=1e-2),
      on_step=lambda step, model: snapshots.update({step: copy.deepcopy(model.state_dict())})
      if step == EARLY else None)
probe = ordered_pair(torch.Generator().manual_seed(1234), 256)
full_loss, full_accuracy = evaluate(model, probe)
report.number("full_accuracy", full_accuracy, "{:.3f}")
report.number("full_loss", full_loss, "{:.4f}")
print(f"trained: loss {full_loss:.4f}, accuracy {full_accuracy:.3f}")

HEADS = [(layer, head) for layer in range(N_LAYERS) for head in range(N_HEADS)]


def accuracy_without(removed) -> float:
    """Accuracy with the heads in ``removed`` ablated (output zeroed before W_O)."""
    mask = torch.ones(N_LAYERS, N_HEADS)
    for layer, head in removed:
        mask[layer, head] = 0
    model.set_head_mask(mask)
    accuracy = evaluate(model, probe)[1]
    model.set_head_mask(torch.ones(N_LAYERS, N_HEADS))
    return accuracy

# %% [markdown]
# ## Importance of each head, two ways

# %%
damage = {h: full_accuracy - accuracy_without([h]) for h in HEADS}


def gradient_importance(model) -> dict:
    """Michel et al.: per example |sum over positions and dims of Att_h * dL/dAtt_h|, averaged."""
    for attention in model.attentions:
        attention.keep_head_outputs = True
    tokens, targets = probe
    loss_on(model, tokens, targets).backward()
    importance = {}
    for layer, attention in enumerate(model.attentions):
        outputs = attention.last_head_outputs                         # (B, nh, T, hs)
        per_example = (outputs * outputs.grad).sum(dim=(2, 3)).abs()  # (B, nh)
        scores = per_example.mean(dim=0)                              # (nh,) expectation over examples
        raw = scores.sum().item()
        scores = scores / scores.norm()                               # normalised per layer (l2)
        importance.update({(layer, head): scores[head].item() for head in range(N_HEADS)})
        attention.keep_head_outputs = False
        attention.last_head_outputs = None
    model.zero_grad()
    return importance


importance = gradient_importance(model)

for h in HEADS:
    print(f"layer {h[0]} head {h[1]}: damage if removed alone {damage[h]:+.3f}   "
          f"gradient importance {importance[h]:.3f}")

# Do the two rankings agree? Spearman correlation of the ranks.
def ranks(values):
    order = sorted(HEADS, key=lambda h: values[h])
    return torch.tensor([order.index(h) for h in HEADS], dtype=torch.float)


rank_correlation = torch.corrcoef(torch.stack([ranks(damage), ranks(importance)]))[0, 1].item()
report.number("rank_correlation", rank_correlation, "{:.2f}")
by_harm = sorted(HEADS, key=lambda h: -damage[h])
essential = [h for h in by_harm if damage[h] > 0.05]          # heads whose loss alone costs > 5 points
report.number("essential_heads", len(essential), "{:.0f}")
report.number("heads", len(HEADS), "{:.0f}")
report.number("harmless_heads", sum(d <= 0.01 for d in damage.values()), "{:.0f}")
report.number("top_damage", damage[by_harm[0]], "{:.2f}")
gradient_order = sorted(HEADS, key=lambda h: importance[h])  # least important first
# Where does the gradient score put the essential heads? 1 = least important of all.
worst_rank = min(gradient_order.index(h) + 1 for h in essential) if essential else len(HEADS)
report.number("essential_lowest_gradient_rank", worst_rank, "{:.0f}")

# The same score at an early checkpoint, while the loss is still high.
early = copy.deepcopy(model)
early.load_state_dict(snapshots[EARLY])
early_loss, early_accuracy = evaluate(early, probe)
early_importance = gradient_importance(early)
early_damage = {}
for h in HEADS:
    mask = torch.ones(N_LAYERS, N_HEADS)
    mask[h] = 0
    early.set_head_mask(mask)
    early_damage[h] = early_accuracy - evaluate(early, probe)[1]
early.set_head_mask(torch.ones(N_LAYERS, N_HEADS))
early_correlation = torch.corrcoef(torch.stack([ranks(early_damage), ranks(early_importance)]))[0, 1].item()
report.number("early_step", EARLY, "{:.0f}")
report.number("early_loss", early_loss, "{:.2f}")
report.number("early_rank_correlation", early_correlation, "{:.2f}")
print(f"rank correlation of gradient importance with ablation damage: {rank_correlation:.2f} at the "
      f"end (loss {full_loss:.4f}), {early_correlation:.2f} at step {EARLY} (loss {early_loss:.2f})")

# %% [markdown]
# ## Prune progressively in each order

# %%
def curve(order):
    """Accuracy after removing the first k heads of ``order``, k = 0 .. 16."""
    return [accuracy_without(order[:k]) for k in range(len(order) + 1)]


by_damage = sorted(HEADS, key=lambda h: damage[h])
by_gradient = gradient_order
generator = torch.Generator().manual_seed(0)
random_orders = [[HEADS[i] for i in torch.randperm(len(HEADS), generator=generator)] for _ in range(10)]
curves = {"damage": curve(by_damage), "gradient": curve(by_gradient)}
random_curves = torch.tensor([curve(order) for order in random_orders])   # (10, 17)
curves["random"] = random_curves.mean(dim=0).tolist()
fractions = [k / len(HEADS) for k in range(len(HEADS) + 1)]


def removable(accuracies, tolerance=0.02):
    """Largest fraction of heads removed with accuracy within ``tolerance`` of the full model."""
    return max(f for f, a in zip(fractions, accuracies) if a >= full_accuracy - tolerance)


for name, accuracies in curves.items():
    report.number(f"removable_{name}", removable(accuracies), "{:.0%}")
    report.number(f"accuracy_half_{name}", accuracies[len(HEADS) // 2], "{:.2f}")
    print(f"{name:>8}: " + " ".join(f"{a:.2f}" for a in accuracies))
report.number("accuracy_all_but_one_damage", curves["damage"][-2], "{:.2f}")
report.number("accuracy_none", curves["damage"][-1], "{:.2f}")
report.number("chance", 1 / (V * V), "{:.2f}")

# %% [markdown]
# ## Verdict

# %%
share = removable(curves["damage"])
individually_harmless = sum(d <= 0.01 for d in damage.values()) / len(HEADS)
# "A large share": at least 40% (Michel et al.'s BERT figure) within 0.02 of full accuracy.
verdict = ("verified" if share >= 0.4 else
           "nuanced" if share >= 0.2 or individually_harmless >= 0.5 else "refuted")
report.claim(
    "C13", verdict,
    en=f"16 heads (2 layers x 8): {individually_harmless:.0%} of them can be removed one at a time "
       f"at a cost of at most 0.01 accuracy, but removed together in order of least damage only "
       f"{share:.0%} can go with accuracy within 0.02 of the full {full_accuracy:.2f} "
       f"({curves['damage'][len(HEADS) // 2]:.2f} at half); random order {removable(curves['random']):.0%}, "
       f"gradient-importance order {removable(curves['gradient']):.0%}.",
    zh=f"16 个头（2 层 × 8）：其中 {individually_harmless:.0%} 单独去掉时准确率损失不超过 0.01；"
       f"但按损害从小到大一起剪，只能剪掉 {share:.0%} 而保持准确率与完整模型的 {full_accuracy:.2f} "
       f"相差不超过 0.02（剪掉一半时为 {curves['damage'][len(HEADS) // 2]:.2f}）；随机顺序 "
       f"{removable(curves['random']):.0%}，按梯度重要性 {removable(curves['gradient']):.0%}。")

# %% [markdown]
# ## Figure

# %%
half = {name: accuracies[len(HEADS) // 2] for name, accuracies in curves.items()}
TEXT = {
    "en": {"damage": "ablation damage (least first)", "random": "random order (mean of 10)",
           "gradient": "gradient importance (Michel et al.)", "fraction": "fraction of heads removed",
           "accuracy": "accuracy", "band": "random orders, min–max",
           "alt": "Accuracy against the fraction of the 16 heads removed, for three orders. Removing "
                  "heads in order of least ablation damage keeps accuracy high the longest; random "
                  "orders fall earlier, with a wide spread; at half the heads removed the "
                  "gradient-importance order is " + ("closer to the random orders."
                  if abs(half["gradient"] - half["random"]) < abs(half["gradient"] - half["damage"])
                  else "closer to the damage order.")},
    "zh": {"damage": "按消融损害（最小的先剪）", "random": "随机顺序（10 次平均）",
           "gradient": "按梯度重要性（Michel 等）", "fraction": "剪掉的头所占比例",
           "accuracy": "准确率", "band": "随机顺序的最小–最大范围",
           "alt": "准确率随 16 个头中被剪掉比例的变化，三种顺序。按消融损害从小到大剪，准确率保持最久；"
                  "随机顺序更早下跌，而且波动很大；剪掉一半时，按梯度重要性剪的曲线" + ("更接近随机顺序。"
                  if abs(half["gradient"] - half["random"]) < abs(half["gradient"] - half["damage"])
                  else "更接近按损害剪的曲线。")}}
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.fill_between(fractions, random_curves.min(0).values, random_curves.max(0).values,
                    color="grey", alpha=0.2, label=text["band"])
    ax.plot(fractions, curves["random"], color="grey", marker=".", label=text["random"])
    ax.plot(fractions, curves["damage"], color="#1b9e77", marker="o", label=text["damage"])
    ax.plot(fractions, curves["gradient"], color="#d95f02", marker="s", label=text["gradient"])
    ax.axhline(1 / (V * V), color="grey", lw=0.8, ls=":")
    ax.set_xlabel(text["fraction"])
    ax.set_ylabel(text["accuracy"])
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    report.figure("pruning_curves", fig, lang, alt=text["alt"])

report.save()
