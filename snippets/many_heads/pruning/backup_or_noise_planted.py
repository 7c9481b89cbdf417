# %% [markdown]
# # Are sixteen heads better than one? (3) Could the tests have seen backups or smoothing?
#
# backup_or_noise.py counts the seeds whose removable heads are backups, and those whose
# removable heads smooth noise. Few such seeds would refute source A's explanation (C25) only
# if the two tests could have seen the effect. So we train models in which the effect is built
# in, in two planted arms of 32 draws each (draw *i* starts from seed *i*'s weights), and run
# exactly the same tests on them (explainer/removable_heads.py). A draw is detected when its
# plant took, by an instrument that is not the rule's test, and the rule's own per-seed test
# fires. The arms were fixed before any run (docs/proposed_rules/2026-12-03-planted-arms-v2-C11-C17-C25.md,
# section 2, with the fixes of its review).

# %%
# Recording what the page cites (numbers): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.report import Report

report = Report("many_heads.pruning.backup_or_noise_planted")

# %% [markdown]
# ## The setting
#
# The task, the model and the held-out sets of backup_or_noise.py: two layers of eight heads,
# no MLP, 200 steps. The draws are fixed at 32, whatever number of seeds the tested run uses.
# The claim's bar: at least half of the 16 heads removable, so a draw with fewer than 8
# removable heads is *off-bar* and counts as not detected.

# %%
from explainer.first_and_previous import T, V, ordered_pair   # first: it pins torch's CPU kernels
from explainer.batched import SeededTransformer, evaluate_batched, train_batched
from explainer.head_ablation import accuracy_without, one_hot
from explainer.planted_pruning import NoiseSmoothers, PartialBackups, partner, plain
from explainer.removable_heads import (GRID, backup_test, embedding_rms, noise_level, noisy_accuracy,
                                       removable_heads, smoothing_test)
from explainer.tiny_transformer import TransformerConfig
import torch

torch.set_num_threads(1)
N_LAYERS, N_HEADS = 2, 8
H = N_LAYERS * N_HEADS             # 16 heads, numbered layer * N_HEADS + head
STEPS = 200
KEEP = 0.95                        # the yardstick: accuracy >= 95 % of the full model's
config = TransformerConfig(vocab_size=V * V, n_ctx=T, d_model=32, n_heads=N_HEADS, n_layers=N_LAYERS)
ranking_set = ordered_pair(torch.Generator().manual_seed(1234), 128)  # held out: importance
test_set = ordered_pair(torch.Generator().manual_seed(4321), 128)     # held out: pruning curves
DRAWS = list(range(32))            # fixed: the build's doubling of seeds never changes them
N = len(DRAWS)
ON_BAR = H // 2                    # the claim's bar: a removable share of at least one half

# %% [markdown]
# ## Arm A: partial, untied backups
#
# Every head's values are one-dimensional (its block of $W^V$ is an outer product), so each head
# carries one number of what it reads and the two jobs of the task (first and previous token)
# must spread over several heads. Heads are paired: key *j* and backup *j* + 4 of each layer.
# In training, for every sequence and pair: half the time both are on; a quarter of the time
# the backup is off; the last quarter the key is off and its backup on when the sequence's
# first token is 0–4, otherwise the backup is off. Never both off, nothing rescaled, and at
# test every head is on. So the key does its job alone on every input, and the backup stands
# in for it only on sequences starting with 0–4: a partial backup that is not a copy.

# %%
backups = PartialBackups(config, DRAWS)                   # pair schedule from its own generator, seeded 3
train_batched(backups, ordered_pair, steps=STEPS, batch_size=32, lr=1e-2)
net_a = plain(backups)                                    # its effective weights in an ordinary model
net_a.keep_weights = False
full_a, removable_a = removable_heads(net_a, ranking_set, test_set, KEEP)        # (N,), (N, H)
n_removable_a = removable_a.sum(dim=1)                                            # (N,)
twins = backup_test(net_a, test_set, full_a)                                      # the rule's backup test
backup_share = (twins["is_backup"] & removable_a).sum(dim=1) / n_removable_a.clamp(min=1)
test_a = (n_removable_a > 0) & (backup_share >= 0.5)                              # (N,) the rule's per-seed test

