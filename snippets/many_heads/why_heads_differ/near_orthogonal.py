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
# A fourth, its partner, is the free run with fresh draws for the heads only
# (same embedding, same batches): head 0 of one run against head 1 of the other
# shows how alike two heads get from sharing the data alone, without sharing a model.

# %% tags=["pull_setup"]
import random

from explainer.pronoun_language import SENTENCE_LENGTH, VOCAB, batch
from explainer.batched import StackedTransformer, evaluate_batched, train_batched
from explainer.tiny_transformer import TransformerConfig
from explainer.training import sample_from

# start / pull: random+pull, aligned+pull, random alone, random alone with other head draws
ARMS = ("orthogonal", "aligned", "free", "partner")
STEPS, TARGET, ALIGNED_COS = 1200, 0.99, 0.9   # budget fixed in the registry (C10)
PARTNER_HEADS = 1000                           # a partner's heads are drawn as seed + 1000 draws them
pool_tokens, pool_targets, _ = batch(random.Random(0), 8192)
task = sample_from(pool_tokens, pool_targets)
probe_tokens, probe_targets, _ = batch(random.Random(1234), 400)
config = TransformerConfig(vocab_size=len(VOCAB), n_ctx=SENTENCE_LENGTH, d_model=32, n_heads=2)

# %% tags=["bilinear"]
def bilinear_forms(model) -> torch.Tensor:
    """Each head's bilinear form B = W_Q W_K^T, the C x C matrix with score(i, j) = x_i B x_j^T / sqrt(hs),
    flattened: (M, nh, C*C). The model stores W_Q like nn.Linear, (out, in): a head's rows are its W_Q^T."""
    queries, keys = model.head_slices("W_Q"), model.head_slices("W_K")     # (M, nh, hs, C) each
    return (queries.transpose(-2, -1) @ keys).flatten(2)                   # (M, nh, C*C)


def form_cosine(model, first, second) -> torch.Tensor:
    """Cosine between the bilinear forms of (model rows, head) pairs, e.g. first = (rows, 0): (len(rows),)."""
    forms = bilinear_forms(model)                                          # (M, nh, C*C)
    return torch.cosine_similarity(forms[first], forms[second], dim=-1)

# %% tags=["pull"]
def head_cosine(model) -> torch.Tensor:
    """Cosine between head 0's and head 1's whole parameter vectors, per model: (M,)."""
    heads = model.head_parameters()                                         # (M, 2, P)
    return torch.cosine_similarity(heads[:, 0], heads[:, 1], dim=-1)


def pull_together(seeds, steps=STEPS):
    """Per seed, four 2-head models: the usual start pulled together, an aligned start pulled
    together, the usual start without the pull, and its partner (the same draw but for the heads).
    Returns the model, the rows of each arm, the heads' cosine at the start (M,) and at every
    step (M, steps + 1), and at every step the bilinear forms' cosine of the free pair and of
    the cross-run pairs (free head 0 with partner head 1, partner head 0 with free head 1)."""
    model = StackedTransformer.from_seeds(config, [seed for _ in ARMS for seed in seeds])
    n = len(seeds)
    arm_of = {arm: slice(a * n, (a + 1) * n) for a, arm in enumerate(ARMS)}
    hs = model.head_size
    aligned = arm_of["aligned"]
    fresh = StackedTransformer.from_seeds(config, [PARTNER_HEADS + seed for seed in seeds])
    with torch.no_grad():  # the partner: the free run's embedding and unembedding, other heads
        for name in ("W_Q", "W_K", "W_V", "W_O"):
            getattr(model, name)[arm_of["partner"]] = getattr(fresh, name)
        a, b = ALIGNED_COS, (1 - ALIGNED_COS ** 2) ** 0.5
        for name in ("W_Q", "W_K", "W_V"):
            weight = getattr(model, name)[aligned]                          # (n, C, C)
            weight[:, hs:2 * hs] = a * weight[:, :hs] + b * weight[:, hs:2 * hs]
            getattr(model, name)[aligned] = weight
        model.W_O[aligned, :, hs:2 * hs] = a * model.W_O[aligned, :, :hs] + b * model.W_O[aligned, :, hs:2 * hs]
    start_cosine = head_cosine(model).detach()                              # (M,)
    pull = torch.tensor([1.0 if arm in ("orthogonal", "aligned") else 0.0 for arm in ARMS for _ in seeds])  # (M,)
    free, partner = torch.arange(2 * n, 3 * n), torch.arange(3 * n, 4 * n)  # rows, (n,) each
    across = torch.cat([free, partner]), torch.cat([partner, free])        # (2n,) each
    cosines, free_forms, null_forms = [], [], []

    def record(step, m):
        with torch.no_grad():
            cosines.append(head_cosine(m))                                  # (M,)
            free_forms.append(form_cosine(m, (free, 0), (free, 1)))         # (n,)
            null_forms.append(form_cosine(m, (across[0], 0), (across[1], 1)))  # (2n,)

    train_batched(model, task, steps=steps, batch_size=16, data_seeds=seeds * len(ARMS),
                  extra_loss=lambda m: pull * (1 - head_cosine(m)), on_step=record)
    forms = {"free": torch.stack(free_forms, dim=1), "null": torch.stack(null_forms, dim=1)}  # (n | 2n, steps + 1)
    return model, arm_of, start_cosine, torch.stack(cosines, dim=1), forms  # (M,), (M, steps + 1)


