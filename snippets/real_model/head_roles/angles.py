# %% [markdown]
# # C23: direction or length? The angle between a head's query and its target's key
#
# Part of the page "Head roles in a real model". C23 reads the heads that pass C02
# (real_model/head_roles/roles.py), C21 (ambiguous_words.py) and C22 (noun_between.py):
# the first cells below measure them again, with the same code, so this file runs alone.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report

report = Report("real_model.head_roles.angles")

# %% tags=["measure_setup"]
from explainer.minilm import MiniLM, Tokenizer, run_sentences   # first: it pins torch's CPU kernels
from explainer import head_role_sets
from explainer.head_metrics import prefers, top_candidate_hits
from explainer.head_picks import (head_direction, head_name, mask_of, query_rows, stacked_attention,
                                  top_among, weight_on, words_of)
from explainer.max_statistic import sign_flip_max_statistic
from explainer.role_sentences import context_words, coreference_sentences, verb_object_sentences, word_position
from explainer.sense_heads import ambiguity_test, sense_frames
from explainer.significance import pair_relabelling_max_statistic
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()         # all-MiniLM-L6-v2, weights on disk
L, H = model.config.n_layers, model.config.n_heads
ALPHA = 0.05       # corrected significance level, as for every role on this page
MAJORITY = 0.5     # a role also needs the target to be the top pick in half the items
DRAWS = 2000       # redraws of the max-statistic permutation
LEAD = 0.75        # C22's 75 %
C23_SHARE = 0.3    # C23 reuses a passing head only if its target takes this share of the attention

# %% tags=["measure_c02"]
# C02 and the verb–object role, as roles.py measures them: the passing heads and the best head.
measured = {}     # role -> accuracy (72,), passes, best head, as measured again here
co_set = coreference_sentences()
co_outputs = run_sentences(model, tokenizer, [s.text for s in co_set])
co_attention = stacked_attention(co_outputs)
co_tokens = [tokenizer.tokens(s.text) for s in co_set]
it_pos = [word_position(t, "it") for t in co_tokens]
right = torch.tensor([word_position(t, s.right) for t, s in zip(co_tokens, co_set)])
wrong = torch.tensor([word_position(t, s.wrong) for t, s in zip(co_tokens, co_set)])
other = torch.tensor([word_position(t, s.other) for t, s in zip(co_tokens, co_set)])
co_rows = query_rows(co_attention, it_pos)                      # (N, 72, S)
ours_right = prefers(co_rows, right, wrong).numpy()             # (N, 72)
ours_wrong = prefers(co_rows, wrong, right).numpy()
nouns = mask_of([[int(o), int(r), int(w)] for o, r, w in zip(other, right, wrong)], co_rows.shape[-1])
co_p = pair_relabelling_max_statistic(ours_right, ours_wrong, np.array([s.pair for s in co_set]))
co_accuracy = ours_right.sum(axis=0) / len(co_set)
measured["coreference"] = dict(accuracy=co_accuracy, passes=(co_p < ALPHA) & (co_accuracy >= MAJORITY),
                            best=int(co_accuracy.argmax()))

vo_set = verb_object_sentences()
vo_outputs = run_sentences(model, tokenizer, [s.text for s in vo_set])
vo_attention = stacked_attention(vo_outputs)
vo_tokens = [tokenizer.tokens(s.text) for s in vo_set]
verbs = [word_position(t, s.verb) for t, s in zip(vo_tokens, vo_set)]
objects = [word_position(t, s.object) for t, s in zip(vo_tokens, vo_set)]
vo_hits = {}        # role -> (hits (N, 72), rows, candidates), as roles.py keeps them
for role, queries, targets in (("verb_object", verbs, objects), ("object_verb", objects, verbs)):
    rows = query_rows(vo_attention, queries)                     # (N, 72, S)
    candidates = mask_of([[i for i, w in enumerate(t) if w.isalpha() and i != q]
                          for t, q in zip(vo_tokens, queries)], rows.shape[-1])
    hits = top_candidate_hits(rows, candidates, torch.tensor(targets)).numpy()
    vo_hits[role] = (hits, rows, candidates)
    accuracy = hits.sum(axis=0) / len(vo_set)
    measured[role] = dict(accuracy=accuracy, best=int(accuracy.argmax()))

