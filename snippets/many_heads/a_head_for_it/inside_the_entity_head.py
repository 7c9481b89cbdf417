# %% [markdown]
# # A head for "it" (2): inside the entity head
#
# The toy pronoun language of two_heads.py (explainer/pronoun_language.py):
# `... because it` is followed by the animal the sentence mentioned, never the
# thing. A 1-layer, 2-head attention-only model learns it, for 8 random seeds at
# once. Source A says the pronoun finds its antecedent because the query of *it*
# meets the animal's key (C02), and takes in the animal's value (C03). We look
# inside each seed's entity head — the head that puts the most weight from `it`
# on the animal — and remove heads to see which prediction each one carries.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.report import Report
from explainer.seeds import report_seed_count, report_spread

report = Report("many_heads.a_head_for_it.inside_the_entity_head")

# %% [markdown]
# ## The language, and a probe held out
#
# The language and the batched model (every parameter has a leading seed
# dimension) come from the project's `explainer` package.

# %% tags=["language"]
from explainer.head_metrics import attention_to   # first: it pins torch's CPU kernels
from explainer.pronoun_language import ANIMALS, SENTENCE_LENGTH, VOCAB, probe_set, sentence, training_pool
from explainer.batched import SeededTransformer, evaluate_batched, train_batched
from explainer.seeds import n_seeds
from explainer.tiny_transformer import TransformerConfig
from explainer.training import IGNORE, sample_from
import random
import torch

torch.set_num_threads(1)
V, T = len(VOCAB), SENTENCE_LENGTH
N_SEEDS = n_seeds(8)   # 8 (the build trains more when a verdict is undecided)
SEEDS = list(range(N_SEEDS))
MOST = 0.5              # the animal's key wins "in most sentences": in more than this share of them
VALUE_SHARE_BAR = 0.5   # v(animal) dominates the head's output: at least this share of it

# Training sentences come from a pool (cheap to draw from); the probe is held out.
task = sample_from(*training_pool())
probe_tokens, probe_targets, (it_at, animal_at, thing_at), verb_targets, antecedent_targets = probe_set()
rows = torch.arange(len(it_at))                                # (B,): one row per probe sentence
words, *_ = sentence(random.Random(7))
print("a sentence:", " ".join(words))


# %% [markdown]
# ## The trained model and its entity head
#
# The same training as two_heads.py (same seeds, same batches, 300 steps); the
# entity head of a seed is its head with the largest weight from `it` to the animal.

# %%
model = SeededTransformer(TransformerConfig(vocab_size=V, n_ctx=T, d_model=32, n_heads=2, n_layers=1), SEEDS)
train_batched(model, task, steps=300, batch_size=32, lr=1e-2)
evaluate_batched(model, probe_tokens, probe_targets)                     # keeps the attention weights
final = {"weights": model.attention_weights()[0]}                       # (S, B, nh, T, T)
seeds = torch.arange(N_SEEDS)
entity = torch.stack([attention_to(w, it_at, animal_at) for w in final["weights"]]).argmax(dim=1)  # (S,)
report.number("n_seeds", N_SEEDS, "{:.0f}")
report.number("most_bar", MOST, "{:.2f}")
report.number("value_share_bar", VALUE_SHARE_BAR, "{:.2f}")

# %% [markdown]
# ## Recognition is a large q·k (C02) and the output is v(animal) (C03)
#
# Inside each seed's entity head: the score of `it`'s query with the animal's
# key and with the thing's key, and what the head hands to position `it`.

# %% tags=["inside_entity_head"]
from explainer.batched import per_seed_matmul

with torch.no_grad():
    x = model.embed(probe_tokens)                                        # (S, B, T, C)
    q, k, v = (model.split_heads(per_seed_matmul(x, W[:, 0])) for W in (model.W_Q, model.W_K, model.W_V))
    q, k, v = (t[seeds, :, entity] for t in (q, k, v))                   # (S, B, T, hs) entity head
scale = model.head_size ** 0.5
qk_animal = (q[:, rows, it_at] * k[:, rows, animal_at]).sum(-1) / scale  # (S, B)
qk_thing = (q[:, rows, it_at] * k[:, rows, thing_at]).sum(-1) / scale    # (S, B)
animal_wins = (qk_animal > qk_thing).float()                             # (S, B)
weights_it = final["weights"][seeds, :, entity][:, rows, it_at]          # (S, B, T) row of `it`
head_output = (weights_it[..., None] * v).sum(dim=2)                     # (S, B, hs)
from_animal = weights_it[:, rows, animal_at, None] * v[:, rows, animal_at]   # (S, B, hs)
from_thing = weights_it[:, rows, thing_at, None] * v[:, rows, thing_at]      # (S, B, hs)
norm2 = (head_output * head_output).sum(-1)                              # (S, B)
# Share of the output that the animal's weighted value accounts for (its projection
# on the output, over the output's squared length); the shares of all positions sum to 1.
share_animal = ((from_animal * head_output).sum(-1) / norm2).mean(dim=1)   # (S,)
share_thing = ((from_thing * head_output).sum(-1) / norm2).mean(dim=1)     # (S,)
cos_animal = torch.cosine_similarity(head_output, v[:, rows, animal_at], dim=-1).mean(dim=1)  # (S,)
cos_thing = torch.cosine_similarity(head_output, v[:, rows, thing_at], dim=-1).mean(dim=1)    # (S,)
print("q(it)·k/√d_k, mean over sentences, animal:", qk_animal.mean(dim=1).numpy().round(1))
print("                                   thing: ", qk_thing.mean(dim=1).numpy().round(1))
print("share of the output at it made of v(animal):", share_animal.numpy().round(2))
print("cosine of the output with v(animal):        ", cos_animal.numpy().round(2))

