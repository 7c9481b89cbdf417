# %% [markdown]
# # Why heads differ (3): how much training does it take to pull two heads together?
#
# Random heads start nearly orthogonal (near_orthogonal.py). The source goes
# further: because they do, training would have to spend a great deal of
# effort to make them the same (C10). Measure it. Per seed, a 2-head model on
# the pronoun language gets an extra loss, the pull 1 - cos(head 0, head 1)
# over each head's whole parameter vector (its W_Q, W_K, W_V rows and W_O
# columns), from two starts of the same draw:
#
# - *near-orthogonal*: the usual random start;
# - *aligned*: head 1 mixed towards head 0 until their cosine is about 0.9.
#
# We count the steps until cos >= 0.99. A third arm trains the near-orthogonal
# start without the pull: what training does to the heads when nothing pulls.
# A fourth, its partner, is the free run with fresh draws for the heads only
# (same embedding, same batches): head 0 of one run against head 1 of the other
# shows how alike two heads get from sharing the data alone, without sharing a model.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report

report = Report("many_heads.why_heads_differ.pull_together")

# %% [markdown]
# ## The arms, the language and the model
#
# The experiment's code is the project's `explainer/head_pull.py`; the cells
# import it and print it.

# %% tags=["pull_setup"]
import inspect

import numpy as np
import torch

from explainer.head_pull import ALIGNED_COS, ARMS, STEPS, TARGET, config, probe_targets, probe_tokens

torch.set_num_threads(1)
print(f"arms {ARMS}: budget {STEPS} steps, target cos {TARGET}, aligned start cos {ALIGNED_COS}")
print(config)

# %% tags=["bilinear"]
from explainer.head_pull import bilinear_forms, form_cosine

for function in (bilinear_forms, form_cosine):
    print(inspect.getsource(function))

# %% tags=["pull"]
from explainer.head_pull import head_cosine, pull_together

for function in (head_cosine, pull_together):
    print(inspect.getsource(function))

# %% tags=["planted"]
from explainer.head_pull import plant_pull

print(inspect.getsource(plant_pull))

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
report.number("small_run_seeds", len(SMALL_SEEDS), "{:.0f}")

# %% [markdown]
# ## The full run

# %%
from explainer.batched import evaluate_batched
from explainer.censored import at_least_twice, median_steps
from explainer.seeds import n_seeds, report_seed_count, report_spread

SEEDS = list(range(n_seeds(8)))   # the build trains more when a verdict is undecided
n = len(SEEDS)
model, arm_of, start_cosine, cosines, forms = pull_together(SEEDS)
reached_target = cosines >= TARGET
finished = reached_target.any(dim=1)                                        # (M,)
# Steps until the target; meaningful only where finished (a censored run needed more than STEPS).
steps_to_target = reached_target.int().argmax(dim=1)                        # (M,)
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
report.number("n_seeds", n, "{:.0f}")
report.number("budget", STEPS, "{:.0f}", kind="count")
report.number("target_cos", TARGET, "{:.2f}")
orthogonal, aligned, free, partner = (arm_of[arm] for arm in ARMS)         # each arm's rows
report.number("start_cosine_orthogonal_mean", start_cosine[orthogonal].mean(), "{:.2f}")
report.number("start_cosine_aligned_mean", start_cosine[aligned].mean(), "{:.2f}")
report.number("start_cosine_free_mean", start_cosine[free].mean(), "{:.2f}")
report.number("start_cosine_partner_mean", start_cosine[partner].mean(), "{:.2f}")
report.number("end_cosine_orthogonal_mean", cosines[orthogonal, -1].mean(), "{:.2f}")
report.number("end_cosine_aligned_mean", cosines[aligned, -1].mean(), "{:.2f}")
report.number("end_cosine_free_mean", cosines[free, -1].mean(), "{:.2f}")
report.number("end_cosine_partner_mean", cosines[partner, -1].mean(), "{:.2f}")
report.number("task_loss_orthogonal_mean", task_loss[orthogonal].mean(), "{:.3f}")
report.number("task_loss_aligned_mean", task_loss[aligned].mean(), "{:.3f}")
report.number("task_loss_free_mean", task_loss[free].mean(), "{:.3f}")
report.number("task_loss_partner_mean", task_loss[partner].mean(), "{:.3f}")

report_seed_count(report, "reached_orthogonal_seeds", finished[orthogonal])
report_seed_count(report, "reached_aligned_seeds", finished[aligned])
report.number("steps_orthogonal_median_known", float(median["orthogonal"] is not None), "{:.0f}")
report.number("steps_aligned_median_known", float(median["aligned"] is not None), "{:.0f}")
report.number("steps_orthogonal_median", median["orthogonal"] if median["orthogonal"] is not None else STEPS,
              "{:.0f}")
report.number("steps_aligned_median", median["aligned"] if median["aligned"] is not None else STEPS, "{:.0f}")
fastest_orthogonal = steps_to_target[orthogonal][finished[orthogonal]]       # steps of the finished runs
fastest_aligned = steps_to_target[aligned][finished[aligned]]
if len(fastest_orthogonal):
    report.number("steps_orthogonal_fastest", fastest_orthogonal.min(), "{:.0f}", kind="count")
if len(fastest_aligned):
    report.number("steps_aligned_fastest", fastest_aligned.min(), "{:.0f}", kind="count")