# %% tags=["measure_c21"]
# C21's ambiguity test, as ambiguous_words.py runs it: the heads that pass.
sf_set = sense_frames()
sf_tokens = [tokenizer.tokens(s.text) for s in sf_set]
sf_word = [word_position(t, s.word) for t, s in zip(sf_tokens, sf_set)]
sf_cue = [word_position(t, s.cue) for t, s in zip(sf_tokens, sf_set)]
sf_candidates = [context_words(t, w) for t, w in zip(sf_tokens, sf_word)]
sf_outputs = run_sentences(model, tokenizer, [s.text for s in sf_set])
cue_hits = []
for outputs in (sf_outputs, run_sentences(model, tokenizer, [s.plain for s in sf_set])):
    rows = query_rows(stacked_attention(outputs), sf_word)      # (N, 72, S)
    cue_hits.append(top_candidate_hits(rows, mask_of(sf_candidates, rows.shape[-1]),
                                       torch.tensor(sf_cue)).numpy().astype(int))
gap, gap_p = ambiguity_test(*cue_hits, n_draws=2000)
c21_ambiguity = (gap >= 0.25) & (gap_p < ALPHA)

# %% tags=["measure_c22"]
# C22, as noun_between.py decides it: the head-directions that pass.
nb_set = head_role_sets.verb_object_sentences()                 # a noun between verb and object
nb_outputs = run_sentences(model, tokenizer, [s.text for s in nb_set])
nb_attention = stacked_attention(nb_outputs)
nb_tokens = [tokenizer.tokens(s.text) for s in nb_set]
nb_verb = [word_position(t, s.verb) for t, s in zip(nb_tokens, nb_set)]
nb_object = [word_position(t, s.object) for t, s in zip(nb_tokens, nb_set)]
nb_between = [[word_position(t, w) for w in s.between] for t, s in zip(nb_tokens, nb_set)]
pick = {}
for name, queries, targets in (("verb_object", nb_verb, nb_object), ("object_verb", nb_object, nb_verb),
                               ("between_verb", [b[0] for b in nb_between], nb_verb)):
    top = top_among(query_rows(nb_attention, queries), [words_of(t, q) for t, q in zip(nb_tokens, queries)])
    pick[name] = (top == np.array(targets)[:, None]).sum(axis=0) / len(nb_set)
to_object = weight_on(nb_attention, nb_verb, nb_object)                      # (N, 72)
to_between = np.max([weight_on(nb_attention, nb_verb, [b[min(j, len(b) - 1)] for b in nb_between])
                     for j in (0, 1)], axis=0)
from_object = weight_on(nb_attention, nb_object, nb_verb)
from_between = np.max([weight_on(nb_attention, [b[min(j, len(b) - 1)] for b in nb_between], nb_verb)
                       for j in (0, 1)], axis=0)
prefer = np.concatenate([np.sign(to_object - to_between), np.sign(from_object - from_between)], axis=1)
prefer_p = sign_flip_max_statistic(prefer, n_draws=DRAWS)         # (144,): corrected over 144
pick_144 = np.concatenate([pick["verb_object"], pick["object_verb"]])
between_144 = np.concatenate([np.zeros(L * H), pick["between_verb"]])
c22_pass = (pick_144 >= LEAD) & ((prefer > 0).mean(axis=0) >= LEAD) & (prefer_p < ALPHA) & (between_144 <= 0.25)

# %% [markdown]
# ### What C23's new rule would need: the target's share of attention
#
# A head reused from another claim counts only if its target takes at least C23_SHARE
# of its attention. For every passing head of C02, C21 and C22: the mean weight
# its query gives the target.

