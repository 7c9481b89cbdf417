# %% [markdown]
# # The first mistranslation, planted: can the gradient-step test see the push?
#
# gradient_step.py takes one tiny descent step at each seed's first
# mistranslation of 猫追逐激光点 and asks whether it pushes 追逐 to look at
# 激光点 (C38). Before that test may refute the claim, it must detect such a
# push where one must exist. Here we build a toy in which the verb of
# 猫追逐激光点 depends on its object and can learn it only through 追逐's row
# of the encoder's self-attention, train it the same way, and run the same
# test at the same checkpoint.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
import torch

from explainer.report import Report

torch.set_num_threads(1)
report = Report("three_roles.translation.planted_push")

# %% [markdown]
# ## The planted corpus
#
# 追逐 is *chases* only before the four laser-class things and *pursues*
# before every other object (animals, people, goals), so the verb of
# 猫追逐激光点 depends on its object; every other verb is as in the toy. And
# at the verb's place the decoder's cross-attention may read the Chinese only
# at 追逐: the object can reach the verb only through 追逐's row of the
# encoder's self-attention.

# %% tags=["planted_corpus"]
import inspect

from explainer.translation_toy import english, sources, tgt_id
from explainer.translation_step import VERB_SLOT, stacked

LASER_THINGS = {"激光点", "激光笔", "红球", "红点"}


def planted_english(subject, verb, obj):
    words = english(subject, verb, obj, "fixed")
    if verb == "追逐" and obj not in LASER_THINGS:
        words[VERB_SLOT] = "pursues"
    return words


print(inspect.getsource(stacked))

# %% [markdown]
# ## Training, and the same test
#
# Seeds 0–31 (32 draws whatever the tested corpus's seed count), the page's
# training, the same checkpoint (`train_watching`: the first step at which
# the verbs hold half the softmax at the verb's place and a verb other than
# *chases* is on top) and the same steps (`object_half`, on float64 copies).
# A draw is detected when, under the full gradient, both the $L_c$ and the
# $L_m$ step raise 激光点 against 猫 in 追逐's row.

# %% tags=["planted_step"]
from explainer.translation_step import object_half, train_watching, weights_at

PLANTED_DRAWS = 32
params, planted_tgt = stacked([(planted_english, range(PLANTED_DRAWS), True)])
watch = train_watching(params, planted_tgt)
pp, planted_wrong, planted_step = weights_at(watch, "first")
planted_tested = planted_step > 0
planted_half = object_half(pp, planted_tgt, planted_wrong)
full_c, full_m = planted_half["steps"]["full", "c"], planted_half["steps"]["full", "m"]
planted_detected = planted_tested & (full_c["object_subject"].mean(-1) > 0) & (full_m["object_subject"].mean(-1) > 0)
print(f"planted toy: {int(planted_tested.sum())} of {PLANTED_DRAWS} draws mistranslate, "
      f"{int(planted_detected.sum())} detected")

# %% [markdown]
# ## Notes
#
# The row-only reading of the same test; the link built as the tested
# corpus's rule reads it; when the draws first mistranslate; whether the toy
# learns 追逐's verb at all; and, for C17, its link test on the trained draws.

# %%
from explainer.translation_step import forward

row_c, row_m = planted_half["steps"]["row", "c"], planted_half["steps"]["row", "m"]
planted_row_detected = planted_tested & (row_c["object_subject"].mean(-1) > 0) & (row_m["object_subject"].mean(-1) > 0)
# The planted toy after 400 steps: does it give 追逐 the right verb in its own sentences?
chase_rows = [i for i, s in enumerate(sources) if s[1] == "追逐"]
final_logits = forward({k: v.double() for k, v in watch["final"]["params"].items()},
                       planted_tgt, chase_rows)[0]
planted_right = (final_logits[:, :, VERB_SLOT].argmax(-1) == planted_tgt[1][:, chase_rows, VERB_SLOT]).double().mean(-1)

# %%
# Recording the planted check (C38's power) and the notes.
from explainer.translation_toy import chase_laser_link  # C17's link test, for a note at the end

report.number("n_seeds", PLANTED_DRAWS, kind="count")      # the registry reads it: its draws are its seeds
report.number("planted_draws", PLANTED_DRAWS, kind="count")
report.number("planted_tested_draws", planted_tested.sum(), kind="count")
report.number("planted_detected", planted_detected.sum(), kind="count")
report.number("planted_detection_share", planted_detected.sum() / PLANTED_DRAWS, kind="share")
report.number("planted_row_detected_share", planted_row_detected.sum() / PLANTED_DRAWS,
              kind="share")
report.number("planted_link_built_share",
              (planted_half["link_built"] & planted_tested).sum() / PLANTED_DRAWS, kind="share")
report.number("planted_checkpoint_step_mean",
              planted_step[planted_tested].double().mean() if planted_tested.any() else 0, "{:.1f}")
report.number("planted_verb_right_share", planted_right.mean(), kind="share")
# A note for C17: its link test (attention, and a cut that breaks the masked greedy translation) on the
# planted toy's final weights, whose corpus makes 追逐's verb the minority word (C17's planted arm does not).
report.number("planted_toy_link_seeds", chase_laser_link(watch["final"]["params"], planted_tgt)["link"].sum(),
              kind="count")

report.save()
