# %% [markdown]
# # Why heads differ (1), the planted check: could the count see heads in different roles?
#
# The claims ledger's rule for C09 refutes the source when random starts separate two heads
# in at most a quarter of the seeds (`many_heads.why_heads_differ.head_symmetry`). A
# refutation stands only if the same test sees two heads that certainly differ in a role.
# 32 draws (seeds 0–31, whatever the tested run uses): draw i starts from seed i's draw and
# trains on seed i's batches, so draws 0 to n−1 repeat the tested identical arm. Both heads
# start as exact copies; head i mod 2 is pulled by an extra loss into the entity role,
# w · relu(0.55 − its mean attention from *it* to the animal), on 256 sentences that neither
# the training nor the probe uses (seeded 777); the other head gets no pull. Each draw
# trains beside an unpulled twin in the same stack. A draw is valid if, on those 256
# sentences, the pulled head gives the animal at least 0.5, the other head less than 0.5,
# and the model is at most 0.02 less accurate than its twin. The weight w is the first of
# 1, 10, 100 at which 29 of the 32 draws are valid, read on those sentences only; then,
# once, the test's similarities on the probe sentences: a valid draw is detected if the
# pattern similarity over all rows or over the rows that need a view is below 0.9.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.report import Report

report = Report("many_heads.why_heads_differ.head_symmetry_planted")

# %% [markdown]
# ## The language, the model and the tested run's sentences
#
# The same pronoun language, training pool, probe sentences and 2-head model as the tested
# run (`head_symmetry.py`); the rows that need a view are *it* and the two adverbs.

# %%
import random

import torch

from explainer.batched import StackedTransformer, evaluate_batched, per_model, train_batched
from explainer.entity_pull import entity_pull, view_similarity
from explainer.head_metrics import attention_to, pattern_similarity
from explainer.pronoun_language import SENTENCE_LENGTH, VOCAB, batch
from explainer.tiny_transformer import TransformerConfig
from explainer.training import sample_from

torch.set_num_threads(1)
STEPS = 300
pool_tokens, pool_targets, _ = batch(random.Random(0), 8192)          # training sentences
task = sample_from(pool_tokens, pool_targets)
probe_tokens, probe_targets, places = batch(random.Random(1234), 400)  # the test's sentences
it_at, animal_at, thing_at = places.T
view_rows = torch.stack([it_at, animal_at + 1, thing_at + 1], dim=1)   # (B, 3): it, the two adverbs
config = TransformerConfig(vocab_size=len(VOCAB), n_ctx=SENTENCE_LENGTH, d_model=32, n_heads=2)
aux_tokens, aux_targets, aux_places = batch(random.Random(777), 256)  # used by no test
aux_it, aux_animal, _ = aux_places.T

# %% [markdown]
# ## The planted stack
#
# One stack of 64 models: the 32 unpulled twins, then the 32 pulled copies. Head 1 is made
# an exact copy of head 0 (its rows of W_Q, W_K, W_V and its columns of W_O), as in the
# tested identical arm; the pull (`explainer/entity_pull.py`) reaches only the pulled head's
# W_Q and W_K, and has weight 0 on the twins.

# %%
DRAWS = list(range(32))          # fixed: the build's doubling of seeds never changes it
PULL_WEIGHTS = (1.0, 10.0, 100.0)
N = len(DRAWS)
pulled = torch.tensor([draw % 2 for draw in DRAWS])                    # (N,) the pulled head


def train_planted(pull_weight: float) -> StackedTransformer:
    stack = StackedTransformer.from_seeds(config, DRAWS + DRAWS)        # twins, then pulled copies
    hs = stack.head_size
    with torch.no_grad():
        for name in ("W_Q", "W_K", "W_V"):
            getattr(stack, name)[:, hs:2 * hs] = getattr(stack, name)[:, :hs]
        stack.W_O[:, :, hs:2 * hs] = stack.W_O[:, :, :hs]
    weight = torch.cat([torch.zeros(N), torch.full((N,), pull_weight)])     # (2N,)
    train_batched(stack, task, steps=STEPS, batch_size=16, data_seeds=DRAWS + DRAWS,
                  extra_loss=entity_pull(aux_tokens, aux_it, aux_animal, pulled.repeat(2), weight))
    return stack

# %% [markdown]
# ## The ladder, read on the 256 unused sentences only

# %%
ROLE_AT = 0.5         # the pulled head gives the animal at least this, the other head less
ACCURACY_SLACK = 0.02  # a valid pulled model is at most this much less accurate than its twin
VALID_NEEDED = 29     # a weight of the ladder is taken once this many draws are valid
for pull_weight in PULL_WEIGHTS:
    stack = train_planted(pull_weight)
    _, aux_accuracy = evaluate_batched(stack, aux_tokens, aux_targets)                # (2N,)
    entity = per_model(attention_to, stack.last_weights, aux_it, aux_animal)[N:]      # (N, 2)
    pulled_entity, other_entity = entity[torch.arange(N), pulled], entity[torch.arange(N), 1 - pulled]
    kept_accuracy = aux_accuracy[N:] >= aux_accuracy[:N] - ACCURACY_SLACK
    valid = (pulled_entity >= ROLE_AT) & (other_entity < ROLE_AT) & kept_accuracy       # (N,)
    print(f"w = {pull_weight:g}: {int(valid.sum())} of {N} draws valid (pulled head at {ROLE_AT}: "
          f"{int((pulled_entity >= ROLE_AT).sum())}, other head below {ROLE_AT}: {int((other_entity < ROLE_AT).sum())}, "
          f"accuracy kept: {int(kept_accuracy.sum())})")
    if valid.sum() >= VALID_NEEDED:
        break

# %% [markdown]
# ## The test, once, on the probe sentences

# %%
DIFFER_BELOW = 0.9    # a pair of heads "differs" below this pattern similarity (C09's line)
evaluate_batched(stack, probe_tokens, probe_targets)
probe_weights = stack.last_weights[N:]                                          # (N, B, 2, T, T)
similarity = torch.stack([pattern_similarity(w)[0, 1] for w in probe_weights])  # (N,)
view = torch.stack([view_similarity(w, view_rows)[0, 1] for w in probe_weights])  # (N,)
detected = valid & ((similarity < DIFFER_BELOW) | (view < DIFFER_BELOW))
print(f"detected in {int(detected.sum())} of {N} draws")
print("pattern similarity", similarity.numpy().round(2))
print("at the rows that need a view", view.numpy().round(2))

# %%
report.number("planted_draws", N, kind="count")
report.number("differ_below", DIFFER_BELOW, "{:.1f}")
report.number("role_at", ROLE_AT, "{:.1f}")
report.number("accuracy_slack", ACCURACY_SLACK, "{:.2f}")
report.number("valid_needed", VALID_NEEDED, kind="count")
report.number("planted_detection_share", detected.float().mean(), kind="share")
report.number("planted_valid_draws", valid.sum(), kind="count")
report.number("planted_pull_weight", pull_weight, "{:g}")
report.number("planted_pattern_detected_draws", (valid & (similarity < DIFFER_BELOW)).sum(), kind="count")
report.number("planted_view_detected_draws", (valid & (view < DIFFER_BELOW)).sum(), kind="count")
report.number("planted_similarity_mean", similarity.mean(), "{:.2f}")
report.number("planted_view_similarity_mean", view.mean(), "{:.2f}")
report.number("planted_pulled_entity_mean", pulled_entity.mean(), "{:.2f}")
report.number("planted_other_entity_mean", other_entity.mean(), "{:.2f}")

report.save()
