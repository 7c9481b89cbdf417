# %% [markdown]
# # Why heads differ (2): random vectors in high dimension are nearly orthogonal
#
# Draw two random Gaussian vectors in d dimensions and take their cosine.
# Its typical size shrinks like 1/sqrt(d): for large d, E|cos| -> sqrt(2/(pi d)).
# We measure it for d = 2 ... 4096, then look at what it means for two heads
# of a freshly initialised attention layer.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plain_log_ticks, plt
from explainer.report import Report

report = Report("many_heads.why_heads_differ.near_orthogonal")

# %% tags=["random_cosines"]
import numpy as np

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
print(f"slope of log mean |cos| against log d: {slope:.3f}")

# %%
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

# %% tags=["fresh_layer"]
import torch

from explainer.attention import AttentionConfig, MultiHeadAttention

torch.set_num_threads(1)
torch.manual_seed(0)
attention = MultiHeadAttention(AttentionConfig(d_model=512, n_heads=8))
hs = attention.head_size
slices = attention.W_Q.weight.detach().view(8, hs, 512).flatten(1)        # (nh, hs*C)
slices = torch.nn.functional.normalize(slices, dim=1)
slice_cos = slices @ slices.T                                              # (nh, nh)
off_diagonal = slice_cos[~torch.eye(8, dtype=torch.bool)]
tokens = torch.randn(1000, 512)                                            # (N, C)
with torch.no_grad():
    queries = attention.W_Q(tokens).view(1000, 8, hs)                      # (N, nh, hs)
# Cosine between what head 0 and head 1 ask of the same token, both 64-dim.
query_cos = torch.cosine_similarity(queries[:, 0], queries[:, 1], dim=-1)
print(f"largest |cos| between two heads' W_Q slices: {off_diagonal.abs().max():.3f}")
print(f"mean |cos| between two heads' queries of the same token: {query_cos.abs().mean():.3f} "
      f"(sqrt(2/(pi d)) for d = {hs}: {np.sqrt(2 / (np.pi * hs)):.3f})")

# %%
report.number("slice_cos_max", off_diagonal.abs().max(), "{:.3f}",
              en="largest |cos| between two heads' fresh W_Q slices (d_model 512, 8 heads)",
              zh="刚初始化的各头 W_Q 切片两两之间的最大 |cos|（d_model 512，8 个头）")
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

# %% tags=["pull_setup"]
import random

from explainer.pronoun_language import SENTENCE_LENGTH, VOCAB, batch
from explainer.batched import StackedTransformer, evaluate_batched, train_batched
from explainer.tiny_transformer import TransformerConfig
from explainer.training import sample_from

ARMS = ("orthogonal", "aligned", "free")        # start / pull: random+pull, aligned+pull, random alone
STEPS, TARGET, ALIGNED_COS = 1200, 0.99, 0.9   # budget fixed in the registry (C10)
pool_tokens, pool_targets, _ = batch(random.Random(0), 8192)
task = sample_from(pool_tokens, pool_targets)
probe_tokens, probe_targets, _ = batch(random.Random(1234), 400)
config = TransformerConfig(vocab_size=len(VOCAB), n_ctx=SENTENCE_LENGTH, d_model=32, n_heads=2)

# %% tags=["pull"]
def head_cosine(model) -> torch.Tensor:
    """Cosine between head 0's and head 1's whole parameter vectors, per model: (M,)."""
    heads = model.head_parameters()                                         # (M, 2, P)
    return torch.cosine_similarity(heads[:, 0], heads[:, 1], dim=-1)


def pull_together(seeds, steps=STEPS):
    """Per seed, three 2-head models from the same draw: the usual start pulled together, an
    aligned start pulled together, the usual start without the pull. Returns the model, the
    rows of each arm, the heads' cosine at the start (M,) and at every step (M, steps + 1)."""
    model = StackedTransformer.from_seeds(config, [seed for _ in ARMS for seed in seeds])
    n = len(seeds)
    arm_of = {arm: slice(a * n, (a + 1) * n) for a, arm in enumerate(ARMS)}
    hs = model.head_size
    aligned = arm_of["aligned"]
    with torch.no_grad():  # head 1 := 0.9 head 0 + sqrt(1 - 0.81) head 1, block by block
        a, b = ALIGNED_COS, (1 - ALIGNED_COS ** 2) ** 0.5
        for name in ("W_Q", "W_K", "W_V"):
            weight = getattr(model, name)[aligned]                          # (n, C, C)
            weight[:, hs:2 * hs] = a * weight[:, :hs] + b * weight[:, hs:2 * hs]
            getattr(model, name)[aligned] = weight
        model.W_O[aligned, :, hs:2 * hs] = a * model.W_O[aligned, :, :hs] + b * model.W_O[aligned, :, hs:2 * hs]
    start_cosine = head_cosine(model).detach()                              # (M,)
    pull = torch.tensor([0.0 if arm == "free" else 1.0 for arm in ARMS for _ in seeds])  # (M,)
    cosines = []
    train_batched(model, task, steps=steps, batch_size=16, data_seeds=seeds * len(ARMS),
                  extra_loss=lambda m: pull * (1 - head_cosine(m)),
                  on_step=lambda step, m: cosines.append(head_cosine(m).detach()))
    return model, arm_of, start_cosine, torch.stack(cosines, dim=1)         # (M,), (M, steps + 1)

