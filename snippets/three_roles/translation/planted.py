# %% [markdown]
# # Could the link test see a link the translation needs? The planted arms
#
# The claims ledger's rule for C17 refutes the source's story when the full
# model translates 猫追逐激光点 exactly while the link 追逐 → 激光点 forms in at
# most a quarter of its seeds (`three_roles.translation.link`). A refutation
# stands only if the same test finds such a link where one is certainly built
# and used. Two plants build it in, each in 32 draws (draw *i* starts from
# seed *i*'s weights), on the corpus where 追逐 is translated by its object,
# with the page's training pairs and training. Plant 1, masked: while the
# decoder writes the verb, its cross-attention may read the Chinese only at
# 追逐, so the verb's translation has to reach it through 追逐's row. Plant 2,
# unmasked: the full model unchanged, trained with one extra loss that pulls
# head 0 of 追逐's encoder row towards the object until it gets a tenth more
# than the subject, on the training sentences whose verb is 追逐. The check
# detects a plant only where its plant took and some head passes the link
# test while a control leaves the translation exact; the share is the
# smaller of the two plants'.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.report import Report

report = Report("three_roles.translation.planted")

# %% [markdown]
# ## The planted models
#
# `make_planted` stacks one model per draw and gives each the mask: at the
# verb's place the cross-attention reads 追逐 only (no other route can bring
# the object to the verb there). Plant 2 takes the same starting weights with
# a mask that allows everything, which is the full model. Both train in one
# stack of 64; the extra loss (`chase_aux_loss`) has weight 0 on plant 1 and
# *w* on plant 2. It is a one-sided hinge on the log ratio of head 0's
# attention from 追逐 to the object and to the subject: it pulls while the
# object gets less than 1.1 times the subject's share, and is zero beyond.
# The ladder *w* = 1, 10, 100 stops at the first weight where at least 29 of
# the 32 draws meet the hinge on at least 90 % of the training rows whose
# verb is 追逐 (`hinge_met`); a later weight retrains plant 2 alone from the
# same start. Only the plant's own instrument decides: the link test is run
# once, on the weight chosen.

# %%
import inspect

import torch

from explainer.translation_planted import chase_aux_loss, hinge_met, link_by_head
from explainer.translation_toy import chase_laser_link, make_planted, train, verb_by_object

torch.set_num_threads(1)
print(inspect.getsource(chase_aux_loss))
DRAWS = list(range(32))          # fixed: the build's doubling of seeds never changes it
STEPS = 400
WEIGHTS = (1.0, 10.0, 100.0)
N = len(DRAWS)
HINGE_DRAWS = 29                 # a weight of the ladder is enough once this many draws meet the hinge


def plants():
    """Plant 1 (masked) and plant 2 (the full model) from the same starting weights."""
    params, tgt = make_planted(DRAWS)
    return params, tgt, (tgt[0], tgt[1], torch.ones_like(tgt[2]))


masked, masked_tgt, full_tgt = plants()
stack = {k: torch.cat([v, v]).detach().requires_grad_() for k, v in masked.items()}
stack_tgt = tuple(torch.cat([a, b]) for a, b in zip(masked_tgt, full_tgt))
weight = torch.cat([torch.zeros(N), torch.full((N,), WEIGHTS[0])])
train(stack, stack_tgt, STEPS, extra_loss=chase_aux_loss(weight))
masked = {k: v[:N].detach() for k, v in stack.items()}
unmasked = {k: v[N:].detach() for k, v in stack.items()}
for w in WEIGHTS:
    if w != WEIGHTS[0]:                                     # a later rung: plant 2 alone, same start
        unmasked, _, _ = plants()
        train(unmasked, full_tgt, STEPS, extra_loss=chase_aux_loss(torch.full((N,), w)))
    met, met_share = hinge_met(unmasked)
    print(f"w = {w:g}: hinge met in {int(met.sum())} of {N} draws "
          f"(share of 追逐 rows per draw {[round(float(x), 2) for x in met_share]})")
    if met.sum() >= HINGE_DRAWS:
        break