# %% tags=["target_share"]
target_weight = {
    "c02": weight_on(co_attention, it_pos, right.tolist()).mean(axis=0),
    "c21": weight_on(stacked_attention(sf_outputs), sf_word, sf_cue).mean(axis=0),
    "c22": np.concatenate([to_object.mean(axis=0), from_object.mean(axis=0)]),
}
passing_of = {"c02": measured["coreference"]["passes"], "c21": c21_ambiguity, "c22": c22_pass}
for claim, weights in target_weight.items():
    chosen = weights[passing_of[claim]]                          # the passing heads' mean target weight
    print(f"{claim.upper()}: passing heads {len(chosen)}; the target's mean weight at most "
          f"{chosen.max() if len(chosen) else 0.0:.2f}, at least {C23_SHARE} in {(chosen >= C23_SHARE).sum()} of them")

# %%
passing_weight = {claim: weights[passing_of[claim]] for claim, weights in target_weight.items()}
report.number("c23_target_share", C23_SHARE, "{:.1f}")
report.number("c23_c02_max_target_weight", max(passing_weight["c02"], default=0.0), "{:.2f}")
report.number("c23_c02_heads_at_0_3", (passing_weight["c02"] >= C23_SHARE).sum(), "{:.0f}")
report.number("c23_c21_max_target_weight", max(passing_weight["c21"], default=0.0), "{:.2f}")
report.number("c23_c21_heads_at_0_3", (passing_weight["c21"] >= C23_SHARE).sum(), "{:.0f}")
report.number("c23_c22_max_target_weight", max(passing_weight["c22"], default=0.0), "{:.2f}")
report.number("c23_c22_heads_at_0_3", (passing_weight["c22"] >= C23_SHARE).sum(), "{:.0f}")
# Per claim, each passing head's mean target weight, by name (a C22 head of the second
# direction is named as object → verb).
passing_by_name = {claim: {head_name(int(f) % (L * H)) + ("" if f < L * H else " (object → verb)"):
                           round(float(target_weight[claim][f]), 3) for f in np.flatnonzero(passing_of[claim])}
                   for claim in target_weight}
report.data("issue19", {"c23_target_weight": passing_by_name})

# %% [markdown]
# ## Direction or length? (C23)
#
# Source A §3 says recognition is "a small angle between q and k". A score is
# q·k = |q|·|k|·cos θ, and for one query |q| is the same for every key, so the
# winner is decided by |k| and cos θ together. In the best coreference head and
# the best verb–object head we ask, sentence by sentence: would the cosine alone
# pick the same winner? Would the key's length alone?

# %% tags=["query_key"]
def query_key(outputs, n: int, layer: int, head: int):
    """Query and key vectors of one head in sentence n: (T, hs) each."""
    attention = model.layers[layer].attention
    x = outputs[n].hidden_states[layer]                          # (1, T, C): the layer's input
    q = attention.split_heads(attention.W_Q(x))[0, head]         # (T, hs)
    k = attention.split_heads(attention.W_K(x))[0, head]         # (T, hs)
    return q, k


# %% tags=["direction"]
@torch.no_grad()
def direction_or_length(outputs, role: str, queries, candidates) -> dict:
    best = measured[role]["best"]
    layer, head = divmod(best, H)
    by = {"cos": [], "norm": [], "attention": [], "winner_cos": [], "d_cos": [], "d_log_norm": []}
    for n, (query, allowed) in enumerate(zip(queries, candidates)):
        q, k = query_key(outputs, n, layer, head)
        keys = k[allowed]                                        # (c, hs)
        score = keys @ q[query]                                  # (c,)
        cos = torch.nn.functional.cosine_similarity(keys, q[query][None], dim=-1)  # (c,)
        norm = keys.norm(dim=-1)                                 # (c,)
        winner = int(score.argmax())
        runner = int(score.clone().index_fill_(0, torch.tensor([winner]), -1e9).argmax())
        weights = outputs[n].attentions[layer][0, head, query, allowed]           # (c,)
        by["cos"].append(int(cos.argmax()) == winner)
        by["norm"].append(int(norm.argmax()) == winner)
        by["attention"].append(int(weights.argmax()) == winner)
        by["winner_cos"].append(float(cos[winner].detach()))
        by["d_cos"].append(float(cos[winner] - cos[runner]))
        by["d_log_norm"].append(float(norm[winner].log() - norm[runner].log()))
    return {key: np.array(value) for key, value in by.items()} | {"head": head_name(best)}


