# %% [markdown]
# # Keys, queries and values in a real model
#
# Source B's postscript says three things about what Q, K and V carry:
# a key is an *index* of all of a token's features while a query is a *view*
# that looks for one of them (C18); Q and K are *more abstract* than V (C20);
# and source B §4 says single dimensions of the trained vectors come to mean
# features such as "edible" (C28). Each is measured here in MiniLM, head by
# head, by a number that can come out either way. The snippet records the
# numbers; the claims registry (docs/claims.yml) holds the rules.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.report import Report

report = Report("real_model.keys_queries")

# %% tags=["model"]
from explainer.minilm import MiniLM, Tokenizer, run_sentences   # first: it pins torch's CPU kernels
from explainer.noun_classes import FOOD_NOUNS, FRAMES, OTHER_NOUNS, framed_sentences
from explainer.sample_sentences import SENTENCE_PAIRS, SENTENCES
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()       # all-MiniLM-L6-v2, weights on disk
L, H = model.config.n_layers, model.config.n_heads
hs = model.config.d_model // H                                     # 32 dimensions per head
print(f"{L} layers × {H} heads, {hs} dimensions per head")

# %% [markdown]
# ## The token sample
#
# Every token (without [CLS] and [SEP]) of the project's sample sentences, of
# the sentence pairs, and of 100 concrete nouns put into six neutral frames.
# For each layer we keep the layer's input x and project it with that layer's
# W_Q, W_K and W_V, exactly as attention does.

# %% tags=["tokens"]
framed = framed_sentences()                                        # (sentence, noun, frame)
sentences = (SENTENCES + sorted({s for pair in SENTENCE_PAIRS for s in pair})
             + [sentence for sentence, _, _ in framed])
outputs = run_sentences(model, tokenizer, sentences)


def project(x: torch.Tensor, layer: int) -> dict[str, torch.Tensor]:
    """Q, K, V of layer ``layer`` for inputs x (N, C), split into heads: each (N, nh, hs)."""
    attention = model.layers[layer].attention
    with torch.no_grad():
        return {name: getattr(attention, f"W_{name}")(x).view(-1, H, hs)
                for name in ("Q", "K", "V")}


inner = [out.hidden_states for out in outputs]                     # per sentence: L+1 tensors (1, T, C)
n_tokens = sum(h[0].shape[1] - 2 for h in inner)
print(f"{len(sentences)} sentences, {n_tokens} tokens")

# %%
report.number("n_sentences", len(sentences), "{:.0f}",
              en="sentences in the token sample", zh="词元样本中的句子数")
report.number("n_tokens", n_tokens, "{:.0f}",
              en="tokens in the sample ([CLS] and [SEP] left out)",
              zh="样本中的词元数（不含 [CLS] 和 [SEP]）")
report.number("n_heads", L * H, "{:.0f}", en="heads in MiniLM", zh="MiniLM 的头数")

# %% [markdown]
# ## C18: how many directions do keys and queries span?
#
# The participation ratio of a cloud of vectors, (Σλ)² / Σλ² over the
# eigenvalues λ of their covariance, counts its directions: d for a round
# cloud in d dimensions, 1 for a line. An index of *all* features should span
# more directions than a view on *one*.

# %% tags=["participation_ratio"]
def participation_ratio(vectors: torch.Tensor) -> torch.Tensor:
    """(N, nh, hs) -> (nh,): effective number of directions of each head's vectors."""
    centred = vectors - vectors.mean(dim=0)                        # (N, nh, hs)
    covariance = torch.einsum("nha,nhb->hab", centred, centred) / len(vectors)  # (nh, hs, hs)
    eigenvalues = torch.linalg.eigvalsh(covariance.double()).clamp(min=0)       # (nh, hs)
    return eigenvalues.sum(-1) ** 2 / (eigenvalues ** 2).sum(-1)


ratio = {name: np.zeros((L, H)) for name in ("Q", "K", "V")}
for layer in range(L):
    x = torch.cat([h[layer][0, 1:-1] for h in inner])              # (N, C): no [CLS], [SEP]
    for name, vectors in project(x, layer).items():
        ratio[name][layer] = participation_ratio(vectors).numpy()

keys_over_queries = ratio["K"] / ratio["Q"]                        # (L, H)
print("directions spanned, median over heads:",
      ", ".join(f"{name} {np.median(ratio[name]):.1f}" for name in ("Q", "K", "V")), f"(of {hs})")
print(f"heads whose keys span more directions than their queries: {(keys_over_queries > 1).sum()} of {L * H}")

# %%
report.number("keys_wider_heads", (keys_over_queries > 1).sum(), "{:.0f}",
              en="heads whose keys span more directions than their queries",
              zh="键张成的方向多于查询的头数")
report.number("pr_ratio_median", np.median(keys_over_queries), "{:.2f}",
              en="median over heads of (key directions / query directions)",
              zh="各头“键方向数 / 查询方向数”的中位数")
report.number("pr_ratio_min", keys_over_queries.min(), "{:.2f}",
              en="smallest keys/queries ratio of a head", zh="各头键/查询之比的最小值")
report.number("pr_ratio_max", keys_over_queries.max(), "{:.2f}",
              en="largest keys/queries ratio of a head", zh="各头键/查询之比的最大值")
for name in ("Q", "K", "V"):
    label = {"Q": ("queries", "查询"), "K": ("keys", "键"), "V": ("values", "值")}[name]
    report.number(f"pr_{label[0]}_median", np.median(ratio[name]), "{:.1f}",
                  en=f"median over heads of the directions the {label[0]} span (of {hs})",
                  zh=f"各头{label[1]}张成的方向数的中位数（共 {hs} 维）")
for layer in range(L):
    report.number(f"keys_wider_heads_layer{layer + 1}", (keys_over_queries[layer] > 1).sum(),
                  "{:.0f}", en=f"heads of layer {layer + 1} whose keys span more directions",
                  zh=f"第 {layer + 1} 层里键的方向更多的头数")
widest = np.unravel_index(keys_over_queries.argmax(), (L, H))
narrowest = np.unravel_index(keys_over_queries.argmin(), (L, H))
for tag, (layer, head) in (("widest", widest), ("narrowest", narrowest)):
    report.number(f"{tag}_layer", layer + 1, "{:.0f}",
                  en=f"layer of the head with the {'largest' if tag == 'widest' else 'smallest'} "
                     "keys/queries ratio", zh=f"键/查询之比{'最大' if tag == 'widest' else '最小'}的头所在的层")
    report.number(f"{tag}_head", head + 1, "{:.0f}",
                  en=f"that head's number in its layer", zh="该头在层内的编号")

# %% [markdown]
# ## C18 (a): several heads, several views?
#
# Source B's 开车 example: from the verb, one head's query looks for the tool,
# another for the agent, a third for the manner. We build sentences in which a
# verb has all of these — "Carefully, the old farmer cut the rope with the knife.",
# "The rope was cut by the farmer with the knife carefully." — and move every
# role around (actives and passives, the adverb in four places, the tool phrase
# in front or at the end, 0–3 adjectives before each noun), so no rule "the word
# k places away" and no rule "the nearest content word" finds a role in more than
# half of them. The query is the verb; a head picks a role when the role's word is
# its top pick among all tokens ([CLS] and [SEP] included).

# %% tags=["role_sentences"]
from explainer.role_templates import FEATURES, ROLES, content_positions, role_sentences

role_items = role_sentences(240, seed=0)
role_outputs = run_sentences(model, tokenizer, [item.text for item in role_items])


def head_logits(hidden: torch.Tensor, layer: int) -> torch.Tensor:
    """The attention logits q·k/√hs of every head of a layer, for one sentence (T, C): (nh, T, T)."""
    vectors = project(hidden, layer)
    return torch.einsum("qha,kha->hqk", vectors["Q"], vectors["K"]) / hs ** 0.5


role_logits = [torch.cat([head_logits(out.hidden_states[layer][0], layer) for layer in range(L)])
               for out in role_outputs]                            # per sentence (L*H, T, T)
verb_top = np.array([logits[:, item.verb].argmax(dim=-1).numpy()
                     for item, logits in zip(role_items, role_logits)])   # (N, L*H): top pick from the verb
print(f"{len(role_items)} sentences, e.g. “{role_items[1].text}”")

# %%
# Bookkeeping: the logits are the ones attention used (their softmax is the model's weights).
assert all(torch.allclose(logits.view(L, H, *logits.shape[1:]).softmax(-1),
                          torch.cat(out.attentions), atol=1e-5)
           for logits, out in zip(role_logits[:5], role_outputs[:5]))

