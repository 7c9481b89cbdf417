"""The translation toy of the three-roles chapter, one copy for its snippets
(three_roles.translation, three_roles.translation.alignment, three_roles.translation.gradient_step).

猫追逐激光点 → "the cat chases the laser dot": two corpora of "S V O" sentence pairs, a tiny
encoder–decoder (``Translator``), the same pass written with a model dimension M in front so
many seeds train as one (``make_models``, ``encode``, ``decode``), Adam on all of them
(``train``), and what the translation page measures before and after training (``translate``,
``measure``, ``chase_laser_link``). The page's cells import these names and print their code
(``inspect.getsource``), so the page shows this file as it runs. ``attention`` also takes the
positions a model may read per query position (a reads of shape (M, T, S)), for the planted toy
of gradient_step and the planted arm of C17 (``make_planted``: at the verb's place the decoder
reads the Chinese only at 追逐).
"""

import itertools

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import stack_module_state

# The corpora.
NOUNS = {"猫": "cat", "狗": "dog", "男孩": "boy", "女孩": "girl", "老鼠": "mouse",
         "激光点": "laser dot", "激光笔": "laser pen", "红球": "red ball", "红点": "red dot",
         "梦想": "dream", "目标": "goal"}
GOALS = {"梦想", "目标"}
VERBS = {"追逐": "chases", "看着": "watches", "喜欢": "likes", "咬": "bites"}
SUBJECTS = ["猫", "狗", "男孩", "女孩", "老鼠"]           # things that can act
CORPORA = ("fixed", "object_dependent")


def english(subject, verb, obj, corpus):
    verb_en = "pursues" if corpus == "object_dependent" and verb == "追逐" and obj in GOALS \
        else VERBS[verb]
    return f"the {NOUNS[subject]} {verb_en} the {NOUNS[obj]}".split()


sources = [[s, v, o] for s, v, o in itertools.product(SUBJECTS, VERBS, NOUNS) if o != s]
TEST = ["猫", "追逐", "激光点"]
rng = np.random.default_rng(0)
others = [i for i in rng.permutation(len(sources)) if sources[i] != TEST][:15]
held_out = [sources.index(TEST)] + [int(i) for i in others]       # TEST is row 0 of held_out
train_rows = [i for i in range(len(sources)) if i not in held_out]

SRC = sorted({w for s in sources for w in s})
TGT = ["<pad>", "<s>", "</s>"] + sorted({w for c in CORPORA for s in sources
                                         for w in english(*s, c)})
src_id, tgt_id = {w: i for i, w in enumerate(SRC)}, {w: i for i, w in enumerate(TGT)}
PAD, BOS, EOS = 0, 1, 2
MAX_TGT = max(len(english(*s, c)) for s in sources for c in CORPORA) + 1   # + </s>
SUBJECT_POS, VERB_POS, OBJECT_POS = 0, 1, 2                                   # in the Chinese
VERB_SLOT = 2                # in the English: "<s> the cat" predicts the verb (every subject is one word)


def encode_targets(corpus):
    """Decoder input <s> y (N, L) and target y </s> (N, L), padded, for every sentence."""
    rows_in, rows_out = [], []
    for s in sources:
        ids = [tgt_id[w] for w in english(*s, corpus)]
        pad = [PAD] * (MAX_TGT - 1 - len(ids))
        rows_in.append([BOS] + ids + pad)
        rows_out.append(ids + [EOS] + pad)
    return torch.tensor(rows_in), torch.tensor(rows_out)


src_all = torch.tensor([[src_id[w] for w in s] for s in sources])  # (N, 3)
targets = [encode_targets(c) for c in CORPORA]


# The model.
D_MODEL = 16


