# %% [markdown]
# # Does 追逐 come to attend to 激光点 inside the Chinese sentence?
#
# The source explanation says that while a model learns 猫追逐激光点 → "The cat
# chases the laser dot", the error flows back until 追逐 attends to 激光点:
# attention *inside the Chinese sentence*, the encoder's self-attention. We
# train the translation toy of the page (`explainer.translation_toy`: the same
# corpora, models, seeds and training as `three_roles.translation`), three arms
# of many seeds at once, and look at exactly that attention before and after:
# the link of the claims ledger's rule (C17), its parts, and the plain weight.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report, share_word
from explainer.seeds import n_seeds, report_mean_range, report_seed_count

report = Report("three_roles.translation.link")

# %% [markdown]
# ## The toy, trained
#
# Three arms of the same seeds: the full model on each corpus (追逐 always
# *chases*; 追逐 translated by its object), and the forced arm, whose decoder
# reads the Chinese only at the verb, so the object can reach the English only
# through the encoder's self-attention. `measure` reads, for every model, the
# weight from 追逐 to 激光点 and the rule's link (`chase_laser_link`: some
# encoder head gives 激光点 the largest share of 追逐's attention among the
# other words, more than 猫 gives 激光点, and removing that edge breaks the
# exact translation).

# %%
import numpy as np
import torch

from explainer.translation_toy import ARMS, make_models, measure, model_targets, train
from explainer.translation_planted import link_by_head

torch.set_num_threads(1)
SEEDS = list(range(n_seeds(8)))   # the build trains more when a verdict is undecided
STEPS = 400
params, _, arm_of = make_models(SEEDS)                     # M = 3 arms × len(SEEDS)
tgt = model_targets(arm_of)
start = measure(params, tgt)
train(params, tgt, STEPS)
end = measure(params, tgt)

# %% [markdown]
# ## Results, per arm, over the seeds
#
# Each number is one line, its key written out, its description the
# measurement's and the arm's.

# %%
N_SEEDS = len(SEEDS)
report.number("n_seeds", N_SEEDS, "{:.0f}")
report.number("steps", STEPS, "{:.0f}")
LINK = 0.5                                                 # of three words, more than half is the largest


def per_arm(arm):
    """The per-seed values of one arm (its index in ARMS), as numpy arrays."""
    mine = arm_of == arm
    return mine, {"cat_to_laser_weight": end["cat_to_laser"][mine].numpy(),
                  "chase_laser_weight_start": start["chase_laser_weight"][mine].numpy(),
                  "chase_laser_weight": end["chase_laser_weight"][mine].numpy(),
                  "verb_object_linked_start": start["verb_object_linked"][mine].numpy(),
                  "verb_object_linked": end["verb_object_linked"][mine].numpy()}


in_fixed, fixed_seeds = per_arm(0)
in_object_dependent, object_dependent_seeds = per_arm(1)
in_forced, forced_seeds = per_arm(2)


# fixed
report_seed_count(report, "chase_laser_linked_start_seeds", start["chase_laser_weight"][in_fixed] >= LINK)
report_seed_count(report, "chase_laser_linked_seeds", end["chase_laser_weight"][in_fixed] >= LINK)
# The rule's link (docs/claims.yml, C17): attention, beyond 猫's, and a cut that breaks it.
report_seed_count(report, "link_seeds", end["link"][in_fixed])
report_seed_count(report, "link_start_seeds", start["link"][in_fixed])
report_seed_count(report, "link_attention_seeds", end["link_attention"][in_fixed])
report_seed_count(report, "link_breaks_seeds", end["link_breaks"][in_fixed])
report_seed_count(report, "link_breaks_unmarked_seeds", end["link_breaks"][in_fixed].bool() & ~end["link_attention"][in_fixed].bool())
report_mean_range(report, fixed_seeds["cat_to_laser_weight"], "{:.2f}", mean="cat_to_laser_weight_mean",
                  min="cat_to_laser_weight_min", max="cat_to_laser_weight_max")