vo_role = max(("verb_object", "object_verb"), key=lambda r: measured[r]["accuracy"].max())
vo_queries = verbs if vo_role == "verb_object" else objects
direction = {
    "coreference": direction_or_length(
        co_outputs, "coreference", it_pos, [n.nonzero()[:, 0] for n in nouns]),
    "verb_object": direction_or_length(
        vo_outputs, vo_role, vo_queries, [c.nonzero()[:, 0] for c in vo_hits[vo_role][2]]),
}
for name, d in direction.items():
    print(f"{name} (head {d['head']}): the cosine alone picks the winner in {d['cos'].mean():.0%}, "
          f"the key's length alone in {d['norm'].mean():.0%}; mean angle to the winner "
          f"{np.degrees(np.arccos(d['winner_cos'])).mean():.0f}°")

# %%
report.number("direction_verb_object_is_object_to_verb", vo_role == "object_verb", "{:.0f}")
co_direction, vo_direction = direction["coreference"], direction["verb_object"]
winner_angle = {name: np.degrees(np.arccos(d["winner_cos"])).mean() for name, d in direction.items()}   # degrees
report.number("direction_coreference_cos_share", co_direction["cos"].mean(), "{:.0%}")
report.number("direction_coreference_norm_share", co_direction["norm"].mean(), "{:.0%}")
report.number("direction_coreference_winner_cos", co_direction["winner_cos"].mean(), "{:.2f}")
report.number("direction_coreference_winner_angle", winner_angle["coreference"], "{:.0f}")
report.number("direction_coreference_score_matches_attention", co_direction["attention"].mean(), "{:.0%}")
report.number("direction_verb_object_cos_share", vo_direction["cos"].mean(), "{:.0%}")
report.number("direction_verb_object_norm_share", vo_direction["norm"].mean(), "{:.0%}")
report.number("direction_verb_object_winner_cos", vo_direction["winner_cos"].mean(), "{:.2f}")
report.number("direction_verb_object_winner_angle", winner_angle["verb_object"], "{:.0f}")
report.number("direction_verb_object_score_matches_attention", vo_direction["attention"].mean(), "{:.0%}")

# %%
# The same count in every head: is "the cosine alone picks the winner" special to the best
# heads, or true of MiniLM's heads in general? (explainer/head_angles.py)
from explainer.head_angles import angles_by_claim, cosine_picks_winner

COS_PICKS_BAR = 0.75   # a head counts when the cosine alone picks the winner in this share of sentences
cos_everywhere = {
    "coreference": cosine_picks_winner(model, co_outputs, it_pos, [n.nonzero()[:, 0] for n in nouns]),
    "verb_object": cosine_picks_winner(model, vo_outputs, vo_queries, [c.nonzero()[:, 0] for c in vo_hits[vo_role][2]]),
}
cos_heads_75 = {name: (picks >= COS_PICKS_BAR).sum() for name, picks in cos_everywhere.items()}   # heads, per role
report.number("direction_coreference_cos_heads_75", cos_heads_75["coreference"], "{:.0f}", kind="count")
report.number("direction_verb_object_cos_heads_75", cos_heads_75["verb_object"], "{:.0f}", kind="count")
report.number("cos_picks_bar", COS_PICKS_BAR, kind="share")

# %% [markdown]
# ### C23's rule: the angle between q and the target's key
#
# Every head that passes C02, C21 or C22 and gives its target at least C23_SHARE of the
# query's attention: the median angle between q and the target's key, and between q
# and the other candidates' keys (pooled over the sentences). The sentence's mean key
# is removed first: q·(k − m) differs from q·k by q·m, the same for every key of one
# query, so the softmax is unchanged.