# %% [markdown]
# Did the plant take? Not by the rule's twin search or its 0.05, but by the schedule's own
# instrument: on the held-out sequences whose first token is 0–4 (where the backup was trained
# to stand in), a removable head whose partner the yardstick kept must cost at least 0.10
# accuracy once its partner is gone. A draw is *on-bar* if at least 8 heads are removable and
# at least half of them stand in like that.

# %%
pair = partner(N_LAYERS, N_HEADS)                                                 # (H,) j <-> j + 4
low = test_set[0][:, 0] <= 4
low_set = (test_set[0][low], test_set[1][low])                                    # first token 0-4
without_partner = torch.stack([accuracy_without(net_a, one_hot(pair[h].expand(N), H), low_set)
                               for h in range(H)], dim=1)                         # (N, H)
without_both = torch.stack([accuracy_without(net_a, one_hot(torch.stack([pair[h], torch.tensor(h)]).expand(N, 2), H),
                                             low_set) for h in range(H)], dim=1)  # (N, H)
stands_in = removable_a & ~removable_a[:, pair] & (without_partner - without_both >= 0.10)   # (N, H)
on_bar = (n_removable_a >= ON_BAR) & (stands_in.sum(dim=1) >= n_removable_a / 2)  # (N,)
detected_a = on_bar & test_a
twin_is_partner = (twins["twin"] == pair) & removable_a                           # (N, H)

# %% [markdown]
# ## Arm B: noise smoothers
#
# First the rule's model itself, the *plain twin*, for one number per draw: the grid step of
# the smoothing test (the smallest noise level of the grid that costs it at least 0.1
# accuracy). Then the planted model: the same model with heads 4 and 5 of each layer writing
# nothing (their rows of $W^O$ zero and frozen: heads that learn "nothing important"), and
# heads 6 and 7 of each layer as smoothers. Each training batch is split: on the clean half
# the smoothers are off; the noisy half has every head on and Gaussian noise on its input
# embeddings, its level drawn per sequence from the twin's grid step up to the top of the grid.

# %%
twin = SeededTransformer(config, DRAWS)                   # the rule's model, unchanged
train_batched(twin, ordered_pair, steps=STEPS, batch_size=32, lr=1e-2)
twin.keep_weights = False
twin_accuracy = evaluate_batched(twin, *test_set)[1]                              # (N,)
twin_level = noise_level(twin, test_set, twin_accuracy, embedding_rms(twin, test_set))   # (N,)
lowest = (GRID[None] == twin_level[:, None]).int().argmax(dim=1)                  # (N,) its grid step

SMOOTHERS = [6, 7, N_HEADS + 6, N_HEADS + 7]
SILENT = [4, 5, N_HEADS + 4, N_HEADS + 5]
smoothed = NoiseSmoothers(config, DRAWS, SMOOTHERS, SILENT, lowest)   # noise seeded 1, levels seeded 2
train_batched(smoothed, ordered_pair, steps=STEPS, batch_size=32, lr=1e-2)
net_b = plain(smoothed)
net_b.keep_weights = False

# %% [markdown]
# The rule's smoothing test on the planted model, unchanged: its own noise level by the same
# grid rule, and 511 random head sets from the same random stream as backup_or_noise.py at 32
# seeds (seeded 0; first how_many's 10 random orders per seed and the note's 10 random sets per
# seed, one permutation each).

# %%
full_b, removable_b = removable_heads(net_b, ranking_set, test_set, KEEP)         # (N,), (N, H)
n_removable_b = removable_b.sum(dim=1)                                            # (N,)
rms_b = embedding_rms(net_b, test_set)                                            # (N,)
level_b = noise_level(net_b, test_set, full_b, rms_b)                             # (N,)
std_b = level_b * rms_b                                                           # (N,)
nobody = torch.zeros(N, H, dtype=torch.bool)
noisy_full_b = noisy_accuracy(net_b, nobody, std_b, test_set)                     # (N,)
generator = torch.Generator().manual_seed(0)
for _ in range(2 * 10 * N):
    torch.randperm(H, generator=generator)
test_b = smoothing_test(net_b, test_set, removable_b, full_b, noisy_full_b, std_b, generator, 511, 32)
test_fires_b = (n_removable_b > 0) & test_b["above"]                              # (N,) the rule's per-seed test