# %% tags=["planted"]
def plant_pull(seeds, target, steps=STEPS):
    """The free run again (same draw, same batches) with a planted pull max(0, target - cos) on
    the bilinear forms' cosine: it pulls the heads together up to ``target`` and no further.
    Returns the forms' cosine at every step, (S, steps + 1)."""
    model = StackedTransformer.from_seeds(config, seeds)
    rows = torch.arange(len(seeds))
    planted = []
    train_batched(model, task, steps=steps, batch_size=16, data_seeds=list(seeds),
                  extra_loss=lambda m: torch.relu(target - form_cosine(m, (rows, 0), (rows, 1))),
                  on_step=lambda step, m: planted.append(form_cosine(m, (rows, 0), (rows, 1)).detach()))
    return torch.stack(planted, dim=1)                                      # (S, steps + 1)

# %% [markdown]
# ## A small run first
#
# Two seeds, all four arms: a run that takes seconds. The full run below
# trains more seeds with the same code.

# %% tags=["small_run"]
SMALL_SEEDS = [0, 1]
pulled_model, pulled_arms, _, pulled_cosines, pulled_forms = pull_together(SMALL_SEEDS)
for arm in ("orthogonal", "aligned", "free"):
    rows = pulled_arms[arm]
    reached = pulled_cosines[rows] >= TARGET                                 # (S, steps + 1)
    to_target = [int(r.int().argmax()) if r.any() else f">{STEPS}" for r in reached]
    print(f"{arm:>10}: cos {pulled_cosines[rows, 0].numpy().round(2)} -> {pulled_cosines[rows, -1].numpy().round(2)}, "
          f"steps to {TARGET}: {to_target}")
# The free heads' bilinear forms, and the cross-run pairs: largest |cos| over the steps.
for pairs, form_cos in pulled_forms.items():
    print(f"{pairs:>10}: largest |cos| of the bilinear forms {form_cos[:, 1:].abs().max(dim=1).values.numpy().round(3)}")

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
model, arm_of, start_cosine, cosines, forms = pull_together(SEEDS)
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

# %%
# Free heads (no pull): do their bilinear forms grow more alike than two heads that share the
# data but not the model? One statistic for both: the largest |cos| over the STEPS steps.
free_statistic = forms["free"][:, 1:].abs().max(dim=1).values               # (n,)
null_statistic = forms["null"][:, 1:].abs().max(dim=1).values               # (2n,) cross-run pairs
null_p95 = float(np.quantile(null_statistic.numpy(), 0.95))
rise_above = free_statistic > null_p95                                      # (n,)
print(f"null (cross-run pairs): largest |cos| from {null_statistic.min():.3f} to {null_statistic.max():.3f}, "
      f"95th percentile {null_p95:.3f}")
