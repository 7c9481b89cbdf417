# %% [markdown]
# # C32: the subject's query finds its verb's key
#
# Part of the page "Head roles in a real model". Every test here asks of one head a yes/no
# per item and corrects for the heads tried by a max-statistic permutation
# (explainer/max_statistic.py), as real_model/head_roles/noun_between.py explains.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.report import Report

report = Report("real_model.head_roles.subject_verb")

# %%
from explainer.minilm import MiniLM, Tokenizer, run_sentences   # first: it pins torch's CPU kernels
from explainer.head_picks import explorer_links
from explainer.role_sentences import word_position
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()         # all-MiniLM-L6-v2, weights on disk
L, H = model.config.n_layers, model.config.n_heads
ALPHA = 0.05       # corrected significance level, as for every role on this page
DRAWS = 2000       # redraws of the max-statistic permutation

LEAD = 0.75        # the rule's 75 %

# %% [markdown]
# ### C32: the subject's query finds its verb's key
#
# Source B §3.2: "head 1: W_Q learns to match grammatical roles (e.g. the subject's
# Q matches the predicate's K)". 56 sentences, 32 of them with an object relative
# clause ("The man whom the dog bit laughed"), so the verb nearest the subject is
# not its own. From the subject, is its verb the top pick? A head must also beat
# two position-only rules item by item: the nearest verb, and the best fixed
# offset (sign flips of the per-sentence differences, max over 72 heads).

# %% tags=["subject_verb"]
from explainer.head_picks import best_fixed_offset, nearest, query_rows, stacked_attention, top_among, words_of
from explainer.head_role_sets import subject_verb_sentences
from explainer.max_statistic import sign_flip_max_statistic, top_pick_max_statistic, wilson_interval

sv_set = subject_verb_sentences()
sv_attention = stacked_attention(run_sentences(model, tokenizer, [s.text for s in sv_set]))
sv_tokens = [tokenizer.tokens(s.text) for s in sv_set]
sv_subject = [word_position(t, s.subject) for t, s in zip(sv_tokens, sv_set)]
sv_verb = [word_position(t, s.verb) for t, s in zip(sv_tokens, sv_set)]
sv_verbs = [[v] + [word_position(t, w) for w in s.other_verbs] for t, s, v in zip(sv_tokens, sv_set, sv_verb)]
sv_nouns = [[i for i, w in enumerate(t) if i == su or w in {"dog", "cat", "horse", "king", "baker", "child",
                                                             "queen", "sailor", "bell", "rain", "music",
                                                             "door", "window", "gate", "river", "bridge",
                                                             "station", "end", "night", "day"}]
            for t, su in zip(sv_tokens, sv_subject)]
c32 = {}
for name, queries, targets, rule_hits in (
        ("subject_verb", sv_subject, sv_verb,
         np.array([nearest(s, vs) == v for s, vs, v in zip(sv_subject, sv_verbs, sv_verb)])),
        ("verb_subject", sv_verb, sv_subject,
         np.array([nearest(v, ns) == s for v, ns, s in zip(sv_verb, sv_nouns, sv_subject)]))):
    allowed = [words_of(t, q) for t, q in zip(sv_tokens, queries)]
    top = top_among(query_rows(sv_attention, queries), allowed)
    hit = top == np.array(targets)[:, None]                                     # (N, 72)
    offset_hits = best_fixed_offset(queries, targets)                           # (N,)
    _, p_chance = top_pick_max_statistic(top, np.array(targets), allowed, n_draws=DRAWS)
    p_near = sign_flip_max_statistic(hit.astype(float) - rule_hits[:, None], n_draws=DRAWS)
    p_offset = sign_flip_max_statistic(hit.astype(float) - offset_hits[:, None], n_draws=DRAWS, seed=1)
    share = hit.mean(axis=0)
    beats = (p_near < ALPHA) & (p_offset < ALPHA)
    low, high = wilson_interval(hit.sum(axis=0), len(sv_set))
    c32[name] = dict(share=share, beats=beats, passes=beats & (share >= LEAD), best=int(share.argmax()),
                     clear=beats & (low >= LEAD), possible=beats & (high >= LEAD),
                     nearest=rule_hits.mean(), offset=offset_hits.mean(), p_near=p_near, p_offset=p_offset,
                     p_chance=p_chance)

