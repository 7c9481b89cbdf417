# %% [markdown]
# # Could the link test see a link the translation needs? The planted arm
#
# The claims ledger's rule for C17 refutes the source's story when the full
# model translates 猫追逐激光点 exactly while the link 追逐 → 激光点 forms in at
# most a quarter of its seeds (`three_roles.translation.link`). A refutation
# stands only if the same test finds such a link where one is certainly built
# and used. This arm builds it in: the full model on the corpus where 追逐 is
# translated by its object, with the same seeds, training pairs and training,
# except that while the decoder writes the verb, its cross-attention may read
# the Chinese only at 追逐. The verb's translation then has to reach it through
# the link 追逐 → 激光点, while "laser dot" is still read directly: every other
# English position reads all three Chinese words, as in the full model.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.report import Report
from explainer.seeds import n_seeds, report_seed_count

report = Report("three_roles.translation.planted")

# %% [markdown]
# ## The planted models
#
# `make_planted` stacks one model per seed (seed *i* starts from the same
# weights as in every arm of the page) and gives each the mask: at the verb's
# place the cross-attention reads 追逐 only. The toy's `attention` applies it
# per English position, in training and in every measurement, greedy decoding
# included. No other route can bring the object to the verb: the decoder has
# one block whose self-attention reads only English words, and the encoder's
# MLP works on each position alone.

# %%
import inspect

import torch

from explainer.translation_toy import make_planted, measure, train, verb_by_object

torch.set_num_threads(1)
print(inspect.getsource(make_planted))
SEEDS = list(range(n_seeds(8)))   # the build trains more when a verdict is undecided
STEPS = 400
params, tgt = make_planted(SEEDS)                          # M = len(SEEDS)
train(params, tgt, STEPS)
end = measure(params, tgt)                                 # the link test of the rule, among others
object_used = verb_by_object(params, tgt)                  # (M,)
print(f"猫追逐激光点 exact {end['test_correct'].int().tolist()}, linked {end['link'].int().tolist()}, "
      f"verb follows the object {object_used.int().tolist()}")

# %% [markdown]
# ## The same test, per seed
#
# A planted seed is detected when the rule's link test finds the link: in some
# encoder head 激光点 takes the largest share of 追逐's attention among the
# other words and more than 猫 gives 激光点, and removing that edge breaks the
# exact translation. A seed that does not translate 猫追逐激光点 exactly cannot
# pass, so it counts as not detected. Its parts are counted too, and whether
# the plant took: teacher-forced, the verb's place says *pursues* for 猫追逐梦想
# and 猫追逐目标 and *chases* for 猫追逐激光点, a choice that with the mask can
# only come through 追逐's row.

# %%
N_SEEDS = len(SEEDS)
report.number("n_seeds", N_SEEDS, "{:.0f}", en="random seeds of the planted arm", zh="植入组的随机种子数")
report.number("steps", STEPS, "{:.0f}", en="training steps", zh="训练步数")
ARM = ("planted arm: at the verb's place the decoder reads only 追逐", "植入组：解码器在动词位置上只能读“追逐”")
report_seed_count(report, "planted_link_seeds", end["link"],
                  en=f"seeds whose 追逐 → 激光点 link forms by the rule of C17 — {ARM[0]}",
                  zh=f"按 C17 的规则形成“追逐 → 激光点”关联的种子数（{ARM[1]}）")
report.number("planted_detection_share", end["link"].mean(), kind="share", per_seed=end["link"], of="mean",
              en=f"share of planted seeds in which the link test finds the link — {ARM[0]}",
              zh=f"关联检验能检出关联的植入种子比例（{ARM[1]}）")
report_seed_count(report, "planted_correct_seeds", end["test_correct"],
                  en=f"seeds translating 猫追逐激光点 exactly after training — {ARM[0]}",
                  zh=f"训练后把“猫追逐激光点”译对的种子数（{ARM[1]}）")
report_seed_count(report, "planted_link_attention_seeds", end["link_attention"],
                  en=f"seeds with an encoder head where 激光点 takes the largest share of 追逐's attention among the "
                     f"other words and more than 猫 gives 激光点 (the weights alone, no cut) — {ARM[0]}",
                  zh=f"有编码器头让“激光点”在其他词中占“追逐”注意力最大、且大于“猫”给“激光点”的注意力的种子数"
                     f"（只看权重，不去边；{ARM[1]}）")
report_seed_count(report, "planted_link_breaks_seeds", end["link_breaks"],
                  en=f"seeds where removing 追逐 → 激光点 in some encoder head breaks the exact translation — {ARM[0]}",
                  zh=f"在某个编码器头里去掉“追逐 → 激光点”这条边后译文不再完全正确的种子数（{ARM[1]}）")
report_seed_count(report, "planted_object_used_seeds", object_used,
                  en=f"seeds whose verb follows the object, teacher-forced: pursues for 猫追逐梦想 and 猫追逐目标, "
                     f"chases for 猫追逐激光点 (the plant took) — {ARM[0]}",
                  zh=f"教师强制下动词随宾语而变的种子数：“猫追逐梦想”“猫追逐目标”译成 pursues，“猫追逐激光点”译成 "
                     f"chases（植入生效；{ARM[1]}）")

report.save()
