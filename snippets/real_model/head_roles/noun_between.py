# %% [markdown]
# # C22: from the verb to its direct object, past another noun
#
# Part of the page "Head roles in a real model" (real_model/head_roles/roles.py measures
# the verb → object role on sentences where the object is the next noun; here C22 is
# decided on sentences where it is not).

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.report import Report

report = Report("real_model.head_roles.noun_between")

# %%
from explainer.minilm import MiniLM, Tokenizer, run_sentences   # first: it pins torch's CPU kernels
from explainer.head_picks import best_fixed_offset, explorer_links, nearest
from explainer.role_sentences import word_position
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()         # all-MiniLM-L6-v2, weights on disk
L, H = model.config.n_layers, model.config.n_heads
ALPHA = 0.05       # corrected significance level, as for every role on this page

ROLE_NAMES = {"en": {"verb_object": "verb → object", "object_verb": "object → verb"},
              "zh": {"verb_object": "动词 → 宾语", "object_verb": "宾语 → 动词"}}

# %% [markdown]
# ## One per-head test, corrected by the best of the heads tried
#
# Each test below asks of one head a yes/no per item (is the target its top pick?
# does it prefer A to B?) and corrects for the heads tried by a max-statistic
# permutation (explainer/max_statistic.py): the item labels are redrawn at random,
# the same redraw for every head, 2,000 times, and a head's corrected p is the
# share of redraws in which the *best* head does as well as that head did.
#
# A share measured on n items is known only to within its 95 % (Wilson) interval:
# a head *clearly* passes a threshold when the whole interval is on the right
# side of it, and *may* pass when the interval reaches it. A rule that hinges on
# a head that may but does not clearly pass cannot tell: its verdict is open.
#
# ### C22 again: a noun between the verb and its object
#
# 192 sentences in which another noun stands between the verb and its direct
# object or right after the verb: a possessor ("sold the man's old cart"), an
# indirect object ("gave the boy a cart"), a noun modifier ("the farm cart"),
# and in half of them a relative clause ("gave the woman who smiled a cart") that
# puts another verb nearer the object. 0–3 adjectives on the object. A head
# *picks* a word when that word is its most attended word of the sentence (the
# query itself, [CLS], [SEP] and punctuation left out).

# %% tags=["noun_between"]
from explainer import head_role_sets
from explainer.head_picks import head_direction, query_rows, stacked_attention, top_among, weight_on, words_of
from explainer.max_statistic import sign_flip_max_statistic, top_pick_max_statistic, wilson_interval

DRAWS = 2000       # redraws of the max-statistic permutation
LEAD = 0.75        # the rules' 75 %

nb_set = head_role_sets.verb_object_sentences()   # a noun between verb and object
nb_outputs = run_sentences(model, tokenizer, [s.text for s in nb_set])
nb_attention = stacked_attention(nb_outputs)
nb_tokens = [tokenizer.tokens(s.text) for s in nb_set]
nb_verb = [word_position(t, s.verb) for t, s in zip(nb_tokens, nb_set)]
nb_object = [word_position(t, s.object) for t, s in zip(nb_tokens, nb_set)]
nb_between = [[word_position(t, w) for w in s.between] for t, s in zip(nb_tokens, nb_set)]
nb_first = [b[0] for b in nb_between]                          # the noun nearest the verb

# Picks, both directions, and from the intervening noun (does it pick the verb too?)
pick, pick_p, top_of = {}, {}, {}
for name, queries, targets in (("verb_object", nb_verb, nb_object), ("object_verb", nb_object, nb_verb),
                               ("between_verb", nb_first, nb_verb)):
    allowed = [words_of(t, q) for t, q in zip(nb_tokens, queries)]
    top = top_among(query_rows(nb_attention, queries), allowed)  # (N, 72)
    hits, p = top_pick_max_statistic(top, np.array(targets), allowed, n_draws=DRAWS)
    pick[name], pick_p[name], top_of[name] = hits / len(nb_set), p, top
# Prefers the object to the intervening noun(s): verb → object, the object gets more weight
# from the verb than every intervening noun does; object → verb, the verb gets more weight
# from the object than from every intervening noun.
to_object = weight_on(nb_attention, nb_verb, nb_object)                      # (N, 72)
to_between = np.max([weight_on(nb_attention, nb_verb, [b[min(j, len(b) - 1)] for b in nb_between])
                     for j in (0, 1)], axis=0)
from_object = weight_on(nb_attention, nb_object, nb_verb)
from_between = np.max([weight_on(nb_attention, [b[min(j, len(b) - 1)] for b in nb_between], nb_verb)
                       for j in (0, 1)], axis=0)