print(f"free heads: largest |cos| per seed {free_statistic.numpy().round(3)}, "
      f"above the null's 95th percentile in {int(rise_above.sum())} of {n} seeds")

# %%
# Could this check have seen heads growing alike? Plant it: the free run again with a pull that
# ends at twice the null's 95th percentile (set from the null, before the free heads are read).
planted_target = 2 * null_p95
planted = plant_pull(SEEDS, planted_target)                                 # (n, STEPS + 1)
planted_statistic = planted[:, 1:].abs().max(dim=1).values                  # (n,)
detected = planted_statistic > null_p95                                     # (n,)
print(f"planted pull to {planted_target:.3f}: ends at {planted[:, -1].numpy().round(3)}, "
      f"detected in {int(detected.sum())} of {n} seeds")

# %%
report.number("n_seeds", n, "{:.0f}", en="random seeds (each trained from both starts and without the pull)",
              zh="随机种子数（每个都从两种起点训练，另有一次不加拉近项）")
report.number("budget", STEPS, "{:.0f}", kind="count", en="training steps per run (the budget)",
              zh="每次训练的步数（预算）")
NAMES_ZH = {"orthogonal": "近乎正交的起点", "aligned": "对齐的起点", "free": "近乎正交、不加拉近项",
            "partner": "搭档：不加拉近项，另抽的头"}
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
report.number("null_p95", null_p95, "{:.3f}",
              en=f"null: 95th percentile of the largest |cos| over the {STEPS} steps between the bilinear forms "
                 f"of head 0 of one run and head 1 of its partner (cross-run pairs, {2 * n})",
              zh=f"零假设：一个运行的头 0 与其搭档运行的头 1 的双线性型之间，{STEPS} 步中最大 |cos| 的"
                 f"第 95 百分位数（跨运行配对，共 {2 * n} 对）")
report.number("null_pairs", 2 * n, "{:.0f}", kind="count", en="cross-run pairs in the null",
              zh="零假设中的跨运行配对数")
report.number("null_form_cos_abs_max_min", null_statistic.min(), "{:.3f}",
              en=f"null: largest |cos| over the {STEPS} steps, lowest cross-run pair",
              zh=f"零假设：{STEPS} 步中最大的 |cos|，最低的跨运行配对")
report.number("null_form_cos_abs_max_max", null_statistic.max(), "{:.3f}",
              en=f"null: largest |cos| over the {STEPS} steps, highest cross-run pair",
              zh=f"零假设：{STEPS} 步中最大的 |cos|，最高的跨运行配对")
report_spread(report, "free_form_cos_abs_max", free_statistic, "{:.3f}",
              en=f"largest |cos| between the free heads' bilinear forms (no pull) over the {STEPS} steps",
              zh=f"不加拉近项时，{STEPS} 步中两个头的双线性型之间最大的 |cos|")
report_spread(report, "free_form_cos_end", forms["free"][:, -1], "{:.3f}",
              en=f"cosine between the free heads' bilinear forms after the {STEPS} steps",
              zh=f"不加拉近项时，{STEPS} 步后两个头的双线性型之间的余弦")
report_seed_count(report, "free_rise_above_seeds", rise_above,
                  en="seeds whose free heads' statistic exceeds the null's 95th percentile (they rise above)",
                  zh="不加拉近项的两个头的统计量超过零假设第 95 百分位数（升到其上）的种子数")
report.number("planted_target", planted_target, "{:.3f}",
              en="planted pull's target: twice the null's 95th percentile",
              zh="植入拉近项的目标：零假设第 95 百分位数的两倍")
report_spread(report, "planted_form_cos_end", planted[:, -1], "{:.3f}",
              en=f"planted arm: cosine between the bilinear forms after the {STEPS} steps",
              zh=f"植入组：{STEPS} 步后两个头的双线性型之间的余弦")
report_spread(report, "planted_form_cos_abs_max", planted_statistic, "{:.3f}",
              en=f"planted arm: largest |cos| between the bilinear forms over the {STEPS} steps",
              zh=f"植入组：{STEPS} 步中两个头的双线性型之间最大的 |cos|")