# %% tags=["angles"]
SMALL, GAP, LARGE = 60.0, 15.0, 75.0        # the rule's angles, fixed in advance (C23_SHARE: above)


@torch.no_grad()
def centred_angles(outputs, flat: int, queries, targets, candidates):
    """One head: degrees between q and the centred target key per sentence, between q and
    every other candidate's centred key (pooled), and whether the target has the smallest angle."""
    layer, head = divmod(flat, H)
    to_target, to_others, smallest = [], [], []
    for n, (query, target, allowed) in enumerate(zip(queries, targets, candidates)):
        q, k = query_key(outputs, n, layer, head)                # (T, hs) each
        k = k - k.mean(dim=0)                                    # remove the sentence's mean key
        cos = torch.nn.functional.cosine_similarity(k, q[query][None], dim=-1)   # (T,)
        angle = torch.rad2deg(torch.arccos(cos.clamp(-1, 1)))    # (T,)
        others = [int(i) for i in allowed if int(i) != target]
        to_target.append(float(angle[target]))
        to_others += angle[others].tolist()
        smallest.append(bool(angle[target] < angle[others].min()))
    return np.array(to_target), np.array(to_others), np.array(smallest)


# Per claim: its sentences, and per passing head (flat index) the query, target and candidates.
c23_sets = {
    "c02": (measured["coreference"]["passes"], co_outputs,
            lambda f: (it_pos, right.tolist(), [[int(o), int(r), int(w)] for o, r, w in zip(other, right, wrong)])),
    "c21": (c21_ambiguity, sf_outputs, lambda f: (sf_word, sf_cue, sf_candidates)),
    "c22": (c22_pass, nb_outputs,
            lambda f: (nb_verb, nb_object, [words_of(t, v) for t, v in zip(nb_tokens, nb_verb)]) if f < L * H
            else (nb_object, nb_verb, [words_of(t, o) for t, o in zip(nb_tokens, nb_object)])),
}
c23 = []                                                         # one dict per qualifying head
for claim, (passes, outputs, items) in c23_sets.items():
    for f in np.flatnonzero(passes & (target_weight[claim] >= C23_SHARE)):
        to_target, to_others, smallest = centred_angles(outputs, int(f) % (L * H), *items(int(f)))
        c23.append({"claim": claim, "flat": int(f), "weight": float(target_weight[claim][f]),
                    "target": float(np.median(to_target)), "others": float(np.median(to_others)),
                    "smallest": float(smallest.mean())})
small = [h["target"] < SMALL and h["others"] - h["target"] >= GAP for h in c23]
large = [h["target"] > LARGE for h in c23]
for h in c23:
    print(f"{h['claim'].upper()} head {head_direction(h['flat']) if h['claim'] == 'c22' else head_name(h['flat'])}: "
          f"target weight {h['weight']:.2f}, median angle to the target {h['target']:.0f}°, "
          f"to the others {h['others']:.0f}°, target smallest in {h['smallest']:.0%}")
print(f"heads that qualify: {len(c23)}; with a small angle: {sum(small)}, with a large one: {sum(large)}")

# %% [markdown]
# The verdict must survive another draw of the sentences (G2), 1,000 times: C02's pairs and C21's
# frame templates as clusters, C22's sentences within their kind; the passing heads chosen again.

# %%
from explainer.angle_resampling import c02_passes, c21_passes, c23_counts
from explainer import item_resampling
from explainer.item_resampling import cluster_draws, stratified_draws
from explainer.noun_between_heads import c22_decision, top_picks

angles_all, per_sentence = angles_by_claim(model, c23_sets)     # every head's angles and weights, once
nb_hit = {q: top == t[:, None] for q, (top, t, _) in top_picks(nb_attention, nb_tokens, nb_verb, nb_object, nb_between).items()}


