# %% [markdown]
# # The ant colony, for real
#
# Ants in a young colony look alike; feedback from their work turns them
# into workers, soldiers and queens. The claim to test: start an attention
# layer from random weights, train it on sentences where a verb needs its
# object (吃 "eat" → 苹果 "apple", 追逐 "chase" → 激光点 "laser dot"), and
# the verb's query will come to match its object's key — without anyone
# telling W_Q and W_K what to become.

# %%
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from explainer.attention import AttentionConfig, MultiHeadAttention
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.report import Report

torch.set_num_threads(1)
report = Report("ant_colony")

# %% [markdown]
# ## A toy language
#
# Every sentence reads "S 在 D 旁边 V O" — *S, next to D, Vs O*, e.g.
# 猫 在 苹果 旁边 追逐 激光点 "the cat, next to the apple, chases the laser dot".
# Each verb takes objects of one kind; the distractor D is always of another
# kind, so only the verb's *preference* tells D and O apart. The model gets no
# word order at all: whatever it finds, it finds by what the words are.

# %%
subjects = ["猫", "狗", "小孩"]
objects = {                                  # verb -> the things it can take
    "吃": ["苹果", "面包", "鱼"],             # eat: food
    "追逐": ["激光点", "球", "蝴蝶"],         # chase: things that move
    "喝": ["水", "牛奶", "茶"],               # drink: drinks
    "读": ["书", "报纸", "信"],               # read: things with writing
}
verbs = list(objects)
nouns = [n for kind in objects.values() for n in kind]
vocab = subjects + ["在", "旁边"] + verbs + nouns
index = {w: i for i, w in enumerate(vocab)}
gloss = {"猫": "cat", "狗": "dog", "小孩": "child", "在": "at", "旁边": "beside", "吃": "eat",
         "追逐": "chase", "喝": "drink", "读": "read", "苹果": "apple", "面包": "bread",
         "鱼": "fish", "激光点": "laser dot", "球": "ball", "蝴蝶": "butterfly", "水": "water",
         "牛奶": "milk", "茶": "tea", "书": "book", "报纸": "newspaper", "信": "letter"}

sentences = [[s, "在", d, "旁边", v, o]
             for s in subjects for v, kind in objects.items() for o in kind
             for d in nouns if d not in kind]
data = torch.tensor([[index[w] for w in s] for s in sentences])  # (N, 6)
VERB, OBJECT = 4, 5
CONTEXT = [0, 1, 2, 3, 5]       # the words the verb can look at: all but itself
OBJECT_IN_CONTEXT = CONTEXT.index(OBJECT)
report.number("sentences", len(sentences), "{:.0f}")

# %% [markdown]
# ## The smallest model where the verb must look
#
# The verb sends one query into the rest of the sentence; the prediction —
# *which object?* — is read only from what that attention brings back. There
# is no residual path around the attention, so the verb cannot answer from
# its own embedding: it has to fetch the object.

# %%
D_MODEL = 32


