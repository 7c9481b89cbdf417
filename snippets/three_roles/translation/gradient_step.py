# %% [markdown]
# # The first step: which way does the gradient push 追逐's attention?
#
# Source B says that when the model first mistranslates 猫追逐激光点, the loss
# sends back two gradients: one that strengthens 追逐 → *chases* (the verb's
# content) and one that builds the link between 追逐 and 激光点 (its object).
# The second is a claim about $W_Q$ and $W_K$, the matrices that decide where
# 追逐 looks. We take the translation toy of the page at step 0 (random
# weights, every seed batched in one model), compute the loss on the
# held-out 猫追逐激光点 → "the cat chases the laser dot", and take one small
# descent step on the encoder's $W_Q$ and $W_K$ alone. Does 追逐's attention
# to 激光点 rise more than its attention to 猫 or to itself?

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
import torch

from explainer.report import Report
from explainer.seeds import n_seeds, report_seed_count, report_spread

torch.set_num_threads(1)
report = Report("three_roles.translation.gradient_step")

# %% [markdown]
# ## The toy of the translation page
#
# The same corpora, model, seeds and stacked pass as `three_roles.translation`
# (kept in `explainer.translation_toy`): on the page, the cells above define
# them.

# %%
import torch.nn.functional as F  # noqa: F401 — the page's cells import it too

from explainer.translation_toy import (ARMS, GOALS, OBJECT_POS, SUBJECT_POS, TEST, VERB_POS,
                                       batch_targets, decode, encode, english, make_models,
                                       model_targets, sources, src_all, tgt_id, train)

# %% [markdown]
# ## One descent step on chosen weights
#
# `sentence_loss` is each model's mean cross-entropy on 猫追逐激光点, with the
# log-probability of "chases" at its place and 追逐's row of the encoder's
# self-attention (mean of the two heads). `descent_step` moves only the named
# weights, $W \leftarrow W - \eta\,\partial L / \partial W$: the loss is a sum
# over the models, so each model gets its own loss's gradient.

# %% tags=["gradient_step"]
QK = ["enc_self.W_Q.weight", "enc_self.W_K.weight"]     # where 追逐 looks
VALUE = ["enc_self.W_V.weight", "enc_self.W_O.weight"]  # what it brings back: the value path
OUTPUT = ["readout.weight", "readout.bias"]             # the decoder's output layer
TEST_ROW = sources.index(TEST)
CHASES_AT = english(*TEST, "fixed").index("chases")     # the verb's place in the English


def sentence_loss(p, tgt):
    """Each model's mean loss on 猫追逐激光点 (M,), log p("chases") at its place (M,),
    and 追逐's encoder self-attention row, mean of the heads (M, 3)."""
    memory, self_weights = encode(p, src_all[[TEST_ROW]])      # self_weights: (M, 1, nh, 3, 3)
    tgt_in, tgt_out = batch_targets(tgt, [TEST_ROW])           # (M, 1, L)
    logits, _ = decode(p, memory, tgt_in, reads=tgt[2])        # (M, 1, L, vocab)
    log_probs = logits[:, 0].log_softmax(-1)                   # (M, L, vocab)
    target = tgt_out[:, 0]                                     # (M, L)
    picked = log_probs.gather(-1, target[..., None])[..., 0]   # (M, L)
    real = (target != 0).float()                               # 0 is <pad>
    loss = -(picked * real).sum(-1) / real.sum(-1)             # (M,)
    return loss, picked[:, CHASES_AT], self_weights[:, 0, :, VERB_POS].mean(1)


def descent_step(p, tgt, names, step_size):
    """A copy of p with W <- W - step_size * dL/dW for the named weights only."""
    p = {k: v.detach().requires_grad_(k in names) for k, v in p.items()}
    with torch.enable_grad():
        loss, _, _ = sentence_loss(p, tgt)
        grads = torch.autograd.grad(loss.sum(), [p[k] for k in names])
    stepped = dict(zip(names, grads))
    return {k: (v - step_size * stepped[k] if k in names else v).detach() for k, v in p.items()}


@torch.no_grad()
def step_changes(p, tgt, names, step_size):
    """After one descent step on the named weights: the change of 追逐's attention to each
    source word (M, 3), of the loss (M,) and of log p("chases") (M,). In float64: the change
    of a small step lies far below float32's resolution."""
    p = {k: v.detach().double() for k, v in p.items()}
    loss, chases, row = sentence_loss(p, tgt)
    new_loss, new_chases, new_row = sentence_loss(descent_step(p, tgt, names, step_size), tgt)
    return new_row - row, new_loss - loss, new_chases - chases