report_mean_range(report, fixed_seeds["chase_laser_weight_start"], "{:.2f}", mean="chase_laser_weight_start_mean",
                  min="chase_laser_weight_start_min", max="chase_laser_weight_start_max")
report_mean_range(report, fixed_seeds["chase_laser_weight"], "{:.2f}", mean="chase_laser_weight_mean",
                  min="chase_laser_weight_min", max="chase_laser_weight_max")
report_mean_range(report, fixed_seeds["verb_object_linked_start"], "{:.0%}", mean="verb_object_linked_start_mean",
                  min="verb_object_linked_start_min", max="verb_object_linked_start_max")
report_mean_range(report, fixed_seeds["verb_object_linked"], "{:.0%}", mean="verb_object_linked_mean",
                  min="verb_object_linked_min", max="verb_object_linked_max")

# object dependent
report_seed_count(report, "object_dependent_chase_laser_linked_start_seeds", start["chase_laser_weight"][in_object_dependent] >= LINK)
report_seed_count(report, "object_dependent_chase_laser_linked_seeds", end["chase_laser_weight"][in_object_dependent] >= LINK)
report_seed_count(report, "object_dependent_link_seeds", end["link"][in_object_dependent])
report_seed_count(report, "object_dependent_link_start_seeds", start["link"][in_object_dependent])
report_seed_count(report, "object_dependent_link_attention_seeds", end["link_attention"][in_object_dependent])
report_seed_count(report, "object_dependent_link_breaks_seeds", end["link_breaks"][in_object_dependent])
report_seed_count(report, "object_dependent_link_breaks_unmarked_seeds", end["link_breaks"][in_object_dependent].bool() & ~end["link_attention"][in_object_dependent].bool())
report_mean_range(report, object_dependent_seeds["cat_to_laser_weight"], "{:.2f}",
                  mean="object_dependent_cat_to_laser_weight_mean", min="object_dependent_cat_to_laser_weight_min",
                  max="object_dependent_cat_to_laser_weight_max")
report_mean_range(report, object_dependent_seeds["chase_laser_weight_start"], "{:.2f}",
                  mean="object_dependent_chase_laser_weight_start_mean",
                  min="object_dependent_chase_laser_weight_start_min",
                  max="object_dependent_chase_laser_weight_start_max")
report_mean_range(report, object_dependent_seeds["chase_laser_weight"], "{:.2f}",
                  mean="object_dependent_chase_laser_weight_mean", min="object_dependent_chase_laser_weight_min",
                  max="object_dependent_chase_laser_weight_max")
report_mean_range(report, object_dependent_seeds["verb_object_linked_start"], "{:.0%}",
                  mean="object_dependent_verb_object_linked_start_mean",
                  min="object_dependent_verb_object_linked_start_min",
                  max="object_dependent_verb_object_linked_start_max")
report_mean_range(report, object_dependent_seeds["verb_object_linked"], "{:.0%}",
                  mean="object_dependent_verb_object_linked_mean", min="object_dependent_verb_object_linked_min",
                  max="object_dependent_verb_object_linked_max")

# forced (the forced arm)
report_seed_count(report, "forced_chase_laser_linked_start_seeds", start["chase_laser_weight"][in_forced] >= LINK)
report_seed_count(report, "forced_chase_laser_linked_seeds", end["chase_laser_weight"][in_forced] >= LINK)
report_seed_count(report, "forced_link_seeds", end["link"][in_forced])
report_seed_count(report, "forced_link_start_seeds", start["link"][in_forced])
report_seed_count(report, "forced_link_attention_seeds", end["link_attention"][in_forced])
report_seed_count(report, "forced_link_breaks_seeds", end["link_breaks"][in_forced])
report_seed_count(report, "forced_link_breaks_unmarked_seeds", end["link_breaks"][in_forced].bool() & ~end["link_attention"][in_forced].bool())
report_mean_range(report, forced_seeds["cat_to_laser_weight"], "{:.2f}", mean="forced_cat_to_laser_weight_mean",
                  min="forced_cat_to_laser_weight_min", max="forced_cat_to_laser_weight_max")