report_seed_count(report, "orthogonal_twice_seeds", twice)
both = finished[arm_of["orthogonal"]] & finished[arm_of["aligned"]]
slower = (steps_to_target[arm_of["orthogonal"]] > steps_to_target[arm_of["aligned"]]) & both \
    | (~finished[arm_of["orthogonal"]] & finished[arm_of["aligned"]])
report_seed_count(report, "orthogonal_slower_seeds", slower)
report.number("null_p95", null_p95, "{:.3f}")
report.number("null_pairs", 2 * n, "{:.0f}", kind="count")
report.number("null_form_cos_abs_max_min", null_statistic.min(), "{:.3f}")
report.number("null_form_cos_abs_max_max", null_statistic.max(), "{:.3f}")
report_spread(report, free_statistic, "{:.3f}", mean="free_form_cos_abs_max_mean", std="free_form_cos_abs_max_std",
              min="free_form_cos_abs_max_min", max="free_form_cos_abs_max_max")
report_spread(report, forms["free"][:, -1], "{:.3f}", mean="free_form_cos_end_mean", std="free_form_cos_end_std",
              min="free_form_cos_end_min", max="free_form_cos_end_max")
report_seed_count(report, "free_rise_above_seeds", rise_above)
report.number("planted_target", planted_target, "{:.3f}")
report_spread(report, planted[:, -1], "{:.3f}", mean="planted_form_cos_end_mean", std="planted_form_cos_end_std",
              min="planted_form_cos_end_min", max="planted_form_cos_end_max")
report_spread(report, planted_statistic, "{:.3f}", mean="planted_form_cos_abs_max_mean",
              std="planted_form_cos_abs_max_std", min="planted_form_cos_abs_max_min",
              max="planted_form_cos_abs_max_max")
# Whether a pull can end at the target at all (a cosine is at most 1): one value for every seed, since
# the target pools the seeds' cross-run pairs (held fixed when the build resamples the seeds).
report_seed_count(report, "planted_reachable_seeds", torch.full((n,), planted_target < 1))
report_seed_count(report, "planted_detected_seeds", detected)
report.number("planted_detection_rate", detected.float().mean(), "{:.2f}", kind="share", per_seed=detected.float(),
              of="mean")


# The outcomes the page words, from these numbers: is each start's median known or censored (more
# than the budget), can the planted pull end at its target (a cosine is at most 1), is the free
# heads' task loss lower?
report.category("orthogonal_median", "censored" if median["orthogonal"] is None else "known")
report.category("aligned_median", "censored" if median["aligned"] is None else "known")
report.category("planted_reachable", "yes" if planted_target < 1 else "no")
n_rise = int(rise_above.sum())   # for the figures' captions


def median_words(arm, text):
    """A start's median steps as the captions write it (the pages word it with choose)."""
    return text["censored"].format(steps=STEPS) if median[arm] is None else f"{median[arm]:.0f}"


free_lower = bool(task_loss[arm_of["free"]].mean() < task_loss[arm_of["orthogonal"]].mean())
report.category("free_loss", "lower" if free_lower else "not_lower")
for arm in ("orthogonal", "aligned", "free"):
    rows = arm_of[arm]
    steps_or_more = [int(t) if done else f">{STEPS}" for t, done in zip(steps_to_target[rows].tolist(),
                                                                        finished[rows].tolist())]
    print(f"{arm:>10}: cos {start_cosine[rows].mean():.2f} -> {cosines[rows, -1].mean():.2f}, "
          f"steps to {TARGET}: {steps_or_more}, task loss {task_loss[rows].mean():.3f}")
print(f"median steps: near-orthogonal {median['orthogonal']}, aligned {median['aligned']} (None: censored)")

# %% [markdown]
# ## Figures

# %%
TEXT = report.figure_text()   # the figures' words: pull_together.strings.toml
colors = {"orthogonal": "#d95f02", "aligned": "#1b9e77", "free": "#7570b3", "null": "#666666", "planted": "#e7298a"}
for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    shown = STEPS
    for arm in ("orthogonal", "aligned", "free"):
        curves = cosines[arm_of[arm], :shown + 1]                            # (n, shown + 1)
        for curve in curves:
            ax.plot(curve, color=colors[arm], alpha=0.25, lw=0.8)
        ax.plot(curves.median(dim=0).values, color=colors[arm], lw=2, label=text["names"][arm])
    ax.axhline(TARGET, color="grey", lw=0.8, ls=":")
    ax.text(shown, TARGET, text["target"].format(target=TARGET), ha="right", va="bottom", fontsize=9, color="grey")
    ax.set_xlabel(text["step"])
    ax.set_ylabel(text["head_cos"])
    ax.legend(fontsize=9, loc="center right")
    fig.tight_layout()
    report.figure("pull_together", fig, lang, alt=text["alt_pull"].format(steps=STEPS, n=n),
                  caption=text["caption_pull"].format(median_orthogonal=median_words("orthogonal", text),
                                                      median_aligned=median_words("aligned", text)))

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
    counts = dict(n=n, rise=n_rise, detected=int(detected.sum()))
    report.figure("free_heads", fig, lang, alt=text["alt_forms"].format(steps=STEPS, pairs=2 * n, **counts),
                  caption=text["caption_forms"].format(**counts))

report.save()
