# %% [markdown]
# # One head or many (2): does the task need near and far at once? And twice the training
#
# The controls of `one_head_or_many.py`'s comparison, on the same 1- and 2-head models
# (trained here again: the same seeds, steps and batches give the same models). Take the
# previous token, or the first, out of every head's view at the queries t ≥ 2 (at t = 1
# the previous token *is* the first) and score the 2-head models there: a task needs both
# at one query when the answer falls apart without either. Then a single head planted from
# each seed's own 2-head model: that model with one of the two tokens taken out on a share
# of the test sequences, the share set on other sequences (seed 777) so that it answers 0.8
# of the queries t ≥ 2. Would the comparison with two heads (more than 0.01 apart) see
# what such a head costs? Last, the single heads trained again for twice the steps, on the
# same batches.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.report import Report
from explainer.seeds import n_seeds, report_seed_count

report = Report("many_heads.one_head_or_many.controls")

# %% [markdown]
# ## The task, the models and their runs
#
# As in `one_head_or_many.py`: the sum (previous token + first token) mod V and the ordered
# pair, one layer of width 32 with 1 or 2 heads, the same seeds, steps and test sequences.

# %%
import torch

from explainer import token_knockout
from explainer.batched import evaluate_batched, train_batched
from explainer.first_and_previous import T, V, near_and_far, one_layer, ordered_pair
from explainer.head_metrics import first_token_score, per_head, previous_token_score
from explainer.training import IGNORE

torch.set_num_threads(1)
N_SEEDS = n_seeds(8)              # the build trains more when a verdict is undecided at 8
SEEDS = list(range(N_SEEDS))      # seed s of every model: same data stream, its own initial weights
STEPS, BATCH = 400, 32
PAIR_STEPS = 200
AVERAGE_BAR = 0.3    # a head averages when it puts at least this on the previous and on the first token
FAIL_BAR = 0.8       # below this accuracy a model fails the task (the planted single head is set to it)
LEARNED_BAR = 0.95   # the 2-head model has learned the task when it reaches this accuracy
COST_MARGIN = 0.01   # one head costs something when it ends more than this below two
report.number("n_seeds", N_SEEDS, "{:.0f}")

test_batch = near_and_far(torch.Generator().manual_seed(1234), 512)
pair_test = ordered_pair(torch.Generator().manual_seed(1234), 512)
runs, pair_runs = {}, {}
for n_heads in (1, 2):
    for into, make_batch, test, steps, vocab_out in ((runs, near_and_far, test_batch, STEPS, V),
                                                     (pair_runs, ordered_pair, pair_test, PAIR_STEPS, V * V)):
        model = one_layer(n_heads, SEEDS, vocab_out=vocab_out)
        train_batched(model, make_batch, steps=steps, batch_size=BATCH, lr=1e-2)
        _, accuracy = evaluate_batched(model, *test)    # (S,), also keeps the attention weights
        weights = model.attention_weights()[0]          # (S, B, nh, T, T)
        into[n_heads] = dict(model=model, accuracy=accuracy,
                             previous=per_head(previous_token_score, weights),       # (S, nh)
                             first=per_head(first_token_score, weights))             # (S, nh)
single, pair_single, pair_two = runs[1], pair_runs[1], pair_runs[2]
for name, run in (("sum", runs), ("ordered pair", pair_runs)):
    print(f"{name}: accuracy per seed, 1 head {run[1]['accuracy'].numpy().round(3)}, "
          f"2 heads {run[2]['accuracy'].numpy().round(3)}")

# %% [markdown]
# ## Take a token out of every head's view, plant a single head, train twice as long

# %%
KNOCKOUT_QUERIES = torch.arange(2, T)                                   # queries t >= 2
REMOVED = {"previous": token_knockout.key_mask(1, T, KNOCKOUT_QUERIES, KNOCKOUT_QUERIES - 1),            # (1, 1, T, T)
           "first": token_knockout.key_mask(1, T, KNOCKOUT_QUERIES, torch.zeros_like(KNOCKOUT_QUERIES))}
FROM_T2 = torch.arange(T) >= 2                                           # (T,) the positions scored


def needs_both_and_plant(two_heads, make_batch, test, accuracy_two):
    """The token-removal control and the planted single head, per seed, for one task."""
    calibration = make_batch(torch.Generator().manual_seed(777), 512)   # never the test's sequences
    scored = test[1] != IGNORE                                           # (B, T) all targets
    control, control_cal = scored & FROM_T2, (calibration[1] != IGNORE) & FROM_T2
    intact = token_knockout.correct_at(two_heads, *test)                       # (S, B, T)
    a2 = token_knockout.accuracy(intact, control)                              # (S,) at t >= 2
    a2_cal = token_knockout.accuracy(token_knockout.correct_at(two_heads, *calibration), control_cal)
    found = dict(two_at_control=a2)
    for name, removed in REMOVED.items():
        knocked = token_knockout.correct_at(two_heads, *test, removed)         # (S, B, T)
        knocked_cal = token_knockout.accuracy(token_knockout.correct_at(two_heads, *calibration, removed), control_cal)
        share = token_knockout.mixing_share(a2_cal, knocked_cal, FAIL_BAR)
        planted = token_knockout.planted_accuracy(intact, knocked, scored, share, SEEDS)   # (S,) all targets
        valid = (a2 >= LEARNED_BAR) & (knocked_cal < FAIL_BAR)
        found[f"without_{name}"] = token_knockout.accuracy(knocked, control)  # (S,)
        found[f"detected_{name}"] = valid & (planted < accuracy_two - COST_MARGIN)          # (S,)
    found["needs_both"] = ((a2 >= LEARNED_BAR) & (found["without_previous"] < FAIL_BAR)
                          & (found["without_first"] < FAIL_BAR))
    found["detected"] = min(int(found["detected_previous"].sum()), int(found["detected_first"].sum()))
    return found


