# %% [markdown]
# # Why heads differ (4): heads forced to share their weights
#
# The seed's last argument: only a division of labour reaches the lowest loss;
# a team of identical heads loses. Test it directly. Train the same 1-layer,
# 2-head model on the pronoun language twice per seed:
#
# - *free*: every head has its own W_Q, W_K, W_V slice (the normal case);
# - *shared*: all heads are forced to use head 0's slices (W_O stays free),
#   so they always attend alike — whatever training does.

# %%
import random

import torch
import torch.nn as nn
from torch.nn.utils import parametrize

from explainer.plotting import LANGS, plt
from explainer.pronoun_language import SENTENCE_LENGTH, VOCAB, batch
from explainer.report import Report
from explainer.tiny_transformer import TinyTransformer, TransformerConfig
from explainer.training import TrainingConfig, evaluate, sample_from, train

torch.set_num_threads(1)
report = Report("shared_heads")

SEEDS = (0, 1, 2)
pool_tokens, pool_targets, _ = batch(random.Random(0), 8192)
task = sample_from(pool_tokens, pool_targets)
probe = batch(random.Random(1234), 400)[:2]


class SameSliceForEveryHead(nn.Module):
    """Parametrisation of a (C, C) projection: head 0's rows, repeated for every head."""

    def __init__(self, n_heads: int, head_size: int):
        super().__init__()
        self.n_heads, self.head_size = n_heads, head_size

    def forward(self, weight):
        return weight[:self.head_size].repeat(self.n_heads, 1)   # (C, C)


def train_one(seed, shared):
    torch.manual_seed(seed)
    model = TinyTransformer(TransformerConfig(vocab_size=len(VOCAB), n_ctx=SENTENCE_LENGTH,
                                              d_model=32, n_heads=2, n_layers=1))
    attention = model.attentions[0]
    if shared:
        for layer in (attention.W_Q, attention.W_K, attention.W_V):
            parametrize.register_parametrization(
                layer, "weight", SameSliceForEveryHead(attention.n_heads, attention.head_size))
    losses = train(model, task, TrainingConfig(steps=300, batch_size=32, lr=1e-2, seed=seed))
    loss, accuracy = evaluate(model, probe)
    weights = model.attention_weights()[0]                          # (B, 2, T, T)
    return dict(loss=loss, accuracy=accuracy, curve=losses,
                pattern_gap=(weights[:, 0] - weights[:, 1]).abs().max().item())


runs = {(seed, shared): train_one(seed, shared) for seed in SEEDS for shared in (False, True)}
for (seed, shared), run in runs.items():
    print(f"seed {seed} {'shared' if shared else 'free  '}: loss {run['loss']:.4f}  accuracy "
          f"{run['accuracy']:.3f}  largest difference between the heads' patterns {run['pattern_gap']:.2f}")
    report.number(f"loss_{'shared' if shared else 'free'}_{seed}", run["loss"], "{:.3f}")
    report.number(f"accuracy_{'shared' if shared else 'free'}_{seed}", run["accuracy"], "{:.3f}")

free_wins = sum(runs[s, False]["loss"] < runs[s, True]["loss"] for s in SEEDS)
report.number("free_wins", free_wins, "{:.0f}")
report.number("seeds", len(SEEDS), "{:.0f}")
report.number("shared_pattern_gap", max(runs[s, True]["pattern_gap"] for s in SEEDS), "{:.1f}")
for shared in (False, True):
    tag = "shared" if shared else "free"
    report.number(f"mean_loss_{tag}", sum(runs[s, shared]["loss"] for s in SEEDS) / len(SEEDS), "{:.3f}")
    report.number(f"mean_accuracy_{tag}",
                  sum(runs[s, shared]["accuracy"] for s in SEEDS) / len(SEEDS), "{:.3f}")
    report.number(f"best_loss_{tag}", min(runs[s, shared]["loss"] for s in SEEDS), "{:.4f}")

# %% [markdown]
# ## Verdict

# %%
verdict = ("verified" if free_wins == len(SEEDS) else
           "refuted" if free_wins == 0 else "nuanced")
report.claim(
    "C12", verdict,
    en=f"Pronoun language, 2 heads, 3 seeds: free heads end with a lower loss than heads forced to "
       f"share their weights in {free_wins} of {len(SEEDS)} seeds (best loss free "
       f"{min(runs[s, False]['loss'] for s in SEEDS):.4f}, shared "
       f"{min(runs[s, True]['loss'] for s in SEEDS):.4f}).",
    zh=f"代词玩具语言、2 个头、3 个随机种子：各自独立的头在 {len(SEEDS)} 个种子中有 {free_wins} 个"
       f"最终损失低于被迫共享权重的头（最低损失：独立 {min(runs[s, False]['loss'] for s in SEEDS):.4f}，"
       f"共享 {min(runs[s, True]['loss'] for s in SEEDS):.4f}）。")

# %% [markdown]
# ## Figure

# %%
TEXT = {
    "en": {"free": "free heads", "shared": "shared weights", "step": "training step",
           "loss": "training loss (mean of 20 steps)", "seed": "seed {}",
           "alt": "Training loss over 300 steps for free heads (solid) and heads forced to share "
                  "their weights (dashed), three seeds, log scale."},
    "zh": {"free": "独立的头", "shared": "共享权重", "step": "训练步数",
           "loss": "训练损失（每 20 步平均）", "seed": "种子 {}",
           "alt": "300 步训练中的训练损失（对数坐标）：实线为各自独立的头，虚线为被迫共享权重的头，"
                  "共三个随机种子。"},
}
colors = ["#1b9e77", "#d95f02", "#7570b3"]
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(7, 4))
    for seed, color in zip(SEEDS, colors):
        for shared, style in ((False, "-"), (True, "--")):
            curve = torch.tensor(runs[seed, shared]["curve"]).view(-1, 20).mean(1)  # (15,)
            ax.plot(range(20, 301, 20), curve, style, color=color,
                    label=f"{text['shared' if shared else 'free']}, {text['seed'].format(seed)}")
    ax.set_yscale("log")
    ax.set_xlabel(text["step"])
    ax.set_ylabel(text["loss"])
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    report.figure("loss_curves", fig, lang, alt=text["alt"])

report.save()