class VerbReadsSentence(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(len(vocab), D_MODEL)
        self.attention = MultiHeadAttention(AttentionConfig(d_model=D_MODEL, n_heads=1))
        self.readout = nn.Linear(D_MODEL, len(vocab))

    def forward(self, tokens):                  # tokens: (B, 6)
        x = self.embed(tokens)                  # (B, 6, C)
        verb = x[:, [VERB]]                     # (B, 1, C): the one position that asks
        fetched = self.attention(verb, context=x[:, CONTEXT])  # (B, 1, C)
        return self.readout(fetched[:, 0])      # (B, vocab): logits for the object

    def query_key_table(self):
        """q(verb)·k(noun)/√d for every verb and noun: no positions, so one table says it all."""
        E = self.embed.weight                                   # (vocab, C)
        q = self.attention.W_Q(E[[index[v] for v in verbs]])    # (4, C)
        k = self.attention.W_K(E[[index[n] for n in nouns]])    # (12, C)
        return (q @ k.T / D_MODEL ** 0.5).detach().numpy()      # (4, 12)


def kind_of(noun):
    return next(v for v, kind in objects.items() if noun in kind)


own_object = np.array([[kind_of(n) == v for n in nouns] for v in verbs])  # (4, 12) mask


def key_ranking(table):
    """Share of (verb, own object, other noun) triples where the own object scores higher.

    0.5 is chance; 1.0 means every verb ranks all its objects above every other noun.
    The model sees no word order, so this is also the share of sentences in which the
    verb gives more attention to its object than to the distractor."""
    wins = [own > other for i in range(len(verbs))
            for own in table[i, own_object[i]] for other in table[i, ~own_object[i]]]
    return float(np.mean(wins))


def same_kind_cosine(vectors):
    """Mean cosine between two different nouns of the same kind."""
    unit = F.normalize(vectors, dim=-1)
    cos = (unit @ unit.T).detach().numpy()
    kinds = np.array([kind_of(n) for n in nouns])
    same = (kinds[:, None] == kinds[None, :]) & ~np.eye(len(nouns), dtype=bool)
    return float(cos[same].mean())


# %% [markdown]
# ## Training, with a camera on
#
# Every few steps we measure, on all sentences, how much attention the verb
# puts on its object, and we take the q·k table of verbs against nouns.

# %%
STEPS, SNAPSHOTS = 300, [0, 10, 20, 30, 50, 300]
DISTRACTOR_IN_CONTEXT = CONTEXT.index(2)
example = ["猫", "在", "苹果", "旁边", "追逐", "激光点"]
example_tokens = torch.tensor([[index[w] for w in example]])


def measure(model):
    with torch.no_grad():
        logits = model(data)                                    # (N, vocab)
        weights = model.attention.last_weights[:, 0, 0]         # (N, 5): the verb's row
        E = model.embed.weight[[index[n] for n in nouns]]       # (12, C)
        return {
            "accuracy": (logits.argmax(-1) == data[:, OBJECT]).float().mean().item(),
            "attention_on_object": weights[:, OBJECT_IN_CONTEXT].mean().item(),
            "key_ranking": key_ranking(model.query_key_table()),
            "key_same_kind": same_kind_cosine(model.attention.W_K(E)),
            "value_same_kind": same_kind_cosine(model.attention.W_V(E)),
        }


def train(seed, uniform_attention=False, record=False, steps=STEPS):
    torch.manual_seed(seed)
    model = VerbReadsSentence()
    if uniform_attention:  # control: all queries zero, so every word gets the same weight
        nn.init.zeros_(model.attention.W_Q.weight)
        model.attention.W_Q.weight.requires_grad_(False)
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=3e-3)
    batches = torch.Generator().manual_seed(seed)
    history, snapshots = {"step": []}, {}
    for step in range(steps + 1):
        if record and (step % 5 == 0 or step in SNAPSHOTS):
            history["step"].append(step)
            for key, value in measure(model).items():
                history.setdefault(key, []).append(value)
            if step in SNAPSHOTS:
                with torch.no_grad():
                    model(example_tokens)
                snapshots[step] = {"table": model.query_key_table(),
                                   "example": model.attention.last_weights[0, 0, 0].numpy()}
        if step == steps:
            break
        batch = data[torch.randint(len(data), (64,), generator=batches)]  # (64, 6)
        loss = F.cross_entropy(model(batch), batch[:, OBJECT])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model, measure(model), {k: np.array(v) for k, v in history.items()}, snapshots


model, final, history, snapshots = train(seed=0, record=True)

# %% [markdown]
# ## Before and after

# %%
first, last = snapshots[0]["table"], snapshots[STEPS]["table"]
start = {key: values[0] for key, values in history.items()}
for key in ("attention_on_object", "key_ranking", "key_same_kind", "value_same_kind"):
    report.number(f"{key}_start", start[key], "{:.2f}")
    report.number(f"{key}_end", final[key], "{:.2f}")
report.number("accuracy", final["accuracy"], "{:.0%}")
report.number("uniform_weight", 1 / len(CONTEXT), "{:.2f}")
chase, laser = verbs.index("追逐"), nouns.index("激光点")
eat, apple = verbs.index("吃"), nouns.index("苹果")
report.number("qk_chase_laser_start", first[chase, laser], "{:.2f}")
report.number("qk_chase_laser_end", last[chase, laser], "{:.2f}")
report.number("qk_chase_apple_end", last[chase, apple], "{:.2f}")
report.number("qk_eat_apple_start", first[eat, apple], "{:.2f}")
report.number("qk_eat_apple_end", last[eat, apple], "{:.2f}")
report.number("example_weight_laser_start", snapshots[0]["example"][OBJECT_IN_CONTEXT], "{:.2f}")
report.number("example_weight_laser_end", snapshots[STEPS]["example"][OBJECT_IN_CONTEXT], "{:.2f}")
report.number("example_weight_apple_end", snapshots[STEPS]["example"][DISTRACTOR_IN_CONTEXT],
              "{:.3f}")

# Where the rest of the attention goes: the two function words, present in every sentence.
with torch.no_grad():
    model(data)
    weights = model.attention.last_weights[:, 0, 0]             # (N, 5)