sum_control = needs_both_and_plant(runs[2]["model"], near_and_far, test_batch, runs[2]["accuracy"])
pair_control = needs_both_and_plant(pair_runs[2]["model"], ordered_pair, pair_test, pair_runs[2]["accuracy"])
for task_name, found in (("sum", sum_control), ("ordered pair", pair_control)):
    print(f"{task_name}, 2 heads at t >= 2:     ", found["two_at_control"].numpy().round(3))
    print(f"{task_name}, without the previous token:", found["without_previous"].numpy().round(3))
    print(f"{task_name}, without the first token:   ", found["without_first"].numpy().round(3))

# The single heads again, twice the steps, the same data stream (a stack of their own).
STEPS_LONG, PAIR_STEPS_LONG = 2 * STEPS, 2 * PAIR_STEPS
single_long = one_layer(1, SEEDS)
train_batched(single_long, near_and_far, steps=STEPS_LONG, batch_size=BATCH, lr=1e-2)
accuracy_1_long = evaluate_batched(single_long, *test_batch)[1]                 # (S,)
pair_single_long = one_layer(1, SEEDS, vocab_out=V * V)
train_batched(pair_single_long, ordered_pair, steps=PAIR_STEPS_LONG, batch_size=BATCH, lr=1e-2)
pair_accuracy_1_long = evaluate_batched(pair_single_long, *pair_test)[1]         # (S,)
print(f"1 head, {STEPS_LONG} steps, sum:         ", accuracy_1_long.numpy().round(3))
print(f"1 head, {PAIR_STEPS_LONG} steps, ordered pair:", pair_accuracy_1_long.numpy().round(3))

# %%
report.number("average_bar", AVERAGE_BAR, "{:.1f}")
report.number("fail_bar", FAIL_BAR, "{:.1f}")
report.number("learned_bar", LEARNED_BAR, "{:.2f}")
report.number("cost_margin", COST_MARGIN, "{:.2f}")
report.number("steps_long", STEPS_LONG, "{:.0f}")
report.number("pair_steps_long", PAIR_STEPS_LONG, "{:.0f}")
report.number("accuracy_1_long_mean", accuracy_1_long.mean(), "{:.3f}", per_seed=accuracy_1_long, of="mean")
report.number("accuracy_1_long_max", accuracy_1_long.max(), "{:.3f}", per_seed=accuracy_1_long, of="max")
report.number("pair_accuracy_1_long_mean", pair_accuracy_1_long.mean(), "{:.3f}", per_seed=pair_accuracy_1_long,
              of="mean")
report.number("pair_accuracy_1_long_max", pair_accuracy_1_long.max(), "{:.3f}", per_seed=pair_accuracy_1_long,
              of="max")
report_seed_count(report, "sum_single_fails_seeds",
                  (single["accuracy"] < FAIL_BAR) & (runs[2]["accuracy"] >= LEARNED_BAR)
                  & (single["previous"][:, 0] >= AVERAGE_BAR) & (single["first"][:, 0] >= AVERAGE_BAR)
                  & (accuracy_1_long < FAIL_BAR))
report_seed_count(report, "pair_single_fails_seeds",
                  (pair_single["accuracy"] < FAIL_BAR) & (pair_two["accuracy"] >= LEARNED_BAR)
                  & (pair_single["previous"][:, 0] >= AVERAGE_BAR) & (pair_single["first"][:, 0] >= AVERAGE_BAR)
                  & (pair_accuracy_1_long < FAIL_BAR))
report_seed_count(report, "sum_no_cost_seeds", single["accuracy"] >= runs[2]["accuracy"] - COST_MARGIN)
report_seed_count(report, "pair_no_cost_seeds", pair_single["accuracy"] >= pair_two["accuracy"] - COST_MARGIN)
report_seed_count(report, "sum_needs_both_seeds", sum_control["needs_both"])
report_seed_count(report, "pair_needs_both_seeds", pair_control["needs_both"])
report.number("sum_two_at_control_mean", sum_control["two_at_control"].mean(), "{:.3f}",
              per_seed=sum_control["two_at_control"], of="mean")
report.number("sum_without_previous_mean", sum_control["without_previous"].mean(), "{:.3f}",
              per_seed=sum_control["without_previous"], of="mean")
report.number("sum_without_first_mean", sum_control["without_first"].mean(), "{:.3f}",
              per_seed=sum_control["without_first"], of="mean")
report.number("pair_two_at_control_mean", pair_control["two_at_control"].mean(), "{:.3f}",
              per_seed=pair_control["two_at_control"], of="mean")
report.number("pair_without_previous_mean", pair_control["without_previous"].mean(), "{:.3f}",
              per_seed=pair_control["without_previous"], of="mean")
report.number("pair_without_first_mean", pair_control["without_first"].mean(), "{:.3f}",
              per_seed=pair_control["without_first"], of="mean")
report.number("sum_planted_detected_seeds", sum_control["detected"], "{:.0f}", kind="count")
report.number("pair_planted_detected_seeds", pair_control["detected"], "{:.0f}", kind="count")
# G1's share: the least over the tasks whose control passes in 3/4 of the seeds (1 if none does).
report.number("c08_planted_detection_share",
              min([found["detected"] / N_SEEDS for found in (sum_control, pair_control)
                   if int(found["needs_both"].sum()) >= 0.75 * N_SEEDS], default=1.0), kind="share")

report.save()