hinge_failed = int(met.sum() < HINGE_DRAWS)

# %% [markdown]
# ## The same test, per draw, with a control
#
# The rule's link test (`chase_laser_link`) is run per encoder head: 激光点
# takes a larger share of 追逐's attention than 猫, more than 猫 gives 激光点,
# and removing that edge breaks the exact translation. The control keeps the
# edge's weight but lets it carry what 红球 (a thing: its verb is *chases*
# too) would carry at the object's place. A link that carries the choice of
# verb survives it; if the translation breaks, it hangs on the exact
# mixture of the row, and that draw is not counted. A draw is valid if its
# plant took (plant 1: teacher-forced, the verb's place says *pursues* for
# 猫追逐梦想 and 猫追逐目标 and *chases* for 猫追逐激光点; plant 2: the hinge
# is met), and detected if valid and some head passes the link test with a
# control that leaves the translation exact.

# %%
result = {}
for name, p, tgt, valid in (("masked", masked, masked_tgt, verb_by_object(masked, masked_tgt)),
                            ("unmasked", unmasked, full_tgt, met)):
    heads = link_by_head(p, tgt)                            # (M, nh) each
    fires = heads["link"].any(-1)
    assert torch.equal(fires, chase_laser_link(p, tgt)["link"].bool())   # the detector is the rule's test
    clean = (heads["link"] & ~heads["control_breaks"]).any(-1)
    result[name] = {"valid": valid, "fires": fires, "detected": valid & clean,
                    "control_breaks": valid & fires & ~clean, "attention": heads["link_attention"].any(-1),
                    "breaks": heads["link_breaks"].any(-1), "correct": heads["correct"]}
    print(name, {k: v.int().tolist() for k, v in result[name].items()})

# %%
masked_r, unmasked_r = result["masked"], result["unmasked"]
report.number("n_seeds", N, kind="count")                  # the registry reads it; 32 = C17's seed_cap: no doubling
report.number("planted_draws", N, kind="count")
report.number("steps", STEPS, kind="count")
report.number("planted_masked_detected", masked_r["detected"].sum(), kind="count")
report.number("planted_unmasked_detected", unmasked_r["detected"].sum(), kind="count")
report.number("planted_detection_share", min(masked_r["detected"].sum(), unmasked_r["detected"].sum()) / N,
              kind="share")
report.number("planted_masked_valid_draws", masked_r["valid"].sum(), kind="count")
report.number("planted_unmasked_valid_draws", unmasked_r["valid"].sum(), kind="count")
report.number("planted_valid_draws", min(masked_r["valid"].sum(), unmasked_r["valid"].sum()), kind="count")
report.number("hinge_draws", HINGE_DRAWS, kind="count")
report.number("planted_unmasked_weight", w, "{:g}")
report.number("planted_unmasked_hinge_failed", hinge_failed, kind="count")
report.number("planted_masked_link_draws", masked_r["fires"].sum(), kind="count")
report.number("planted_unmasked_link_draws", unmasked_r["fires"].sum(), kind="count")
report.number("planted_masked_link_attention_draws", masked_r["attention"].sum(), kind="count")
report.number("planted_unmasked_link_attention_draws", unmasked_r["attention"].sum(), kind="count")
report.number("planted_masked_link_breaks_draws", masked_r["breaks"].sum(), kind="count")
report.number("planted_unmasked_link_breaks_draws", unmasked_r["breaks"].sum(), kind="count")
report.number("planted_masked_correct_draws", masked_r["correct"].sum(), kind="count")
report.number("planted_unmasked_correct_draws", unmasked_r["correct"].sum(), kind="count")
report.number("planted_masked_control_breaks_draws", masked_r["control_breaks"].sum(), kind="count")
report.number("planted_unmasked_control_breaks_draws", unmasked_r["control_breaks"].sum(), kind="count")

report.save()
