# %% [markdown]
# # Does 追逐 find 激光点 while the model learns to translate?
#
# 猫追逐激光点 → "The cat chases the laser dot". The source explanation tells
# it like this: at first, with random weights, the query of 追逐 has nothing
# to do with the key of 激光点 and the translation is wrong; the error flows
# back until 追逐 attends to 激光点 — attention *inside the Chinese sentence*,
# the encoder's self-attention. We train a tiny encoder–decoder from random
# weights, many seeds at once, with 猫追逐激光点 held out, and look at exactly
# that attention before and after. The decoder's cross-attention (which
# English word reads which Chinese word) is our addition, measured alongside.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.report import Report
from explainer.seeds import n_seeds, report_seed_count, report_small_run

report = Report("three_roles.translation")

# %% [markdown]
# ## Two toy corpora: "S V O" in both languages
#
# Eleven nouns and four verbs. Some nouns are two English words and share a
# word (激光点 laser dot / 激光笔 laser pen), so after "laser" the decoder must
# look back at the Chinese. Two nouns are goals rather than things: 梦想
# dream, 目标 goal.
#
# The two corpora have the same Chinese sentences and differ in one word of
# the English. In the first, 追逐 is always "chases" (one can chase a dream).
# In the second, 追逐 is "chases" for a thing and "pursues" for a goal, as a
# translator would write it: there, translating the verb *needs* its object.

# %% tags=["corpora"]
import itertools

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import stack_module_state

torch.set_num_threads(1)

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
print(f"{len(sources)} pairs, {len(train_rows)} for training, {len(held_out)} held out, e.g.")
for corpus in CORPORA:
    for s in (TEST, ["狗", "追逐", "梦想"]):
        print(f"  {corpus:>16}: {''.join(s)} → {' '.join(english(*s, corpus))}")

# %%
report.number("pairs", len(sources), "{:.0f}", en="sentence pairs in each corpus",
              zh="每个语料的句对数")
report.number("train_pairs", len(train_rows), "{:.0f}", en="pairs used for training",
              zh="用于训练的句对数")
report.number("held_out_pairs", len(held_out), "{:.0f}", en="pairs held out (猫追逐激光点 among them)",
              zh="留出的句对数（含“猫追逐激光点”）")


# %% [markdown]
# ## A tiny encoder–decoder
#
# One encoder block (self-attention with two heads, MLP) and one decoder
# block (causal self-attention, cross-attention with one head, MLP), pre-norm
# with residual paths, 16 dimensions wide. Written once as a module, for one
# model:

# %% tags=["model"]
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


# %% [markdown]
# ## Twenty-four models in one
#
# Three arms of eight random seeds. Two arms are the full model, one per
# corpus. The third, the *forced arm*, learns the object-dependent corpus
# with a decoder that sees the encoder only at the verb's position: its
# cross-attention may read 追逐 and nothing else, so whatever it needs of
# the subject and the object must reach the verb's position through the
# encoder's self-attention. Seed *i* starts from the same weights in every
# arm, so the arms are compared seed by seed. We stack the models' parameters
# along a first dimension M and write the same forward pass with M in front
# (`linear`, `layer_norm`, `attention` below are the module's layers with
# that extra dimension). Adam treats every number on its own, so this is
# independent trainings done in one pass.

