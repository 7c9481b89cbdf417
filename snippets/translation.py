# %% [markdown]
# # Translation learns an alignment
#
# 猫追逐激光点 → "The cat chases the laser dot". The claim: a translation
# model trained on such pairs learns, in its cross-attention, which Chinese
# word each English word comes from. We train a tiny encoder–decoder from
# random weights on a generated toy corpus, hold the seed's sentence out of
# training, translate it by greedy decoding, and read the cross-attention.

# %%
import itertools

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from explainer.attention import AttentionConfig, MultiHeadAttention
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.report import Report

torch.set_num_threads(1)
torch.manual_seed(0)
report = Report("translation")

# %% [markdown]
# ## A toy corpus: "S V O" in both languages
#
# Nine nouns and four verbs. Some nouns are two English words, and two pairs
# share a word (激光点 laser dot / 激光笔 laser pen, 红球 red ball / 红点 red
# dot), so after "laser" the decoder must look back at the Chinese to know
# whether "dot" or "pen" comes next.

# %%
NOUNS = {"猫": "cat", "狗": "dog", "男孩": "boy", "女孩": "girl", "老鼠": "mouse",
         "激光点": "laser dot", "激光笔": "laser pen", "红球": "red ball", "红点": "red dot"}
VERBS = {"追逐": "chases", "看着": "watches", "喜欢": "likes", "咬": "bites"}
SUBJECTS = ["猫", "狗", "男孩", "女孩", "老鼠"]           # things that can act


def english(subject, verb, obj):
    return f"the {NOUNS[subject]} {VERBS[verb]} the {NOUNS[obj]}".split()


pairs = [([s, v, o], english(s, v, o))
         for s, v, o in itertools.product(SUBJECTS, VERBS, NOUNS) if o != s]
TEST = (["猫", "追逐", "激光点"], english("猫", "追逐", "激光点"))
rng = np.random.default_rng(0)
held_out = [TEST] + [pairs[i] for i in rng.choice(len(pairs), 15, replace=False)
                     if pairs[i] != TEST]
train_pairs = [p for p in pairs if p not in held_out]
report.number("pairs", len(pairs), "{:.0f}")
report.number("train_pairs", len(train_pairs), "{:.0f}")
report.number("held_out_pairs", len(held_out), "{:.0f}")

SRC = sorted({w for src, _ in pairs for w in src})
TGT = ["<pad>", "<s>", "</s>"] + sorted({w for _, tgt in pairs for w in tgt})
src_id, tgt_id = {w: i for i, w in enumerate(SRC)}, {w: i for i, w in enumerate(TGT)}
PAD, BOS, EOS = 0, 1, 2
MAX_TGT = max(len(t) for _, t in pairs) + 1   # + </s>


def encode(batch):
    """Source ids (B, 3); decoder input <s> y (B, L); decoder target y </s> (B, L)."""
    src = torch.tensor([[src_id[w] for w in s] for s, _ in batch])
    rows_in, rows_out = [], []
    for _, t in batch:
        ids = [tgt_id[w] for w in t]
        rows_in.append([BOS] + ids + [PAD] * (MAX_TGT - 1 - len(ids)))
        rows_out.append(ids + [EOS] + [PAD] * (MAX_TGT - 1 - len(ids)))
    return src, torch.tensor(rows_in), torch.tensor(rows_out)


# %% [markdown]
# ## A tiny encoder–decoder
#
# One encoder block (self-attention, MLP) and one decoder block (causal
# self-attention, cross-attention, MLP), pre-norm with residual paths. The
# cross-attention has a single head, so each English position has exactly
# one row of weights over the Chinese words.

# %%
D_MODEL = 32


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
        self.enc_self = MultiHeadAttention(AttentionConfig(d_model=D_MODEL, n_heads=2))
        self.enc_mlp = MLP()
        self.dec_norms = nn.ModuleList(nn.LayerNorm(D_MODEL) for _ in range(4))
        self.dec_self = MultiHeadAttention(AttentionConfig(d_model=D_MODEL, n_heads=2, causal=True))
        self.cross = MultiHeadAttention(AttentionConfig(d_model=D_MODEL, n_heads=1))
        self.dec_mlp = MLP()
        self.readout = nn.Linear(D_MODEL, len(TGT))

    def encode(self, src):                                  # src: (B, S)
        x = self.src_embed(src) + self.src_pos[: src.shape[1]]  # (B, S, C)
        x = x + self.enc_self(self.enc_norm1(x))
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