# %% [markdown]
# ## A small run first
#
# Two seeds, all three arms: a run that takes seconds. The full run below
# trains more seeds with the same code.

# %% tags=["small_run"]
SMALL_SEEDS = [0, 1]
pulled_model, pulled_arms, _, pulled_cosines = pull_together(SMALL_SEEDS)
for arm, rows in pulled_arms.items():
    reached = pulled_cosines[rows] >= TARGET                                 # (S, steps + 1)
    to_target = [int(r.int().argmax()) if r.any() else f">{STEPS}" for r in reached]
    print(f"{arm:>10}: cos {pulled_cosines[rows, 0].numpy().round(2)} -> {pulled_cosines[rows, -1].numpy().round(2)}, "
          f"steps to {TARGET}: {to_target}")

# %%
report.number("small_run_seeds", len(SMALL_SEEDS), "{:.0f}", en="seeds of the small run shown on the page",
              zh="页面上小规模运行的种子数")

# %% [markdown]
# ## The full run

# %%
from explainer.censored import at_least_twice, median_steps
from explainer.seeds import n_seeds, report_seed_count, report_spread

SEEDS = list(range(n_seeds(8)))   # the build trains more when a verdict is undecided
n = len(SEEDS)
model, arm_of, start_cosine, cosines = pull_together(SEEDS)
reached = cosines >= TARGET
finished = reached.any(dim=1)                                               # (M,)
# Steps until the target; meaningful only where finished (a censored run needed more than STEPS).
steps_to_target = reached.int().argmax(dim=1)                               # (M,)
task_loss, _ = evaluate_batched(model, probe_tokens, probe_targets)         # (M,)

# Censored medians: unfinished runs rank last, never count as STEPS.
median = {arm: median_steps(steps_to_target[arm_of[arm]].tolist(), finished[arm_of[arm]].tolist())
          for arm in ("orthogonal", "aligned")}
twice = at_least_twice(steps_to_target[arm_of["orthogonal"]].tolist(), finished[arm_of["orthogonal"]].tolist(),
                       median["aligned"], STEPS)

# Free heads (no pull): do they stay as unrelated as two random vectors of their length?
# The yardstick is the 95th percentile of |cos| between two independent Gaussian vectors.
P = model.head_parameters().shape[-1]
null_rng = np.random.default_rng(1)
a, b = null_rng.standard_normal((2, 20000, P))
random_cos = np.abs((a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)))  # (20000,)
random_p95 = float(np.quantile(random_cos, 0.95))
free_cos_abs_max = cosines[arm_of["free"]].abs().max(dim=1).values          # (n,) over all steps
free_below = free_cos_abs_max < random_p95

report.number("n_seeds", n, "{:.0f}", en="random seeds (each trained from both starts and without the pull)",
              zh="随机种子数（每个都从两种起点训练，另有一次不加拉近项）")
