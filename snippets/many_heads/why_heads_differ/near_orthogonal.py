# %% [markdown]
# # Why heads differ (2): random vectors in high dimension are nearly orthogonal
#
# Draw two random Gaussian vectors in d dimensions and take their cosine.
# Its typical size shrinks like 1/sqrt(d): for large d, E|cos| -> sqrt(2/(pi d)).
# We measure it for d = 2 ... 4096, then look at what it means for two heads
# of a freshly initialised attention layer.

# %%
import numpy as np
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
import torch

from explainer.attention import AttentionConfig, MultiHeadAttention
from explainer.plotting import LANGS, plain_log_ticks, plt
from explainer.report import Report

torch.set_num_threads(1)
report = Report("many_heads.why_heads_differ.near_orthogonal")
rng = np.random.default_rng(0)

dims = 2 ** np.arange(1, 13)           # 2, 4, ..., 4096
pairs = 2000
mean_abs_cos, theory = [], []
for d in dims:
    a = rng.standard_normal((pairs, d))
    b = rng.standard_normal((pairs, d))
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))  # (pairs,)
    mean_abs_cos.append(np.abs(cos).mean())
    theory.append(np.sqrt(2 / (np.pi * d)))
    print(f"d = {d:>4}: mean |cos| = {mean_abs_cos[-1]:.4f}   sqrt(2/(pi d)) = {theory[-1]:.4f}")
mean_abs_cos, theory = np.array(mean_abs_cos), np.array(theory)

# Slope of log E|cos| against log d: -0.5 means "like 1/sqrt(d)".
slope = np.polyfit(np.log(dims), np.log(mean_abs_cos), 1)[0]
report.number("slope", slope, "{:.3f}", en="fitted slope of log mean |cos| against log d (1/sqrt(d) is -0.5)",
              zh="log 平均 |cos| 对 log d 的拟合斜率（1/√d 对应 -0.5）")
report.number("cos_d2", mean_abs_cos[0], "{:.2f}", en="mean |cos| of two random vectors, d = 2", zh="两个随机向量的平均 |cos|，d = 2")
report.number("cos_d64", mean_abs_cos[list(dims).index(64)], "{:.3f}", en="mean |cos|, d = 64", zh="平均 |cos|，d = 64")
report.number("cos_d512", mean_abs_cos[list(dims).index(512)], "{:.3f}", en="mean |cos|, d = 512", zh="平均 |cos|，d = 512")
report.number("cos_d4096", mean_abs_cos[-1], "{:.4f}", en="mean |cos|, d = 4096", zh="平均 |cos|，d = 4096")
report.number("max_ratio_to_theory", np.abs(mean_abs_cos / theory - 1)[2:].max(), "{:.3f}",
              en="largest relative gap between measured mean |cos| and sqrt(2/(pi d)), d >= 8",
              zh="d ≥ 8 时实测平均 |cos| 与 √(2/(πd)) 的最大相对偏差")

# %% [markdown]
# ## Two heads of a fresh layer
#
# d_model = 512, 8 heads: each head's W_Q slice is 64 x 512 = 32,768 numbers.
# Flatten the slices and compare heads pairwise; then compare the queries the
# heads make of the same token.

# %%
torch.manual_seed(0)
attention = MultiHeadAttention(AttentionConfig(d_model=512, n_heads=8))
hs = attention.head_size
slices = attention.W_Q.weight.detach().view(8, hs, 512).flatten(1)        # (nh, hs*C)
slices = torch.nn.functional.normalize(slices, dim=1)
slice_cos = slices @ slices.T                                              # (nh, nh)
off_diagonal = slice_cos[~torch.eye(8, dtype=torch.bool)]
report.number("slice_cos_max", off_diagonal.abs().max(), "{:.3f}",
              en="largest |cos| between two heads' fresh W_Q slices (d_model 512, 8 heads)",
              zh="刚初始化的各头 W_Q 切片两两之间的最大 |cos|（d_model 512，8 个头）")