# Whether a pull can end at the target at all (a cosine is at most 1): one value for every seed, since
# the target pools the seeds' cross-run pairs (held fixed when the build resamples the seeds).
report_seed_count(report, "planted_reachable_seeds", torch.full((n,), planted_target < 1),
                  en="seeds whose planted target is a cosine a pull can end at (below 1)",
                  zh="植入目标是拉近项能停到的余弦值（小于 1）的种子数")
report_seed_count(report, "planted_detected_seeds", detected,
                  en="seeds whose planted pull is detected (its statistic exceeds the null's 95th percentile)",
                  zh="植入的拉近项被检出（统计量超过零假设第 95 百分位数）的种子数")
report.number("planted_detection_rate", detected.float().mean(), "{:.2f}", kind="share",
              en="planted pull's detection rate (share of seeds)", zh="植入拉近项的检出率（种子占比）",
              per_seed=detected.float(), of="mean")

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
            zh=f"{n} 个种子中，有 {n_twice} 个的近乎正交训练可以断定需要至少两倍于对齐中位数的步数；"
               f"有 {n_slower} 个可以断定比同一种子的对齐训练需要更多步。")
n_rise = int(rise_above.sum())
report.text("free_heads",
            en=(f"the largest |cos| between their bilinear forms rose above the cross-run pairs' 95th percentile "
                f"in {n_rise} of {n} seeds"),
            zh=(f"{n} 个种子中，有 {n_rise} 个的两个头双线性型之间最大的 |cos| 超过了跨运行配对的第 95 百分位数"))
planted_words = (f"the planted pull ends at {planted[:, -1].mean():.3f} on average (its target "
                 f"{planted_target:.3f}) and is detected in {int(detected.sum())} of {n} seeds",
                 f"植入的拉近项平均停在 {planted[:, -1].mean():.3f}（目标 {planted_target:.3f}），"
                 f"{n} 个种子中有 {int(detected.sum())} 个被检出")
if planted_target >= 1:   # a cosine cannot reach the target: the planted check cannot be built
    planted_words = (f"twice the null's 95th percentile is {planted_target:.3f}, more than a cosine can reach, so "
                     f"no pull can end there: the planted check (G1) cannot be run as written. Pulled towards it, "
                     f"the forms end at {planted[:, -1].mean():.3f} on average and exceed the 95th percentile in "
                     f"{int(detected.sum())} of {n} seeds. At this null, free heads rising above it could not have "
                     f"refuted the claim, only left it open",
                     f"零假设第 95 百分位数的两倍是 {planted_target:.3f}，超过了余弦能达到的上限，没有哪个拉近项能停在那里："
                     f"植入检验（G1）无法按原样进行。朝它拉的时候，双线性型平均停在 {planted[:, -1].mean():.3f}，"
                     f"{n} 个种子中有 {int(detected.sum())} 个超过第 95 百分位数。在这样的零假设下，自由的头即使升到其上，"
                     f"也推翻不了这个论断，只能让它待定")
report.text("planted_outcome", en=planted_words[0], zh=planted_words[1])
free_lower = bool(task_loss[arm_of["free"]].mean() < task_loss[arm_of["orthogonal"]].mean())
report.text("free_loss", en="lower" if free_lower else "not lower", zh="更低" if free_lower else "并不更低")
for arm in ("orthogonal", "aligned", "free"):
    s = arm_of[arm]
    shown = [int(t) if f else f">{STEPS}" for t, f in zip(steps_to_target[s].tolist(), finished[s].tolist())]
    print(f"{arm:>10}: cos {start_cosine[s].mean():.2f} -> {cosines[s, -1].mean():.2f}, "
          f"steps to {TARGET}: {shown}, task loss {task_loss[s].mean():.3f}")