def rises_most(change, word=OBJECT_POS):
    """Does the attention to ``word`` rise more than to any other source word? (M,)"""
    others = torch.cat([change[:, :word], change[:, word + 1:]], dim=1)  # (M, 2)
    return change[:, word] > others.amax(-1)


# %% [markdown]
# ## At step 0, four seeds
#
# Seed *i* starts from the same weights in every arm of the page; the full
# model on the corpus where 追逐 is translated by its object is the one we
# read (猫追逐激光点 has the same English in both corpora, so the first arm
# gives the same numbers).

# %% tags=["first_step"]
STEP = 0.01
start_models, _, start_arm = make_models([0, 1, 2, 3])       # random weights, 3 arms × 4 seeds
start_tgt = model_targets(start_arm)
read = start_arm == list(ARMS).index("object_dependent")
change, loss_change, _ = step_changes(start_models, start_tgt, QK, STEP)
print("change of 追逐's attention to 猫, 追逐, 激光点 (one row per seed):")
print(change[read].numpy().round(6))
print("激光点 rises most:", rises_most(change)[read].tolist())
print("loss change:", loss_change[read].numpy().round(6))

# %% [markdown]
# ## The full run: every seed of the page

# %%
SEEDS = list(range(n_seeds(8)))   # the build takes more when a verdict is undecided
n = len(SEEDS)
params, _, arm_of = make_models(SEEDS)
tgt = model_targets(arm_of)
arm = {name: arm_of == i for i, name in enumerate(ARMS)}
STEP_SIZES = (0.001, 0.01, 0.1)                        # the rule's step is 0.01; the others are notes
changes = {size: step_changes(params, tgt, QK, size) for size in STEP_SIZES}
value_path = step_changes(params, tgt, VALUE, STEP)
output_path = step_changes(params, tgt, OUTPUT, STEP)
with torch.no_grad():
    start_loss, start_chases, start_row = sentence_loss(params, tgt)

# %% [markdown]
# ## The planted toy: the verb's English needs 追逐 to find 激光点
#
# The check that the test can see the effect where it exists. A toy in which
# the verb's translation depends on its object and can reach the English only
# through 追逐's attention: the full model on the corpus where 追逐 is
# translated by its object ("chases" a thing, "pursues" a goal), except that
# while the decoder writes the verb its cross-attention may read the Chinese
# only at 追逐 (every other English word reads all three, so the nouns are read
# directly). Its encoder's $W_Q$ and $W_K$ stay at their random step-0 values
# while everything else trains for the page's 400 steps (猫追逐激光点 held
# out), so the rest of the model has learned to take the object's kind from
# 追逐's attention. Then the same step and the same count. Each planted model
# is one draw.

# %%
PLANTED_DRAWS, PLANTED_STEPS = 32, 400
VERB_EN = 2                                            # every subject is one English word
assert all(english(*s, c)[VERB_EN] in ("chases", "pursues", "watches", "likes", "bites")
           for s in sources for c in ("fixed", "object_dependent"))
planted, _, planted_arm = make_models(list(range(PLANTED_DRAWS)))
mine = planted_arm == list(ARMS).index("object_dependent")
planted = {k: v[mine].detach().clone().requires_grad_(k not in QK)   # W_Q, W_K kept at step 0
           for k, v in planted.items()}
tgt_in_all, tgt_out_all, _ = (x[mine] for x in model_targets(planted_arm))
reads = torch.ones(PLANTED_DRAWS, tgt_in_all.shape[-1], 3, dtype=torch.bool)   # (M, T, S)
reads[:, VERB_EN] = torch.tensor([False, True, False])                          # the verb reads 追逐 only
planted_tgt = (tgt_in_all, tgt_out_all, reads)
planted_qk = {k: planted[k].clone() for k in QK}
with torch.no_grad():
    planted_loss_start, _, _ = sentence_loss(planted, planted_tgt)
train(planted, planted_tgt, PLANTED_STEPS)
planted_change, _, _ = step_changes(planted, planted_tgt, QK, STEP)
with torch.no_grad():
    planted_loss_trained, planted_chases, _ = sentence_loss(planted, planted_tgt)