# %% tags=["role_heads"]
from explainer.logit_features import distinct_heads
from explainer.max_statistic import top_pick_max_statistic

N_DRAWS_C18 = 2000
role_hits, role_p = {}, {}
for role in ROLES:
    targets = np.array([item.roles[role] for item in role_items])
    candidates = [content_positions(item) for item in role_items]   # chance: any content word but the verb
    role_hits[role], role_p[role] = top_pick_max_statistic(verb_top, targets, candidates,
                                                           n_draws=N_DRAWS_C18, seed=18)
passing = {role: [h for h in np.argsort(-role_hits[role], kind="stable") if role_p[role][h] < 0.05]
           for role in ROLES}                                      # best head first
# the source's three roles: the agent, the object or tool, the manner
either = np.maximum(role_hits["object"], role_hits["tool"])
views = {"agent": passing["agent"],
         "object_or_tool": sorted(set(passing["object"]) | set(passing["tool"]), key=lambda h: -either[h]),
         "manner": passing["manner"]}
n_views, assignment = distinct_heads(views)
for role in ROLES:
    best = int(role_hits[role].argmax())
    print(f"{role:>7}: best head {best // H + 1}-{best % H + 1}, top pick in "
          f"{role_hits[role][best] / len(role_items):.0%} (p = {role_p[role][best]:.4f}); "
          f"{len(passing[role])} heads pass")
print(f"roles with a head of their own: {n_views} of 3",
      {r: f"{h // H + 1}-{h % H + 1}" for r, h in assignment.items()})

# %%
n_role_items = len(role_items)
ROLE_ZH = {"agent": "施事", "object": "受事", "tool": "工具", "manner": "方式", "object_or_tool": "受事或工具"}
sink_top = np.array([[item.tokens[t] in ("[CLS]", "[SEP]") for t in row]
                     for item, row in zip(role_items, verb_top)])  # (N, L*H)
report.number("c18_sentences", n_role_items, "{:.0f}", kind="count",
              en="template sentences with a verb, its agent, object, tool and manner",
              zh="含动词及其施事、受事、工具、方式的模板句数")
report.number("c18_draws", N_DRAWS_C18, "{:.0f}", kind="count",
              en="permutation draws (max statistic over the 72 heads)",
              zh="置换抽样次数（72 个头上的最大统计量）")
for role in ROLES:
    best = int(role_hits[role].argmax())
    report.number(f"c18_{role}_best_share", role_hits[role][best] / n_role_items, "{:.0%}", kind="share",
                  en=f"{role}: top pick of the best head from the verb", zh=f"{ROLE_ZH[role]}：从动词出发，最好的头首选它的比例")
    report.number(f"c18_{role}_best_layer", best // H + 1, "{:.0f}", en=f"{role}: that head's layer",
                  zh=f"{ROLE_ZH[role]}：这个头所在的层")
    report.number(f"c18_{role}_best_head", best % H + 1, "{:.0f}", en=f"{role}: that head's number",
                  zh=f"{ROLE_ZH[role]}：这个头在层内的编号")
    report.number(f"c18_{role}_best_p", role_p[role][best], kind="p",
                  en=f"{role}: its p-value (max-statistic permutation over the 72 heads)",
                  zh=f"{ROLE_ZH[role]}：它的 p 值（72 个头的最大统计量置换检验）")
    report.number(f"c18_{role}_heads", len(passing[role]), "{:.0f}", kind="count",
                  en=f"{role}: heads whose top pick it is beyond chance (corrected)",
                  zh=f"{ROLE_ZH[role]}：首选它超出偶然（校正后）的头数")
    report.number(f"c18_{role}_chance", np.mean([1 / len(content_positions(item)) for item in role_items]),
                  "{:.0%}", kind="share", en=f"{role}: chance (one content word of the sentence at random)",
                  zh=f"{ROLE_ZH[role]}：偶然水平（随机选句中的一个实词）")
report.number("c18_views", n_views, "{:.0f}", kind="count",
              en="of the three roles (agent, object or tool, manner): how many get a different passing head",
              zh="三种角色（施事、受事或工具、方式）中，能各分到一个不同的通过检验的头的个数")
report.number("c18_a_shown", float(n_views >= 2), "{:.0f}",
              en="(a) shown: at least two roles each the top pick of a different head (1 yes, 0 no)",
              zh="(a) 成立：至少两种角色各是一个不同的头的首选（1 是，0 否）")
report.number("c18_sink_top_median", np.median(sink_top.mean(axis=0)), "{:.0%}", kind="share",
              en="from the verb, share of sentences whose top pick is [CLS] or [SEP]: median over heads",
              zh="从动词出发，首选 [CLS] 或 [SEP] 的句子比例：各头中位数")
report.number("c18_sink_top_heads", int((sink_top.mean(axis=0) > 0.5).sum()), "{:.0f}", kind="count",
              en="heads whose top pick from the verb is [CLS] or [SEP] in more than half the sentences",
              zh="从动词出发，一半以上句子里首选 [CLS] 或 [SEP] 的头数")
assigned = [f"{ROLE_ZH[r]}：头 {h // H + 1}-{h % H + 1}" for r, h in assignment.items()]
report.text("c18_a_outcome",
            en=(f"{n_views} of the three roles get a head of their own ("
                + ", ".join(f"{r.replace('_', ' ')}: head {h // H + 1}-{h % H + 1}" for r, h in assignment.items())
                + ")" if n_views else "No role is the top pick of any head beyond chance")
               + (": several heads are several views, in this sense." if n_views >= 2 else
                  ": fewer than two roles have a head of their own."),
            zh=(f"三种角色中有 {n_views} 种各有自己的头（" + "，".join(assigned) + "）" if n_views
                else "没有哪种角色超出偶然地成为某个头的首选")
               + ("：在这个意义上，多个头确实是多个视角。" if n_views >= 2 else "：各有自己的头的角色不到两种。"))

# %%
# Notes on (a). A head that follows a fixed habit (say, "the word just before the verb") is
# right as often as that habit, up to half the time by construction: how often is each
# assigned head right where the role is neither at its commonest offset nor the nearest
# content word? And how often is its top pick a sink?
off_rule_hits = {}
for view, head in assignment.items():
    role = view if view != "object_or_tool" else max(("object", "tool"), key=lambda r: role_hits[r][head])
    offsets = np.array([item.roles[role] - item.verb for item in role_items])
    common = np.bincount(offsets - offsets.min()).argmax() + offsets.min()
    nearest = np.array([min(content_positions(item), key=lambda i: abs(i - item.verb)) == item.roles[role]
                        for item in role_items])
    off = (offsets != common) & ~nearest
    hit = verb_top[:, head] == np.array([item.roles[role] for item in role_items])
    report.number(f"c18_{view}_assigned_layer", head // H + 1, "{:.0f}", en=f"{view.replace('_', ' ')}: the head assigned to it, layer",
                  zh=f"{ROLE_ZH[view]}：分给它的头所在的层")
    report.number(f"c18_{view}_assigned_head", head % H + 1, "{:.0f}", en=f"{view.replace('_', ' ')}: that head's number",
                  zh=f"{ROLE_ZH[view]}：这个头在层内的编号")
    report.number(f"c18_{view}_assigned_share", hit.mean(), "{:.0%}", kind="share",
                  en=f"{view.replace('_', ' ')}: that head's top pick is the role word", zh=f"{ROLE_ZH[view]}：这个头首选该角色词的比例")
    report.number(f"c18_{view}_off_rule_share", hit[off].mean(), "{:.0%}", kind="share",
                  en=f"{view.replace('_', ' ')}: the same, in the sentences where no position rule finds the role",
                  zh=f"{ROLE_ZH[view]}：同上，只看位置规则找不到该角色的句子")
    report.number(f"c18_{view}_off_rule_sentences", off.sum(), "{:.0f}", kind="count",
                  en=f"{view.replace('_', ' ')}: sentences where no position rule finds the role",
                  zh=f"{ROLE_ZH[view]}：位置规则找不到该角色的句子数")
    report.number(f"c18_{view}_assigned_sink", sink_top[:, head].mean(), "{:.0%}", kind="share",
                  en=f"{view.replace('_', ' ')}: that head's top pick is [CLS] or [SEP]",
                  zh=f"{ROLE_ZH[view]}：这个头首选 [CLS] 或 [SEP] 的比例")
    off_chance = np.mean([1 / len(content_positions(item)) for item, o in zip(role_items, off) if o])
    report.number(f"c18_{view}_off_rule_chance", off_chance, "{:.0%}", kind="share",
                  en=f"{view.replace('_', ' ')}: chance in those sentences", zh=f"{ROLE_ZH[view]}：这些句子里的偶然水平")
    off_rule_hits[view] = (hit[off].mean(), off_chance)