def cross_attention():
    """The last cross-attention weights, (B, T, S)."""
    return model.cross.last_weights[:, 0]


@torch.no_grad()
def translate(src_words):
    """Greedy decoding: feed back the most likely word until </s>."""
    memory = model.encode(torch.tensor([[src_id[w] for w in src_words]]))  # (1, S, C)
    out = [BOS]
    for _ in range(MAX_TGT):
        next_id = model.decode(memory, torch.tensor([out]))[0, -1].argmax().item()
        if next_id == EOS:
            break
        out.append(next_id)
    return [TGT[i] for i in out[1:]]


@torch.no_grad()
def alignment_maps(batch):
    """Cross-attention when producing each English word (rows) over the Chinese (columns)."""
    src, tgt_in, _ = encode(batch)
    model(src, tgt_in)                                     # teacher forcing: the reference words
    return cross_attention().numpy()                       # (B, T, 3)


def alignment_map(src_words, tgt_words):
    return alignment_maps([(src_words, tgt_words)])[0, : len(tgt_words)]  # (len(tgt), 3)


# %% [markdown]
# ## Which Chinese word each English word should come from

# %%
def counterparts(src_words, tgt_words):
    """{English position: Chinese position} for the content words; "the" has none."""
    subject, verb, obj = src_words
    sources = [None] + [0] * len(NOUNS[subject].split()) + [1] + [None] + [2] * len(NOUNS[obj].split())
    assert len(sources) == len(tgt_words)
    return {position: source for position, source in enumerate(sources) if source is not None}


def alignment_accuracy(batch):
    """Share of English content words whose largest cross-attention weight is on their source."""
    maps = alignment_maps(batch)                           # (B, T, 3)
    hits = [maps[b, position].argmax() == source
            for b, (s, t) in enumerate(batch) for position, source in counterparts(s, t).items()]
    return float(np.mean(hits))


# %% [markdown]
# ## Training

# %%
model = Translator()
before = alignment_map(*TEST)
alignment_accuracy_start = report.number("alignment_accuracy_start", alignment_accuracy(pairs),
                                         "{:.0%}")
src, tgt_in, tgt_out = encode(train_pairs)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
STEPS = 400
losses = []
for step in range(STEPS):
    logits = model(src, tgt_in)                                # (B, T, vocab)
    loss = F.cross_entropy(logits.reshape(-1, len(TGT)), tgt_out.reshape(-1), ignore_index=PAD)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
report.number("final_loss", losses[-1], "{:.4f}")

# %% [markdown]
# ## Translating the held-out sentence

# %%
model.eval()
output = translate(TEST[0])
print("猫 追逐 激光点 ->", " ".join(output))
test_correct = output == TEST[1]
held_out_correct = report.number(
    "held_out_exact", np.mean([translate(s) == t for s, t in held_out]), "{:.0%}")
report.number("train_exact", np.mean([translate(s) == t for s, t in train_pairs]), "{:.0%}")
report.number("test_sentence_correct", float(test_correct), "{:.0f}")

after = alignment_map(*TEST)                                   # (6, 3)
content = counterparts(*TEST)                                  # {1: 0, 2: 1, 4: 2, 5: 2}
for position, source in content.items():
    word = TEST[1][position]
    report.number(f"weight_{word}_on_counterpart", after[position, source], "{:.2f}")
    report.number(f"weight_{word}_on_counterpart_start", before[position, source], "{:.2f}")
test_aligned = all(after[p].argmax() == s for p, s in content.items())
# The two "the" have no source word; where do they look?
report.number("the_rows_on_verb", after[[0, 3], 1].mean(), "{:.2f}")
report.number("alignment_accuracy_end", alignment_accuracy(pairs), "{:.0%}")
report.number("alignment_accuracy_held_out", alignment_accuracy(held_out), "{:.0%}")

# %% [markdown]
# ## Verdict