# %%
report_spread(report, qk_animal.mean(dim=1), "{:.1f}", mean="qk_animal_mean", std="qk_animal_std",
              min="qk_animal_min", max="qk_animal_max")
report_spread(report, qk_thing.mean(dim=1), "{:.1f}", mean="qk_thing_mean", std="qk_thing_std", min="qk_thing_min",
              max="qk_thing_max")
report_spread(report, animal_wins.mean(dim=1), kind="share", mean="qk_animal_wins_mean", std="qk_animal_wins_std",
              min="qk_animal_wins_min", max="qk_animal_wins_max")
report_seed_count(report, "qk_prefers_antecedent_seeds", animal_wins.mean(dim=1) > MOST)
report_spread(report, share_animal, "{:.2f}", mean="value_share_antecedent_mean", std="value_share_antecedent_std",
              min="value_share_antecedent_min", max="value_share_antecedent_max")
report.number("value_share_thing_mean", share_thing.mean(), "{:.2f}")
report_seed_count(report, "value_share_antecedent_seeds", share_animal >= VALUE_SHARE_BAR)
report_spread(report, cos_animal, "{:.2f}", mean="cos_output_animal_mean", std="cos_output_animal_std",
              min="cos_output_animal_min", max="cos_output_animal_max")
report.number("cos_output_thing_mean", cos_thing.mean(), "{:.2f}")

# %% tags=["ignored_animals"]
# Per animal word: does the entity head look at it? A word the head never looks
# at must be answered another way (by elimination: "none of the others").
IGNORED_WEIGHT = 0.5    # the head does not look at an animal word: mean weight on it below this
animal_words = probe_tokens[rows, animal_at]                             # (B,)
weight_on_animal = weights_it[:, rows, animal_at]                        # (S, B)
with torch.no_grad():
    answers = model(probe_tokens)[:, rows, it_at].argmax(-1)             # (S, B)
ignored_counts, ignored_sentences, ignored_correct = [], 0, 0
for s in range(N_SEEDS):
    ignored = [w for w in animal_words.unique().tolist()
               if weight_on_animal[s, animal_words == w].mean() < IGNORED_WEIGHT]
    ignored_counts.append(len(ignored))
    in_ignored = torch.isin(animal_words, torch.tensor(ignored, dtype=torch.long))
    ignored_sentences += int(in_ignored.sum())
    ignored_correct += int((answers[s] == animal_words)[in_ignored].sum())
    print(f"seed {s}: animal words the entity head does not look at:",
          [VOCAB[w] for w in ignored] or "none")

# %%
report.number("ignored_weight", IGNORED_WEIGHT, "{:.2f}")
report.number("animal_words", len(ANIMALS) * 2, "{:.0f}")
report_spread(report, ignored_counts, "{:.1f}", kind="count", mean="ignored_animal_words_mean",
              std="ignored_animal_words_std", min="ignored_animal_words_min", max="ignored_animal_words_max")
report.number("ignored_sentences", ignored_sentences, "{:.0f}")
report.number("ignored_named_correctly", ignored_correct / max(ignored_sentences, 1), kind="share")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["without_entity"]
# Exercise 1: remove the entity head (its output zeroed before W_O). Which prediction breaks?
def accuracies_without(head_of_seed):
    """Agreement and antecedent accuracy of the 2-head models with one head per seed ablated."""
    mask = torch.ones(N_SEEDS, 1, 2)                         # (S, layers, heads): 1 = head on
    mask[seeds, 0, head_of_seed] = 0
    model.set_head_mask(mask)
    verb = evaluate_batched(model, probe_tokens, verb_targets)[1]            # (S,)
    antecedent = evaluate_batched(model, probe_tokens, antecedent_targets)[1]  # (S,)
    model.set_head_mask(torch.ones(N_SEEDS, 1, 2))
    return verb, antecedent


verb_1, antecedent_1 = accuracies_without(entity)
print("without the entity head, agreement: ", verb_1.numpy().round(2))
print("without the entity head, the animal:", antecedent_1.numpy().round(2))

# %% tags=["without_other"]
# Exercise 2: keep the entity head and remove the other one instead.
verb_2, antecedent_2 = accuracies_without(1 - entity)     # was: entity
print("without the other head, agreement: ", verb_2.numpy().round(2))
print("without the other head, the animal:", antecedent_2.numpy().round(2))

# %%
report.number("exercise_without_entity_antecedent_mean", antecedent_1.mean(), "{:.2f}")
report.number("exercise_without_entity_verb_mean", verb_1.mean(), "{:.2f}")
report.number("exercise_without_other_verb_mean", verb_2.mean(), "{:.2f}")
report.number("exercise_without_other_antecedent_mean", antecedent_2.mean(), "{:.2f}")

report.save()