# %%
for name, r in c32.items():
    share, beats, p_near, p_offset = r["share"], r["beats"], r["p_near"], r["p_offset"]
    en, zh = {"subject_verb": ("subject → verb", "主语 → 谓语动词"), "verb_subject": ("verb → subject", "谓语动词 → 主语")}[name]
    report.number(f"c32_{name}_heads", r["passes"].sum(), "{:.0f}",
                  en=f"C32 heads that pass ({en}: top pick ≥ 75 %, beat both position rules, corrected)",
                  zh=f"通过 C32 的头数（{zh}：首选 ≥ 75%，且胜过两条位置规则，校正后）")
    report.number(f"c32_{name}_clear_heads", r["clear"].sum(), "{:.0f}",
                  en=f"C32 heads that pass with the whole 95 % interval of the share at or above 75 % ({en})",
                  zh=f"选中比例 95% 区间整个不低于 75%、确定通过 C32 的头数（{zh}）")
    report.number(f"c32_{name}_possible_heads", r["possible"].sum(), "{:.0f}",
                  en=f"C32 heads that beat both rules and whose 95 % interval reaches 75 % ({en})",
                  zh=f"胜过两条规则、且选中比例 95% 区间够得着 75% 的头数（{zh}）")
    report.number(f"c32_{name}_beats_rules_heads", beats.sum(), "{:.0f}",
                  en=f"C32 heads that beat both position rules, corrected ({en})",
                  zh=f"C32 中校正后胜过两条位置规则的头数（{zh}）")
    report.number(f"c32_{name}_best_share", share[r['best']], "{:.0%}",
                  en=f"C32 best head's top-pick share ({en})", zh=f"C32 最好的头选中的比例（{zh}）")
    report.number(f"c32_{name}_best_layer", r["best"] // H + 1, "{:.0f}",
                  en=f"layer of C32's best head ({en})", zh=f"C32 最好的头所在的层（{zh}）")
    report.number(f"c32_{name}_best_head", r["best"] % H + 1, "{:.0f}",
                  en=f"C32's best head's number in its layer ({en})", zh=f"C32 最好的头在层内的编号（{zh}）")
    report.number(f"c32_{name}_best_p_nearest", p_near[r["best"]], kind="p",
                  en=f"C32 best head against the nearest-word rule, corrected p ({en})",
                  zh=f"C32 最好的头对最近词规则的校正 p 值（{zh}）")
    report.number(f"c32_{name}_best_p_offset", p_offset[r["best"]], kind="p",
                  en=f"C32 best head against the best fixed offset, corrected p ({en})",
                  zh=f"C32 最好的头对最好的固定偏移的校正 p 值（{zh}）")
    report.number(f"c32_{name}_rule_nearest", r["nearest"], "{:.0%}",
                  en=f"C32 nearest-{'verb' if name == 'subject_verb' else 'noun'} rule, share right ({en})",
                  zh=f"C32 最近{'动词' if name == 'subject_verb' else '名词'}规则的准确率（{zh}）")
    report.number(f"c32_{name}_rule_offset", r["offset"], "{:.0%}",
                  en=f"C32 best fixed-offset rule, share right ({en})", zh=f"C32 最好的固定偏移规则的准确率（{zh}）")
report.number("c32_n_sentences", len(sv_set), "{:.0f}", en="C32 sentences", zh="C32 句子数")
report.number("c32_share_object_relative", np.mean([s.kind == "object_relative" for s in sv_set]), "{:.0%}",
              en="share of C32 sentences with an object relative clause", zh="C32 句子中带宾语关系从句的比例")


# %%
report.text("c32_explorer_links", **explorer_links(
    "c32", c32["subject_verb"]["passes"], c32["subject_verb"]["best"], lambda f: "man",
    lambda f: ("subject → verb", "主语 → 谓语动词")))
report.data("issue19", {
    "c32": {name: {"share": np.round(r["share"], 3).tolist(), "passes": r["passes"].astype(int).tolist()}
            for name, r in c32.items()},
})

report.save()