function_words = [CONTEXT.index(1), CONTEXT.index(3)]           # 在, 旁边
report.number("attention_on_function_words_end", weights[:, function_words].sum(-1).mean(),
              "{:.2f}")
for verb, name in zip(verbs, ("eat", "chase", "drink", "read")):
    rows = data[:, VERB] == index[verb]
    report.number(f"attention_on_object_{name}", weights[rows, OBJECT_IN_CONTEXT].mean(), "{:.2f}")

# %% [markdown]
# ## Three checks on the result
#
# Does the verb *need* to look? Freeze the attention to an even spread and
# train the rest. Is seed 0 lucky? Train four more colonies from other
# random starts. And would more training finish the job? Train twice as long.

# %%
control = train(seed=0, uniform_attention=True)[1]
report.number("uniform_control_accuracy", control["accuracy"], "{:.0%}")
OTHER_SEEDS = (1, 2, 3, 4)
others = [train(seed=s)[1] for s in OTHER_SEEDS]
report.number("other_seeds_min_accuracy", min(o["accuracy"] for o in others), "{:.0%}")
report.number("other_seeds_min_key_ranking", min(o["key_ranking"] for o in others), "{:.2f}")
report.number("other_seeds_max_key_ranking", max(o["key_ranking"] for o in others), "{:.2f}")
longer = train(seed=0, steps=2 * STEPS)[1]
report.number("key_ranking_twice_as_long", longer["key_ranking"], "{:.2f}")

# %% [markdown]
# ## Verdict
#
# The claim holds for a run if, after training, the verb ranks its objects'
# keys above the other nouns' in at least 95 % of the pairs (chance is 50 %),
# having not done so at step 0.

# %%
def matches(result):
    return result["key_ranking"] >= 0.95


learned = matches(final) and not matches(start)
runs = [final, *others]
lowest_accuracy = min(r["accuracy"] for r in runs)
misranked_but_right = any(r["key_ranking"] < 1 for r in runs) and lowest_accuracy == 1.0
seeds_matching = sum(matches(o) for o in others)
report.number("other_seeds_matching", seeds_matching, "{:.0f}")
report.claim(
    "C16",
    ("verified" if learned and seeds_matching == len(others)
     else "nuanced" if learned or seeds_matching else "refuted"),
    en=(f"Trained from random weights ({STEPS} steps), the verb ranks its own objects' keys "
        f"above the other nouns' in {final['key_ranking']:.0%} of pairs (step 0: "
        f"{start['key_ranking']:.0%}); q·k(追逐, 激光点) went from {first[chase, laser]:.2f} to "
        f"{last[chase, laser]:.2f}. {len(others)} other seeds: {min(o['key_ranking'] for o in others):.0%}"
        f"–{max(o['key_ranking'] for o in others):.0%}, {seeds_matching} of {len(others)} at 95 % "
        f"or more. All five answer at least {lowest_accuracy:.0%} of sentences correctly"
        f"{', some with the distractor winning the attention' if misranked_but_right else ''}. Keys of same-kind nouns grew alike (cosine "
        f"{final['key_same_kind']:.2f}), their values did not ({final['value_same_kind']:.2f})."),
    zh=(f"从随机权重训练 {STEPS} 步后，动词给自己宾语的键打的分高于其他名词的比例为 "
        f"{final['key_ranking']:.0%}（第 0 步：{start['key_ranking']:.0%}）；q·k(追逐, 激光点) 从 "
        f"{first[chase, laser]:.2f} 变为 {last[chase, laser]:.2f}。另外 {len(others)} 个随机种子为 "
        f"{min(o['key_ranking'] for o in others):.0%}–{max(o['key_ranking'] for o in others):.0%}，"
        f"其中 {seeds_matching} 个达到 95% 以上。五个模型答对的句子都不少于 {lowest_accuracy:.0%}"
        f"{'，有的句子里注意力其实落在干扰词上' if misranked_but_right else ''}。"
        f"同类名词的键变得相像（余弦 {final['key_same_kind']:.2f}），它们的值却没有"
        f"（{final['value_same_kind']:.2f}）。"),
)

# %% [markdown]
# ## Figures

