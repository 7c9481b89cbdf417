# %% [markdown]
# # The ant colony, for real
#
# Ants in a young colony look alike; feedback from their work turns them
# into workers, soldiers and queens. The claim to test: start an attention
# layer from random weights, train it on sentences where a verb needs its
# object (吃 "eat" → 苹果 "apple", 追逐 "chase" → 激光点 "laser dot"), and
# the verb's query will come to match its object's key — without anyone
# telling W_Q and W_K what to become. A second claim rides along: the verb's
# query is a "subcategorisation signal" that says what kind of object the
# verb takes. We train many colonies (random seeds) at once and count.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.report import Report
from explainer.seeds import n_seeds, report_seed_count, report_small_run

report = Report("three_roles.ant_colony")

# %% [markdown]
# ## A toy language
#
# Every sentence reads "S 在 D 旁边 V O" — *S, next to D, Vs O*, e.g.
# 猫 在 苹果 旁边 追逐 激光点 "the cat, next to the apple, chases the laser dot".
# Three verbs take each kind of object; the distractor D is always of another
# kind, so only the verb's *preference* tells D and O apart. The model gets no
# word order at all: whatever it finds, it finds by what the words are.

# %% tags=["language"]
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import stack_module_state

torch.set_num_threads(1)

subjects = ["猫", "狗", "小孩"]
kinds = {                                     # kind of object -> (its nouns, the verbs taking it)
    "food": (["苹果", "面包", "鱼"], ["吃", "尝", "煮"]),
    "moves": (["激光点", "球", "蝴蝶"], ["追逐", "扑", "抓"]),
    "drink": (["水", "牛奶", "茶"], ["喝", "倒", "洒"]),
    "writing": (["书", "报纸", "信"], ["读", "写", "寄"]),
}
nouns = [n for kind_nouns, _ in kinds.values() for n in kind_nouns]
verbs = [v for _, kind_verbs in kinds.values() for v in kind_verbs]
kind_of = {w: k for k, (kind_nouns, kind_verbs) in kinds.items() for w in kind_nouns + kind_verbs}
vocab = subjects + ["在", "旁边"] + verbs + nouns
index = {w: i for i, w in enumerate(vocab)}

sentences = [[s, "在", d, "旁边", v, o]
             for s in subjects for v in verbs for o in kinds[kind_of[v]][0]
             for d in nouns if kind_of[d] != kind_of[v]]
data = torch.tensor([[index[w] for w in s] for s in sentences])  # (N, 6)
VERB, OBJECT, DISTRACTOR = 4, 5, 2
CONTEXT = [0, 1, 2, 3, 5]       # the words the verb can look at: all but itself
OBJECT_IN_CONTEXT = CONTEXT.index(OBJECT)
FUNCTION_WORDS = [CONTEXT.index(1), CONTEXT.index(3)]           # 在, 旁边
print(f"{len(sentences)} sentences over {len(vocab)} words, e.g.", " ".join(sentences[0]))

# %%
gloss = {"猫": "cat", "狗": "dog", "小孩": "child", "在": "at", "旁边": "beside",
         "吃": "eat", "尝": "taste", "煮": "cook", "追逐": "chase", "扑": "pounce", "抓": "catch",
         "喝": "drink", "倒": "pour", "洒": "spill", "读": "read", "写": "write", "寄": "send",
         "苹果": "apple", "面包": "bread", "鱼": "fish", "激光点": "laser dot", "球": "ball",
         "蝴蝶": "butterfly", "水": "water", "牛奶": "milk", "茶": "tea", "书": "book",
         "报纸": "newspaper", "信": "letter"}
report.number("sentences", len(sentences), "{:.0f}",
              en="sentences in the toy language", zh="玩具语言的句子数")
report.number("n_verbs", len(verbs), "{:.0f}", en="verbs", zh="动词个数")

# %% [markdown]
# ## The smallest model where the verb must look
#
# The verb sends one query into the rest of the sentence; the prediction —
# *which object?* — is read only from what that attention brings back. There
# is no residual path around the attention, so the verb cannot answer from
# its own embedding: it has to fetch the object.

# %% tags=["model"]
D_MODEL = 32