def c23_again(items, seed):                                     # items: claim -> the drawn sentences
    passes = {"c02": c02_passes(ours_right, ours_wrong, items["c02"], alpha=ALPHA, majority=MAJORITY, seed=seed),
              "c21": c21_passes(*cue_hits, items["c21"], gap_min=0.25, alpha=ALPHA, seed=seed),
              "c22": c22_decision(nb_hit, prefer, items["c22"], n_draws=DRAWS, significance=ALPHA, lead=LEAD, seed=seed)["passes"]}
    return c23_counts(passes, per_sentence, angles_all, items, share=C23_SHARE, small=SMALL, gap=GAP, large=LARGE)


everything = {"c02": np.arange(len(co_set)), "c21": np.arange(len(sf_set)), "c22": np.arange(len(nb_set))}
assert c23_again(everything, 0) == dict(heads=len(c23), small_heads=sum(small), large_heads=sum(large))  # identity draw
c23_draws = {"c02": cluster_draws([s.pair for s in co_set], seed=2), "c21": cluster_draws([s.frame for s in sf_set]),
             "c22": stratified_draws([s.kind for s in nb_set], seed=1)}
again = [c23_again({claim: d[i] for claim, d in c23_draws.items()}, seed=i) for i in range(item_resampling.DRAWS)]

# %%
report.number("n_items", len(co_set) + len(sf_set) + len(nb_set), kind="count")
report.number("c23_heads", len(c23), "{:.0f}", kind="count", resampled=[a["heads"] for a in again])
report.number("c23_small_heads", sum(small), "{:.0f}", kind="count", resampled=[a["small_heads"] for a in again])
report.number("c23_large_heads", sum(large), "{:.0f}", kind="count", resampled=[a["large_heads"] for a in again])
report.number("c23_small_angle", SMALL, "{:.0f}")
report.number("c23_angle_gap", GAP, "{:.0f}")
report.number("c23_large_angle", LARGE, "{:.0f}")
first = max(c23, key=lambda h: h["weight"]) if c23 else None   # the one the page describes
report.number("c23_target_angle", first["target"] if first else 0.0, "{:.0f}")
report.number("c23_others_angle", first["others"] if first else 0.0, "{:.0f}")
report.number("c23_smallest_angle_share", first["smallest"] if first else 0.0, "{:.0%}")
# The page's sentence about it: how many heads qualify, and the one the numbers describe
# (a C22 head has a direction: verb → object or object → verb).
report.number("c23_first_layer", first["flat"] % (L * H) // H + 1 if first else 0, "{:.0f}")
report.number("c23_first_head", first["flat"] % H + 1 if first else 0, "{:.0f}")
c23_direction = "" if not first or first["claim"] != "c22" else \
    "_verb_object" if first["flat"] < L * H else "_object_verb"
report.category("c23_qualifying", "none" if not first else ("one" if len(c23) == 1 else "several") + c23_direction)
general = min(int((v >= COS_PICKS_BAR).sum()) for v in cos_everywhere.values()) >= L * H / 2   # most heads do it
report.category("c23_cos_everywhere_lead", "general" if general else "compare")

# %% [markdown]
# ## Figure

# %%
TEXT = report.figure_text()   # the figures' words: angles.strings.toml
for lang in LANGS:
    text = TEXT[lang]
    fig, axes = plt.subplots(1, 2, figsize=(7.2, 3.4))
    for ax, (name, d) in zip(axes, direction.items()):
        ax.scatter(d["d_cos"], d["d_log_norm"], s=18, color="#1b9e77", alpha=0.8)
        ax.axhline(0, color="grey", lw=0.6)
        ax.axvline(0, color="grey", lw=0.6)
        ax.set_title(text["dir_title"][name].format(h=d["head"]), fontsize=10)
        ax.set_xlabel(text["d_cos"], fontsize=9)
        ax.set_ylabel(text["d_norm"], fontsize=9)
        ax.tick_params(labelsize=9)
    fig.tight_layout()
    report.figure("direction", fig, lang, alt=text["alt_dir"], caption=text["cap_dir"].format(
        c1=co_direction["cos"].mean(), c2=vo_direction["cos"].mean(), n1=co_direction["norm"].mean(),
        n2=vo_direction["norm"].mean(), a1=winner_angle["coreference"], a2=winner_angle["verb_object"]))

report.save()
