# %% [markdown]
# # Why heads differ (3): does dropout make heads complementary?
#
# The seed argues: with dropout a head can vanish at any step, so a model
# whose heads duplicate each other is fragile, and training pushes them to
# carry *complementary* information. Clark et al. (2019) observed the
# opposite tendency in BERT: heads in the same layer often attend alike, and
# they suggested attention dropout as a cause — redundancy is insurance.
#
# We train a 1-layer, 4-head model on the pronoun language with attention
# dropout 0 and 0.2 (two seeds each), then measure, with dropout off:
#
# - redundancy: mean cosine similarity between two heads' attention rows;
# - robustness: accuracy after removing one head (its output zeroed before W_O).

# %%
import random

import torch

from explainer.head_metrics import pattern_similarity
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.pronoun_language import SENTENCE_LENGTH, VOCAB, batch
from explainer.report import Report
from explainer.tiny_transformer import TinyTransformer, TransformerConfig
from explainer.training import TrainingConfig, evaluate, sample_from, train

torch.set_num_threads(1)
report = Report("head_dropout")

N_HEADS = 4
DROPOUTS = (0.0, 0.2)
SEEDS = (0, 1)
pool_tokens, pool_targets, _ = batch(random.Random(0), 8192)
task = sample_from(pool_tokens, pool_targets)
probe = batch(random.Random(1234), 400)[:2]


def train_one(dropout, seed):
    torch.manual_seed(seed)
    model = TinyTransformer(TransformerConfig(vocab_size=len(VOCAB), n_ctx=SENTENCE_LENGTH, d_model=32,
                                              n_heads=N_HEADS, n_layers=1, dropout=dropout))
    train(model, task, TrainingConfig(steps=300, batch_size=32, lr=1e-2, seed=seed))
    _, accuracy = evaluate(model, probe)                       # eval mode: no dropout
    similarity = pattern_similarity(model.attention_weights()[0])   # (nh, nh)
    redundancy = similarity[~torch.eye(N_HEADS, dtype=torch.bool)].mean().item()
    without = []
    for head in range(N_HEADS):
        mask = torch.ones(1, N_HEADS)
        mask[0, head] = 0
        model.set_head_mask(mask)
        without.append(evaluate(model, probe)[1])
    model.set_head_mask(torch.ones(1, N_HEADS))
    drops = [accuracy - a for a in without]
    return dict(accuracy=accuracy, redundancy=redundancy, similarity=similarity,
                mean_drop=sum(drops) / N_HEADS, worst_drop=max(drops))


runs = {(p, s): train_one(p, s) for p in DROPOUTS for s in SEEDS}
for (p, s), run in runs.items():
    print(f"dropout {p} seed {s}: accuracy {run['accuracy']:.3f}  redundancy {run['redundancy']:.2f}  "
          f"mean drop without one head {run['mean_drop']:.3f}  worst {run['worst_drop']:.3f}")


def mean_over_seeds(p, key):
    return sum(runs[p, s][key] for s in SEEDS) / len(SEEDS)


for p in DROPOUTS:
    tag = "on" if p else "off"
    for key in ("accuracy", "redundancy", "mean_drop", "worst_drop"):
        report.number(f"{key}_{tag}", mean_over_seeds(p, key), "{:.3f}" if "drop" in key else "{:.2f}")

# %% [markdown]
# ## Verdict
#
# "Complementary" would mean lower redundancy with dropout, and — if each
# head carries something the others lack — a larger loss when one is removed.

# %%
more_alike = all(runs[0.2, s]["redundancy"] > runs[0.0, s]["redundancy"] for s in SEEDS)
less_alike = all(runs[0.2, s]["redundancy"] < runs[0.0, s]["redundancy"] for s in SEEDS)
more_robust = all(runs[0.2, s]["mean_drop"] < runs[0.0, s]["mean_drop"] for s in SEEDS)
verdict = "refuted" if more_alike and more_robust else "verified" if less_alike else "nuanced"
r_off, r_on = mean_over_seeds(0.0, "redundancy"), mean_over_seeds(0.2, "redundancy")
d_off, d_on = mean_over_seeds(0.0, "mean_drop"), mean_over_seeds(0.2, "mean_drop")
report.claim(
    "C11", verdict,
    en=f"1 layer, 4 heads, pronoun language, 2 seeds: with attention dropout 0.2 the heads' patterns "
       f"are {'more' if r_on > r_off else 'less'} alike (mean similarity {r_on:.2f} vs {r_off:.2f} "
       f"without) and removing one head costs {d_on:.3f} vs {d_off:.3f} accuracy on average — "
       f"{'redundancy as insurance, as Clark et al. suggest' if more_alike else 'see the page'}.",
    zh=f"1 层 4 头、代词玩具语言、2 个随机种子：加注意力 dropout 0.2 后，各头的注意力模式"
       f"{'更' if r_on > r_off else '更不'}相似（平均相似度 {r_on:.2f}，不加为 {r_off:.2f}），"
       f"去掉一个头平均损失准确率 {d_on:.3f}，不加为 {d_off:.3f}——"
       f"{'冗余是一种保险，正如 Clark 等人所说' if more_alike else '详见正文'}。")

# %% [markdown]
# ## Figure

# %%
TEXT = {
    "en": {"off": "no dropout", "on": "attention dropout 0.2", "head": "head",
           "title": "{}, seed {}\nsimilarity between heads",
           "alt": "Four 4-by-4 matrices of pairwise similarity between the heads' attention patterns, "
                  "two seeds without dropout and two with attention dropout 0.2. "
                  + ("With dropout the off-diagonal cells are brighter: the heads look at the same "
                     "places more often." if more_alike else
                     "Dropout does not make the off-diagonal cells consistently brighter.")},
    "zh": {"off": "不加 dropout", "on": "注意力 dropout 0.2", "head": "头",
           "title": "{}，种子 {}\n头与头的相似度",
           "alt": "四个 4×4 矩阵，表示各个头注意力模式两两之间的相似度：两个随机种子不加 dropout，"
                  "两个加注意力 dropout 0.2。"
                  + ("加了 dropout 之后非对角线的格子更亮：各头更常看同样的位置。" if more_alike else
                     "加了 dropout 之后，非对角线的格子并没有一致地变亮。")},
}
for lang in LANGS:
    text = TEXT[lang]
    fig, axes = plt.subplots(1, 4, figsize=(15, 4))
    for ax, (p, s) in zip(axes, runs):
        image = ax.imshow(runs[p, s]["similarity"], cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1)
        ax.set_title(text["title"].format(text["on"] if p else text["off"], s), fontsize=9)
        ax.set_xticks(range(N_HEADS))
        ax.set_yticks(range(N_HEADS))
        ax.set_xlabel(text["head"])
    fig.colorbar(image, ax=axes, shrink=0.8)
    report.figure("similarity", fig, lang, alt=text["alt"])

report.save()
