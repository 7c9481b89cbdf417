# %% [markdown]
# # C07 in MiniLM: a previous-token head and an entity head in one layer
#
# Part of the page "Head roles in a real model". The toy model's page
# (many_heads/a_head_for_it/) asks the same of trained toy transformers.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.report import Report

report = Report("real_model.head_roles.previous_and_entity")

# %%
from explainer.minilm import MiniLM, Tokenizer, run_sentences   # first: it pins torch's CPU kernels
from explainer.role_sentences import coreference_sentences, word_position
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()         # all-MiniLM-L6-v2, weights on disk
L, H = model.config.n_layers, model.config.n_heads
ALPHA = 0.05       # corrected significance level, as for every role on this page
DRAWS = 2000       # redraws of the max-statistic permutation

# %% [markdown]
# One definition for the toy model and MiniLM: a head takes a role if the
# right word is its top pick over **all** tokens ([CLS] and [SEP] included) in at
# least half the positions that need it, and beyond chance after the max-statistic
# correction (null: the target redrawn uniformly among the sentence's tokens).
# Previous token: the second word of 48 fixed two-word names ("New York") in
# carrier sentences. Entity: *it* → its referent in C02's 40 sentences.

# %% tags=["previous_and_entity"]
from explainer.head_picks import query_rows, stacked_attention, top_among, weight_on
from explainer.head_role_sets import two_word_names
from explainer.max_statistic import top_pick_max_statistic, wilson_interval

co_set = coreference_sentences()                                 # C02's 40 sentences: it → referent
co_attention = stacked_attention(run_sentences(model, tokenizer, [s.text for s in co_set]))
co_tokens = [tokenizer.tokens(s.text) for s in co_set]
it_pos = [word_position(t, "it") for t in co_tokens]
referent = [word_position(t, s.right) for t, s in zip(co_tokens, co_set)]

nm_set = two_word_names()
nm_attention = stacked_attention(run_sentences(model, tokenizer, [s.text for s in nm_set]))
nm_tokens = [tokenizer.tokens(s.text) for s in nm_set]
nm_second = [word_position(t, s.second) for t, s in zip(nm_tokens, nm_set)]
c07 = {}
for name, attention, queries, targets in (
        ("previous_token", nm_attention, nm_second, [q - 1 for q in nm_second]),
        ("entity", co_attention, it_pos, referent)):
    everything = [list(range(a.shape[-1])) for a in attention]
    top = top_among(query_rows(attention, queries), everything)
    hits, p = top_pick_max_statistic(top, np.array(targets), everything, n_draws=DRAWS)
    share = hits / len(queries)
    low, high = wilson_interval(hits, len(queries))
    c07[name] = dict(share=share, p=p, passes=(share >= 0.5) & (p < ALPHA), best=int(share.argmax()),
                     clear=(low >= 0.5) & (p < ALPHA), possible=(high >= 0.5) & (p < ALPHA),
                     weight=weight_on(attention, queries, targets).mean(axis=0))