class VerbReadsSentence(nn.Module):
    """One attention head: the verb is the only query, the five other words are keys and values."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(len(vocab), D_MODEL)
        self.W_Q = nn.Linear(D_MODEL, D_MODEL, bias=False)
        self.W_K = nn.Linear(D_MODEL, D_MODEL, bias=False)
        self.W_V = nn.Linear(D_MODEL, D_MODEL, bias=False)
        self.W_O = nn.Linear(D_MODEL, D_MODEL, bias=False)
        self.readout = nn.Linear(D_MODEL, len(vocab))

    def forward(self, tokens):                              # tokens: (B, 6)
        x = self.embed(tokens)                              # (B, 6, C)
        verb, context = x[:, [VERB]], x[:, CONTEXT]         # (B, 1, C), (B, 5, C)
        q = self.W_Q(verb)                                  # (B, 1, C): the one position that asks
        k, v = self.W_K(context), self.W_V(context)         # (B, 5, C) each
        scores = q @ k.transpose(1, 2) / D_MODEL ** 0.5     # (B, 1, 5)
        weights = scores.softmax(dim=-1)                    # (B, 1, 5), sums to 1
        fetched = self.W_O(weights @ v)                     # (B, 1, C)
        return self.readout(fetched[:, 0])                  # (B, vocab): logits for the object


# %% [markdown]
# ## Many colonies at once
#
# Each random seed gives one colony: its own random start, its own batches.
# Instead of training them one after another, we stack their parameters
# along a new first dimension M and write the same forward pass with that
# dimension in front. Adam updates each number on its own, so this is
# exactly M independent trainings, done in one pass.
#
# For every seed there is also a control colony: its W_Q is zero and frozen,
# so every word gets the same weight. Does the verb *need* to look?

# %% tags=["colonies"]
def make_colonies(seeds):
    """A VerbReadsSentence per seed, then a control per seed (W_Q zero and frozen), stacked:
    parameter name -> (M, ...) with M = 2·len(seeds)."""
    colonies = []
    for seed in seeds + seeds:               # trained colonies, then the controls
        torch.manual_seed(seed)
        colonies.append(VerbReadsSentence())
    params, _ = stack_module_state(colonies)
    is_control = torch.arange(2 * len(seeds)) >= len(seeds)
    with torch.no_grad():
        params["W_Q.weight"][is_control] = 0.0
    # Zero gradient on the controls' W_Q: Adam then leaves it at zero.
    params["W_Q.weight"].register_hook(lambda g: g * ~is_control[:, None, None])
    return params, colonies


def trained(values):
    return values[:len(values) // 2]         # the first half of the colonies


def control(values):
    return values[len(values) // 2:]


def run(p, tokens):
    """VerbReadsSentence for all colonies at once: logits (M, B, vocab), the verb's weights (M, B, 5).

    ``tokens`` is (M, B, 6), each colony its own batch, or (B, 6), the same for all."""
    M = len(p["embed.weight"])
    tokens = tokens.expand(M, -1, -1) if tokens.dim() == 2 else tokens
    x = p["embed.weight"][torch.arange(M)[:, None, None], tokens]             # (M, B, 6, C)
    verb, context = x[:, :, VERB], x[:, :, CONTEXT]                           # (M, B, C), (M, B, 5, C)
    q = torch.einsum("mbc,mdc->mbd", verb, p["W_Q.weight"])                   # (M, B, C)
    k = torch.einsum("mbsc,mdc->mbsd", context, p["W_K.weight"])              # (M, B, 5, C)
    v = torch.einsum("mbsc,mdc->mbsd", context, p["W_V.weight"])              # (M, B, 5, C)
    scores = torch.einsum("mbd,mbsd->mbs", q, k) / D_MODEL ** 0.5             # (M, B, 5): one head
    weights = scores.softmax(dim=-1)                                          # (M, B, 5)
    fetched = torch.einsum("mbs,mbsd->mbd", weights, v)                       # (M, B, C)
    fetched = torch.einsum("mbc,mdc->mbd", fetched, p["W_O.weight"])          # (M, B, C)
    logits = torch.einsum("mbc,mvc->mbv", fetched, p["readout.weight"])       # (M, B, vocab)
    return logits + p["readout.bias"][:, None], weights


def query_and_keys(p):
    """Queries of the verbs, keys and values of the nouns, for every colony."""
    E = p["embed.weight"]                                            # (M, vocab, C)
    q = E[:, [index[v] for v in verbs]] @ p["W_Q.weight"].transpose(1, 2)  # (M, 12, C)
    k = E[:, [index[n] for n in nouns]] @ p["W_K.weight"].transpose(1, 2)  # (M, 12, C)
    v = E[:, [index[n] for n in nouns]] @ p["W_V.weight"].transpose(1, 2)  # (M, 12, C)
    return q, k, v


# %% [markdown]
# ## Named measures
#
# Each is a small function of one colony's weights or attention, so the same
# number feeds the figure, the prose and the test.

# %% tags=["measures"]
noun_kind = np.array([kind_of[n] for n in nouns])
verb_kind = np.array([kind_of[v] for v in verbs])
same_noun_kind = (noun_kind[:, None] == noun_kind[None]) & ~np.eye(len(nouns), dtype=bool)
same_verb_kind = (verb_kind[:, None] == verb_kind[None]) & ~np.eye(len(verbs), dtype=bool)
other_verb_kind = verb_kind[:, None] != verb_kind[None]


def object_first_share(weights):
    """Share of sentences in which the verb's attention is highest on its object."""
    return (weights.argmax(-1) == OBJECT_IN_CONTEXT).float().mean(-1)  # (M,)