planted_detected = rises_most(planted_change)
# Does the planted toy's verb depend on its object? Its word for 追逐 (teacher-forced, most
# likely) in every sentence with a goal as object, where the right word is "pursues".
goal_rows = [i for i, (s, v, o) in enumerate(sources) if v == "追逐" and o in GOALS]
with torch.no_grad():
    goal_logits, _ = decode(planted, encode(planted, src_all[goal_rows])[0],
                            tgt_in_all[:, goal_rows], reads=reads)       # (M, B, T, vocab)
planted_pursues = (goal_logits[:, :, VERB_EN].argmax(-1) == tgt_id["pursues"]).float().mean(-1)  # (M,)
print(f"planted toy: 激光点 rises most in {int(planted_detected.sum())} of {PLANTED_DRAWS} draws")

# %% [markdown]
# ## Results over the seeds

# %%
WORDS = {"subject": (SUBJECT_POS, "猫"), "verb": (VERB_POS, "追逐"), "object": (OBJECT_POS, "激光点")}
PATHS = {"qk": ("W_Q and W_K", "W_Q 和 W_K"), "value": ("value path (W_V, W_O)", "值向量通路（W_V、W_O）"),
         "output": ("output layer", "输出层")}
full = arm["object_dependent"]
change, loss_change, chases_change = changes[STEP]
rises = rises_most(change)
report.number("n_seeds", n, "{:.0f}", en="random seeds (models at step 0)", zh="随机种子数（第 0 步的模型）")
report.number("step_size", STEP, "{:g}", en="step size of the descent step", zh="下降一步的步长")
report_seed_count(report, "rises_most_seeds", rises[full],
                  en="seeds where one descent step on W_Q, W_K raises 追逐's attention to 激光点 more than "
                     "to any other source word", zh="在 W_Q、W_K 上下降一步后，“追逐”对“激光点”的注意力比对"
                                                    "其他任何源语词升得都多的种子数")
report.number("corpora_difference", (change[arm["fixed"]] - change[full]).abs().max(), "{:.1e}",
              en="largest difference of the attention changes between the two corpora's full models",
              zh="两个语料的完整模型之间注意力变化的最大差")
for size, key in ((0.001, "small_step"), (0.1, "large_step")):
    report.number(f"{key}_size", size, "{:g}", en=f"step size of a note ({key.replace('_', ' ')})",
                  zh=f"旁注用的步长（{'小' if size < STEP else '大'}步）")
    report_seed_count(report, f"rises_most_seeds_{key}", rises_most(changes[size][0])[full],
                      en=f"seeds where 激光点 rises most, step size {size:g} (note)",
                      zh=f"步长 {size:g} 时“激光点”升得最多的种子数（旁注）")
report_seed_count(report, "forced_rises_most_seeds", rises[arm["forced"]],
                  en="seeds where 激光点 rises most at step 0 in the forced arm (note)",
                  zh="强制组在第 0 步“激光点”升得最多的种子数（旁注）")
for word, (position, zh_word) in WORDS.items():
    report_spread(report, f"change_{word}", change[full, position] * 1e3, "{:+.4f}",
                  en=f"change of 追逐's attention to {zh_word} after the step, ×1000",
                  zh=f"这一步之后“追逐”对“{zh_word}”注意力的变化，×1000")
    report_spread(report, f"start_attention_{word}", start_row[full, position], "{:.2f}",
                  en=f"追逐's attention to {zh_word} at step 0 (mean of the heads)",
                  zh=f"第 0 步“追逐”对“{zh_word}”的注意力（两个头的平均）")
report_spread(report, "start_loss", start_loss[full], "{:.2f}", en="loss on 猫追逐激光点 at step 0",
              zh="第 0 步在“猫追逐激光点”上的损失")
# The content half, a note: the same step on the value path and on the output layer.
for path, (_, loss_delta, chases_delta) in (("qk", changes[STEP]), ("value", value_path),
                                            ("output", output_path)):
    en_path, zh_path = PATHS[path]
    report_spread(report, f"{path}_loss_change", loss_delta[full] * 1e3, "{:+.4f}",
                  en=f"loss change after the step on the {en_path}, ×1000",
                  zh=f"在{zh_path}上走这一步后损失的变化，×1000")
    report_seed_count(report, f"{path}_loss_falls_seeds", loss_delta[full] < 0,
                      en=f"seeds whose loss falls after the step on the {en_path}",
                      zh=f"在{zh_path}上走这一步后损失下降的种子数")
    report_spread(report, f"{path}_chases_change", chases_delta[full] * 1e3, "{:+.4f}",
                  en=f"change of log p(chases) at its place after the step on the {en_path}, ×1000",
                  zh=f"在{zh_path}上走这一步后 chases 位置上 log p(chases) 的变化，×1000")