tokens = torch.randn(1000, 512)                                            # (N, C)
with torch.no_grad():
    queries = attention.W_Q(tokens).view(1000, 8, hs)                      # (N, nh, hs)
# Cosine between what head 0 and head 1 ask of the same token, both 64-dim.
query_cos = torch.cosine_similarity(queries[:, 0], queries[:, 1], dim=-1)
report.number("query_cos_mean_abs", query_cos.abs().mean(), "{:.3f}",
              en="mean |cos| between two fresh heads' queries of the same token",
              zh="两个刚初始化的头对同一个词元的查询之间的平均 |cos|")
report.number("query_cos_theory", np.sqrt(2 / (np.pi * hs)), "{:.3f}", en="sqrt(2/(pi d)) for d = 64",
              zh="d = 64 时的 √(2/(πd))")

# %% [markdown]
# ## How much training does it take to pull two heads together?
#
# The source goes further: because random heads start nearly orthogonal, training
# would have to spend a great deal of effort to make them the same. Measure it.
# Per seed, a 2-head model on the pronoun language gets an extra loss, the pull
# 1 - cos(head 0, head 1) over each head's whole parameter vector (its W_Q, W_K,
# W_V rows and W_O columns), from two starts of the same draw:
#
# - *near-orthogonal*: the usual random start;
# - *aligned*: head 1 mixed towards head 0 until their cosine is about 0.9.
#
# We count the steps until cos >= 0.99. A third arm trains the near-orthogonal
# start without the pull: what training does to the heads when nothing pulls.

# %%
import random

from explainer.pronoun_language import SENTENCE_LENGTH, VOCAB, batch
from explainer.seeded_training import n_seeds, report_seed_count
from explainer.stacked_transformer import StackedTransformer, evaluate_stacked, train_stacked
from explainer.tiny_transformer import TransformerConfig
from explainer.training import sample_from

SEEDS = list(range(n_seeds(8)))   # the build trains more when a verdict is undecided
ARMS = ("orthogonal", "aligned", "free")        # start / pull: random+pull, aligned+pull, random alone
STEPS, TARGET, ALIGNED_COS = 300, 0.99, 0.9
pool_tokens, pool_targets, _ = batch(random.Random(0), 8192)
task = sample_from(pool_tokens, pool_targets)
probe_tokens, probe_targets, _ = batch(random.Random(1234), 400)
config = TransformerConfig(vocab_size=len(VOCAB), n_ctx=SENTENCE_LENGTH, d_model=32, n_heads=2)
model = StackedTransformer.from_seeds(config, [seed for _ in ARMS for seed in SEEDS])
n = len(SEEDS)
arm_of = {arm: slice(a * n, (a + 1) * n) for a, arm in enumerate(ARMS)}


def head_cosine(model) -> torch.Tensor:
    """Cosine between head 0's and head 1's whole parameter vectors, per model: (M,)."""
    heads = model.head_parameters()                                         # (M, 2, P)
    return torch.cosine_similarity(heads[:, 0], heads[:, 1], dim=-1)


hs = model.head_size
aligned = arm_of["aligned"]
with torch.no_grad():  # head 1 := 0.9 head 0 + sqrt(1 - 0.81) head 1, block by block
    a, b = ALIGNED_COS, (1 - ALIGNED_COS ** 2) ** 0.5
    for name in ("W_Q", "W_K", "W_V"):
        weight = getattr(model, name)[aligned]                              # (n, C, C)
        weight[:, hs:2 * hs] = a * weight[:, :hs] + b * weight[:, hs:2 * hs]
        getattr(model, name)[aligned] = weight
    model.W_O[aligned, :, hs:2 * hs] = a * model.W_O[aligned, :, :hs] + b * model.W_O[aligned, :, hs:2 * hs]