prefer = np.concatenate([np.sign(to_object - to_between), np.sign(from_object - from_between)], axis=1)
prefer_p = sign_flip_max_statistic(prefer, n_draws=DRAWS)         # (144,): corrected over 144
prefer_share = (prefer > 0).mean(axis=0)
pick_144 = np.concatenate([pick["verb_object"], pick["object_verb"]])
between_144 = np.concatenate([np.zeros(L * H), pick["between_verb"]])  # the ≤ 25 % clause, object → verb only
c22_pass = (pick_144 >= LEAD) & (prefer_share >= LEAD) & (prefer_p < ALPHA) & (between_144 <= 0.25)
N22 = len(nb_set)
pick_low, pick_high = wilson_interval(pick_144 * N22, N22)
prefer_low, prefer_high = wilson_interval(prefer_share * N22, N22)
between_low, between_high = wilson_interval(between_144 * N22, N22)
c22_clear = (pick_low >= LEAD) & (prefer_low >= LEAD) & (prefer_p < ALPHA) & (between_high <= 0.25)
c22_possible = (pick_high >= LEAD) & (prefer_high >= LEAD) & (prefer_p < ALPHA) & (between_low <= 0.25)
c22_beats_half = (prefer_share > 0.5) & (prefer_p < ALPHA)
c22_best = int(np.argmax(np.minimum(pick_144, prefer_share) - 1e-3 * (between_144 > 0.25)))


print(f"{c22_beats_half.sum()} head-directions prefer the object beyond chance (of {2 * L * H}); "
      f"{c22_pass.sum()} pass, {c22_clear.sum()} clearly")
print(f"best: {head_direction(c22_best)}, picks its target in {pick_144[c22_best]:.0%} "
      f"(95 % from {pick_low[c22_best]:.0%}), prefers the object in {prefer_share[c22_best]:.0%} "
      f"(corrected p {prefer_p[c22_best]:.3g})")

# %%
report.number("c22_n_sentences", len(nb_set), "{:.0f}",
              en="C22 sentences with a noun between verb and object", zh="C22：动词与宾语之间有别的名词的句子数")
report.number("c22_share_2_3_adjectives", np.mean([s.n_adjectives >= 2 for s in nb_set]), "{:.0%}",
              en="share of those sentences with 2–3 adjectives on the object",
              zh="其中宾语带 2–3 个形容词的句子比例")
report.number("c22_heads", c22_pass.sum(), "{:.0f}",
              en="head-directions that pass C22 (pick ≥ 75 %, prefer the object ≥ 75 %, corrected over 144)",
              zh="通过 C22 的“头-方向”数（选中 ≥ 75%，偏好宾语 ≥ 75%，按 144 个校正）")
report.number("c22_clear_heads", c22_clear.sum(), "{:.0f}",
              en="head-directions that pass C22 with the whole 95 % interval of each share past its threshold",
              zh="每个比例的 95% 区间都整个越过门槛、从而确定通过 C22 的“头-方向”数")
report.number("c22_possible_heads", c22_possible.sum(), "{:.0f}",
              en="head-directions whose 95 % intervals reach C22's thresholds (they may pass)",
              zh="95% 区间够得着 C22 门槛（可能通过）的“头-方向”数")
report.number("c22_best_pick_low", pick_low[c22_best], "{:.0%}",
              en="C22's best head-direction: lower end of the 95 % interval of its pick share",
              zh="C22 最好的“头-方向”：选中比例 95% 区间的下端")
report.number("c22_best_prefer_low", prefer_low[c22_best], "{:.0%}",
              en="C22's best head-direction: lower end of the 95 % interval of its preference share",
              zh="C22 最好的“头-方向”：偏好比例 95% 区间的下端")
report.number("c22_beats_half_heads", c22_beats_half.sum(), "{:.0f}",
              en="head-directions that prefer the object to the intervening noun beyond ½ (corrected over 144)",
              zh="偏好宾语胜过中间名词、超出 ½ 的“头-方向”数（按 144 个校正）")
for key, values, fmt, en, zh in (
        ("pick", pick_144, "{:.0%}", "picks its target", "选中目标"),
        ("prefer", prefer_share, "{:.0%}", "prefers the object to the intervening noun",
         "偏好宾语胜过中间名词"),
        ("between_verb", between_144, "{:.0%}", "from the intervening noun, picks the verb (object → verb only)",
         "从中间名词出发也选中动词（仅宾语 → 动词）")):
    report.number(f"c22_best_{key}", values[c22_best], fmt,
                  en=f"C22's best head-direction: share of sentences where it {en}",
                  zh=f"C22 最好的“头-方向”：{zh}的句子比例")