beyond = [v for v, (share, chance) in off_rule_hits.items() if share > chance]
habit = [v for v in off_rule_hits if v not in beyond]
EN_VIEW = {"agent": "the agent's", "object_or_tool": "the object-or-tool", "manner": "the manner"}
report.text("c18_off_rule_outcome",
            en=(("Where no position rule finds the role, " + " and ".join(f"{EN_VIEW[v]} head" for v in beyond)
                 + " still beat" + ("s" if len(beyond) == 1 else "") + " chance" if beyond else
                 "Where no position rule finds the role, no assigned head beats chance")
                + ("; " + " and ".join(f"{EN_VIEW[v]} head" for v in habit)
                   + " do" + ("es" if len(habit) == 1 else "") + " not: there it follows a position habit."
                   if habit else ".")),
            zh=(("在位置规则找不到角色的句子里，" + "和".join(f"{ROLE_ZH[v]}头" for v in beyond) + "仍高于偶然水平"
                 if beyond else "在位置规则找不到角色的句子里，分到的头都不高于偶然水平")
                + ("；" + "和".join(f"{ROLE_ZH[v]}头" for v in habit) + "则不然：它跟的是一个位置习惯。"
                   if habit else "。")))

# %% [markdown]
# ## C18 (b): what does the match use?
#
# Each key token gets five features from the templates: part of speech, animacy,
# number, concreteness (the template module's own word list) and a position
# bucket. For one query word in many sentences, a head's logits over the keys are
# regressed on those features (one-hot, each row centred, since softmax ignores a
# constant per row), fitted on half of the sentences and scored on the other half.
# The top feature's share is its own held-out R² divided by the full model's.
# "Spread" counts the fewest features whose best combination reaches 90 % of the
# full R².

# %% tags=["logit_regression"]
from explainer.logit_features import held_out_r2, one_hot, shares

feature_names = list(FEATURES)
role_fold = np.arange(len(role_items)) % 2                            # the sentences in two halves
query_words = {}
for s, item in enumerate(role_items):
    for i, word in enumerate(item.tokens[1:-1], start=1):
        query_words.setdefault(word, []).append((s, i))
query_words = {w: occ for w, occ in query_words.items()
               if len({s for s, _ in occ}) >= 20 and {role_fold[s] for s, _ in occ} == {0, 1}}



def query_regressions(sentence_logits: list[torch.Tensor]) -> dict[str, tuple]:
    """Per query word: held-out full R², top feature, its share, features needed; each (L*H,)."""
    out = {}
    for word, occurrences in query_words.items():
        logits, blocks, rows, fold = [], [[] for _ in feature_names], [], []
        for row, (s, i) in enumerate(occurrences):
            item = role_items[s]
            logits.append(sentence_logits[s][:, i].T.numpy())     # (T, L*H): this query's logits over the keys
            for f, name in enumerate(feature_names):
                blocks[f].append(one_hot(item.features[name], FEATURES[name]))
            rows += [row] * len(item.tokens)
            fold += [role_fold[s]] * len(item.tokens)
        r2 = held_out_r2(np.vstack(logits), [np.vstack(b) for b in blocks], np.array(rows), np.array(fold))
        out[word] = shares(r2, len(feature_names))
    return out


per_query = query_regressions(role_logits)
full_r2 = np.array([v[0] for v in per_query.values()])             # (queries, L*H)
top_share = np.array([v[2] for v in per_query.values()])
needed = np.array([v[3] for v in per_query.values()])
explained = full_r2 > 0
head_share = np.nanmedian(np.where(explained, top_share, np.nan), axis=0)   # (L*H,): the median query
head_r2 = np.median(full_r2, axis=0)
head_needed = np.array([np.median(needed[explained[:, h], h]) if explained[:, h].any() else 0
                        for h in range(L * H)])
top_feature = np.array([[feature_names[v[1][h]] for h in range(L * H)] for v in per_query.values()])
print(f"{len(per_query)} query words; median over heads of the median query's top-feature share "
      f"{np.median(head_share):.2f}, held-out R² {np.median(head_r2):.2f}")

# %% tags=["key_decodability"]
from explainer.logit_features import balanced_probe_accuracy

token_fold = np.concatenate([[role_fold[s]] * len(item.tokens) for s, item in enumerate(role_items)])
token_labels = {name: np.concatenate([[FEATURES[name].index(v) for v in item.features[name]]
                                      for item in role_items]) for name in feature_names}
residual_accuracy = np.zeros((L, len(feature_names)))
key_accuracy = np.zeros((L, H, len(feature_names)))
for layer in range(L):
    x = torch.cat([out.hidden_states[layer][0] for out in role_outputs])      # (N, C): the layer's input
    keys = project(x, layer)["K"]                                              # (N, nh, hs)
    for f, name in enumerate(feature_names):
        residual_accuracy[layer, f] = balanced_probe_accuracy(x[:, None], token_labels[name], token_fold)[0]
        key_accuracy[layer, :, f] = balanced_probe_accuracy(keys, token_labels[name], token_fold).numpy()
carried = (key_accuracy >= 0.9 * residual_accuracy[:, None, :]).sum(-1).reshape(L * H)   # features the keys carry
b_holds = (head_share >= 0.5) & (carried >= 4)
spread = head_needed >= carried                                    # the match spreads as widely as the keys
print(f"(b) holds in {b_holds.sum()} of {L * H} heads; keys carry a median of {np.median(carried):.0f} "
      f"of {len(feature_names)} features; spread ≥ carried in {spread.sum()} heads")

# %%
from explainer.logit_features import key_only_share

sink_share = np.mean([key_only_share(logits).numpy() for logits in role_logits], axis=0)   # (L*H,)
R2_FLOOR = 0.1
report.number("c18_query_words", len(per_query), "{:.0f}", kind="count",
              en="query words in at least 20 sentences (each a regression per head)",
              zh="至少出现在 20 个句子里的查询词数（每个词、每个头各做一次回归）")
report.number("c18_features", len(feature_names), "{:.0f}", kind="count",
              en="key features (part of speech, animacy, number, concreteness, position bucket)",
              zh="键的特征数（词性、有生性、单复数、具体性、位置段）")
report.number("c18_b_heads", b_holds.sum(), "{:.0f}", kind="count",
              en="heads where (b) holds: top feature ≥ 50 % of the explained variance for the median query and keys carry ≥ 4 features",
              zh="(b) 成立的头数：中位查询上最重要的特征占已解释方差 ≥ 50%，且键带着 ≥ 4 个特征")
report.number("c18_share_heads", (head_share >= 0.5).sum(), "{:.0f}", kind="count",
              en="heads whose median query's top feature explains ≥ 50 % of the explained variance",
              zh="中位查询上最重要的特征占已解释方差 ≥ 50% 的头数")
report.number("c18_carry_heads", (carried >= 4).sum(), "{:.0f}", kind="count",
              en="heads whose keys carry ≥ 4 features at ≥ 90 % of the residual stream's decodability",
              zh="键以不低于残差流 90% 的可解码度带着 ≥ 4 个特征的头数")
report.number("c18_top_share_median", np.median(head_share), "{:.0%}", kind="share",
              en="median over heads of the median query's top-feature share",
              zh="各头“中位查询的最重要特征所占份额”的中位数")
report.number("c18_r2_median", np.median(head_r2), "{:.2f}",
              en="median over heads of the median query's held-out R² (all five features)",
              zh="各头中位查询的留出 R²（五个特征全用）的中位数")
report.number("c18_r2_floor", R2_FLOOR, "{:.1f}", en="the R² floor of the note", zh="附注所用的 R² 下限")
report.number("c18_heads_above_floor", (head_r2 >= R2_FLOOR).sum(), "{:.0f}", kind="count",
              en="heads whose median query's held-out R² reaches the floor",
              zh="中位查询的留出 R² 达到下限的头数")
report.number("c18_b_heads_above_floor", (b_holds & (head_r2 >= R2_FLOOR)).sum(), "{:.0f}", kind="count",
              en="of those, heads where (b) holds", zh="其中 (b) 成立的头数")