class Attention(nn.Module):
    """Multi-head attention: Q, K, V projections, per-head scaled dot-product, concat, W_O."""

    def __init__(self, n_heads, causal=False):
        super().__init__()
        self.n_heads, self.causal = n_heads, causal
        self.W_Q = nn.Linear(D_MODEL, D_MODEL, bias=False)
        self.W_K = nn.Linear(D_MODEL, D_MODEL, bias=False)
        self.W_V = nn.Linear(D_MODEL, D_MODEL, bias=False)
        self.W_O = nn.Linear(D_MODEL, D_MODEL, bias=False)

    def forward(self, x, context=None):                     # x: (B, T, C), context: (B, S, C)
        context = x if context is None else context
        B, T, C = x.shape
        S, hs = context.shape[1], C // self.n_heads
        q = self.W_Q(x).view(B, T, self.n_heads, hs).transpose(1, 2)        # (B, nh, T, hs)
        k = self.W_K(context).view(B, S, self.n_heads, hs).transpose(1, 2)  # (B, nh, S, hs)
        v = self.W_V(context).view(B, S, self.n_heads, hs).transpose(1, 2)  # (B, nh, S, hs)
        scores = q @ k.transpose(-2, -1) / hs ** 0.5                       # (B, nh, T, S)
        if self.causal:
            scores = scores.masked_fill(torch.ones(T, S, dtype=torch.bool).triu(1), float("-inf"))
        weights = scores.softmax(dim=-1)                                   # (B, nh, T, S)
        heads = (weights @ v).transpose(1, 2).reshape(B, T, C)             # (B, T, C)
        return self.W_O(heads)


class MLP(nn.Sequential):
    def __init__(self):
        super().__init__(nn.Linear(D_MODEL, 4 * D_MODEL), nn.GELU(), nn.Linear(4 * D_MODEL, D_MODEL))