report.number("budget", STEPS, "{:.0f}", kind="count", en="training steps per run (the budget)",
              zh="每次训练的步数（预算）")
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
    report_seed_count(report, f"reached_{arm}_seeds", finished[s],
                      en=f"seeds that reach cos >= {TARGET} within {STEPS} steps ({arm})",
                      zh=f"{STEPS} 步内达到 cos ≥ {TARGET} 的种子数（{NAMES_ZH[arm]}）")
    report.number(f"steps_{arm}_median_known", float(median[arm] is not None), "{:.0f}",
                  en=f"whether the median steps to cos >= {TARGET} is known (1) or censored (0) ({arm})",
                  zh=f"达到 cos ≥ {TARGET} 的步数中位数已知（1）还是删失（0）（{NAMES_ZH[arm]}）")
    report.number(f"steps_{arm}_median", median[arm] if median[arm] is not None else STEPS, "{:.0f}",
                  en=f"median steps to cos >= {TARGET} over seeds, unfinished runs ranked last "
                     f"(when the median is censored: the budget, meaning 'more than {STEPS}') ({arm})",
                  zh=f"达到 cos ≥ {TARGET} 的步数在各种子上的中位数，未完成的排在最后"
                     f"（中位数删失时记为预算，意为“超过 {STEPS}”）（{NAMES_ZH[arm]}）")
    done = steps_to_target[s][finished[s]]
    if len(done):
        report.number(f"steps_{arm}_fastest", done.min(), "{:.0f}", kind="count",
                      en=f"steps to cos >= {TARGET}, fastest seed ({arm})",
                      zh=f"达到 cos ≥ {TARGET} 的步数，最快的种子（{NAMES_ZH[arm]}）")
report_seed_count(report, "orthogonal_twice_seeds", twice,
                  en="seeds whose near-orthogonal run surely needs at least twice the aligned start's median steps",
                  zh="近乎正交的训练所需步数确定至少是对齐起点中位数两倍的种子数")
both = finished[arm_of["orthogonal"]] & finished[arm_of["aligned"]]
slower = (steps_to_target[arm_of["orthogonal"]] > steps_to_target[arm_of["aligned"]]) & both \
    | (~finished[arm_of["orthogonal"]] & finished[arm_of["aligned"]])
report_seed_count(report, "orthogonal_slower_seeds", slower,
                  en="seeds in which the near-orthogonal start surely needs more steps than the aligned one (same seed)",
                  zh="同一个种子下，近乎正交的起点确定比对齐的起点需要更多步数的种子数")
report.number("random_pair_cos_p95", random_p95, "{:.3f}",
              en=f"95th percentile of |cos| between two independent random vectors of {P} numbers (a head's length)",
              zh=f"两个各含 {P} 个数的独立随机向量（一个头的参数个数）之间 |cos| 的第 95 百分位数")
report_spread(report, "free_cos_abs_max", free_cos_abs_max, "{:.3f}",
              en=f"largest |cos| between the two free heads (no pull) over the {STEPS} steps",
              zh=f"不加拉近项时，{STEPS} 步中两个头之间最大的 |cos|")
report_seed_count(report, "free_below_seeds", free_below,
                  en="seeds whose free heads stay below the random-pair 95th percentile of |cos| at every step",
                  zh="不加拉近项的两个头在每一步都低于随机向量对 |cos| 第 95 百分位数的种子数")
report_seed_count(report, "free_end_below_seeds", cosines[arm_of["free"], -1].abs() < random_p95,
                  en=f"seeds whose free heads are below the random-pair 95th percentile of |cos| after the {STEPS} steps",
                  zh=f"不加拉近项的两个头在 {STEPS} 步后低于随机向量对 |cos| 第 95 百分位数的种子数")
report_seed_count(report, "free_above_seeds", ~free_below,
                  en="seeds whose free heads rise above the random-pair 95th percentile of |cos| at some step",
                  zh="不加拉近项的两个头在某一步升到随机向量对 |cos| 第 95 百分位数之上的种子数")

# The page's sentences about the outcome, built from these numbers.
def median_words(arm):
    if median[arm] is None:
        return (f"more than {STEPS} (censored)", f"超过 {STEPS}（删失）")
    return (f"{median[arm]:.0f}", f"{median[arm]:.0f}")


n_twice, n_slower = int(sum(twice)), int(slower.sum())
en_o, zh_o = median_words("orthogonal")
en_a, zh_a = median_words("aligned")
for arm in ("orthogonal", "aligned"):
    en_m, zh_m = median_words(arm)
    report.text(f"steps_{arm}_median_words", en=en_m, zh=zh_m)
report.text("median_steps",
            en=f"the median run needed {en_o} steps from the near-orthogonal start and {en_a} from the aligned one",
            zh=f"近乎正交的起点中位数需要 {zh_o} 步，对齐的起点需要 {zh_a} 步")
report.text("twice_count",
            en=f"In {n_twice} of {n} seeds the near-orthogonal run surely needed at least twice the aligned "
               f"median; in {n_slower} of {n} it surely needed more steps than the aligned run of the same seed.",
            zh=f"{n} 个种子中，有 {n_twice} 个的近乎正交训练确定需要至少两倍于对齐中位数的步数；"
               f"有 {n_slower} 个确定比同一种子的对齐训练需要更多步。")