def mean_cosine(vectors, pairs):
    """Mean cosine over the (i, j) pairs marked in ``pairs``, per colony."""
    unit = F.normalize(vectors, dim=-1)                              # (M, n, C)
    cos = unit @ unit.transpose(1, 2)                                # (M, n, n)
    return cos[:, torch.from_numpy(pairs)].mean(-1)                  # (M,)


def probe_accuracy(queries, ridge=0.1):
    """Leave-one-verb-out linear probe: read a verb's object kind from its query.

    Ridge regression on one-hot kinds, fitted on the other verbs' unit queries,
    predicts the held-out verb's kind. Chance is one in four."""
    X = F.normalize(queries, dim=-1)                                 # (M, 12, C)
    labels = torch.tensor([list(kinds).index(k) for k in verb_kind])  # (12,)
    Y = F.one_hot(labels).float()                                    # (12, 4)
    hits = []
    for held in range(len(verbs)):
        keep = [i for i in range(len(verbs)) if i != held]
        Xt, Yt = X[:, keep], Y[keep]                                 # (M, 11, C), (11, 4)
        x_mean, y_mean = Xt.mean(1, keepdim=True), Yt.mean(0)
        Xc = Xt - x_mean                                             # (M, 11, C)
        gram = Xc @ Xc.transpose(1, 2) + ridge * torch.eye(len(keep))  # (M, 11, 11)
        W = Xc.transpose(1, 2) @ torch.linalg.solve(gram, (Yt - y_mean).expand(len(X), -1, -1))
        scores = ((X[:, [held]] - x_mean) @ W)[:, 0] + y_mean        # (M, 4)
        hits.append(scores.argmax(-1) == labels[held])
    return torch.stack(hits, -1).float().mean(-1)                    # (M,)


@torch.no_grad()
def mean_table(p):
    """q(verb)·k(noun)/√d for every verb and noun, averaged over the trained colonies.

    Without positions this table decides every attention pattern; unlike the
    vectors themselves, it means the same thing in every colony."""
    q, k, _ = query_and_keys(p)
    return (trained(q) @ trained(k).transpose(1, 2) / D_MODEL ** 0.5).mean(0).numpy()  # (12, 12)


@torch.no_grad()
def measure(p, full=True):
    logits, weights = run(p, data)                                   # (M, N, vocab), (M, N, 5)
    attention = {
        "object_first": object_first_share(weights),
        "attention_on_object": weights[..., OBJECT_IN_CONTEXT].mean(-1),
    }
    if not full:
        return attention
    q, k, v = query_and_keys(p)
    return attention | {
        "accuracy": (logits.argmax(-1) == data[:, OBJECT]).float().mean(-1),
        "attention_on_function_words": weights[..., FUNCTION_WORDS].sum(-1).mean(-1),
        "key_same_kind": mean_cosine(k, same_noun_kind),
        "value_same_kind": mean_cosine(v, same_noun_kind),
        "query_same_kind": mean_cosine(q, same_verb_kind),
        "query_other_kind": mean_cosine(q, other_verb_kind),
        "probe": probe_accuracy(q),
        "weights": weights,
    }


# %% [markdown]
# ## Training all colonies together
#
# Every colony draws its own batches of 64 sentences.

# %% tags=["train"]
def train(params, steps, every=10, watch=None):
    """Adam on all colonies at once; ``watch(step)`` is called every ``every`` steps."""
    M = len(params["embed.weight"])
    # foreach: one update for all parameter tensors at once.
    optimizer = torch.optim.Adam(params.values(), lr=3e-3, foreach=True)
    batches = torch.Generator().manual_seed(0)
    for step in range(steps + 1):
        if watch is not None and step % every == 0:
            watch(step)
        if step == steps:
            break
        rows = torch.randint(len(data), (M, 64), generator=batches)
        batch = data[rows]                                           # (M, 64, 6)
        logits, _ = run(params, batch)                               # (M, 64, vocab)
        # Sum over colonies: each colony's parameters get its own loss's gradient.
        loss = F.cross_entropy(logits.flatten(0, 1), batch[..., OBJECT].flatten()) * M
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# %% [markdown]
# ## A small run first
#
# Two colonies (and their two controls), fewer steps: a run that takes a
# second, to see the measures move. The full run below trains many more.

# %% tags=["small_run"]
SMALL_SEEDS, SMALL_STEPS = [0, 1], 100
small, _ = make_colonies(SMALL_SEEDS)
small_start = measure(small)
train(small, SMALL_STEPS)
small_end = measure(small)
for name, moment in (("step 0", small_start), (f"step {SMALL_STEPS}", small_end)):
    query_gap = moment["query_same_kind"] - moment["query_other_kind"]     # (M,)
    print(f"{name}:")
    print("  object named right:          ", trained(moment["accuracy"]).numpy().round(2),
          "controls:", control(moment["accuracy"]).numpy().round(2))
    print("  verb looks hardest at object:", trained(moment["object_first"]).numpy().round(2))
    print("  query cosine, same − other:  ", trained(query_gap).numpy().round(2))