# %%
prev, entity = c07["previous_token"], c07["entity"]
report.number("c07_previous_token_heads", prev["passes"].sum(), "{:.0f}")
report.number("c07_previous_token_clear_heads", prev["clear"].sum(), "{:.0f}")
report.number("c07_previous_token_possible_heads", prev["possible"].sum(), "{:.0f}")
report.number("c07_previous_token_best_share", prev["share"].max(), "{:.0%}")
report.number("c07_previous_token_best_layer", prev["best"] // H + 1, "{:.0f}")
report.number("c07_previous_token_best_head", prev["best"] % H + 1, "{:.0f}")
report.number("c07_previous_token_best_p", prev["p"][prev["best"]], kind="p")
report.number("c07_entity_heads", entity["passes"].sum(), "{:.0f}")
report.number("c07_entity_clear_heads", entity["clear"].sum(), "{:.0f}")
report.number("c07_entity_possible_heads", entity["possible"].sum(), "{:.0f}")
report.number("c07_entity_best_share", entity["share"].max(), "{:.0%}")
report.number("c07_entity_best_layer", entity["best"] // H + 1, "{:.0f}")
report.number("c07_entity_best_head", entity["best"] % H + 1, "{:.0f}")
report.number("c07_entity_best_p", entity["p"][entity["best"]], kind="p")
report.number("c07_n_names", len(nm_set), "{:.0f}")


def split_layers(kind: str) -> int:
    """Layers in which one head takes the previous-token role and ANOTHER head the entity role."""
    prev = c07["previous_token"][kind].reshape(L, H)
    entity = c07["entity"][kind].reshape(L, H)
    return sum(any(prev[l, a] and entity[l, b] for a in range(H) for b in range(H) if a != b)
               for l in range(L))


report.number("c07_minilm_split_layers", split_layers("passes"), "{:.0f}")
report.number("c07_minilm_split_layers_clear", split_layers("clear"), "{:.0f}")
report.number("c07_minilm_split_layers_possible", split_layers("possible"), "{:.0f}")


# %%
report.data("issue19", {
    "c07": {name: {"share": np.round(r["share"], 3).tolist(), "passes": r["passes"].astype(int).tolist()}
            for name, r in c07.items()},
})

# %% [markdown]
# ## Could the test see such heads? Planted ones (G1)
#
# C07 is refuted in MiniLM only if no head may take either role. Would a layer that has both
# roles have escaped? In each of 200 draws, one layer and two distinct heads of it are drawn
# at random: the first takes the previous-token role, the second the entity role, each at
# the role's bar in expectation: every row of that head is overridden, with probability ½ and
# independently, to put all its weight on the target; in the other rows the head keeps its
# own attention, except that where its own top pick is the target, the target's weight moves
# to its second choice. The same max-statistic test (a fresh seed in each draw) runs over all
# 72 heads with the planted columns, and the draw counts as detected when some head may take
# either role (the refuted case does not hold).

# %% tags=["planted"]
from explainer.planted_heads import planted_top_picks

PLANTED_DRAWS = 200
planted_rng = np.random.default_rng(1)
c07_roles = {"previous_token": (nm_attention, nm_second, np.array([q - 1 for q in nm_second])),
             "entity": (co_attention, it_pos, np.array(referent))}
c07_rows = {name: query_rows(attention, queries) for name, (attention, queries, _) in c07_roles.items()}
c07_everything = {name: [list(range(a.shape[-1])) for a in attention]
                  for name, (attention, _, _) in c07_roles.items()}
c07_top = {name: top_among(c07_rows[name], c07_everything[name]) for name in c07_roles}
planted_counts = {name: [] for name in c07_roles}
planted_detected = []
for _ in range(PLANTED_DRAWS):
    layer = int(planted_rng.integers(L))
    pair = layer * H + planted_rng.choice(H, size=2, replace=False)     # previous-token head, entity head
    possible = 0
    for (name, (_, queries, targets)), flat in zip(c07_roles.items(), pair):
        chosen = planted_rng.random(len(queries)) < 0.5
        top = c07_top[name].copy()
        top[:, flat] = planted_top_picks(c07_rows[name][:, flat], c07_everything[name], chosen, targets)
        hits, p = top_pick_max_statistic(top, targets, c07_everything[name], n_draws=DRAWS,
                                         seed=int(planted_rng.integers(1 << 30)))
        low, high = wilson_interval(hits, len(queries))
        possible += int(((high >= 0.5) & (p < ALPHA)).sum())
        planted_counts[name].append(int(chosen.sum()))
    planted_detected.append(possible > 0)
print(f"planted heads detected in {np.mean(planted_detected):.0%} of {PLANTED_DRAWS} draws; mean counts "
      + ", ".join(f"{name} {np.mean(k):.1f}" for name, k in planted_counts.items()))
report.number("c07_planted_detection_share", np.mean(planted_detected), kind="share")
report.number("c07_planted_k_previous", np.mean(planted_counts["previous_token"]), "{:.1f}")
report.number("c07_planted_k_entity", np.mean(planted_counts["entity"]), "{:.1f}")

# %%
report.number("c07_planted_draws", PLANTED_DRAWS, "{:.0f}", kind="count")
report.save()
