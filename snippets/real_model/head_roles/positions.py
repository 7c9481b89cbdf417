# %% [markdown]
# # Head roles in a real model (1): neighbours and sinks, each against chance
#
# Source A (§ "visual evidence") names the roles heads are said to take; the
# simplest are about position: a head that looks at the previous word, or the
# next. Many heads also park most of their weight on `[CLS]` or `[SEP]`. We
# give each of these roles a named metric, measure all 72 heads of
# all-MiniLM-L6-v2 on the shipped sample text, and say a head *has* the role
# only when it beats chance after correcting for the 72 heads tried (the recipe
# of roles.py, which tests the roles about content).

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.report import Report

report = Report("real_model.head_roles.positions")

# %%
import inspect

import numpy as np
import torch

from explainer.minilm import MiniLM, Tokenizer
from explainer.head_picks import head_name
from explainer.role_tests import ALPHA, ROLE_NAMES, judge_role
from explainer.sample_sentences import SENTENCES

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()         # all-MiniLM-L6-v2, weights on disk
L, H = model.config.n_layers, model.config.n_heads
roles = {}         # role -> accuracy (72,), corrected p (72,), chance, n, passes (72,), best head

# %% [markdown]
# ## Position and sink roles, on the shipped sample text
#
# Items: every query token of the sample sentences that is a word (not [CLS] or
# [SEP]). Previous token: is the top key at t-1? Next token: at t+1? [CLS] /
# [SEP] sink: is it position 0 / the last position? Chance: one over the number
# of keys. Tokens of one sentence are not independent, so the binomial p-value is
# lenient here; the majority condition (top pick in at least half the queries) is
# what makes these roles strict.

# %% tags=["positions"]
from explainer.role_tests import position_roles

print(inspect.getsource(position_roles))
sample = position_roles(model, tokenizer, roles)                 # per sentence (L, nh, T, T)