# %%
report_small_run(report, len(SMALL_SEEDS), SMALL_STEPS, runs=("colonies", "“蚁群”数"))

# %% [markdown]
# ## The full run
#
# The same cells, with many colonies and more steps; every few steps we
# measure all of them on all sentences.

# %%
SEEDS = list(range(n_seeds(10)))   # the build trains more when a verdict is undecided
n_seeds = len(SEEDS)
STEPS, EVERY = 400, 10
params, colonies = make_colonies(SEEDS)

# The stacked pass must be the module's pass: compare on colony 0, record the difference.
with torch.no_grad():
    stacked_logits, _ = run(params, data[:8])
report.number("stacked_vs_module_error", (stacked_logits[0] - colonies[0](data[:8])).abs().max(),
              "{:.1e}", en="largest difference between the stacked model and VerbReadsSentence",
              zh="堆叠模型与 VerbReadsSentence 的最大差")

start = measure(params)
table_start = mean_table(params)
history = {"step": [], "object_first": [], "attention_on_object": []}


def watch(step):
    now = start if step == 0 else measure(params, full=False)
    history["step"].append(step)
    for key in ("object_first", "attention_on_object"):
        history[key].append(trained(now[key]).numpy())


train(params, STEPS, EVERY, watch)
end = measure(params)
history = {key: np.array(values) for key, values in history.items()}  # (steps, n_seeds)

# %% [markdown]
# ## What the colonies learned (C16)
#
# Per colony: in what share of the sentences does the verb look hardest at
# its object, among the five words it can see? We record every measure's mean
# over the colonies and its spread (lowest, highest).

# %%
report.number("n_seeds", n_seeds, "{:.0f}", en="colonies (random seeds) trained together",
              zh="一起训练的“蚁群”（随机种子）数")
report.number("steps", STEPS, "{:.0f}", en="training steps", zh="训练步数")


def record_spread(key, values, fmt, en, zh):
    """Mean, lowest and highest over the colonies; returns the values as an array."""
    values = np.asarray(values)
    report.number(f"{key}_mean", values.mean(), fmt, en=f"{en} (mean over seeds)",
                  zh=f"{zh}（各种子平均）", per_seed=values, of="mean")
    report.number(f"{key}_min", values.min(), fmt, en=f"{en} (lowest seed)", zh=f"{zh}（最低的种子）",
                  per_seed=values, of="min")
    report.number(f"{key}_max", values.max(), fmt, en=f"{en} (highest seed)", zh=f"{zh}（最高的种子）",
                  per_seed=values, of="max")
    return values


OBJECT_FIRST_BAR = 0.95
object_first = record_spread(
    "object_first", trained(end["object_first"]), "{:.0%}",
    en="share of sentences where the verb's attention is highest on its object, after training",
    zh="训练后，动词把最大注意力给宾语的句子占比")
object_first_start = record_spread(
    "object_first_start", trained(start["object_first"]), "{:.0%}",
    en="share of sentences where the verb's attention is highest on its object, at step 0",
    zh="第 0 步，动词把最大注意力给宾语的句子占比")
report_seed_count(report, "object_first_seeds", (object_first >= OBJECT_FIRST_BAR),
                  en="seeds where that share is at least 95 % after training",
                  zh="训练后把最大注意力给宾语的句子占比不低于 95% 的种子数")
report.number("object_first_bar", OBJECT_FIRST_BAR, "{:.0%}", en="the bar set before the run",
              zh="运行前定下的门槛")
record_spread("accuracy", trained(end["accuracy"]), "{:.0%}", en="sentences whose object is named correctly",
              zh="说对宾语的句子占比")
record_spread("control_accuracy", control(end["accuracy"]), "{:.0%}",
              en="same, with the attention frozen to an even spread (control)",
              zh="对照组（注意力冻结为平均分配）说对宾语的句子占比")
record_spread("attention_on_object", trained(end["attention_on_object"]), "{:.2f}",
              en="mean attention weight of the verb on its object, after training",
              zh="训练后，动词落在宾语上的平均注意力权重")
record_spread("attention_on_object_start", trained(start["attention_on_object"]), "{:.2f}",
              en="mean attention weight of the verb on its object, at step 0",
              zh="第 0 步，动词落在宾语上的平均注意力权重")
report.number("uniform_weight", 1 / len(CONTEXT), "{:.2f}", en="weight of an even spread over five words",
              zh="五个词平均分配时每个词的权重")
record_spread("attention_on_function_words", trained(end["attention_on_function_words"]), "{:.2f}",
              en="mean attention of the verb on the two function words 在 and 旁边",
              zh="动词落在“在”“旁边”两个虚词上的平均注意力")