# %%
TEXT = {
    "en": {
        "verbs": [gloss[v] for v in verbs], "nouns": [gloss[n] for n in nouns],
        "example": [gloss[example[i]] for i in CONTEXT],
        "step": "step {}", "table_label": "q(verb)·k(noun) / √d",
        "example_label": "“chase” looks at",
        "attention": "verb's attention on its object (mean)",
        "ranking": "object's key above distractor's (share of pairs)",
        "uniform": "even spread", "training_step": "training step",
        "keys": "keys of same-kind nouns", "values": "values of same-kind nouns",
        "cosine": "mean cosine",
        "snapshots_alt": "Six snapshots of training, at steps "
                         + ", ".join(map(str, SNAPSHOTS)) + ". Top row: the table of q·k "
                         "between the four verbs and the twelve nouns, noise at step 0, a block "
                         "pattern at the end: each verb scores high with its own three objects. "
                         "Bottom row: where chase looks in the sentence the cat, next to the "
                         "apple, chases the laser dot: spread out at first, on laser dot at the "
                         "end.",
        "curves_alt": "Left: over training, the verb's attention on its object rises from the "
                      "even spread, and the share of pairs in which the object's key outscores "
                      "the distractor's rises from below one half to near 1. Right: keys of nouns of "
                      "the same kind become similar, values of the same nouns do not.",
    },
    "zh": {
        "verbs": verbs, "nouns": nouns, "example": [example[i] for i in CONTEXT],
        "step": "第 {} 步", "table_label": "q(动词)·k(名词) / √d",
        "example_label": "“追逐”看向哪里",
        "attention": "动词落在宾语上的注意力（平均）", 
        "ranking": "宾语的键高于干扰词的（占比）",
        "uniform": "平均分配", "training_step": "训练步数",
        "keys": "同类名词的键", "values": "同类名词的值", "cosine": "平均余弦",
        "snapshots_alt": "训练过程的六张快照：第 " + "、".join(map(str, SNAPSHOTS)) + " 步。"
                         "上排是四个动词与十二个名词之间的 q·k 表，第 0 步是一片噪声，最后出现方块："
                         "每个动词只与自己的三个宾语得分高。下排是在“猫在苹果旁边追逐激光点”这句话里，"
                         "追逐看向哪里：起初分散，最后落在激光点上。",
        "curves_alt": "左：随着训练，动词落在宾语上的注意力从平均分配开始上升；宾语的键胜过干扰词的"
                      "比例也从不到一半升到接近 1。右：同类名词的键变得相像，"
                      "同样这些名词的值却没有。",
    },
}

limit = max(np.abs(s["table"]).max() for s in snapshots.values())
for lang in LANGS:
    text = TEXT[lang]
    fig, axes = plt.subplots(2, len(SNAPSHOTS), figsize=(14, 6.2), gridspec_kw={"hspace": 0.65})
    for column, step in enumerate(SNAPSHOTS):
        top, bottom = axes[0, column], axes[1, column]
        image = top.imshow(snapshots[step]["table"], cmap="RdBu_r", vmin=-limit, vmax=limit,
                           aspect="auto")
        top.set_title(text["step"].format(step))
        # Labels on the first column only: the panels share their axes.
        top.set_xticks(range(len(nouns)), text["nouns"] if column == 0 else [], rotation=90,
                       fontsize=8)
        top.set_yticks(range(len(verbs)), text["verbs"] if column == 0 else [], fontsize=8)
        colors = ["#d95f02" if i == OBJECT_IN_CONTEXT else "#1f77b4" for i in range(len(CONTEXT))]
        bottom.bar(range(len(CONTEXT)), snapshots[step]["example"], color=colors)
        bottom.set_ylim(0, 1)
        bottom.set_xticks(range(len(CONTEXT)), text["example"] if column == 0 else [],
                          rotation=90, fontsize=8)
        if column:
            bottom.set_yticklabels([])
    axes[1, 0].set_ylabel(text["example_label"])
    fig.colorbar(image, ax=axes, shrink=0.45, anchor=(0, 1), label=text["table_label"])
    report.figure("snapshots", fig, lang, alt=text["snapshots_alt"])

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    left.plot(history["step"], history["attention_on_object"], color="#d95f02",
              label=text["attention"])
    left.plot(history["step"], history["key_ranking"], color="#1b9e77", label=text["ranking"])
    left.axhline(1 / len(CONTEXT), color="grey", ls=":", label=text["uniform"])
    left.set_ylim(0, 1.05)
    left.set_xlabel(text["training_step"])
    left.legend(fontsize=8)
    right.plot(history["step"], history["key_same_kind"], color="#d95f02", label=text["keys"])
    right.plot(history["step"], history["value_same_kind"], color="#7570b3", label=text["values"])
    right.axhline(0, color="grey", lw=0.5)
    right.set_xlabel(text["training_step"])
    right.set_ylabel(text["cosine"])
    right.legend(fontsize=8)
    fig.tight_layout()
    report.figure("curves", fig, lang, alt=text["curves_alt"])

report.save()