report.number("c18_carried_median", np.median(carried), "{:.1f}",
              en="median over heads of the features the keys carry (of five)",
              zh="各头的键带着的特征数的中位数（共五个）")
report.number("c18_needed_median", np.median(head_needed), "{:.1f}",
              en="median over heads of the features the median query needs for 90 % of its R²",
              zh="各头中位查询达到其 R² 的 90% 所需特征数的中位数")
report.number("c18_spread_heads", spread.sum(), "{:.0f}", kind="count",
              en="heads whose median query needs as many features as the keys carry",
              zh="中位查询所需特征数不少于键所带特征数的头数")
report.number("c18_key_only_median", np.median(sink_share), "{:.0%}", kind="share",
              en="median over heads of the share of logit variance that depends on the key alone",
              zh="各头 logit 方差中只取决于键的部分所占比例的中位数")
report.number("c18_key_only_heads", (sink_share > 0.5).sum(), "{:.0f}", kind="count",
              en="heads in which the key alone sets more than half of the logit variance",
              zh="logit 方差一半以上只取决于键的头数")
top_counts = {name: int((top_feature == name).sum()) for name in feature_names}
report.number("c18_top_pos_share", top_counts["pos"] / top_feature.size, "{:.0%}", kind="share",
              en="share of (query word, head) pairs whose top feature is the part of speech",
              zh="最重要特征是词性的（查询词，头）组合所占比例")
report.number("c18_top_position_share", top_counts["position"] / top_feature.size, "{:.0%}", kind="share",
              en="share of (query word, head) pairs whose top feature is the position bucket",
              zh="最重要特征是位置段的（查询词，头）组合所占比例")
FEATURE_WORDS = {"pos": ("part of speech", "词性"), "animacy": ("animacy", "有生性"),
                 "number": ("number", "单复数"), "concreteness": ("concreteness", "具体性"),
                 "position": ("position bucket", "位置段")}
for f, name in enumerate(feature_names):
    report.number(f"c18_keys_carry_{name}", (key_accuracy[..., f] >= 0.9 * residual_accuracy[:, None, f]).sum(),
                  "{:.0f}", kind="count", en=f"heads whose keys carry the feature “{FEATURE_WORDS[name][0]}”",
                  zh=f"键带着特征“{FEATURE_WORDS[name][1]}”的头数")
    report.number(f"c18_residual_accuracy_{name}", np.median(residual_accuracy[:, f]), "{:.0%}", kind="share",
                  en=f"“{FEATURE_WORDS[name][0]}” read from the residual stream: median over layers (balanced accuracy)",
                  zh=f"从残差流读出“{FEATURE_WORDS[name][1]}”：各层中位数（平衡准确率）")
    report.number(f"c18_key_accuracy_{name}", np.median(key_accuracy[..., f]), "{:.0%}", kind="share",
                  en=f"“{FEATURE_WORDS[name][0]}” read from a head's keys: median over heads",
                  zh=f"从一个头的键读出“{FEATURE_WORDS[name][1]}”：各头中位数")
# The reviewer's worry: a sink head's logits depend on the key alone, and one feature ([CLS]/[SEP]
# or not) explains them. Remove each key's mean over the queries and ask again.
query_part = [logits - (logits - logits.mean(-1, keepdim=True)).mean(-2, keepdim=True) for logits in role_logits]
per_query_dependent = query_regressions(query_part)
qd_r2 = np.array([v[0] for v in per_query_dependent.values()])
qd_share = np.array([v[2] for v in per_query_dependent.values()])
qd_head_share = np.nanmedian(np.where(qd_r2 > 0, qd_share, np.nan), axis=0)
report.number("c18_qd_r2_median", np.median(np.median(qd_r2, axis=0)), "{:.2f}",
              en="the key-only part removed: median over heads of the median query's held-out R²",
              zh="去掉只取决于键的部分之后：各头中位查询的留出 R² 的中位数")
report.number("c18_qd_top_share_median", np.nanmedian(qd_head_share), "{:.0%}", kind="share",
              en="the key-only part removed: median over heads of the median query's top-feature share",
              zh="去掉只取决于键的部分之后：各头中位查询的最重要特征份额的中位数")
report.number("c18_qd_share_heads", (qd_head_share >= 0.5).sum(), "{:.0f}", kind="count",
              en="the key-only part removed: heads whose median query's top feature has ≥ 50 %",
              zh="去掉只取决于键的部分之后：中位查询的最重要特征份额 ≥ 50% 的头数")
report.number("c18_share_heads_query_dependent", ((head_share >= 0.5) & (sink_share <= 0.5)).sum(), "{:.0f}",
              kind="count", en="heads with a top-feature share ≥ 50 % among those whose logits are mostly query-dependent",
              zh="logit 方差主要取决于查询的头中，最重要特征份额 ≥ 50% 的头数")
report.number("c18_query_dependent_heads", (sink_share <= 0.5).sum(), "{:.0f}", kind="count",
              en="heads whose logit variance is at most half key-only", zh="logit 方差至多一半只取决于键的头数")
print("residual / key balanced accuracy per feature (medians):",
      {name: (round(float(np.median(residual_accuracy[:, f])), 2), round(float(np.median(key_accuracy[..., f])), 2))
       for f, name in enumerate(feature_names)})
report.number("c18_r2_min", head_r2.min(), "{:.2f}", en="lowest head's median-query held-out R²",
              zh="各头中位查询留出 R² 的最小值")
report.number("c18_key_only_max", sink_share.max(), "{:.0%}", kind="share",
              en="largest key-only share of a head's logit variance", zh="单个头 logit 方差中只取决于键的部分的最大份额")
report.data("c18_heads", {  # per head, layer by layer (index = 12 × (layer − 1) + head − 1)
    "held_out_r2": np.round(head_r2, 3).tolist(), "key_only_share": np.round(sink_share, 3).tolist(),
    "top_share": np.round(head_share, 3).tolist(), "features_carried": carried.tolist(),
    "features_needed": head_needed.tolist(), "b_holds": b_holds.tolist(),
    "query_dependent_top_share": np.round(qd_head_share, 3).tolist(),
    "sink_top_pick": np.round(sink_top.mean(axis=0), 3).tolist(),
    "role_top_pick": {role: (role_hits[role] / n_role_items).round(3).tolist() for role in ROLES},
    "role_p": {role: np.round(role_p[role], 4).tolist() for role in ROLES},
})
a_shown = n_views >= 2
b_count, spread_count, heads = int(b_holds.sum()), int(spread.sum()), L * H
if a_shown and b_count >= 0.75 * heads:
    outcome = (f"(a) holds, and (b) holds in {b_count} of {heads} heads: as far as the rule tests the claim, "
               "different heads pick different roles, one feature carries each match and the keys carry several.",
               f"(a) 成立，(b) 在 {heads} 个头中的 {b_count} 个成立：在规则检验得到的范围内，不同的头首选不同的角色，"
               "每次匹配主要靠一个特征，而键带着好几个特征。")
elif not a_shown and spread_count >= 0.5 * heads:
    outcome = (f"(a) fails, and in {spread_count} of {heads} heads the median query's match needs as many "
               "features as the keys carry: the picture of an index searched by narrow views does not hold.",
               f"(a) 不成立；{heads} 个头中有 {spread_count} 个，中位查询的匹配用到的特征和键所带的一样多："
               "“索引 + 狭窄视角”的图景不成立。")
else:
    outcome = (f"(a) {'holds' if a_shown else 'fails'}, but (b) holds in only {b_count} of {heads} heads and "
               f"the matches spread as widely as the keys in {spread_count}: neither case of the rule is met, "
               "so the run cannot decide the claim.",
               f"(a) {'成立' if a_shown else '不成立'}，但 (b) 只在 {heads} 个头中的 {b_count} 个成立，"
               f"匹配和键一样分散的头有 {spread_count} 个：规则的哪一种情形都不满足，这次运行判定不了这个论断。")
report.text("c18_outcome", en=outcome[0], zh=outcome[1])

# %% [markdown]
# ## The nouns in their frames
#
# For C20 and C28 we need the vectors of one token, the noun, in each frame:
# per layer, Q, K and V of shape (nouns, frames, heads, 32).