# %% [markdown]
# Did the plant take? At the test's own level and with its noise: at least 8 heads removable
# with all four smoothers among them; removing the four costs at most 0.01 accuracy on clean
# input, either way; and under noise it costs at least 0.02 accuracy (noisy accuracy with every
# head minus noisy accuracy without the four).

# %%
smoothers = torch.zeros(N, H, dtype=torch.bool)
smoothers[:, SMOOTHERS] = True
smoothers_clean_cost = full_b - accuracy_without(net_b, smoothers, test_set)             # (N,)
smoothers_noisy_drop = noisy_full_b - noisy_accuracy(net_b, smoothers, std_b, test_set)  # (N,)
smoothers_removable = removable_b[:, SMOOTHERS].all(dim=1)                               # (N,)
took = ((n_removable_b >= ON_BAR) & smoothers_removable & (smoothers_clean_cost.abs() <= 0.01)
        & (smoothers_noisy_drop >= 0.02))                                                # (N,)
detected_b = took & test_fires_b
level_in_range = (GRID[None] == level_b[:, None]).int().argmax(dim=1) >= lowest          # (N,)

# %%
print("draw  A: |R| stand-ins on-bar test detected   B: |R| level clean  noisy  took test detected")
for i in range(N):
    print(f"{i:4d}     {int(n_removable_a[i]):3d} {int(stands_in[i].sum()):9d} {int(on_bar[i]):6d} "
          f"{int(test_a[i]):4d} {int(detected_a[i]):8d}      {int(n_removable_b[i]):3d} {float(level_b[i]):5.2f} "
          f"{float(smoothers_clean_cost[i]):6.3f} {float(smoothers_noisy_drop[i]):6.3f} {int(took[i]):4d} "
          f"{int(test_fires_b[i]):4d} {int(detected_b[i]):8d}")
print("detected: arm A", int(detected_a.sum()), "arm B", int(detected_b.sum()), "of", N)

# %%
# Recording: the detections (claim C25's power reads planted_detection_share), then the notes.
report.number("n_seeds", N, kind="count")                  # 32 = C25's seed_cap: no doubling
report.number("planted_draws", N, kind="count")
report.number("planted_backup_detected", detected_a.sum(), kind="count")
report.number("planted_smoothing_detected", detected_b.sum(), kind="count")
report.number("planted_detection_share", min(int(detected_a.sum()), int(detected_b.sum())) / N, kind="share")
report.number("planted_backup_on_bar_draws", on_bar.sum(), kind="count")
report.number("planted_smoothing_took_draws", took.sum(), kind="count")
report.number("planted_valid_draws", min(int(on_bar.sum()), int(took.sum())), kind="count")
report.number("planted_backup_off_bar_draws", (n_removable_a < ON_BAR).sum(), kind="count")
report.number("planted_smoothing_off_bar_draws", (n_removable_b < ON_BAR).sum(), kind="count")
report.number("planted_backup_test_draws", test_a.sum(), kind="count")
report.number("planted_smoothing_test_draws", test_fires_b.sum(), kind="count")
report.number("planted_backup_removable_mean", n_removable_a.float().mean(), "{:.1f}")
report.number("planted_smoothing_removable_mean", n_removable_b.float().mean(), "{:.1f}")
report.number("planted_backup_twin_is_partner_share", twin_is_partner.sum() / removable_a.sum().clamp(min=1),
              kind="share")
report.number("planted_smoothers_in_removable_draws", smoothers_removable.sum(), kind="count")
report.number("planted_smoothing_level_in_range_draws", level_in_range.sum(), kind="count")
report.number("planted_smoothers_clean_cost_mean", smoothers_clean_cost.mean(), "{:.3f}")
report.number("planted_smoothers_noisy_drop_mean", smoothers_noisy_drop.mean(), "{:.3f}")
report.number("planted_backup_full_accuracy_mean", full_a.mean(), "{:.3f}")
report.number("planted_smoothing_full_accuracy_mean", full_b.mean(), "{:.3f}")
report.number("planted_twin_noise_level_mean", twin_level.mean(), "{:.2f}")
report.save()