# The source's two examples: 追逐 → 激光点 and 吃 → 苹果, in every sentence that has them.
weights = trained(end["weights"])                                   # (n_seeds, N, 5)
for name, verb, obj in (("chase_laser", "追逐", "激光点"), ("eat_apple", "吃", "苹果")):
    rows = (data[:, VERB] == index[verb]) & (data[:, OBJECT] == index[obj])
    record_spread(f"{name}_weight", weights[:, rows, OBJECT_IN_CONTEXT].mean(-1), "{:.2f}",
                  en=f"attention of {gloss[verb]} on {gloss[obj]} ({verb} → {obj})",
                  zh=f"“{verb}”落在“{obj}”上的注意力")
    record_spread(f"{name}_first", object_first_share(weights[:, rows]), "{:.0%}",
                  en=f"share of its sentences where {gloss[verb]} looks hardest at {gloss[obj]}",
                  zh=f"含这一对的句子里，“{verb}”最关注“{obj}”的占比")
    record_spread(f"{name}_weight_start", trained(start["weights"])[:, rows, OBJECT_IN_CONTEXT].mean(-1),
                  "{:.2f}", en=f"same weight at step 0 ({verb} → {obj})",
                  zh=f"第 0 步的同一权重（{verb} → {obj}）")

# Verb by verb: how much of the attention goes to the object (mean over seeds).
per_verb = np.array([weights[:, data[:, VERB] == index[v], OBJECT_IN_CONTEXT].mean(-1).numpy()
                     for v in verbs])                                # (12, n_seeds)
report.number("per_verb_attention_lowest", per_verb.mean(1).min(), "{:.2f}",
              en="attention on the object of the verb that gives it least (mean over seeds)",
              zh="给宾语注意力最少的那个动词落在宾语上的注意力（各种子平均）")
report.number("per_verb_attention_highest", per_verb.mean(1).max(), "{:.2f}",
              en="attention on the object of the verb that gives it most (mean over seeds)",
              zh="给宾语注意力最多的那个动词落在宾语上的注意力（各种子平均）")

# %% [markdown]
# ## What each role became
#
# Do the keys of nouns of one kind grow alike? Do their values?

# %%
record_spread("key_same_kind", trained(end["key_same_kind"]), "{:.2f}",
              en="mean cosine between keys of same-kind nouns, after training",
              zh="训练后，同类名词的键之间的平均余弦")
record_spread("key_same_kind_start", trained(start["key_same_kind"]), "{:.2f}",
              en="mean cosine between keys of same-kind nouns, at step 0",
              zh="第 0 步，同类名词的键之间的平均余弦")
record_spread("value_same_kind", trained(end["value_same_kind"]), "{:.2f}",
              en="mean cosine between values of same-kind nouns, after training",
              zh="训练后，同类名词的值之间的平均余弦")

# %% [markdown]
# ## The verb's query as a subcategorisation signal (C26)
#
# Three verbs take each kind of object. If a query says "I take food", the
# queries of 吃, 尝 and 煮 should point the same way, and a linear probe
# should read the kind from a query it was not fitted on.

# %%
QUERY_GAP_BAR = 0.2
record_spread("query_cosine_same_class", trained(end["query_same_kind"]), "{:.2f}",
              en="mean cosine between queries of verbs taking the same kind of object",
              zh="带同类宾语的动词，查询之间的平均余弦")
record_spread("query_cosine_other_class", trained(end["query_other_kind"]), "{:.2f}",
              en="mean cosine between queries of verbs taking different kinds of object",
              zh="带不同类宾语的动词，查询之间的平均余弦")
gap = record_spread("query_cosine_gap", trained(end["query_same_kind"] - end["query_other_kind"]), "{:.2f}",
                    en="same-kind minus different-kind query cosine, after training",
                    zh="训练后，同类与异类查询余弦之差")
record_spread("query_cosine_gap_start", trained(start["query_same_kind"] - start["query_other_kind"]),
              "{:.2f}", en="same-kind minus different-kind query cosine, at step 0",
              zh="第 0 步，同类与异类查询余弦之差")
report_seed_count(report, "query_same_class_seeds", (gap >= QUERY_GAP_BAR),
                  en="seeds where that difference is at least 0.2", zh="同类与异类查询余弦之差不低于 0.2 的种子数")
report.number("query_gap_bar", QUERY_GAP_BAR, "{:.1f}", en="the bar set before the run",
              zh="运行前定下的门槛")
record_spread("query_probe_accuracy", trained(end["probe"]), "{:.0%}",
              en="held-out accuracy of a linear probe reading the object kind from a verb's query",
              zh="线性探针从留出动词的查询读出宾语类别的准确率")
record_spread("query_probe_accuracy_start", trained(start["probe"]), "{:.0%}",
              en="same probe at step 0", zh="第 0 步同一探针的准确率")