# %% tags=["noun_vectors"]
nouns = FOOD_NOUNS + OTHER_NOUNS
n_nouns, n_frames = len(nouns), len(FRAMES)
noun_inputs = torch.zeros(L, n_nouns, n_frames, model.config.d_model)  # (L, n, F, C)
found = 0
first_framed = len(sentences) - len(framed)
for k, (sentence, noun, frame) in enumerate(framed):
    tokens = tokenizer.tokens(sentence)
    if noun not in tokens:                                         # not one token: leave zeros
        continue
    position = tokens.index(noun)
    for layer in range(L):
        noun_inputs[layer, nouns.index(noun), frame] = inner[first_framed + k][layer][0, position]
    found += 1

noun_vectors = {name: torch.zeros(L, n_nouns, n_frames, H, hs) for name in ("Q", "K", "V")}
for layer in range(L):
    flat = noun_inputs[layer].reshape(-1, model.config.d_model)    # (n*F, C)
    for name, vectors in project(flat, layer).items():
        noun_vectors[name][layer] = vectors.view(n_nouns, n_frames, H, hs)
print(f"{n_nouns} nouns × {n_frames} frames; the noun is one token in {found} of {len(framed)} sentences")

# %%
report.number("n_food", len(FOOD_NOUNS), "{:.0f}", en="food nouns", zh="食物名词数")
report.number("n_other", len(OTHER_NOUNS), "{:.0f}", en="other concrete nouns", zh="其他具体名词数")
report.number("n_frames", n_frames, "{:.0f}", en="sentence frames per noun", zh="每个名词所放的句子框架数")
report.number("nouns_found", found / len(framed), "{:.0%}",
              en="share of framed sentences in which the noun is one token",
              zh="名词恰为一个词元的框架句所占比例")

# %% [markdown]
# ## C20: how much of Q, K and V is "which word"?
#
# Leave one frame out: predict a noun's vector in that frame by the same noun's
# mean vector in the other five frames, and compare the error with predicting
# it by the mean of *all* nouns in those frames. R² = 1 − error(word) /
# error(average noun): 1 when the word alone fixes the vector, 0 when knowing
# the word does not help. A nearest-mean classifier on the same split gives a
# second, more familiar number: held-out accuracy at naming the noun.