# The planted toy (G1): its own draws, not the seeds above.
report.number("planted_draws", PLANTED_DRAWS, "{:.0f}", en="draws of the planted toy", zh="植入玩具的抽样数")
report.number("planted_steps", PLANTED_STEPS, "{:.0f}", en="training steps of the planted toy (W_Q, W_K kept)",
              zh="植入玩具的训练步数（W_Q、W_K 保持不动）")
report.number("planted_detected", planted_detected.sum(), kind="count",
              en="planted draws in which 激光点 rises most", zh="“激光点”升得最多的植入抽样数")
report.number("planted_detection_share", planted_detected.float().mean(), kind="share",
              en="share of planted draws the test detects", zh="检验能检出的植入抽样比例")
report.number("planted_qk_moved", max((planted[k] - planted_qk[k]).abs().max() for k in QK), "{:.1e}",
              en="largest change of the planted toy's W_Q, W_K during its training",
              zh="植入玩具训练期间 W_Q、W_K 的最大变化")
report.number("planted_loss_start", planted_loss_start.mean(), "{:.2f}",
              en="planted toy: loss on 猫追逐激光点 before training (mean)", zh="植入玩具：训练前在“猫追逐激光点”上的损失（平均）")
report.number("planted_loss_trained", planted_loss_trained.mean(), "{:.2f}",
              en="planted toy: loss on 猫追逐激光点 after training (mean)", zh="植入玩具：训练后在“猫追逐激光点”上的损失（平均）")
report.number("planted_chases_prob", planted_chases.exp().mean(), kind="share",
              en="planted toy: probability of “chases” at its place after training (mean)",
              zh="植入玩具：训练后 chases 位置上 chases 的概率（平均）")
report.number("planted_pursues_share", planted_pursues.mean(), kind="share",
              en="planted toy: sentences of 追逐 with a goal whose verb comes out “pursues” (teacher-forced, mean over draws)",
              zh="植入玩具：宾语是目标的“追逐”句子里，动词译成 pursues 的占比（教师强制，各抽样平均）")
report.number("planted_change_object_mean", planted_change[:, OBJECT_POS].mean() * 1e3, "{:+.4f}",
              en="planted toy: change of 追逐's attention to 激光点 after the step, ×1000 (mean)",
              zh="植入玩具：这一步之后“追逐”对“激光点”注意力的变化，×1000（平均）")
report.number("planted_change_subject_mean", planted_change[:, SUBJECT_POS].mean() * 1e3, "{:+.4f}",
              en="planted toy: change of 追逐's attention to 猫 after the step, ×1000 (mean)",
              zh="植入玩具：这一步之后“追逐”对“猫”注意力的变化，×1000（平均）")

# %%
# The page's sentences, from the counts.
k = int(rises[full].sum())
share = "most" if k >= 0.75 * n else "few" if k <= 0.25 * n else "some"
report.text("rises_answer", en={"most": "In most seeds, yes.", "few": "In most seeds, no.",
                                "some": "In some seeds, not in most."}[share],
            zh={"most": "多数种子里是的。", "few": "多数种子里不是。", "some": "一部分种子里是，但不到多数。"}[share])
detection = planted_detected.float().mean()
seen = "sees" if detection >= 0.8 else "rarely" if detection < 0.5 else "misses"
report.text("planted_answer",
            en={"sees": "so the test sees the push in the planted toy",
                "rarely": "so the test rarely sees a push towards 激光点 even in the planted toy",
                "misses": "so the test misses the push in the planted toy more than one time in five"}[seen],
            zh={"sees": "可见在植入的玩具里，这个检验看得见这股推力",
                "rarely": "可见即使在植入的玩具里，这个检验也很少看到朝向“激光点”的推力",
                "misses": "可见在植入的玩具里，这个检验每五次就有不止一次看不到这股推力"}[seen])

report.save()