report.number("query_probe_chance", 1 / len(kinds), "{:.0%}", en="chance: one kind in four",
              zh="随机猜：四类里猜一类")

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above. The cells try it on the small run;
# the run records the answer of the full run so the page can show it folded
# under the question.

# %% tags=["even_attention"]
# Exercise 1: freeze the trained colonies' attention to an even spread. W_Q = 0 makes every
# score in `run` 0; on a copy of the parameters, so the colonies keep their own W_Q.
def accuracy(p, tokens):
    """Share of sentences whose object each colony names, (M,)."""
    with torch.no_grad():
        logits, _ = run(p, tokens)                                   # (M, N, vocab)
    return (logits.argmax(-1) == data[:, OBJECT]).float().mean(-1)   # (M,)


even = dict(small, **{"W_Q.weight": torch.zeros_like(small["W_Q.weight"])})   # was: small
print("even attention: object named right", trained(accuracy(even, data)).numpy().round(2),
      "instead of", trained(accuracy(small, data)).numpy().round(2))

# %% tags=["reversed"]
# Exercise 2: reverse the order of the five words the verb can see (O 旁边 D 在 S).
reversed_data = data.clone()
reversed_data[:, CONTEXT] = data[:, CONTEXT[::-1]]                   # was: data
with torch.no_grad():
    change = (run(small, reversed_data)[0] - run(small, data)[0]).abs().max()
print(f"words reversed: largest change of a logit {change:.1e}, "
      f"object named right {trained(accuracy(small, reversed_data)).numpy().round(2)}")

# %%
# The full run's colonies (the cells above tried the small run's).
even_full = dict(params, **{"W_Q.weight": torch.zeros_like(params["W_Q.weight"])})
report.number("exercise_even_attention_accuracy_mean", trained(accuracy(even_full, data)).mean(), "{:.0%}",
              en="exercise 1: accuracy of the trained colonies with their attention frozen to an even spread (mean)",
              zh="练习 1：把训练好的蚁群的注意力冻结为平均分配后的准确率（平均）")
with torch.no_grad():
    logits, _ = run(params, data)
    reversed_logits, _ = run(params, reversed_data)
report.number("exercise_reversed_largest_logit_change", (reversed_logits - logits).abs().max(), "{:.1e}",
              en="exercise 2: largest change of any logit when the context words are reversed",
              zh="练习 2：把上下文词倒序后，各 logit 的最大变化")
report.number("exercise_reversed_accuracy_mean", trained(accuracy(params, reversed_data)).mean(), "{:.0%}",
              en="exercise 2: accuracy with the context words reversed (mean over colonies)",
              zh="练习 2：上下文词倒序后的准确率（各蚁群平均）")

# %% [markdown]
# ## Figures