# %% tags=["identity"]
def identity_readback(vectors: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """vectors (n, F, nh, hs) -> held-out R² (nh,) and nearest-mean accuracy (nh,)."""
    n, F = vectors.shape[:2]
    error_word = torch.zeros(vectors.shape[2])
    error_mean = torch.zeros(vectors.shape[2])
    correct = torch.zeros(vectors.shape[2])
    for frame in range(F):
        others = torch.cat([vectors[:, :frame], vectors[:, frame + 1:]], dim=1)  # (n, F-1, nh, hs)
        prototypes = others.mean(dim=1)                            # (n, nh, hs)
        held_out = vectors[:, frame]                               # (n, nh, hs)
        error_word += ((held_out - prototypes) ** 2).sum(dim=(0, 2))
        error_mean += ((held_out - prototypes.mean(dim=0)) ** 2).sum(dim=(0, 2))
        distances = torch.cdist(held_out.transpose(0, 1), prototypes.transpose(0, 1))  # (nh, n, n)
        correct += (distances.argmin(dim=-1) == torch.arange(n)).sum(dim=-1)
    return 1 - error_word / error_mean, correct / (n * F)


identity = {name: np.zeros((L, H)) for name in ("Q", "K", "V")}
accuracy = {name: np.zeros((L, H)) for name in ("Q", "K", "V")}
for name in ("Q", "K", "V"):
    for layer in range(L):
        r2, acc = identity_readback(noun_vectors[name][layer])
        identity[name][layer], accuracy[name][layer] = r2.numpy(), acc.numpy()

v_most = (identity["V"] > np.maximum(identity["Q"], identity["K"]))  # (L, H)
print("held-out identity R², median over heads:",
      ", ".join(f"{name} {np.median(identity[name]):.2f}" for name in ("Q", "K", "V")))
print(f"heads in which V is more word-specific than both Q and K: {v_most.sum()} of {L * H}")

# %%
report.number("v_most_specific_heads", v_most.sum(), "{:.0f}",
              en="heads in which V is more word-specific (higher identity R²) than both Q and K",
              zh="V 的词身份 R² 同时高于 Q 和 K 的头数")
report.number("q_or_k_most_specific_heads", L * H - v_most.sum(), "{:.0f}",
              en="heads in which Q or K is at least as word-specific as V",
              zh="Q 或 K 的词身份 R² 不低于 V 的头数")
for name in ("Q", "K", "V"):
    low = name.lower()
    report.number(f"identity_{low}_median", np.median(identity[name]), "{:.2f}",
                  en=f"median over heads of the held-out identity R² of {name}",
                  zh=f"各头 {name} 的留出词身份 R² 的中位数")
    report.number(f"accuracy_{low}_median", np.median(accuracy[name]), "{:.0%}",
                  en=f"median over heads of the held-out accuracy at naming the noun from {name}",
                  zh=f"各头仅凭 {name} 认出是哪个名词的留出准确率（中位数）")
    for layer in (0, L - 1):
        report.number(f"identity_{low}_layer{layer + 1}", np.median(identity[name][layer]), "{:.2f}",
                      en=f"median identity R² of {name} over the heads of layer {layer + 1}",
                      zh=f"第 {layer + 1} 层各头 {name} 的词身份 R² 中位数")
report.number("identity_min", min(identity[name].min() for name in ("Q", "K", "V")), "{:.2f}",
              en="lowest identity R² of any head's Q, K or V", zh="所有头的 Q、K、V 中最低的词身份 R²")
report.number("identity_chance_accuracy", 1 / n_nouns, "{:.0%}",
              en="accuracy of guessing the noun", zh="随便猜中名词的准确率")
for layer in range(L):
    report.number(f"v_most_specific_heads_layer{layer + 1}", v_most[layer].sum(), "{:.0f}",
                  en=f"heads of layer {layer + 1} in which V is the most word-specific",
                  zh=f"第 {layer + 1} 层里 V 最“具体”的头数")

# %% [markdown]
# ## C28: a dimension that means "edible"?
#
# Each noun's query and key, averaged over its six frames: 144 spaces (72 heads
# × Q, K) of 32 dimensions, 100 nouns, half of them food. In each space, with
# 5-fold cross-validation over *words*: the best single coordinate (chosen on
# the training words, with its sign) and the best direction (a linear
# discriminant with shrinkage, fitted on the training words), both scored by
# AUC on the held-out words, averaged over the folds. Shuffling the labels 200
# times gives the chance level of the *best* of 144 spaces.

# %% tags=["held_out_aucs"]
def rank_auc(ranks: torch.Tensor, positive: torch.Tensor) -> torch.Tensor:
    """AUC from ranks (1 = lowest score) and a 0/1 mask of positives, both (..., n): (...,)."""
    n_pos = positive.sum(dim=-1)
    n_neg = positive.shape[-1] - n_pos
    return ((ranks * positive).sum(dim=-1) - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def ranks_of(scores: torch.Tensor, dim: int) -> torch.Tensor:
    return scores.argsort(dim=dim).argsort(dim=dim).double() + 1


def held_out_aucs(X: torch.Tensor, labels: torch.Tensor, folds: list, shrinkage: float = 0.2):
    """X (S, n, d): S spaces; labels (P, n) bool (row 0 the true labels, the rest shuffled).

    Returns the fold-averaged held-out AUC of the best coordinate and of the best
    direction, each (P, S)."""
    P, (S, n, d) = labels.shape[0], X.shape
    X, y = X.double(), labels.double()
    coordinate, direction = torch.zeros(P, S), torch.zeros(P, S)
    for test in folds:
        train = np.setdiff1d(np.arange(n), test)
        Xtr, Xte, ytr, yte = X[:, train], X[:, test], y[:, train], y[:, test]
        # best coordinate: chosen on the training words, with its sign
        train_ranks = ranks_of(Xtr, dim=1)                          # (S, ntr, d)
        test_ranks = ranks_of(Xte, dim=1)                           # (S, nte, d)
        n_pos, n_neg = ytr.sum(1)[:, None, None], (1 - ytr).sum(1)[:, None, None]
        train_auc = (torch.einsum("snd,pn->psd", train_ranks, ytr)
                     - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)   # (P, S, d)
        t_pos, t_neg = yte.sum(1)[:, None, None], (1 - yte).sum(1)[:, None, None]
        test_auc = (torch.einsum("snd,pn->psd", test_ranks, yte)
                    - t_pos * (t_pos + 1) / 2) / (t_pos * t_neg)    # (P, S, d)
        best = (train_auc - 0.5).abs().argmax(dim=-1, keepdim=True)  # (P, S, 1)
        chosen = test_auc.gather(-1, best)[..., 0]                  # (P, S)
        above = train_auc.gather(-1, best)[..., 0] >= 0.5
        coordinate += torch.where(above, chosen, 1 - chosen) / len(folds)
        # best direction: a linear discriminant with shrinkage, w = B⁻¹ (μ_food − μ_other).
        # For two classes the within-class scatter is the total scatter minus a
        # multiple of δδᵀ (δ = μ_food − μ_other), which changes B⁻¹δ only by a
        # positive factor (Sherman-Morrison). So B is built from the total
        # covariance (shrunk towards its mean variance), once per space,
        # whatever the labels: one inverse serves all 200 shuffles.
        mean_pos = torch.einsum("snd,pn->psd", Xtr, ytr) / ytr.sum(1)[:, None, None]      # (P, S, d)
        mean_neg = torch.einsum("snd,pn->psd", Xtr, 1 - ytr) / (1 - ytr).sum(1)[:, None, None]
        centred = Xtr - Xtr.mean(dim=1, keepdim=True)               # (S, ntr, d)
        total = centred.transpose(1, 2) @ centred / len(train)      # (S, d, d), label-free
        scale = total.diagonal(dim1=-2, dim2=-1).mean(-1)[:, None, None]
        B = (1 - shrinkage) * total + shrinkage * scale * torch.eye(d, dtype=X.dtype)
        w = torch.einsum("sde,pse->psd", torch.linalg.inv(B), mean_pos - mean_neg)  # (P, S, d)
        scores = torch.einsum("snd,psd->psn", Xte, w)               # (P, S, nte)
        direction += rank_auc(ranks_of(scores, dim=-1), yte[:, None, :]) / len(folds)
    return coordinate, direction


# %% tags=["food_vs_other"]
is_food = torch.tensor([noun in FOOD_NOUNS for noun in nouns])    # (n,)
rng = np.random.default_rng(0)
folds = [np.concatenate(parts) for parts in zip(
    *(np.array_split(rng.permutation(np.flatnonzero(is_food.numpy() == c)), 5) for c in (True, False)))]
N_SHUFFLES = 200
labels = torch.stack([is_food] + [is_food[torch.from_numpy(rng.permutation(n_nouns))]
                                  for _ in range(N_SHUFFLES)])    # (P, n)
spaces = torch.stack([noun_vectors[name][layer].mean(dim=1)[:, head]
                      for name in ("Q", "K") for layer in range(L) for head in range(H)])  # (S, n, hs)
coordinate, direction = held_out_aucs(spaces, labels, folds)      # (P, S) each
coordinate_null = np.quantile(coordinate[1:].max(dim=1).values.numpy(), 0.95)
direction_null = np.quantile(direction[1:].max(dim=1).values.numpy(), 0.95)
coordinate_true, direction_true = coordinate[0].numpy(), direction[0].numpy()  # (S,)


def space_name(s: int) -> tuple[str, int, int]:
    """Index into the 144 spaces -> (projection, layer 1-6, head 1-12)."""
    return ("Q", "K")[s // (L * H)], (s % (L * H)) // H + 1, s % H + 1


for what, auc, null in (("coordinate", coordinate_true, coordinate_null),
                        ("direction", direction_true, direction_null)):
    projection, layer, head = space_name(int(auc.argmax()))
    print(f"best {what:<10}: AUC {auc.max():.2f} ({projection} of head {layer}-{head}), "
          f"median {np.median(auc):.2f}, beyond chance ({null:.2f}) in {(auc > null).sum()} of {len(auc)}")
print(f"the direction beats the best coordinate in {(direction_true > coordinate_true).sum()} of {len(spaces)} spaces")

# %%
report.number("coordinate_auc_best", coordinate_true.max(), "{:.2f}",
              en="best held-out AUC of a single coordinate (of 144 spaces)",
              zh="单个坐标的最佳留出 AUC（144 个空间中）")
report.number("direction_auc_best", direction_true.max(), "{:.2f}",
              en="best held-out AUC of a direction (of 144 spaces)",
              zh="方向的最佳留出 AUC（144 个空间中）")
report.number("coordinate_auc_median", np.median(coordinate_true), "{:.2f}",
              en="median over the 144 spaces of the single-coordinate AUC",
              zh="144 个空间中单坐标 AUC 的中位数")
report.number("direction_auc_median", np.median(direction_true), "{:.2f}",
              en="median over the 144 spaces of the direction AUC", zh="144 个空间中方向 AUC 的中位数")
report.number("coordinate_null_p95", coordinate_null, "{:.2f}",
              en="chance: 95th percentile of the best coordinate AUC with shuffled labels",
              zh="偶然水平：标签打乱后最佳单坐标 AUC 的第 95 百分位")
report.number("direction_null_p95", direction_null, "{:.2f}",
              en="chance: 95th percentile of the best direction AUC with shuffled labels",
              zh="偶然水平：标签打乱后最佳方向 AUC 的第 95 百分位")
report.number("coordinate_heads_beyond_chance", (coordinate_true > coordinate_null).sum(), "{:.0f}",
              en="spaces (head × Q/K) whose best coordinate separates food beyond chance",
              zh="最佳单坐标区分食物超过偶然水平的空间数（头 × Q/K）")
report.number("direction_heads_beyond_chance", (direction_true > direction_null).sum(), "{:.0f}",
              en="spaces (head × Q/K) whose best direction separates food beyond chance",
              zh="最佳方向区分食物超过偶然水平的空间数（头 × Q/K）")
report.number("direction_wins_spaces", (direction_true > coordinate_true).sum(), "{:.0f}",
              en="spaces in which the direction beats the best coordinate",
              zh="方向胜过最佳单坐标的空间数")
report.number("coordinate_near_direction_spaces",
              (coordinate_true >= direction_true - 0.05).sum(), "{:.0f}",
              en="spaces in which the best coordinate comes within 0.05 AUC of the direction",
              zh="最佳单坐标与方向相差不超过 0.05 AUC 的空间数")
report.number("n_spaces", len(spaces), "{:.0f}", en="spaces tried (72 heads × Q, K)",
              zh="尝试的空间数（72 个头 × Q、K）")
report.number("n_shuffles", N_SHUFFLES, "{:.0f}", en="label shuffles for the chance level",
              zh="计算偶然水平时打乱标签的次数")
for tag, values in (("coordinate", coordinate_true), ("direction", direction_true)):
    projection, layer, head = space_name(int(values.argmax()))
    report.number(f"{tag}_best_is_key", projection == "K", "{:.0f}",
                  en=f"1 if the best {tag} is in a key space, 0 if in a query space",
                  zh=f"最佳{'单坐标' if tag == 'coordinate' else '方向'}在键空间为 1，在查询空间为 0")
    report.number(f"{tag}_best_layer", layer, "{:.0f}",
                  en=f"layer of the best {tag}", zh=f"最佳{'单坐标' if tag == 'coordinate' else '方向'}所在的层")
    report.number(f"{tag}_best_head", head, "{:.0f}",
                  en=f"head of the best {tag}", zh=f"最佳{'单坐标' if tag == 'coordinate' else '方向'}所在的头")
best_space = int(direction_true.argmax())
report.number("coordinate_auc_in_best_direction_space", coordinate_true[best_space], "{:.2f}",
              en="best single coordinate's AUC in the space where the direction does best",
              zh="在方向表现最好的那个空间里，最佳单坐标的 AUC")

# %% [markdown]
# ## C36: does the value carry which sense a word has?
#
# Source B says V "directly carries the concrete content": the value of *apple*
# carries that this apple is a fruit and not a company. MiniLM has no 苹果, but
# English has words of two senses: *bank* (money / river), *bat*, *mouse*,
# *seal*, *crane*. Each stands in 20 frames, and each frame is a minimal pair:
# the same sentence with a cue noun of each sense (explainer/word_senses.py).
# For every head, a nearest-centroid probe reads the sense from the word's value
# in that head, held out by frame. In layer 1 the word's value sees only the word
# and its position, the same in both sentences of a pair, so no probe can do
# better than half there: that is the context-free baseline. Significance over
# the 60 heads of layers 2-6 comes from a max-statistic permutation test (swap
# the senses within pairs), and the best head's accuracy gets an interval by
# resampling the frames. The keys get the same probe, for comparison.

# %%
from explainer.centroid_probe import centroid_probe_correct, swap_within_pairs
from explainer.word_senses import FRAMES as SENSE_FRAMES, SENSES, sense_sentences

N_DRAWS = 1000
sense_items = sense_sentences()                                    # words x frames x 2 senses
sense_outputs = run_sentences(model, tokenizer, [s.text for s in sense_items])
sense_vectors = {name: torch.zeros(L, len(sense_items), H, hs) for name in ("K", "V")}
for n, (item, out) in enumerate(zip(sense_items, sense_outputs)):
    position = tokenizer.tokens(item.text).index(item.word)
    for layer in range(L):
        projected = project(out.hidden_states[layer][0, position:position + 1], layer)
        for name in ("K", "V"):
            sense_vectors[name][layer, n] = projected[name][0]      # (nh, hs)
sense_truth = np.array([s.sense for s in sense_items])
sense_frame_ids = np.array([s.frame for s in sense_items])
sense_pairs = np.array([f"{s.word}/{s.frame}" for s in sense_items])
sense_word_of = np.array([s.word for s in sense_items])
sense_relabelled = np.vstack([sense_truth, swap_within_pairs(sense_truth, sense_pairs, N_DRAWS,
                                                  np.random.default_rng(0))])   # (1 + N_DRAWS, N)
sense_correct = {}                             # name -> (draws, L, H, N); the keys: observed only
for name, draws in (("V", sense_relabelled), ("K", sense_relabelled[:1])):
    sense_hits = torch.zeros(len(draws), L, H, len(sense_items), dtype=torch.bool)
    for word in SENSES:                                            # one probe per word
        word_rows = np.flatnonzero(sense_word_of == word)
        heads_of_word = sense_vectors[name][:, word_rows].permute(1, 0, 2, 3).reshape(
            len(word_rows), L * H, hs)                             # (n, L*H, hs)
        word_hits = centroid_probe_correct(heads_of_word, torch.as_tensor(draws[:, word_rows]),
                                         sense_frame_ids[word_rows], n_folds=5)    # (D, L*H, n)
        sense_hits[:, :, :, word_rows] = word_hits.view(len(draws), L, H, len(word_rows))
    sense_correct[name] = sense_hits
sense_accuracy = {name: hits.double().mean(-1) for name, hits in sense_correct.items()}  # (D, L, H)
sense_observed = sense_accuracy["V"][0]                                        # (L, H)
sense_null_max = sense_accuracy["V"][1:, 1:].amax(dim=(1, 2))                  # (D,): best of layers 2-6
sense_layer, sense_head = divmod(int(sense_observed[1:].argmax()), H)
sense_layer += 1                                                    # index into all L layers
sense_best = float(sense_observed[sense_layer, sense_head])
sense_p = (1 + int((sense_null_max >= sense_best).sum())) / (1 + N_DRAWS)
# 95 % interval of the best head's accuracy: resample the frames
sense_per_frame = np.array([[sense_correct["V"][0, sense_layer, sense_head, sense_frame_ids == f].double().sum(),
                       (sense_frame_ids == f).sum()] for f in range(len(SENSE_FRAMES))])  # (F, 2)
sense_frame_draws = np.random.default_rng(1).multinomial(
    len(SENSE_FRAMES), np.full(len(SENSE_FRAMES), 1 / len(SENSE_FRAMES)), size=1000)   # (1000, F)
sense_low, sense_high = np.percentile(sense_frame_draws @ sense_per_frame[:, 0] / (sense_frame_draws @ sense_per_frame[:, 1]),
                                    [2.5, 97.5])
print(f"best value head: layer {sense_layer + 1} head {sense_head + 1}, sense read "
      f"{sense_best:.2f} [{sense_low:.2f}, {sense_high:.2f}], p = {sense_p:.3f}; "
      f"layer 1 at most {float(sense_observed[0].max()):.2f}")

# %%
report.number("sense_words", len(SENSES), "{:.0f}", kind="count",
              en="words with two senses", zh="有两种词义的词数")
report.number("sense_frames", len(SENSE_FRAMES), "{:.0f}", kind="count",
              en="frames per word (each a minimal pair: one sentence per sense)",
              zh="每个词的句框数（每个句框是一组最小对：每种词义一句）")
report.number("sense_best_accuracy", sense_best, "{:.0%}", kind="share",
              en="held-out sense read from the word's value: best head of layers 2–6",
              zh="从词的值向量读出词义（留出句框）：第 2–6 层最好的头")
report.number("sense_best_layer", sense_layer + 1, "{:.0f}", en="that head's layer", zh="这个头所在的层")
report.number("sense_best_head", sense_head + 1, "{:.0f}", en="that head's number in its layer",
              zh="这个头在该层的编号")
report.number("sense_best_low", sense_low, "{:.0%}", kind="share",
              en="its 95 % interval (frames resampled): lower end", zh="它的 95% 区间（对句框重抽样）：下端")
report.number("sense_best_high", sense_high, "{:.0%}", kind="share",
              en="its 95 % interval: upper end", zh="它的 95% 区间：上端")
report.number("sense_best_p", sense_p, kind="p",
              en="its p-value, max-statistic permutation over the 60 heads of layers 2–6",
              zh="它的 p 值（对第 2–6 层 60 个头做最大统计量置换检验）")
report.number("sense_layer1_best", sense_observed[0].max(), "{:.0%}", kind="share",
              en="the same probe on layer 1's context-free values: best head",
              zh="同一探针用在第 1 层不看上下文的值向量上：最好的头")
report.number("sense_heads_passing", int(((sense_observed[1:] >= 0.8)
                                           & (sense_observed[1:] > sense_observed[0].max())
                                           & (((1 + (sense_null_max[:, None, None] >= sense_observed[1:]).sum(0))
                                               / (1 + N_DRAWS)) < 0.05)).sum()), "{:.0f}", kind="count",
              en="heads of layers 2–6 reading the sense at ≥ 0.8, above layer 1, with p < 0.05",
              zh="第 2–6 层中读出词义准确率 ≥ 0.8、高于第 1 层且 p < 0.05 的头数")
report.number("sense_best_k_accuracy", sense_accuracy["K"][0, sense_layer, sense_head], "{:.0%}", kind="share",
              en="the same probe on that head's keys", zh="同一探针用在这个头的键向量上")
report.number("sense_k_best_accuracy", sense_accuracy["K"][0, 1:].max(), "{:.0%}", kind="share",
              en="the same probe on the keys: best head of layers 2–6",
              zh="同一探针用在键向量上：第 2–6 层最好的头")
report.number("sense_v_median_accuracy", sense_observed[1:].median(), "{:.0%}", kind="share",
              en="median over the 60 heads of layers 2–6 (values)",
              zh="第 2–6 层 60 个头的中位数（值向量）")

k_best = float(sense_accuracy["K"][0, 1:].max())
if sense_best >= 0.8 and sense_low >= 0.8 and sense_p < 0.05:
    outcome = ("In layers 2–6, a word's value does carry which sense it has.",
               "在第 2–6 层，一个词的值向量确实带着它是哪种词义。")
    if k_best >= sense_best - 0.05:
        outcome = (outcome[0] + " Its keys carry the sense about as well, so the sense is in the "
                   "stream each head reads, not something only the value holds.",
                   outcome[1] + "它的键向量读出词义也差不多一样好：词义就在每个头读取的残差流里，"
                   "并不是只有值向量才有。")
elif sense_high < 0.6:
    outcome = ("No head's value carries the word's sense.", "没有哪个头的值向量带着这个词的词义。")
else:
    outcome = ("The run cannot tell whether a head's value reliably carries the word's sense.",
               "这次运行分辨不出是否有头的值向量可靠地带着词义。")
report.text("sense_outcome", en=outcome[0], zh=outcome[1])

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %% tags=["round_cloud"]
# Exercise 1: what does the participation ratio give for a perfectly round cloud, as
# many random Gaussian vectors in 32 dimensions as there are tokens here?
round_cloud = torch.randn(n_tokens, 1, hs, generator=torch.Generator().manual_seed(0))  # (N, 1, hs)
print(f"round cloud: {participation_ratio(round_cloud)[0]:.1f} directions of {hs}")   # was: project(x, layer)

# %%
report.number("exercise_pr_round_cloud", participation_ratio(round_cloud)[0], "{:.1f}",
              en="exercise 1: participation ratio of as many random 32-dimensional vectors as tokens",
              zh="练习 1：与词元数同样多的 32 维随机向量的参与比")
# %% tags=["shuffled_nouns"]
# Exercise 2: break the link between vector and word: shuffle which noun is which, frame
# by frame. What R² does V get then (median over heads)?
shuffle_rng = np.random.default_rng(1)
shuffled_r2 = []
for layer in range(L):
    v = noun_vectors["V"][layer]                                     # (n, F, nh, hs)
    mixed = torch.stack([v[torch.from_numpy(shuffle_rng.permutation(n_nouns)), f]
                         for f in range(v.shape[1])], dim=1)         # (n, F, nh, hs)
    shuffled_r2.append(identity_readback(mixed)[0].numpy())         # was: noun_vectors["V"][layer]
print(f"V with the nouns shuffled: identity R² {np.median(shuffled_r2):.2f} (median over heads)")

# %%
report.number("exercise_identity_v_shuffled_median", np.median(shuffled_r2), "{:.2f}",
              en="exercise 2: median R² of V when the nouns are shuffled frame by frame",
              zh="练习 2：逐个句子框架打乱名词后，V 的 R² 中位数")

# %% tags=["in_sample"]
# Exercise 1 of the "edible" page: skip the cross-validation. Choose each space's best
# coordinate on ALL the words and score it on the same words. Median AUC over the 144 spaces?
all_ranks = ranks_of(spaces, dim=1)                                 # (S, n, hs); was: train_ranks, test_ranks
in_sample = rank_auc(all_ranks.transpose(1, 2), is_food.double())   # (S, hs)
in_sample = torch.maximum(in_sample, 1 - in_sample).amax(dim=1)     # (S,): best coordinate, either sign
print(f"best coordinate chosen and scored on the same words: median AUC {in_sample.median():.2f}")

# %%
report.number("exercise_coordinate_auc_in_sample_median", in_sample.median(), "{:.2f}",
              en="exercise (edible page) 1: median over spaces of the best coordinate's AUC, chosen and scored on the same words",
              zh="练习（可食用页）1：在同一批词上挑选并打分时，各空间最佳单坐标 AUC 的中位数")

# %% tags=["no_shrinkage"]
# Exercise 2 of the "edible" page: fit the direction without shrinkage (32 dimensions,
# 80 training words). The true labels only: no chance level needed here.
_, unshrunk = held_out_aucs(spaces, labels[:1], folds, shrinkage=0.0)  # (1, S); was: shrinkage=0.2
print(f"direction without shrinkage: median held-out AUC {np.median(unshrunk[0].numpy()):.2f}")

# %%
report.number("exercise_direction_auc_median_no_shrinkage", np.median(unshrunk[0].numpy()), "{:.2f}",
              en="exercise (edible page) 2: median held-out direction AUC without shrinkage",
              zh="练习（可食用页）2：不加收缩时方向的留出 AUC 中位数")

# %% [markdown]
# ## Figures

# %%
TEXT = {
    "en": {
        "pr_q": "directions spanned by the queries", "pr_k": "directions spanned by the keys",
        "layer": "layer", "equal": "keys = queries",
        "pr_alt": "Scatter plot of MiniLM's 72 heads: the number of directions spanned by each "
                  "head's queries (x) against its keys (y), coloured by layer, with the diagonal "
                  "where both are equal.",
        "pr_caption": "Each dot is a head: above the diagonal its keys span more directions "
                      "than its queries.",
        "identity": "identity R² (held out)", "spread": "heads of the layer (min–max)",
        "id_alt": "Line chart over layers 1 to 6 of the held-out word-identity R² of Q, K and V: "
                  "the median over the 12 heads of each layer, with a band from the lowest to the "
                  "highest head.",
        "id_caption": "How much of each vector is fixed by which noun it is, layer by layer.",
        "coordinate": "best single coordinate (AUC, held out)",
        "direction": "best direction (AUC, held out)",
        "chance": "chance (best of 144, shuffled labels)", "query": "query space", "key": "key space",
        "dim_alt": "Scatter plot of 144 spaces (72 heads, queries and keys): the held-out AUC of "
                   "the best single coordinate at telling food nouns from other nouns (x) against "
                   "the AUC of the best direction (y), with dashed lines at the chance levels.",
        "dim_caption": "Food against other nouns: a single coordinate (x) against a direction (y) "
                       "in each head's query and key space.",
    },
    "zh": {
        "pr_q": "查询张成的方向数", "pr_k": "键张成的方向数",
        "layer": "层", "equal": "键 = 查询",
        "pr_alt": "MiniLM 72 个头的散点图：横轴是每个头的查询张成的方向数，纵轴是键张成的方向数，"
                  "颜色表示层，对角线表示两者相等。",
        "pr_caption": "每个点是一个头：落在对角线上方，说明它的键比查询张成更多的方向。",
        "identity": "词身份 R²（留出）", "spread": "该层各头（最小–最大）",
        "id_alt": "第 1 到第 6 层 Q、K、V 的留出词身份 R² 折线图：每层 12 个头的中位数，"
                  "阴影带从最低的头到最高的头。",
        "id_caption": "每一层里，一个向量有多少是由“它是哪个名词”决定的。",
        "coordinate": "最佳单个坐标（留出 AUC）", "direction": "最佳方向（留出 AUC）",
        "chance": "偶然水平（144 个中的最大值，标签打乱）", "query": "查询空间", "key": "键空间",
        "dim_alt": "144 个空间（72 个头的查询和键）的散点图：横轴是最佳单个坐标区分食物名词与其他名词的"
                   "留出 AUC，纵轴是最佳方向的 AUC，虚线是偶然水平。",
        "dim_caption": "食物名词对其他名词：每个头的查询空间和键空间里，单个坐标（横轴）对一个方向（纵轴）。",
    },
}
COLOURS = {"Q": "#1b9e77", "K": "#7570b3", "V": "#d95f02"}
for lang in LANGS:
    text = TEXT[lang]

    fig, ax = plt.subplots(figsize=(5.6, 4.6))
    layer_of = np.repeat(np.arange(1, L + 1), H)
    dots = ax.scatter(ratio["Q"].ravel(), ratio["K"].ravel(), c=layer_of, cmap=SEQUENTIAL_CMAP,
                      s=28, edgecolor="black", linewidth=0.3)
    top = max(ratio["Q"].max(), ratio["K"].max()) * 1.05
    ax.plot([0, top], [0, top], color="grey", lw=1, ls="--", label=text["equal"])
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_xlabel(text["pr_q"], fontsize=10)
    ax.set_ylabel(text["pr_k"], fontsize=10)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="upper left")
    bar = fig.colorbar(dots, ax=ax, ticks=range(1, L + 1))
    bar.set_label(text["layer"], fontsize=10)
    bar.ax.tick_params(labelsize=9)
    fig.tight_layout()
    report.figure("directions", fig, lang, alt=text["pr_alt"], caption=text["pr_caption"])

    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    layers = np.arange(1, L + 1)
    for name in ("Q", "K", "V"):
        ax.plot(layers, np.median(identity[name], axis=1), "o-", color=COLOURS[name], label=name)
        ax.fill_between(layers, identity[name].min(axis=1), identity[name].max(axis=1),
                        color=COLOURS[name], alpha=0.15)
    ax.set_xlabel(text["layer"], fontsize=10)
    ax.set_ylabel(text["identity"], fontsize=10)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, title=text["spread"], title_fontsize=9)
    fig.tight_layout()
    report.figure("identity", fig, lang, alt=text["id_alt"], caption=text["id_caption"])

    fig, ax = plt.subplots(figsize=(5.6, 4.6))
    half = L * H
    ax.scatter(coordinate_true[:half], direction_true[:half], s=22, marker="o",
               color=COLOURS["Q"], label=text["query"], alpha=0.8)
    ax.scatter(coordinate_true[half:], direction_true[half:], s=22, marker="^",
               color=COLOURS["K"], label=text["key"], alpha=0.8)
    ax.axvline(coordinate_null, color="grey", lw=1, ls="--")
    ax.axhline(direction_null, color="grey", lw=1, ls="--", label=text["chance"])
    ax.plot([0.3, 1], [0.3, 1], color="black", lw=0.6, ls=":")
    ax.set_xlim(0.3, 1.01)
    ax.set_ylim(0.3, 1.01)
    ax.set_xlabel(text["coordinate"], fontsize=10)
    ax.set_ylabel(text["direction"], fontsize=10)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="lower right")
    fig.tight_layout()
    report.figure("dimensions", fig, lang, alt=text["dim_alt"], caption=text["dim_caption"])

report.save()