start_cosine = head_cosine(model).detach()                                  # (M,)
pull = torch.tensor([0.0 if arm == "free" else 1.0 for arm in ARMS for _ in SEEDS])  # (M,)
cosines = []
train_stacked(model, task, steps=STEPS, batch_size=16, data_seeds=SEEDS * len(ARMS),
              extra_loss=lambda m: pull * (1 - head_cosine(m)),
              on_step=lambda step, m: cosines.append(head_cosine(m).detach()))
cosines = torch.stack(cosines, dim=1)                                       # (M, STEPS + 1)
reached = cosines >= TARGET
steps_to_target = torch.where(reached.any(dim=1), reached.int().argmax(dim=1), torch.tensor(STEPS))
task_loss, _ = evaluate_stacked(model, probe_tokens, probe_targets)         # (M,)

report.number("n_seeds", n, "{:.0f}", en="random seeds (each trained from both starts)",
              zh="随机种子数（每个都从两种起点训练）")
NAMES_ZH = {"orthogonal": "近乎正交的起点", "aligned": "对齐的起点", "free": "近乎正交、不加拉近项"}
for arm in ARMS:
    s = arm_of[arm]
    report.number(f"start_cosine_{arm}_mean", start_cosine[s].mean(), "{:.2f}",
                  en=f"cosine between the two heads at the start, mean over seeds ({arm})",
                  zh=f"两个头起始时的余弦，各种子平均（{NAMES_ZH[arm]}）")
    report.number(f"end_cosine_{arm}_mean", cosines[s, -1].mean(), "{:.2f}",
                  en=f"cosine between the two heads after {STEPS} steps, mean over seeds ({arm})",
                  zh=f"训练 {STEPS} 步后两个头的余弦，各种子平均（{NAMES_ZH[arm]}）")
    report.number(f"task_loss_{arm}_mean", task_loss[s].mean(), "{:.3f}",
                  en=f"task loss on held-out sentences after {STEPS} steps, mean over seeds ({arm})",
                  zh=f"训练 {STEPS} 步后留出句子上的任务损失，各种子平均（{NAMES_ZH[arm]}）")
for arm in ("orthogonal", "aligned"):
    s = arm_of[arm]
    report.number(f"steps_{arm}_mean", steps_to_target[s].float().mean(), "{:.1f}",
                  per_seed=steps_to_target[s], of="mean",
                  en=f"steps until the pulled heads reach cos >= {TARGET}, mean over seeds ({arm})",
                  zh=f"被拉近的两个头达到 cos ≥ {TARGET} 所需步数，各种子平均（{NAMES_ZH[arm]}）")
    report.number(f"steps_{arm}_min", steps_to_target[s].min(), "{:.0f}",
                  en=f"steps to cos >= {TARGET}, fastest seed ({arm})",
                  zh=f"达到 cos ≥ {TARGET} 的步数，最快的种子（{NAMES_ZH[arm]}）")
    report.number(f"steps_{arm}_max", steps_to_target[s].max(), "{:.0f}",
                  en=f"steps to cos >= {TARGET}, slowest seed ({arm})",
                  zh=f"达到 cos ≥ {TARGET} 的步数，最慢的种子（{NAMES_ZH[arm]}）")
    report_seed_count(report, f"reached_{arm}_seeds", reached[s].any(dim=1),
                      en=f"seeds that reach cos >= {TARGET} within {STEPS} steps ({arm})",
                      zh=f"{STEPS} 步内达到 cos ≥ {TARGET} 的种子数（{NAMES_ZH[arm]}）")
slower = steps_to_target[arm_of["orthogonal"]] > steps_to_target[arm_of["aligned"]]
report_seed_count(report, "orthogonal_slower_seeds", slower,
                  en="seeds in which the near-orthogonal start needs more steps than the aligned one",
                  zh="近乎正交的起点比对齐的起点需要更多步数的种子数")
report.number("steps_ratio_mean",
              (steps_to_target[arm_of["orthogonal"]] / steps_to_target[arm_of["aligned"]].clamp_min(1)).float().mean(),
              "{:.1f}", en="steps near-orthogonal / steps aligned, mean over seeds",
              zh="近乎正交与对齐起点所需步数之比，各种子平均")