# %%
TEXT = {
    "en": {
        "verbs": [gloss[v] for v in verbs], "nouns": [gloss[n] for n in nouns],
        "example": ["cat", "at", "apple", "beside", "laser dot"],
        "step": "step {}", "table_label": "q(verb)·k(noun) / √d, mean over seeds",
        "example_label": "weight from “chase”",
        "object_first": "sentences where the verb\nlooks hardest at its object",
        "attention": "verb's weight on\nits object (mean)",
        "each_seed": "one seed", "mean": "mean of {} seeds", "uniform": "even spread",
        "training_step": "training step", "bar": "95 % bar",
        "start": "step 0", "end": "after training",
        "same": "same kind", "other": "different kinds",
        "query_cos": "mean cosine between\nverbs' queries", "probe": "probe accuracy\n(held-out verb)",
        "chance": "chance", "seed": "seed",
        "table_alt": "Two heat maps of q·k between twelve verbs (rows) and twelve nouns (columns), "
                     "averaged over {n} seeds, at step 0 and after training; the nouns are grouped by "
                     "the kind of object they are.",
        "table_caption": "Averaged over {n} colonies: for {k} of {v} verbs, the query scores a noun "
                         "of its own kind of object highest.",
        "example_alt": "Bars of where chase looks in 'the cat, next to the apple, chases the laser "
                       "dot', at step 0 and after training, one dot per seed. Laser dot gets "
                       "{start:.2f} of the weight at step 0 and {end:.2f} after training (mean over seeds).",
        "example_caption": "猫 在 苹果 旁边 追逐 激光点: where “chase” looks, each dot one seed.",
        "curves_alt": "Over training, for each of {n} seeds (faint lines) and their mean (bold): "
                      "the share of sentences in which the verb looks hardest at its object, and the "
                      "verb's mean attention weight on its object, with a line for the even spread.",
        "curves_caption": "{k} of {n} colonies end with the verb looking hardest at its object in at "
                          "least 95 % of sentences (mean share {m:.0%}).",
        "queries_alt": "Left: for each seed, the mean cosine between queries of verbs taking the same "
                       "kind of object and of verbs taking different kinds, at step 0 and after "
                       "training. Right: held-out accuracy of the linear probe per seed, against "
                       "chance one in four.",
        "queries_caption": "After training, in {k} of {n} colonies the queries of verbs taking the same kind "
                           "of object are more alike (cosine) than those of verbs taking different kinds by "
                           "at least {bar}; a probe names the kind from a held-out verb's query with mean "
                           "accuracy {acc:.0%} (step 0: {acc0:.0%}; chance {chance:.0%}).",
    },
    "zh": {
        "verbs": verbs, "nouns": nouns, "example": ["猫", "在", "苹果", "旁边", "激光点"],
        "step": "第 {} 步", "table_label": "q(动词)·k(名词) / √d，各种子平均",
        "example_label": "“追逐”给出的权重",
        "object_first": "动词最关注宾语的\n句子占比",
        "attention": "动词落在宾语上的\n平均权重",
        "each_seed": "单个种子", "mean": "{} 个种子的平均", "uniform": "平均分配",
        "training_step": "训练步数", "bar": "95% 门槛",
        "start": "第 0 步", "end": "训练后",
        "same": "同类", "other": "异类",
        "query_cos": "动词查询之间的\n平均余弦", "probe": "探针准确率\n（留出的动词）",
        "chance": "随机猜", "seed": "种子",
        "table_alt": "两幅热力图，画的是十二个动词（行）与十二个名词（列）之间的 q·k，对 {n} 个种子取平均："
                     "第 0 步与训练后各一幅；名词按所属的宾语类别排在一起。",
        "table_caption": "对 {n} 窝“蚂蚁”取平均：{v} 个动词里有 {k} 个，查询给自己那类宾语中的名词打分最高。",
        "example_alt": "柱状图：在“猫在苹果旁边追逐激光点”里，“追逐”看向哪里，第 0 步与训练后各一组，"
                       "每个点是一个种子。激光点分到的权重：第 0 步 {start:.2f}，训练后 {end:.2f}（各种子平均）。",
        "example_caption": "“猫在苹果旁边追逐激光点”里，“追逐”看向哪里：每个点是一个种子。",
        "curves_alt": "训练过程中，{n} 个种子各自（细线）及其平均（粗线）的两条曲线：动词最关注宾语的句子占比，"
                      "以及动词落在宾语上的平均注意力权重；另有一条线标出平均分配。",
        "curves_caption": "训练结束时，{n} 窝里有 {k} 窝在至少 95% 的句子里，动词最关注的都是宾语（平均占比 {m:.0%}）。",
        "queries_alt": "左：每个种子里，带同类宾语的动词之间、带不同类宾语的动词之间，查询的平均余弦，"
                       "第 0 步与训练后各一组。右：每个种子里线性探针在留出动词上的准确率，对照随机猜的四分之一。",
        "queries_caption": "训练后，{n} 窝里有 {k} 窝，带同类宾语的动词的查询比带不同类宾语的更相似，"
                           "余弦至少高出 {bar}；探针从留出动词的查询读出宾语类别，平均准确率 {acc:.0%}"
                           "（第 0 步 {acc0:.0%}，随机猜 {chance:.0%}）。",
    },
}
plt.rcParams.update({"font.size": 10})
VIRIDIS = plt.get_cmap("viridis")
COLOR_A, COLOR_B = VIRIDIS(0.15), VIRIDIS(0.7)


tables = {0: table_start, STEPS: mean_table(params)}
own_kind_top = noun_kind[tables[STEPS].argmax(1)] == verb_kind       # (12,) rows are verbs
report.number("own_kind_top_verbs", own_kind_top.sum(), "{:.0f}",
              en="verbs whose query (averaged over the colonies) scores a noun of its own kind highest",
              zh="查询（各窝平均）给自己那类宾语中的名词打分最高的动词个数")
limit = max(np.abs(t).max() for t in tables.values())
example = torch.tensor([[index[w] for w in ["猫", "在", "苹果", "旁边", "追逐", "激光点"]]])
example_rows = (data == example).all(-1)                             # the one matching sentence
example_weights = {0: start["weights"][:n_seeds, example_rows][:, 0].numpy(),
                   STEPS: end["weights"][:n_seeds, example_rows][:, 0].numpy()}  # (n_seeds, 5)