# %%
report.number("n_sample_sentences", len(SENTENCES), "{:.0f}")
report.number("previous_token_heads", roles["previous_token"]["passes"].sum(), "{:.0f}")
report.number("previous_token_heads_significant", (roles["previous_token"]["p"] < ALPHA).sum(), "{:.0f}")
report.number("previous_token_best_accuracy", roles["previous_token"]["accuracy"][roles["previous_token"]["best"]], "{:.0%}")
report.number("previous_token_best_layer", roles["previous_token"]["best"] // H + 1, "{:.0f}")
report.number("previous_token_best_head", roles["previous_token"]["best"] % H + 1, "{:.0f}")
report.number("previous_token_best_p", max(roles["previous_token"]["p"][roles["previous_token"]["best"]], 1e-300), kind="p")
report.number("previous_token_chance", roles["previous_token"]["chance"], "{:.0%}")
report.number("next_token_heads", roles["next_token"]["passes"].sum(), "{:.0f}")
report.number("next_token_heads_significant", (roles["next_token"]["p"] < ALPHA).sum(), "{:.0f}")
report.number("next_token_best_accuracy", roles["next_token"]["accuracy"][roles["next_token"]["best"]], "{:.0%}")
report.number("next_token_best_layer", roles["next_token"]["best"] // H + 1, "{:.0f}")
report.number("next_token_best_head", roles["next_token"]["best"] % H + 1, "{:.0f}")
report.number("next_token_best_p", max(roles["next_token"]["p"][roles["next_token"]["best"]], 1e-300), kind="p")
report.number("next_token_chance", roles["next_token"]["chance"], "{:.0%}")
report.number("cls_sink_heads", roles["cls_sink"]["passes"].sum(), "{:.0f}")
report.number("cls_sink_heads_significant", (roles["cls_sink"]["p"] < ALPHA).sum(), "{:.0f}")
report.number("cls_sink_best_accuracy", roles["cls_sink"]["accuracy"][roles["cls_sink"]["best"]], "{:.0%}")
report.number("cls_sink_best_layer", roles["cls_sink"]["best"] // H + 1, "{:.0f}")
report.number("cls_sink_best_head", roles["cls_sink"]["best"] % H + 1, "{:.0f}")
report.number("cls_sink_best_p", max(roles["cls_sink"]["p"][roles["cls_sink"]["best"]], 1e-300), kind="p")
report.number("cls_sink_chance", roles["cls_sink"]["chance"], "{:.0%}")
report.number("sep_sink_heads", roles["sep_sink"]["passes"].sum(), "{:.0f}")
report.number("sep_sink_heads_significant", (roles["sep_sink"]["p"] < ALPHA).sum(), "{:.0f}")
report.number("sep_sink_best_accuracy", roles["sep_sink"]["accuracy"][roles["sep_sink"]["best"]], "{:.0%}")
report.number("sep_sink_best_layer", roles["sep_sink"]["best"] // H + 1, "{:.0f}")
report.number("sep_sink_best_head", roles["sep_sink"]["best"] % H + 1, "{:.0f}")
report.number("sep_sink_best_p", max(roles["sep_sink"]["p"][roles["sep_sink"]["best"]], 1e-300), kind="p")
report.number("sep_sink_chance", roles["sep_sink"]["chance"], "{:.0%}")

# %%
# Whether any head sinks on [SEP] the way many sink on [CLS]: the page words it from the count.
report.number("heads_measured", roles["sep_sink"]["passes"].size, "{:.0f}")
report.category("sep_sink_sentence", "none" if roles["sep_sink"]["passes"].sum() == 0 else "some")

# %% [markdown]
# ## Figure
#
# Its alt text names the passing heads of every role on the page, so the roles
# about content (roles.py) are tested here too, with the same code.

# %%
from explainer.role_tests import coreference_roles, disambiguation_role, verb_object_roles

verb_object_roles(model, tokenizer, roles)
coreference_roles(model, tokenizer, roles)
disambiguation_role(model, tokenizer, roles)


def passing_heads(role: str) -> str:
    names = [head_name(f) for f in np.flatnonzero(roles[role]["passes"])]
    return ", ".join(names) if names else "—"


TEXT = report.figure_text()   # the figures' words: positions.strings.toml
lists = "; ".join(f"{ROLE_NAMES['en'][r]}: {passing_heads(r)}" for r in ROLE_NAMES["en"])
lists_zh = "；".join(f"{ROLE_NAMES['zh'][r]}：{passing_heads(r)}" for r in ROLE_NAMES["zh"])


def draw_grid(ax, role: str, text: dict, names: dict) -> None:
    r = roles[role]
    image = ax.imshow(r["accuracy"].reshape(L, H), cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1)
    layer, head = np.divmod(np.flatnonzero(r["passes"]), H)
    ax.scatter(head, layer, s=40, facecolor="none", edgecolor="white", linewidth=1.8)
    ax.scatter(head, layer, s=40, facecolor="none", edgecolor="black", linewidth=0.6)
    drawn = ax.set_title(f"{names[role]}\n{text['passes'].format(n=int(r['passes'].sum()))}{text['sep']}"
                         f"{text['chance'].format(c=r['chance'])}", fontsize=10)
    # The recorded keys this label shows, kept in the SVG (tests/test_figure_labels_agree.py).
    drawn.set_gid("value:" + ",".join((f"{role}_heads", f"{role}_chance")))
    ax.set_xticks(range(0, H, 2), [str(h + 1) for h in range(0, H, 2)], fontsize=9)
    ax.set_yticks(range(L), [str(l + 1) for l in range(L)], fontsize=9)
    ax.set_xlabel(text["head"], fontsize=9)
    ax.set_ylabel(text["layer"], fontsize=9)
    return image


for lang in LANGS:
    text, names = TEXT[lang], ROLE_NAMES[lang]
    fig, axes = plt.subplots(2, 2, figsize=(7.2, 5.4))
    for ax, role in zip(axes.flat, ["previous_token", "next_token", "cls_sink", "sep_sink"]):
        image = draw_grid(ax, role, text, names)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    bar = fig.add_axes([0.15, 0.04, 0.7, 0.018])
    fig.colorbar(image, cax=bar, orientation="horizontal")
    bar.tick_params(labelsize=9)
    bar.set_xlabel(f"{text['colour']}    {text['mark']}", fontsize=9)
    passed = {role: int(r["passes"].sum()) for role, r in roles.items()}
    caption = text["cap_position"].format(prev=passed["previous_token"], next=passed["next_token"],
                                          cls=passed["cls_sink"],
                                          sep=(passed["sep_sink"] or text["none"]) if lang == "en" else
                                          (f"有 {passed['sep_sink']} 个" if passed["sep_sink"] else text["none"]),
                                          heads=roles["cls_sink"]["passes"].size)
    report.figure("roles_position", fig, lang, alt=text["alt_grid"].format(lists=lists if lang == "en" else lists_zh),
                  caption=caption)

report.save()