# %%
overall = alignment_accuracy(pairs)
report.claim(
    "C17",
    ("verified" if test_correct and test_aligned and overall >= 0.9
     else "nuanced" if test_aligned or overall >= 0.5 else "refuted"),
    en=(f"A tiny encoder–decoder trained from random weights ({len(train_pairs)} pairs, "
        f"猫追逐激光点 held out) translates it as \"{' '.join(output)}\"; in its cross-attention "
        f"cat, chases, laser and dot each attend most to their Chinese source word "
        f"({'all four' if test_aligned else 'not all four'}). Over all {len(pairs)} sentences, "
        f"{overall:.0%} of content words attend most to their source (before training "
        f"{alignment_accuracy_start:.0%})."),
    zh=(f"一个从随机权重训练的小型编码器–解码器（{len(train_pairs)} 个句对，猫追逐激光点不在训练集中）"
        f"把它译成 \"{' '.join(output)}\"；交叉注意力里，cat、chases、laser、dot "
        f"{'都' if test_aligned else '并非都'}把最多的注意力放在各自对应的中文词上。"
        f"在全部 {len(pairs)} 个句子里，{overall:.0%} 的实词最关注自己的来源词"
        f"（训练前为 {alignment_accuracy_start:.0%}）。"),
)

# %% [markdown]
# ## Figures

# %%
TEXT = {
    "en": {
        "before": "before training", "after": "after training",
        "rows": "English word being produced", "cols": "Chinese word attended to",
        "weight": "cross-attention weight",
        "alignment_alt": "Two heat maps of cross-attention for 猫追逐激光点 translated as the cat "
                         "chases the laser dot. Before training the weights are spread over the "
                         "three Chinese words. After training cat looks at 猫, chases at 追逐, "
                         "and laser and dot both at 激光点.",
        "held_out_alt": "Cross-attention maps of three more sentences the model never saw in "
                        "training, each with its translation. Every English content word looks "
                        "at its Chinese source word.",
    },
    "zh": {
        "before": "训练前", "after": "训练后",
        "rows": "正在生成的英文词", "cols": "被关注的中文词",
        "weight": "交叉注意力权重",
        "alignment_alt": "“猫追逐激光点”译成 the cat chases the laser dot 时的两幅交叉注意力热力图。"
                         "训练前，权重分散在三个中文词上；训练后，cat 看向猫，chases 看向追逐，"
                         "laser 和 dot 都看向激光点。",
        "held_out_alt": "另外三个训练中从未见过的句子的交叉注意力图，各附译文。每个英文实词都看向"
                        "自己对应的中文词。",
    },
}


def draw_map(ax, weights, src_words, tgt_words, title):
    image = ax.imshow(weights, cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1, aspect="auto")
    for i in range(weights.shape[0]):
        for j in range(weights.shape[1]):
            ax.text(j, i, f"{weights[i, j]:.2f}", ha="center", va="center", fontsize=8,
                    color="black" if weights[i, j] > 0.6 else "white")
    ax.set_xticks(range(len(src_words)), src_words)
    ax.set_yticks(range(len(tgt_words)), tgt_words)
    ax.set_title(title, fontsize=10)
    return image


examples = [p for p in held_out if p != TEST][:3]
for lang in LANGS:
    text = TEXT[lang]
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.8), sharey=True)
    draw_map(axes[0], before, TEST[0], TEST[1], text["before"])
    image = draw_map(axes[1], after, TEST[0], TEST[1], text["after"])
    axes[0].set_ylabel(text["rows"])
    for ax in axes:
        ax.set_xlabel(text["cols"])
    fig.colorbar(image, ax=axes, shrink=0.8, label=text["weight"])
    report.figure("alignment", fig, lang, alt=text["alignment_alt"])

    fig, axes = plt.subplots(1, len(examples), figsize=(11, 3.6))
    for ax, (src_words, tgt_words) in zip(axes, examples):
        output_words = translate(src_words)
        draw_map(ax, alignment_map(src_words, tgt_words), src_words, tgt_words,
                 "".join(src_words) + " → " + " ".join(output_words))
    fig.tight_layout()
    report.figure("held_out", fig, lang, alt=text["held_out_alt"])

report.save()