report.number("steps_share_of_training", steps_to_target[arm_of["orthogonal"]].float().mean() / STEPS, kind="share",
              en=f"steps to pull near-orthogonal heads together, as a share of the {STEPS} training steps",
              zh=f"把近乎正交的两个头拉到一起所需步数占全部 {STEPS} 步训练的比例")
# The page's sentences about the outcome, built from these numbers.
ratio = float((steps_to_target[arm_of["orthogonal"]] / steps_to_target[arm_of["aligned"]].clamp_min(1)).float().mean())
share = float(steps_to_target[arm_of["orthogonal"]].float().mean() / STEPS)
free_end = float(cosines[arm_of["free"], -1].mean())
free_lower = bool(task_loss[arm_of["free"]].mean() < task_loss[arm_of["orthogonal"]].mean())
report.text("free_heads", en=("they stay about as unrelated as they started" if abs(free_end) < 0.1
                              else "they do not stay as unrelated as they started"),
            zh="和起初一样几乎互不相干" if abs(free_end) < 0.1 else "并没有保持起初那样互不相干")
report.text("free_loss", en="lower" if free_lower else "not lower", zh="更低" if free_lower else "并不更低")
report.text("pull_share", en=("most of the training: making heads the same is costly, as the source says"
                              if share > 0.5 else "less than half of the training"),
            zh="用掉了大半训练：把头训练成一样确实代价不小，这一点原文说得对" if share > 0.5 else "不到一半的训练")
if ratio >= 2:
    cost = ("The nearly orthogonal start needed at least twice the aligned start's steps on average: "
            "here the starting angle is a large part of the cost.",
            "近乎正交的起点平均需要对齐起点至少两倍的步数：在这里，起初的夹角是代价的一大部分。")
elif ratio > 1:
    cost = ("The nearly orthogonal start needed more steps than the aligned one, but fewer than twice as many "
            "on average: the starting angle adds to the cost, and an aligned start pays most of it too.",
            "近乎正交的起点比对齐的起点需要更多步，但平均不到两倍：起初的夹角会增加代价，"
            "而对齐的起点也要付出其中的大部分。")
else:
    cost = ("The aligned start needed as many steps on average: these runs show no cost from the starting angle.",
            "对齐的起点平均也需要同样多的步数：这几次训练看不出起初的夹角带来什么代价。")
report.text("angle_cost", en=cost[0], zh=cost[1])
for arm in ARMS:
    s = arm_of[arm]
    print(f"{arm:>10}: cos {start_cosine[s].mean():.2f} -> {cosines[s, -1].mean():.2f}, "
          f"steps to {TARGET}: {steps_to_target[s].tolist()}, task loss {task_loss[s].mean():.3f}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %%
# Exercise: go far beyond the figure, to d = 16384. Predict the mean |cos| from
# sqrt(2/(pi d)) first, then measure it (2000 pairs, 500 at a time to keep memory small).
d_big = 16384
cos_big = []
for _ in range(4):
    a = rng.standard_normal((500, d_big), dtype=np.float32)
    b = rng.standard_normal((500, d_big), dtype=np.float32)
    cos_big.append((a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)))  # (500,)
report.number("exercise_cos_d16384", np.abs(np.concatenate(cos_big)).mean(), "{:.4f}",
              en="exercise: mean |cos| of two random vectors, d = 16384",
              zh="练习：两个随机向量的平均 |cos|，d = 16384")
report.number("exercise_cos_d16384_theory", np.sqrt(2 / (np.pi * d_big)), "{:.4f}",
              en="exercise: sqrt(2/(pi d)) at d = 16384", zh="练习：d = 16384 时的 √(2/(πd))")

# %% [markdown]
# ## Figures