n_free_below = int(free_below.sum())
report.text("free_heads",
            en=(f"in {n_free_below} of {n} seeds their |cos| stayed below the random-pair 95th percentile "
                f"at every step, in {n - n_free_below} it rose above it"),
            zh=(f"{n} 个种子中，有 {n_free_below} 个的 |cos| 每一步都低于随机向量对的第 95 百分位数，"
                f"{n - n_free_below} 个升到了它之上"))
free_lower = bool(task_loss[arm_of["free"]].mean() < task_loss[arm_of["orthogonal"]].mean())
report.text("free_loss", en="lower" if free_lower else "not lower", zh="更低" if free_lower else "并不更低")
for arm in ARMS:
    s = arm_of[arm]
    shown = [int(t) if f else f">{STEPS}" for t, f in zip(steps_to_target[s].tolist(), finished[s].tolist())]
    print(f"{arm:>10}: cos {start_cosine[s].mean():.2f} -> {cosines[s, -1].mean():.2f}, "
          f"steps to {TARGET}: {shown}, task loss {task_loss[s].mean():.3f}")
print(f"median steps: near-orthogonal {median['orthogonal']}, aligned {median['aligned']} (None: censored)")
print(f"free heads, largest |cos| per seed: {[round(c, 3) for c in free_cos_abs_max.tolist()]}, "
      f"random-pair 95th percentile {random_p95:.3f}")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["d_16384"]
# Exercise 1: go far beyond the figure, to d = 16384. Predict the mean |cos| from
# sqrt(2/(pi d)) first, then measure it (2000 pairs, 500 at a time to keep memory small).
d_big = 16384                                                               # was: d in dims
cos_big = []
for _ in range(4):
    a = rng.standard_normal((500, d_big), dtype=np.float32)
    b = rng.standard_normal((500, d_big), dtype=np.float32)
    cos_big.append((a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)))  # (500,)
print(f"d = {d_big}: mean |cos| = {np.abs(np.concatenate(cos_big)).mean():.4f}   "
      f"sqrt(2/(pi d)) = {np.sqrt(2 / (np.pi * d_big)):.4f}")

# %%
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
           "band": "95 % of random pairs",
           "alt_pull": f"Cosine between the two heads' parameter vectors over {STEPS} training steps, one faint "
                       f"line per seed ({n} seeds) and the median in bold: pulled from a near-orthogonal start, "
                       "pulled from an aligned start, and not pulled at all. A grey band around zero holds 95 % of the "
                       "cosines of two independent random vectors of the same length.",
           "caption_pull": "How long the pull takes to make two heads alike, from near-orthogonal and from aligned starts."},
    "zh": {"measured": "实测平均 |cos|", "theory": "√(2/(πd))", "d": "维度 d",
           "cos": "两个随机向量\n余弦绝对值的均值",
           "alt": "双对数坐标图：两个随机向量余弦绝对值的均值随维度（2 到 4096）的变化。"
                  "实测点落在一条斜率为负二分之一的直线上，与曲线 √(2/(πd)) 重合。",
           "caption": "高维空间里两个随机向量几乎正交：平均 |cos| 按 1/√d 下降。",
           "names": {"orthogonal": "近乎正交的起点，加拉近项", "aligned": "对齐的起点（cos 0.9），加拉近项",
                     "free": "近乎正交的起点，不加拉近项"},
           "step": "训练步数", "head_cos": "头 0 与头 1\n之间的余弦", "target": f"目标 {TARGET}",
           "band": "95% 的随机向量对",
           "alt_pull": f"训练 {STEPS} 步中两个头参数向量之间的余弦，每个种子一条淡线（共 {n} 个种子），粗线为中位数："
                       "从近乎正交的起点加拉近项、从对齐的起点加拉近项、完全不加拉近项。零附近的灰色带是等长的两个独立随机向量"
                       "余弦的 95% 所在的范围。",
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
    ax.axhspan(-random_p95, random_p95, color="grey", alpha=0.25, lw=0, label=text["band"])
    ax.axhline(TARGET, color="grey", lw=0.8, ls=":")
    ax.text(shown, TARGET, text["target"], ha="right", va="bottom", fontsize=9, color="grey")
    ax.set_xlabel(text["step"])
    ax.set_ylabel(text["head_cos"])
    ax.legend(fontsize=9, loc="center right")
    fig.tight_layout()
    report.figure("pull_together", fig, lang, alt=text["alt_pull"], caption=text["caption_pull"])

report.save()