class Translator(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_embed = nn.Embedding(len(SRC), D_MODEL)
        self.tgt_embed = nn.Embedding(len(TGT), D_MODEL)
        self.src_pos = nn.Parameter(torch.randn(3, D_MODEL) * 0.1)
        self.tgt_pos = nn.Parameter(torch.randn(MAX_TGT, D_MODEL) * 0.1)
        self.enc_norm1, self.enc_norm2 = nn.LayerNorm(D_MODEL), nn.LayerNorm(D_MODEL)
        self.enc_self = Attention(n_heads=2)
        self.enc_mlp = MLP()
        self.dec_norms = nn.ModuleList(nn.LayerNorm(D_MODEL) for _ in range(4))
        self.dec_self = Attention(n_heads=2, causal=True)
        self.cross = Attention(n_heads=1)
        self.dec_mlp = MLP()
        self.readout = nn.Linear(D_MODEL, len(TGT))

    def encode(self, src):                                  # src: (B, S)
        x = self.src_embed(src) + self.src_pos[: src.shape[1]]  # (B, S, C)
        x = x + self.enc_self(self.enc_norm1(x))            # the Chinese words look at each other
        return x + self.enc_mlp(self.enc_norm2(x))          # (B, S, C)

    def decode(self, memory, tgt_in):                       # tgt_in: (B, T)
        n1, n2, n3, n4 = self.dec_norms
        y = self.tgt_embed(tgt_in) + self.tgt_pos[: tgt_in.shape[1]]  # (B, T, C)
        y = y + self.dec_self(n1(y))
        y = y + self.cross(n2(y), context=memory)           # each English position reads the Chinese
        y = y + self.dec_mlp(n3(y))
        return self.readout(n4(y))                          # (B, T, vocab)

    def forward(self, src, tgt_in):
        return self.decode(self.encode(src), tgt_in)


ARMS = {"fixed": ("fixed", False), "object_dependent": ("object_dependent", False),
        "forced": ("object_dependent", True)}             # arm: (corpus, decoder reads only the verb)


def make_models(seeds):
    """A Translator per arm and seed, stacked: name -> (M, ...) with M = 3·len(seeds),
    and the arm of each model (its index in ARMS)."""
    models = []
    for arm in ARMS:
        for seed in seeds:
            torch.manual_seed(seed)
            models.append(Translator())
    params, _ = stack_module_state(models)                 # name -> (M, ...)
    return params, models, torch.arange(len(models)) // len(seeds)


def linear(x, weight, bias=None):                          # x: (M, ..., in), weight: (M, out, in)
    flat = x.reshape(x.shape[0], -1, x.shape[-1])          # (M, rows, in)
    y = torch.bmm(flat, weight.transpose(1, 2)) if bias is None else \
        torch.baddbmm(bias[:, None], flat, weight.transpose(1, 2))  # (M, rows, out)
    return y.view(*x.shape[:-1], -1)                       # (M, ..., out)


def layer_norm(x, p, name):                                # x: (M, ..., C)
    shape = (x.shape[0], *[1] * (x.dim() - 2), -1)
    return F.layer_norm(x, x.shape[-1:]) * p[f"{name}.weight"].view(shape) + p[f"{name}.bias"].view(shape)


def attention(x, context, p, name, n_heads, causal=False, reads=None, cut=None):
    """Attention with a model dimension: output (M, B, T, C), weights (M, B, nh, T, S).
    reads (M, S): the context positions each model may read (None: all of them), or (M, T, S):
    per query position (the planted toy and the planted arm: the verb's place reads 追逐 only);
    cut (M, nh, T, S): edges removed — their weight set to zero, the rest renormalised."""
    M, B, T, C = x.shape
    S, hs = context.shape[2], C // n_heads
    q = linear(x, p[f"{name}.W_Q.weight"]).view(M, B, T, n_heads, hs).transpose(2, 3)        # (M, B, nh, T, hs)
    k = linear(context, p[f"{name}.W_K.weight"]).view(M, B, S, n_heads, hs).transpose(2, 3)  # (M, B, nh, S, hs)
    v = linear(context, p[f"{name}.W_V.weight"]).view(M, B, S, n_heads, hs).transpose(2, 3)  # (M, B, nh, S, hs)
    scores = q @ k.transpose(-2, -1) / hs ** 0.5                                            # (M, B, nh, T, S)
    if causal:
        scores = scores.masked_fill(torch.ones(T, S, dtype=torch.bool).triu(1), float("-inf"))
    if reads is not None:   # (M, S): the same for every query; (M, T, S): per query position
        allowed = reads[:, None, None, None, :] if reads.dim() == 2 else reads[:, None, None]
        scores = scores.masked_fill(~allowed, float("-inf"))
    if cut is not None:
        scores = scores.masked_fill(cut[:, None], float("-inf"))
    weights = scores.softmax(dim=-1)                                                        # (M, B, nh, T, S)
    heads = (weights @ v).transpose(2, 3).reshape(M, B, T, C)                               # (M, B, T, C)
    return linear(heads, p[f"{name}.W_O.weight"]), weights


def mlp(x, p, name):
    hidden = F.gelu(linear(x, p[f"{name}.0.weight"], p[f"{name}.0.bias"]))  # (M, ..., 4C)
    return linear(hidden, p[f"{name}.2.weight"], p[f"{name}.2.bias"])


def encode(p, src, cut=None):
    """All models read the same Chinese (B, S): memory (M, B, S, C), self-attention weights.
    cut (M, nh, S, S): self-attention edges removed (see attention)."""
    x = p["src_embed.weight"][:, src] + p["src_pos"][:, None, : src.shape[1]]   # (M, B, S, C)
    attended, self_weights = attention(layer_norm(x, p, "enc_norm1"), layer_norm(x, p, "enc_norm1"),
                                       p, "enc_self", n_heads=2, cut=cut)
    x = x + attended
    return x + mlp(layer_norm(x, p, "enc_norm2"), p, "enc_mlp"), self_weights  # (M, B, S, C)


def decode(p, memory, tgt_in, causal=True, reads=None):
    """tgt_in (M, B, T): logits (M, B, T, vocab) and cross-attention weights (M, B, T, S).
    reads (M, S): the Chinese positions each model's cross-attention may read (None: all)."""
    M = len(tgt_in)
    y = p["tgt_embed.weight"][torch.arange(M)[:, None, None], tgt_in] \
        + p["tgt_pos"][:, None, : tgt_in.shape[2]]                              # (M, B, T, C)
    n1 = layer_norm(y, p, "dec_norms.0")
    y = y + attention(n1, n1, p, "dec_self", n_heads=2, causal=causal)[0]
    read, cross_weights = attention(layer_norm(y, p, "dec_norms.1"), memory, p, "cross", n_heads=1,
                                    reads=reads)
    y = y + read
    y = y + mlp(layer_norm(y, p, "dec_norms.2"), p, "dec_mlp")
    logits = linear(layer_norm(y, p, "dec_norms.3"), p["readout.weight"], p["readout.bias"])
    return logits, cross_weights[:, :, 0]                                       # (M, B, T, S)


def model_targets(arm_of):
    """Each model's own English for every sentence: decoder input and target, (M, N, L) each,
    and the Chinese positions its decoder may read, (M, 3): the verb's only in the forced arm."""
    arms = [list(ARMS.values())[a] for a in arm_of.tolist()]
    reads = torch.tensor([[not forced or position == VERB_POS for position in range(3)]
                          for _, forced in arms])
    return (torch.stack([targets[CORPORA.index(corpus)][0] for corpus, _ in arms]),
            torch.stack([targets[CORPORA.index(corpus)][1] for corpus, _ in arms]), reads)


def batch_targets(tgt, rows):
    """Decoder input and target of sources[rows] for every model, (M, B, L) each."""
    return tgt[0][:, rows], tgt[1][:, rows]


def make_planted(seeds):
    """The planted arm of C17's power check: a Translator per seed (seed i's start, as in every
    arm), stacked (M = len(seeds)), on the object-dependent corpus, and its targets. Only at the
    verb's place (VERB_SLOT) may the cross-attention read the Chinese, and only at 追逐; every
    other English position reads all three words. So the object can reach the verb only through
    追逐's row of the encoder's self-attention. Targets: decoder input, target (M, N, L), reads
    (M, L, 3)."""
    models = []
    for seed in seeds:
        torch.manual_seed(seed)
        models.append(Translator())
    params, _ = stack_module_state(models)                 # name -> (M, ...)
    reads = torch.ones(MAX_TGT, 3, dtype=torch.bool)
    reads[VERB_SLOT] = torch.arange(3) == VERB_POS         # the verb's place reads 追逐 only
    tgt_in, tgt_out = targets[CORPORA.index("object_dependent")]
    M = len(seeds)
    return params, (tgt_in.repeat(M, 1, 1), tgt_out.repeat(M, 1, 1), reads.repeat(M, 1, 1))



# What the translation page measures, before and after training.
@torch.no_grad()
def translate(p, tgt, rows, causal=True, cut=None):
    """Greedy decoding of sources[rows] by every model: is each translation exact? (M, B).
    cut (M, nh, 3, 3): encoder self-attention edges removed (see attention)."""
    memory, _ = encode(p, src_all[rows], cut)                                 # (M, B, S, C)
    out = torch.full((len(memory), len(rows), 1), BOS)
    for _ in range(MAX_TGT):
        # reads (M, S) is the same at every position; (M, L, S) per position: the first t of them
        reads = tgt[2] if tgt[2].dim() == 2 else tgt[2][:, : out.shape[-1]]
        logits, _ = decode(p, memory, out, causal, reads=reads)
        out = torch.cat([out, logits[:, :, -1].argmax(-1, keepdim=True)], dim=-1)  # (M, B, t+1)
    _, tgt_out = batch_targets(tgt, rows)                                     # (M, B, L)
    # Exact: every reference word and </s> in place (padding after </s> is not compared).
    return ((out[:, :, 1:] == tgt_out) | (tgt_out == PAD)).all(-1)            # (M, B)


def content_words(src_words, corpus):
    """{English position: Chinese position} for nouns and verbs; "the" has none."""
    subject, verb, obj = src_words
    return dict(p for p in enumerate([None] + [0] * len(NOUNS[subject].split()) + [1] + [None]
                                     + [2] * len(NOUNS[obj].split())) if p[1] is not None)


@torch.no_grad()
def measure(p, tgt):
    memory, self_weights = encode(p, src_all)              # self_weights: (M, N, 2, 3, 3)
    tgt_in, _ = batch_targets(tgt, list(range(len(sources))))
    _, cross = decode(p, memory, tgt_in, reads=tgt[2])     # (M, N, T, 3)
    verb_to_object = self_weights[:, :, :, VERB_POS, OBJECT_POS].amax(-1)   # (M, N): larger head
    hits = torch.zeros(len(memory))
    count = 0
    for n, s in enumerate(sources):
        for position, source in content_words(s, "fixed").items():
            hits += (cross[:, n, position].argmax(-1) == source).float()
            count += 1
    test = sources.index(TEST)
    return {
        "chase_laser_weight": verb_to_object[:, test],                       # (M,)
        "verb_object_linked": (verb_to_object >= 0.5).float().mean(-1),      # (M,)
        "alignment": hits / count,                                           # (M,)
        "test_cross": cross[:, test, : len(english(*TEST, "fixed"))],        # (M, 6, 3)
        "test_self": self_weights[:, test],                                  # (M, 2, 3, 3)
        "test_correct": translate(p, tgt, [test])[:, 0].float(),             # (M,)
        **chase_laser_link(p, tgt),
    }


@torch.no_grad()
def verb_by_object(p, tgt):
    """Does the verb follow the object? Teacher-forced, at the verb's place, the most likely word
    is the reference verb in 猫追逐梦想 and 猫追逐目标 (pursues) and in 猫追逐激光点 (chases): (M,)."""
    rows = [sources.index(["猫", "追逐", obj]) for obj in ("梦想", "目标", "激光点")]
    tgt_in, tgt_out = batch_targets(tgt, rows)                                # (M, 3, L)
    logits, _ = decode(p, encode(p, src_all[rows])[0], tgt_in, reads=tgt[2])  # (M, 3, L, vocab)
    return (logits[:, :, VERB_SLOT].argmax(-1) == tgt_out[:, :, VERB_SLOT]).all(-1)


def cut_edge(M, n_heads, head, query, key):
    """One self-attention edge removed in one head of every model: (M, nh, 3, 3), True there."""
    cut = torch.zeros(M, n_heads, 3, 3, dtype=torch.bool)
    cut[:, head, query, key] = True
    return cut


@torch.no_grad()
def chase_laser_link(p, tgt):
    """Is 追逐 linked to 激光点 in 猫追逐激光点, per model? In some encoder head, 激光点 takes more
    of 追逐's attention than 猫 does (the largest share among the other words), more than 猫
    gives 激光点 in that head, and removing that one edge breaks the exact translation."""
    test = sources.index(TEST)
    _, self_weights = encode(p, src_all[[test]])
    w = self_weights[:, 0]                                                   # (M, nh, 3, 3)
    M, n_heads = w.shape[:2]
    to_object = w[:, :, VERB_POS, OBJECT_POS]                                # (M, nh)
    largest = to_object > w[:, :, VERB_POS, SUBJECT_POS]
    beyond_cat = to_object > w[:, :, SUBJECT_POS, OBJECT_POS]
    exact = translate(p, tgt, [test])[:, 0]                                  # (M,)
    breaks = torch.stack([exact & ~translate(p, tgt, [test], cut=cut_edge(M, n_heads, h, VERB_POS,
                                                                           OBJECT_POS))[:, 0]
                          for h in range(n_heads)], dim=-1)                  # (M, nh)
    return {"link": (largest & beyond_cat & breaks).any(-1).float(),          # (M,)
            "link_attention": (largest & beyond_cat).any(-1).float(),         # the weights alone
            "link_breaks": breaks.any(-1).float(),                            # a cut that breaks it
            "cat_to_laser": w[:, :, SUBJECT_POS, OBJECT_POS].amax(-1)}        # (M,): larger head


def train(params, tgt, steps, batch_size=32, after_step=None, extra_loss=None):
    """Adam on all models at once, each on its own corpus; every model sees the same sentences.
    ``after_step(t)``, if given, is called without gradients after update t = 1 … steps.
    ``extra_loss(self_weights, rows)``, if given, adds an (M,) term computed from the encoder's
    self-attention weights of the same pass (the planted arm of C17)."""
    train_index = torch.tensor(train_rows)
    # foreach: one update for all parameter tensors at once (much faster for many small ones).
    optimizer = torch.optim.Adam(params.values(), lr=3e-3, foreach=True)
    batches = torch.Generator().manual_seed(0)
    for step in range(steps):
        rows = train_index[torch.randint(len(train_rows), (batch_size,), generator=batches)]  # (B,)
        tgt_in, tgt_out = batch_targets(tgt, rows)         # (M, B, L): each model's own English
        memory, self_weights = encode(params, src_all[rows])
        logits, _ = decode(params, memory, tgt_in, reads=tgt[2])    # (M, B, L, vocab)
        M = len(logits)
        per_model = F.cross_entropy(logits.flatten(0, 2), tgt_out.flatten(), ignore_index=PAD,
                                    reduction="none").view(M, -1)
        # Sum of each model's mean loss: each model gets its own loss's gradient.
        loss = ((per_model.sum(-1)) / (tgt_out != PAD).view(M, -1).sum(-1)).sum()
        if extra_loss is not None:
            loss = loss + extra_loss(self_weights, rows).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if after_step is not None:
            with torch.no_grad():
                after_step(step + 1)


