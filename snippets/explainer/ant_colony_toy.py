"""The ant colony's toy, one copy for its snippets (three_roles.ant_colony.verb_and_object, C16,
and three_roles.ant_colony.subcat_queries, C26).

A toy language "S 在 D 旁边 V O" in which a verb needs its object, the smallest model where the
verb must look (``VerbReadsSentence``: one attention head, the verb the only query, no positions,
no residual path), the same pass written with a colony dimension M in front so many random seeds
(and their controls, W_Q zero and frozen) train as one (``make_colonies``, ``run``), what the
page measures on a colony (``measure``), and Adam on all colonies at once (``train``). The
page's cells import these names and print their code (``inspect.getsource``), so the page shows
this file as it runs. ``spread`` gives ``report.number`` what it needs for the colonies' mean,
lowest and highest of a value.
"""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import stack_module_state

# The language: every sentence is S 在 D 旁边 V O, e.g. 猫 在 苹果 旁边 追逐 激光点.
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

# The model.
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


# Many colonies at once.
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


# Named measures: each a small function of one colony's weights or attention.
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


# Training all colonies together, each on its own batches of 64 sentences.
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


# Recording a value over the colonies.
def spread(values) -> dict:
    """One value per colony -> for "mean", "min" and "max": ``report.number``'s value and the
    per-colony values, so a snippet records each under a literal key, described in its strings
    file (a table per ending, "… (mean over seeds)", "…（各种子平均）"):
    ``report.number("accuracy_min", **accuracy["min"], fmt="{:.0%}")``."""
    values = np.asarray(values)
    return {of: dict(value=getattr(values, of)(), per_seed=values, of=of) for of in ("mean", "min", "max")}