# %%
TEXT = {
    "en": {"measured": "measured mean |cos|", "theory": "√(2/(πd))", "d": "dimension d",
           "cos": "mean |cosine| of\ntwo random vectors",
           "alt": "Log-log plot of the mean absolute cosine between two random vectors against the "
                  "dimension, from 2 to 4096. The measured points fall on a straight line of slope "
                  "minus one half, on top of the curve square root of 2 over pi d.",
           "caption": "Two random vectors are nearly orthogonal in high dimension: the mean |cos| falls like 1/√d.",
           "names": {"orthogonal": "near-orthogonal start, pulled", "aligned": "aligned start (cos 0.9), pulled",
                     "free": "near-orthogonal start, no pull"},
           "step": "training step", "head_cos": "cosine between\nhead 0 and head 1", "target": f"target {TARGET}",
           "alt_pull": f"Cosine between the two heads' parameter vectors over {STEPS} training steps, one faint "
                       f"line per seed ({n} seeds) and the median in bold: pulled from a near-orthogonal start, "
                       "pulled from an aligned start, and not pulled at all.",
           "caption_pull": "How long the pull takes to make two heads alike, from near-orthogonal and from aligned starts."},
    "zh": {"measured": "实测平均 |cos|", "theory": "√(2/(πd))", "d": "维度 d",
           "cos": "两个随机向量\n余弦绝对值的均值",
           "alt": "双对数坐标图：两个随机向量余弦绝对值的均值随维度（2 到 4096）的变化。"
                  "实测点落在一条斜率为负二分之一的直线上，与曲线 √(2/(πd)) 重合。",
           "caption": "高维空间里两个随机向量几乎正交：平均 |cos| 按 1/√d 下降。",
           "names": {"orthogonal": "近乎正交的起点，加拉近项", "aligned": "对齐的起点（cos 0.9），加拉近项",
                     "free": "近乎正交的起点，不加拉近项"},
           "step": "训练步数", "head_cos": "头 0 与头 1\n之间的余弦", "target": f"目标 {TARGET}",
           "alt_pull": f"训练 {STEPS} 步中两个头参数向量之间的余弦，每个种子一条淡线（共 {n} 个种子），粗线为中位数："
                       "从近乎正交的起点加拉近项、从对齐的起点加拉近项、完全不加拉近项。",
           "caption_pull": "把两个头拉成一样要花多久：近乎正交的起点与对齐的起点对比。"},
}
colors = {"orthogonal": "#d95f02", "aligned": "#1b9e77", "free": "#7570b3"}
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(dims, theory, color="grey", lw=1, label=text["theory"])
    ax.loglog(dims, mean_abs_cos, "o", color="#d95f02", label=text["measured"])
    ax.set_xscale("log", base=2)
    plain_log_ticks(ax.xaxis)  # 4, 16, 64, not 2² with a tiny exponent
    ax.yaxis.set_minor_formatter(plt.NullFormatter())
    ax.set_yticks([0.01, 0.03, 0.1, 0.3], ["0.01", "0.03", "0.1", "0.3"])
    ax.set_xlabel(text["d"])
    ax.set_ylabel(text["cos"])
    ax.legend(fontsize=10)
    fig.tight_layout()
    report.figure("cosine_vs_dimension", fig, lang, alt=text["alt"], caption=text["caption"])

    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    shown = STEPS
    for arm in ARMS:
        curves = cosines[arm_of[arm], :shown + 1]                            # (n, shown + 1)
        for curve in curves:
            ax.plot(curve, color=colors[arm], alpha=0.25, lw=0.8)
        ax.plot(curves.median(dim=0).values, color=colors[arm], lw=2, label=text["names"][arm])
    ax.axhline(TARGET, color="grey", lw=0.8, ls=":")
    ax.text(shown, TARGET, text["target"], ha="right", va="bottom", fontsize=9, color="grey")
    ax.set_xlabel(text["step"])
    ax.set_ylabel(text["head_cos"])
    ax.legend(fontsize=9, loc="center right")
    fig.tight_layout()
    report.figure("pull_together", fig, lang, alt=text["alt_pull"], caption=text["caption_pull"])

report.save()