print(f"median steps: near-orthogonal {median['orthogonal']}, aligned {median['aligned']} (None: censored)")

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
           "alt_pull": f"Cosine between the two heads' parameter vectors over {STEPS} training steps, one faint "
                       f"line per seed ({n} seeds) and the median in bold: pulled from a near-orthogonal start, "
                       "pulled from an aligned start, and not pulled at all.",
           "caption_pull": f"How long the pull takes to make two heads alike: the median run needed {en_o} steps from "
                           f"the near-orthogonal start and {en_a} from the aligned one.",
           "form_names": {"free": "free heads, same model", "null": "head 0 and head 1 of partner runs (null)",
                          "planted": "free heads with the planted pull"},
           "form_cos": "|cosine| between the\nheads' bilinear forms", "p95": "null's 95th percentile",
           "planted_target": "planted target",
           "alt_forms": f"Absolute cosine between two heads' bilinear forms W_Q W_K transposed over {STEPS} training "
                        f"steps, one faint line per pair and the median in bold: the two free heads of one model "
                        f"({n} seeds), head 0 and head 1 taken from a run and its partner ({2 * n} cross-run pairs, "
                        f"the null), and the free heads with a planted pull. A dashed line marks the null's 95th "
                        f"percentile, a dotted one twice it, the planted pull's target. The free heads' largest "
                        f"value rises above the dashed line in {n_rise} of {n} seeds; the planted pull's, in "
                        f"{int(detected.sum())} of {n}.",
           "caption_forms": f"Free heads against two heads that share the data but not the model: the free heads' "
                            f"largest |cos| rises above the cross-run pairs' 95th percentile in {n_rise} of {n} seeds "
                            f"(a planted pull: {int(detected.sum())} of {n})."},
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
           "caption_pull": f"把两个头拉成一样要花多久：近乎正交的起点中位数需要 {zh_o} 步，对齐的起点需要 {zh_a} 步。",
           "form_names": {"free": "自由的头，同一个模型", "null": "搭档运行之间的头 0 与头 1（零假设）",
                          "planted": "自由的头，加植入的拉近项"},
           "form_cos": "两个头双线性型\n之间的 |余弦|", "p95": "零假设的第 95 百分位数",
           "planted_target": "植入的目标",
           "alt_forms": f"训练 {STEPS} 步中两个头的双线性型 W_Q W_K 转置之间余弦的绝对值，每一对一条淡线，粗线为中位数："
                        f"同一个模型里的两个自由的头（{n} 个种子）、分别取自一个运行和它的搭档运行的头 0 与头 1"
                        f"（{2 * n} 对跨运行配对，即零假设），以及加了植入拉近项的自由的头。虚线是零假设的第 95 百分位数，"
                        f"点线是它的两倍，即植入拉近项的目标。{n} 个种子中，自由的头的最大值有 {n_rise} 个超过虚线；"
                        f"植入拉近项的有 {int(detected.sum())} 个。",
           "caption_forms": f"自由的头与“共享数据、不共享模型”的两个头相比：{n} 个种子中有 {n_rise} 个，自由的头的最大 |cos| "
                            f"超过跨运行配对的第 95 百分位数（植入拉近项的：{n} 个中有 {int(detected.sum())} 个）。"},
}
colors = {"orthogonal": "#d95f02", "aligned": "#1b9e77", "free": "#7570b3", "null": "#666666", "planted": "#e7298a"}
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
    for arm in ("orthogonal", "aligned", "free"):
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

    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for name, curves in (("null", forms["null"]), ("free", forms["free"]), ("planted", planted)):
        curves = curves.abs()                                                # (pairs, STEPS + 1)
        for curve in curves:
            ax.plot(curve, color=colors[name], alpha=0.2, lw=0.7)
        ax.plot(curves.median(dim=0).values, color=colors[name], lw=2, label=text["form_names"][name])
    ax.axhline(null_p95, color="black", lw=1, ls="--", label=text["p95"])
    ax.axhline(planted_target, color="black", lw=1, ls=":", label=text["planted_target"])
    ax.set_xlabel(text["step"])
    ax.set_ylabel(text["form_cos"])
    ax.legend(fontsize=9, loc="center right", bbox_to_anchor=(1.0, 0.68))
    fig.tight_layout()
    report.figure("free_heads", fig, lang, alt=text["alt_forms"], caption=text["caption_forms"])

report.save()