report.number("c22_best_prefer_p", prefer_p[c22_best], kind="p",
              en="C22's best head-direction: corrected p of its preference", zh="C22 最好的“头-方向”：偏好的校正 p 值")
report.number("c22_best_is_object_to_verb", c22_best >= L * H, "{:.0f}",
              en="1 if C22's best head-direction is object → verb", zh="若 C22 最好的“头-方向”是宾语 → 动词，则为 1")
report.number("c22_best_layer", c22_best % (L * H) // H + 1, "{:.0f}",
              en="layer of C22's best head", zh="C22 最好的头所在的层")
report.number("c22_best_head", c22_best % H + 1, "{:.0f}",
              en="C22's best head's number in its layer", zh="C22 最好的头在层内的编号")
for name in ("verb_object", "object_verb"):
    report.number(f"c22_{name}_best_pick", pick[name].max(), "{:.0%}",
                  en=f"best head's pick share, {ROLE_NAMES['en'][name]} (noun in between)",
                  zh=f"最好的头选中的比例，{ROLE_NAMES['zh'][name]}（中间有名词）")
    report.number(f"c22_{name}_pick_heads", ((pick[name] >= 0.5) & (pick_p[name] < ALPHA)).sum(), "{:.0f}",
                  en=f"heads whose top pick is the target in ≥ ½ beyond chance (corrected), {ROLE_NAMES['en'][name]}",
                  zh=f"首选为目标 ≥ ½ 且超出偶然（校正后）的头数，{ROLE_NAMES['zh'][name]}")

# %%
# Position-only rules, each scored on the same sentences (general point 2: at most ½ each)
from explainer.head_role_sets import KIN, MODIFIERS, OBJECTS, PEOPLE, SUBJECTS


NOUN_WORDS = set(SUBJECTS + OBJECTS + PEOPLE + KIN + MODIFIERS + ["market", "week", "dollars", "morning"])
nouns_in = [[i for i, w in enumerate(t) if w in NOUN_WORDS and not (w == "s" and t[i - 1] == "'")]
            for t in nb_tokens]
verbs_in = [[v] + ([word_position(t, s.clause_verb)] if s.clause_verb else [])
            for t, s, v in zip(nb_tokens, nb_set, nb_verb)]
c22_rules = {
    "verb_object_fixed_offset": best_fixed_offset(nb_verb, nb_object).mean(),
    "verb_object_next_noun": np.mean([nearest(v, n, "right") == o for v, n, o in zip(nb_verb, nouns_in, nb_object)]),
    "verb_object_nearest_noun": np.mean([nearest(v, n) == o for v, n, o in zip(nb_verb, nouns_in, nb_object)]),
    "verb_object_second_noun": np.mean([[i for i in n if i > v][1] == o for v, n, o in zip(nb_verb, nouns_in, nb_object)]),
    "verb_object_last_noun": np.mean([n[-1] == o for n, o in zip(nouns_in, nb_object)]),
    "object_verb_fixed_offset": best_fixed_offset(nb_object, nb_verb).mean(),
    "object_verb_nearest_verb_left": np.mean([nearest(o, vs, "left") == v for o, vs, v in zip(nb_object, verbs_in, nb_verb)]),
    "object_verb_nearest_verb": np.mean([nearest(o, vs) == v for o, vs, v in zip(nb_object, verbs_in, nb_verb)]),
}
for name, share in c22_rules.items():
    report.number(f"c22_rule_{name}", share, "{:.0%}",
                  en=f"C22 position-only rule, share right: {name.replace('_', ' ')}",
                  zh=f"C22 只看位置的规则的准确率：{name.replace('_', ' ')}")
report.number("c22_position_rule_max", max(c22_rules.values()), "{:.0%}",
              en="C22: the best position-only rule's share right", zh="C22：只看位置的最好规则的准确率")


# %%
report.text("c22_explorer_links", **explorer_links(
    "c22", c22_pass, c22_best, lambda f: "sold" if f < L * H else "cart",
    lambda f: ("verb → object", "动词 → 宾语") if f < L * H else ("object → verb", "宾语 → 动词")))
report.data("issue19", {
    "c22": {"pick": np.round(pick_144, 3).tolist(), "prefer": np.round(prefer_share, 3).tolist(),
            "prefer_p": [float(f"{x:.3g}") for x in prefer_p], "between_verb": np.round(between_144, 3).tolist(),
            "passes": c22_pass.astype(int).tolist()},
})

report.save()