report_mean_range(report, forced_seeds["chase_laser_weight_start"], "{:.2f}",
                  mean="forced_chase_laser_weight_start_mean", min="forced_chase_laser_weight_start_min",
                  max="forced_chase_laser_weight_start_max")
report_mean_range(report, forced_seeds["chase_laser_weight"], "{:.2f}", mean="forced_chase_laser_weight_mean",
                  min="forced_chase_laser_weight_min", max="forced_chase_laser_weight_max")
report_mean_range(report, forced_seeds["verb_object_linked_start"], "{:.0%}",
                  mean="forced_verb_object_linked_start_mean", min="forced_verb_object_linked_start_min",
                  max="forced_verb_object_linked_start_max")
report_mean_range(report, forced_seeds["verb_object_linked"], "{:.0%}", mean="forced_verb_object_linked_mean",
                  min="forced_verb_object_linked_min", max="forced_verb_object_linked_max")

# The page's answers, built from the counts above (both corpora, then the forced arm).
got = {key: report.numbers[key]["value"] for key in report.numbers}
linked_counts = (got["chase_laser_linked_seeds"], got["object_dependent_chase_laser_linked_seeds"])
report.category("linked", "few" if all(c < N_SEEDS / 2 for c in linked_counts) else
                "most" if all(c > N_SEEDS / 2 for c in linked_counts) else "mixed")
report.category("weight_change", "falls" if got["chase_laser_weight_mean"] < got["chase_laser_weight_start_mean"]
                else "rises")
report.category("rule_link", share_word(got["object_dependent_link_seeds"], N_SEEDS))
report.category("forced_unmarked", "yes" if got["forced_link_breaks_unmarked_seeds"] else "no")
report.category("forced_link", share_word(got["forced_link_seeds"], N_SEEDS))

# %% [markdown]
# ## Figure

# %%
TEXT = report.figure_text()   # the figures' words: link.strings.toml
plt.rcParams.update({"font.size": 10})
VIRIDIS = plt.get_cmap("viridis")
COLORS = {"start": VIRIDIS(0.75), "end": VIRIDIS(0.2)}

for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    jitter = np.linspace(-0.12, 0.12, N_SEEDS)
    for c in range(len(ARMS)):
        mine = arm_of == c
        for offset, moment, key in ((-0.2, start, "start"), (0.2, end, "end")):
            ax.scatter(c + offset + jitter, moment["chase_laser_weight"][mine].numpy(), s=18,
                       color=COLORS[key], label=text[key] if c == 0 else None, zorder=3)
        ringed = end["link"][mine].bool().numpy()
        ax.scatter((c + 0.2 + jitter)[ringed], end["chase_laser_weight"][mine].numpy()[ringed], s=60,
                   facecolors="none", edgecolors="black", linewidths=1,
                   label=text["linked"] if c == 0 else None, zorder=4)
    ax.axhline(LINK, color="grey", ls="--", lw=1, label=text["link"])
    ax.set_xticks(range(len(ARMS)), text["corpora"], fontsize=9)
    ax.set_xlim(-0.6, len(ARMS) - 0.4)
    ax.set_ylim(0, 1.02)
    ax.set_ylabel(text["self_label"])
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    report.figure("self_attention", fig, lang, alt=text["self_alt"].format(n=N_SEEDS),
                  caption=text["self_caption"].format(n=N_SEEDS, full=int(got["object_dependent_link_seeds"]),
                                                      forced=int(got["forced_link_seeds"])))

# A note the rule never reads (C17's planted check, version 2): the seeds of the full model whose link
# fires only in heads where the control (the edge keeps its weight, carrying 红球's value) breaks it too.
heads = link_by_head({k: v[in_object_dependent].detach() for k, v in params.items()},
                     tuple(x[in_object_dependent] for x in tgt))
fragile = heads["link"].any(-1) & ~(heads["link"] & ~heads["control_breaks"]).any(-1)      # (n,)
report.number("object_dependent_control_breaks_seeds", fragile.sum(), kind="count", per_seed=fragile.float(),
              of="count")

report.save()