# %% tags=["stacked"]
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
    reads (M, S): the context positions each model may read (None: all of them);
    cut (M, nh, T, S): edges removed — their weight set to zero, the rest renormalised."""
    M, B, T, C = x.shape
    S, hs = context.shape[2], C // n_heads
    q = linear(x, p[f"{name}.W_Q.weight"]).view(M, B, T, n_heads, hs).transpose(2, 3)        # (M, B, nh, T, hs)
    k = linear(context, p[f"{name}.W_K.weight"]).view(M, B, S, n_heads, hs).transpose(2, 3)  # (M, B, nh, S, hs)
    v = linear(context, p[f"{name}.W_V.weight"]).view(M, B, S, n_heads, hs).transpose(2, 3)  # (M, B, nh, S, hs)
    scores = q @ k.transpose(-2, -1) / hs ** 0.5                                            # (M, B, nh, T, S)
    if causal:
        scores = scores.masked_fill(torch.ones(T, S, dtype=torch.bool).triu(1), float("-inf"))
    if reads is not None:
        scores = scores.masked_fill(~reads[:, None, None, None, :], float("-inf"))
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


# %% [markdown]
# ## What we measure, before and after training

# %% tags=["measures"]
@torch.no_grad()
def translate(p, tgt, rows, causal=True, cut=None):
    """Greedy decoding of sources[rows] by every model: is each translation exact? (M, B).
    cut (M, nh, 3, 3): encoder self-attention edges removed (see attention)."""
    memory, _ = encode(p, src_all[rows], cut)                                 # (M, B, S, C)
    out = torch.full((len(memory), len(rows), 1), BOS)
    for _ in range(MAX_TGT):
        logits, _ = decode(p, memory, out, causal, reads=tgt[2])
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



# %% [markdown]
# ## Training
#
# Batches of 32 training pairs, Adam, each model on its own corpus.

# %% tags=["train"]
def train(params, tgt, steps, batch_size=32):
    """Adam on all models at once, each on its own corpus; every model sees the same sentences."""
    train_index = torch.tensor(train_rows)
    # foreach: one update for all parameter tensors at once (much faster for many small ones).
    optimizer = torch.optim.Adam(params.values(), lr=3e-3, foreach=True)
    batches = torch.Generator().manual_seed(0)
    for step in range(steps):
        rows = train_index[torch.randint(len(train_rows), (batch_size,), generator=batches)]  # (B,)
        tgt_in, tgt_out = batch_targets(tgt, rows)         # (M, B, L): each model's own English
        logits, _ = decode(params, encode(params, src_all[rows])[0], tgt_in,   # (M, B, L, vocab)
                           reads=tgt[2])
        M = len(logits)
        per_model = F.cross_entropy(logits.flatten(0, 2), tgt_out.flatten(), ignore_index=PAD,
                                    reduction="none").view(M, -1)
        # Sum of each model's mean loss: each model gets its own loss's gradient.
        loss = ((per_model.sum(-1)) / (tgt_out != PAD).view(M, -1).sum(-1)).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# %% [markdown]
# ## A small run first
#
# Two seeds per arm and fewer steps: a run that takes seconds. The full
# run below trains more seeds for longer.

# %% tags=["small_run"]
SMALL_SEEDS, SMALL_STEPS = [0, 1], 200
small, _, small_arm = make_models(SMALL_SEEDS)             # M = 6: two seeds per arm
small_tgt = model_targets(small_arm)
small_start = measure(small, small_tgt)
train(small, small_tgt, SMALL_STEPS)
small_end = measure(small, small_tgt)
print("arm of each model:", [list(ARMS)[a] for a in small_arm.tolist()])
for name, moment in (("step 0", small_start), (f"step {SMALL_STEPS}", small_end)):
    print(f"{name}: 猫追逐激光点 exact {moment['test_correct'].int().tolist()}, "
          f"追逐 → 激光点 (larger head) {moment['chase_laser_weight'].numpy().round(2)}, "
          f"linked {moment['link'].int().tolist()}")
print("held-out sentences exact:", translate(small, small_tgt, held_out).float().mean(-1).numpy().round(2))

# %%
report_small_run(report, len(SMALL_SEEDS), SMALL_STEPS, runs=("seeds per arm", "每组的种子数"))

# %% [markdown]
# ## The full run
#
# Eight random seeds for each arm, the same cells.

# %%
SEEDS = list(range(n_seeds(8)))   # the build trains more when a verdict is undecided
n_seeds = len(SEEDS)
STEPS = 400
params, models, arm_of = make_models(SEEDS)                # M = 24
M = len(models)
tgt = model_targets(arm_of)

# The stacked pass must be the module's pass: compare on model 0, record the difference.
with torch.no_grad():
    tgt_in, _ = batch_targets(tgt, list(range(8)))
    stacked = decode(params, encode(params, src_all[:8])[0], tgt_in)[0][0]
    error = (stacked - models[0](src_all[:8], tgt_in[0])).abs().max()
report.number("stacked_vs_module_error", error, "{:.1e}",
              en="largest difference between the stacked models and Translator",
              zh="堆叠模型与 Translator 的最大差")

start = measure(params, tgt)
train(params, tgt, STEPS)
end = measure(params, tgt)
held_out_exact = translate(params, tgt, held_out).float().mean(-1)       # (M,)
train_exact = translate(params, tgt, train_rows).float().mean(-1)        # (M,)

# %% [markdown]
# ## Results, per arm, over the seeds

# %%
report.number("n_seeds", n_seeds, "{:.0f}", en="random seeds per arm", zh="每组的随机种子数")
report.number("steps", STEPS, "{:.0f}", en="training steps", zh="训练步数")
LINK = 0.5                                                 # of three words, more than half is the largest


def record(prefix, key, values, fmt, en, zh):
    values = values.numpy()
    report.number(f"{prefix}{key}_mean", values.mean(), fmt, en=f"{en} (mean over seeds)",
                  zh=f"{zh}（各种子平均）", per_seed=values, of="mean")
    report.number(f"{prefix}{key}_min", values.min(), fmt, en=f"{en} (lowest seed)",
                  zh=f"{zh}（最低的种子）", per_seed=values, of="min")
    report.number(f"{prefix}{key}_max", values.max(), fmt, en=f"{en} (highest seed)",
                  zh=f"{zh}（最高的种子）", per_seed=values, of="max")


WHERE = {"fixed": ("one translation per verb", "每个动词一种译法"),
         "object_dependent": ("追逐 translated by its object", "“追逐”看宾语来译"),
         "forced": ("forced arm: 追逐 translated by its object, the decoder reads only the verb",
                    "强制组：“追逐”看宾语来译，解码器只能读动词")}
for c, arm in enumerate(ARMS):
    prefix = "" if arm == "fixed" else f"{arm}_"
    where = dict(zip(("en", "zh"), WHERE[arm]))
    mine = arm_of == c

    def count(key, values, en, zh):
        # one bracket, not two side by side: "…的种子数（某个编码器头里：…；“追逐”看宾语来译）"
        zh = f"{zh[:-1]}；{where['zh']}）" if zh.endswith("）") else f"{zh}（{where['zh']}）"
        report_seed_count(report, f"{prefix}{key}", values, en=f"{en} — {where['en']}", zh=zh)

    count("correct_start_seeds", start["test_correct"][mine], "seeds translating 猫追逐激光点 exactly at step 0",
          "第 0 步就把“猫追逐激光点”译对的种子数")
    count("correct_seeds", end["test_correct"][mine], "seeds translating 猫追逐激光点 exactly after training",
          "训练后把“猫追逐激光点”译对的种子数")
    count("chase_laser_linked_start_seeds", start["chase_laser_weight"][mine] >= LINK,
          "seeds where 追逐 gives 激光点 at least half its attention at step 0 (some encoder head)",
          "第 0 步就有编码器的头把“追逐”至少一半的注意力给“激光点”的种子数")
    count("chase_laser_linked_seeds", end["chase_laser_weight"][mine] >= LINK,
          "seeds where 追逐 gives 激光点 at least half its attention after training (some encoder head)",
          "训练后有编码器的头把“追逐”至少一半的注意力给“激光点”的种子数")
    # The rule's link (docs/claims.yml, C17): attention, beyond 猫's, and a cut that breaks it.
    count("link_seeds", end["link"][mine],
          "seeds whose 追逐 → 激光点 link forms (some encoder head: largest share among the other words, "
          "more than 猫 → 激光点, and removing that edge breaks the exact translation)",
          "“追逐 → 激光点”关联形成的种子数（某个编码器头里：在其他词中占比最大、大于“猫 → 激光点”，"
          "且去掉这条边后译文不再完全正确）")
    count("link_start_seeds", start["link"][mine], "seeds whose 追逐 → 激光点 link has formed at step 0",
          "第 0 步“追逐 → 激光点”关联就已形成的种子数")
    count("link_attention_seeds", end["link_attention"][mine],
          "seeds with an encoder head where 激光点 takes the largest share of 追逐's attention among the "
          "other words and more than 猫 gives 激光点 (the weights alone, no cut)",
          "有编码器头让“激光点”在其他词中占“追逐”注意力最大、且大于“猫”给“激光点”的注意力的种子数（只看权重，不去边）")
    count("link_breaks_seeds", end["link_breaks"][mine],
          "seeds where removing 追逐 → 激光点 in some encoder head breaks the exact translation",
          "在某个编码器头里去掉“追逐 → 激光点”这条边后译文不再完全正确的种子数")
    count("link_breaks_unmarked_seeds", end["link_breaks"][mine].bool() & ~end["link_attention"][mine].bool(),
          "seeds where removing 追逐 → 激光点 breaks the exact translation while no encoder head passes "
          "the rule's attention conditions", "去掉“追逐 → 激光点”会破坏译文、却没有哪个编码器头满足规则里注意力条件的种子数")
    record(prefix, "cat_to_laser_weight", end["cat_to_laser"][mine], "{:.2f}",
           f"encoder self-attention 猫 → 激光点 after training, larger head — {where['en']}",
           f"训练后编码器自注意力 猫 → 激光点（取较大的头）——{where['zh']}")
    record(prefix, "chase_laser_weight_start", start["chase_laser_weight"][mine], "{:.2f}",
           f"encoder self-attention 追逐 → 激光点 at step 0, larger head — {where['en']}",
           f"第 0 步编码器自注意力 追逐 → 激光点（取较大的头）——{where['zh']}")
    record(prefix, "chase_laser_weight", end["chase_laser_weight"][mine], "{:.2f}",
           f"encoder self-attention 追逐 → 激光点 after training, larger head — {where['en']}",
           f"训练后编码器自注意力 追逐 → 激光点（取较大的头）——{where['zh']}")
    record(prefix, "verb_object_linked_start", start["verb_object_linked"][mine], "{:.0%}",
           f"sentences whose verb gives its object at least half its attention, step 0 — {where['en']}",
           f"第 0 步动词把至少一半注意力给宾语的句子占比——{where['zh']}")
    record(prefix, "verb_object_linked", end["verb_object_linked"][mine], "{:.0%}",
           f"sentences whose verb gives its object at least half its attention, after training — {where['en']}",
           f"训练后动词把至少一半注意力给宾语的句子占比——{where['zh']}")
    record(prefix, "held_out_exact", held_out_exact[mine], "{:.0%}",
           f"held-out sentences translated exactly — {where['en']}", f"留出句子完全译对的占比——{where['zh']}")
    record(prefix, "train_exact", train_exact[mine], "{:.0%}",
           f"training sentences translated exactly — {where['en']}", f"训练句子完全译对的占比——{where['zh']}")
    if arm == "forced":                                    # its cross-attention reads the verb only
        continue
    # Our addition: the decoder's cross-attention, English word -> its Chinese source word.
    record(prefix, "alignment_accuracy_start", start["alignment"][mine], "{:.0%}",
           f"content words whose cross-attention is largest on their source word, step 0 — {where['en']}",
           f"第 0 步交叉注意力最大处落在来源词上的实词占比——{where['zh']}")
    record(prefix, "alignment_accuracy", end["alignment"][mine], "{:.0%}",
           f"content words whose cross-attention is largest on their source word, after training — {where['en']}",
           f"训练后交叉注意力最大处落在来源词上的实词占比——{where['zh']}")

# The page's answers, built from the counts above (both corpora, then the forced arm).
got = {key: report.numbers[key]["value"] for key in report.numbers}
both = lambda key: (got[key], got[f"object_dependent_{key}"])                  # noqa: E731
learned = all(c == n_seeds for c in both("correct_seeds")) and all(c == 0 for c in both("correct_start_seeds"))
report.text("wrong_then_right", en="Yes." if learned else "Not in every model.",
            zh="是的。" if learned else "并非每个模型都如此。")
linked = both("chase_laser_linked_seeds")
if all(c < n_seeds / 2 for c in linked):
    answer = ("Mostly not.", "大多没有。")
    conclusion = ("most do it without that link — even when the verb's English depends on the object",
                  "大多数却没有建立这个关联——哪怕动词的英文取决于宾语")
elif all(c > n_seeds / 2 for c in linked):
    answer = ("Mostly yes.", "大多连上了。")
    conclusion = ("most of them also form that link", "大多数也建立了这个关联")
else:
    answer = ("In one corpus mostly yes, in the other mostly not.", "一个语料里大多连上了，另一个里大多没有。")
    conclusion = ("whether they form that link depends on the corpus", "是否建立这个关联要看语料")
report.text("link_answer", en=answer[0], zh=answer[1])
report.text("link_conclusion", en=conclusion[0], zh=conclusion[1])
falls = got["chase_laser_weight_mean"] < got["chase_laser_weight_start_mean"]
report.text("weight_change", en="*falls*" if falls else "*rises*", zh="反而*下降*了" if falls else "*上升*了")
report.text("all_learn", en="all learn the translation" if learned else "not all learn the translation",
            zh="全都学会了翻译" if learned else "并没有全都学会翻译")
full, forced = got["object_dependent_link_seeds"], got["forced_link_seeds"]
share = lambda k: "most" if k > n_seeds / 2 else "half" if k == n_seeds / 2 else "few"   # noqa: E731
report.text("rule_link_answer",
            en={"most": "In most seeds, yes.", "half": "In half of the seeds.", "few": "In most seeds, no."}[share(full)],
            zh={"most": "多数种子里是的。", "half": "一半的种子里是。", "few": "多数种子里没有。"}[share(full)])
unmarked = got["forced_link_breaks_unmarked_seeds"]
report.text("forced_unmarked",
            en="so where the forced arm needs the edge, 激光点 does not always pass the rule's attention conditions"
            if unmarked else "so wherever the forced arm needs the edge, 激光点 also passes the rule's attention conditions",
            zh="可见强制组需要这条边时，“激光点”并不总能满足规则里的注意力条件" if unmarked
            else "可见强制组凡是需要这条边，“激光点”也都满足规则里的注意力条件")
report.text("forced_contrast",
            en={"most": "most of them form it", "half": "half of them form it",
                "few": "most of them do not form it either"}[share(forced)],
            zh={"most": "其中多数建立了这个关联", "half": "其中一半建立了这个关联",
                "few": "其中多数同样没有建立这个关联"}[share(forced)])

# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above. The cells try it on the small run;
# the run records the answer of the full run so the page can show it folded
# under the question.

# %% tags=["no_cross_attention"]
# Exercise 1: cut the decoder off from the Chinese: cross-attention's W_O set to zero (on a copy).
cut = dict(small, **{"cross.W_O.weight": torch.zeros_like(small["cross.W_O.weight"])})   # was: small
print("held-out sentences exact without cross-attention:",
      translate(cut, small_tgt, held_out).float().mean(-1).numpy().round(2))

# %% tags=["unmasked_decoding"]
# Exercise 2: greedy decoding with the decoder's causal mask switched off.
print("held-out sentences exact without the causal mask:",
      translate(small, small_tgt, held_out, causal=False).float().mean(-1).numpy().round(2))  # was: True

# %%
fixed = arm_of == 0                                        # the full run's models of the first corpus
cut_full = dict(params, **{"cross.W_O.weight": torch.zeros_like(params["cross.W_O.weight"])})
report.number("exercise_no_cross_attention_held_out_exact",
              translate(cut_full, tgt, held_out).float().mean(-1)[fixed].mean(), "{:.0%}",
              en="exercise 1: held-out sentences translated exactly without cross-attention (first corpus, mean)",
              zh="练习 1：去掉交叉注意力后留出句子完全译对的占比（第一个语料，平均）")
report.number("exercise_unmasked_decoding_held_out_exact",
              translate(params, tgt, held_out, causal=False).float().mean(-1)[fixed].mean(), "{:.0%}",
              en="exercise 2: held-out sentences translated exactly when decoding without the causal mask (first corpus, mean)",
              zh="练习 2：解码时去掉因果掩码，留出句子完全译对的占比（第一个语料，平均）")

# %% [markdown]
# ## Figures

# %%
TEXT = {
    "en": {
        "corpora": ["one translation\nper verb", "追逐 translated\nby its object", "forced arm:\ndecoder reads\nonly the verb"],
        "start": "step 0", "end": "trained", "link": "half", "linked": "trained, link formed",
        "self_label": "weight 追逐 → 激光点\n(encoder, larger head)",
        "self_alt": "Dot plot: for each of {n} seeds and each of three arms (two corpora, and the "
                    "forced arm whose decoder reads only the verb), the encoder self-attention weight "
                    "from 追逐 to 激光点 in 猫追逐激光点, at step 0 and after training, with a dashed "
                    "line at one half; trained seeds whose link forms by the rule are ringed.",
        "self_caption": "Inside the Chinese sentence, one dot per seed. The link forms (rule of C17) in "
                        "{full}/{n} seeds of the full model with 追逐 translated by its object, and in "
                        "{forced}/{n} seeds of the forced arm.",
        "rows": "English word being written", "cols": "Chinese word read",
        "weight": "cross-attention weight, mean of {n} seeds",
        "cross_alt": "Two heat maps of the decoder's cross-attention for 猫追逐激光点 → the cat chases "
                     "the laser dot, averaged over {n} seeds of the first corpus, at step 0 and after "
                     "training. Over all sentences, the content words whose largest weight falls on "
                     "their Chinese source word: {before} at step 0, {after} after training.",
        "cross_caption": "Our addition: the decoder's cross-attention learns which Chinese word each "
                         "English word comes from (mean of {n} seeds).",
    },
    "zh": {
        "corpora": ["每个动词\n一种译法", "“追逐”看宾语\n来译", "强制组：\n解码器\n只读动词"],
        "start": "第 0 步", "end": "训练后", "link": "一半", "linked": "训练后，关联形成",
        "self_label": "追逐 → 激光点 的权重\n（编码器，取较大的头）",
        "self_alt": "散点图：三组（两个语料，加上解码器只读动词的强制组）各 {n} 个种子，“猫追逐激光点”里编码器"
                    "自注意力从“追逐”到“激光点”的权重，第 0 步与训练后各一组，虚线标出一半；训练后按规则形成关联的"
                    "种子加了圈。",
        "self_caption": "中文句子内部，每个点是一个种子。按 C17 的规则，“追逐”看宾语来译时，完整模型有 "
                        "{full}/{n} 个种子形成关联，强制组有 {forced}/{n} 个。",
        "rows": "正在写的英文词", "cols": "读取的中文词",
        "weight": "交叉注意力权重，{n} 个种子平均",
        "cross_alt": "两幅热力图：第一个语料上 {n} 个种子平均的解码器交叉注意力，“猫追逐激光点”译成 the cat "
                     "chases the laser dot，第 0 步与训练后各一幅。在所有句子上，最大权重落在对应中文词上的英文实词："
                     "第 0 步占 {before}，训练后占 {after}。",
        "cross_caption": "我们另加的观察：解码器的交叉注意力学会了每个英文词来自哪个中文词（{n} 个种子平均）。",
    },
}
plt.rcParams.update({"font.size": 10})
VIRIDIS = plt.get_cmap("viridis")
COLORS = {"start": VIRIDIS(0.75), "end": VIRIDIS(0.2)}
test_en = english(*TEST, "fixed")

for lang in LANGS:
    text = TEXT[lang]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    jitter = np.linspace(-0.12, 0.12, n_seeds)
    for c in range(len(ARMS)):
        mine = arm_of == c
        for offset, moment, key in ((-0.2, start, "start"), (0.2, end, "end")):
            ax.scatter(c + offset + jitter, moment["chase_laser_weight"][mine].numpy(), s=18,
                       color=COLORS[key], label=text[key] if c == 0 else None, zorder=3)
        linked = end["link"][mine].bool().numpy()
        ax.scatter((c + 0.2 + jitter)[linked], end["chase_laser_weight"][mine].numpy()[linked], s=60,
                   facecolors="none", edgecolors="black", linewidths=1,
                   label=text["linked"] if c == 0 else None, zorder=4)
    ax.axhline(LINK, color="grey", ls="--", lw=1, label=text["link"])
    ax.set_xticks(range(len(ARMS)), text["corpora"], fontsize=9)
    ax.set_xlim(-0.6, len(ARMS) - 0.4)
    ax.set_ylim(0, 1.02)
    ax.set_ylabel(text["self_label"])
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    report.figure("self_attention", fig, lang, alt=text["self_alt"].format(n=n_seeds),
                  caption=text["self_caption"].format(n=n_seeds, full=int(got["object_dependent_link_seeds"]),
                                                      forced=int(got["forced_link_seeds"])))

    fig, axes = plt.subplots(1, 2, figsize=(6.8, 3.8), sharey=True)
    fixed = arm_of == 0
    for ax, moment, key in ((axes[0], start, "start"), (axes[1], end, "end")):
        weights = moment["test_cross"][fixed].mean(0).numpy()                 # (6, 3)
        image = ax.imshow(weights, cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1, aspect="auto")
        for i in range(weights.shape[0]):
            for j in range(weights.shape[1]):
                ax.text(j, i, f"{weights[i, j]:.2f}", ha="center", va="center", fontsize=9,
                        color="black" if weights[i, j] > 0.6 else "white")
        ax.set_xticks(range(3), TEST, fontsize=9)
        ax.set_yticks(range(len(test_en)), test_en, fontsize=9)
        ax.set_title(text[key], fontsize=10)
        ax.set_xlabel(text["cols"])
    axes[0].set_ylabel(text["rows"])
    fig.colorbar(image, ax=axes, shrink=0.8, label=text["weight"].format(n=n_seeds))
    shares = {when: report.numbers[f"alignment_accuracy{key}_mean"]["texts"][lang]
              for when, key in (("before", "_start"), ("after", ""))}
    report.figure("alignment", fig, lang, alt=text["cross_alt"].format(n=n_seeds, **shares),
                  caption=text["cross_caption"].format(n=n_seeds))

report.save()