for lang in LANGS:
    text = TEXT[lang]

    fig, axes = plt.subplots(2, 1, figsize=(6.4, 7.6), sharex=True)
    for ax, step in zip(axes, tables):
        image = ax.imshow(tables[step], cmap="RdBu_r", vmin=-limit, vmax=limit, aspect="auto")
        ax.set_title(text["step"].format(step), fontsize=10)
        ax.set_yticks(range(len(verbs)), text["verbs"], fontsize=9)
    axes[1].set_xticks(range(len(nouns)), text["nouns"], rotation=90, fontsize=9)
    fig.colorbar(image, ax=axes, shrink=0.6, label=text["table_label"])
    report.figure("snapshots", fig, lang, alt=text["table_alt"].format(n=n_seeds),
                  caption=text["table_caption"].format(n=n_seeds, k=int(own_kind_top.sum()), v=len(verbs)))

    fig, axes = plt.subplots(1, 2, figsize=(6.8, 3.4), sharey=True)
    for ax, step in zip(axes, example_weights):
        w = example_weights[step]                                    # (n_seeds, 5)
        colors = [COLOR_B if i == OBJECT_IN_CONTEXT else COLOR_A for i in range(len(CONTEXT))]
        ax.bar(range(len(CONTEXT)), w.mean(0), color=colors, alpha=0.6)
        jitter = np.linspace(-0.25, 0.25, n_seeds)
        for i in range(len(CONTEXT)):
            ax.scatter(i + jitter, w[:, i], s=10, color="black", zorder=3)
        ax.set_xticks(range(len(CONTEXT)), text["example"], rotation=45, ha="right", fontsize=9)
        ax.set_ylim(0, 1.02)
        ax.set_title(text["start"] if step == 0 else text["end"], fontsize=10)
    axes[0].set_ylabel(text["example_label"])
    fig.tight_layout()
    report.figure("example", fig, lang, caption=text["example_caption"],
                  alt=text["example_alt"].format(start=example_weights[0][:, OBJECT_IN_CONTEXT].mean(),
                                                 end=example_weights[STEPS][:, OBJECT_IN_CONTEXT].mean()))

    fig, axes = plt.subplots(2, 1, figsize=(6.4, 5.6), sharex=True)
    for ax, key, label in ((axes[0], "object_first", text["object_first"]),
                           (axes[1], "attention_on_object", text["attention"])):
        ax.plot(history["step"], history[key], color=COLOR_A, alpha=0.3, lw=0.8)
        ax.plot(history["step"], history[key].mean(1), color=COLOR_A, lw=2.2,
                label=text["mean"].format(n_seeds))
        ax.axhline(1 / len(CONTEXT), color="grey", ls=":", label=text["uniform"])
        ax.set_ylim(0, 1.02)
        ax.set_ylabel(label)
    axes[0].axhline(OBJECT_FIRST_BAR, color=COLOR_B, ls="--", lw=1, label=text["bar"])
    axes[0].plot([], [], color=COLOR_A, alpha=0.3, lw=0.8, label=text["each_seed"])
    legend = axes[0].legend(fontsize=9, loc="lower right")
    legend.get_texts()[0].set_gid("value:n_seeds")   # "mean of 10 seeds" (tests/test_figure_labels_agree.py)
    axes[1].set_xlabel(text["training_step"])
    fig.tight_layout()
    report.figure("curves", fig, lang, alt=text["curves_alt"].format(n=n_seeds),
                  caption=text["curves_caption"].format(k=int((object_first >= OBJECT_FIRST_BAR).sum()),
                                                        n=n_seeds, m=object_first.mean()))

    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.4), gridspec_kw={"width_ratios": [3, 2]})
    for x, (moment, label) in enumerate(((start, text["start"]), (end, text["end"]))):
        same = moment["query_same_kind"][:n_seeds].numpy()
        other = moment["query_other_kind"][:n_seeds].numpy()
        for s in range(n_seeds):
            left.plot([2 * x, 2 * x + 0.8], [same[s], other[s]], color="grey", lw=0.6, alpha=0.6)
        left.scatter(np.full(n_seeds, 2 * x), same, color=COLOR_B, s=14, zorder=3,
                     label=text["same"] if x == 0 else None)
        left.scatter(np.full(n_seeds, 2 * x + 0.8), other, color=COLOR_A, s=14, zorder=3,
                     label=text["other"] if x == 0 else None)
    left.set_xticks([0.4, 2.4], [text["start"], text["end"]])
    left.axhline(0, color="grey", lw=0.5)
    left.set_ylabel(text["query_cos"])
    left.legend(fontsize=9)
    for x, moment in enumerate((start, end)):
        right.scatter(x + np.linspace(-0.2, 0.2, n_seeds), moment["probe"][:n_seeds].numpy(),
                      color=COLOR_A, s=14)
    right.axhline(1 / len(kinds), color="grey", ls=":", label=text["chance"])
    right.set_xticks([0, 1], [text["start"], text["end"]])
    right.set_xlim(-0.6, 1.6)
    right.set_ylim(-0.02, 1.02)
    right.set_ylabel(text["probe"])
    right.legend(fontsize=9, loc="center right")
    fig.tight_layout()
    report.figure("queries", fig, lang, alt=text["queries_alt"],
                  caption=text["queries_caption"].format(
                      k=int((gap >= QUERY_GAP_BAR).sum()), n=n_seeds, bar=QUERY_GAP_BAR, chance=1 / len(kinds),
                      acc=np.asarray(trained(end["probe"])).mean(), acc0=np.asarray(trained(start["probe"])).mean()))

report.save()
