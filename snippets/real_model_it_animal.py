# %% [markdown]
# # Does *it* look at the animal? Measured in a real model
#
# The seed's story: in "The animal didn't cross the street because it was too
# tired", the query of *it* meets the key of *animal*, so *it* attends to the
# animal. We read every head of pretrained all-MiniLM-L6-v2. A head that
# really resolves *it* must do more than look at *animal*: when one word changes
# ("…too wide") and *it* becomes the street, its attention must move too.

# %%
import itertools

import numpy as np
import torch

from explainer.minilm import MiniLM, Tokenizer, run_sentences
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.report import Report

torch.set_num_threads(1)
report = Report("real_model_it_animal")
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()
L, H = model.config.n_layers, model.config.n_heads


def head_name(layer: int, head: int) -> str:
    """1-based 'layer-head', the way Clark et al. (2019) name BERT's heads (e.g. 5-4)."""
    return f"{layer + 1}-{head + 1}"


# %% [markdown]
# ## Twelve minimal pairs
#
# In each pair only the last word changes, and with it the referent of *it*:
# first the first noun, then the second. Word positions stay the same, so a head
# that simply prefers the nearer (or the first) noun cannot tell the two apart.

# %%
PAIRS = [  # template, first noun, second noun, word making it the first, word making it the second
    ("The animal didn't cross the street because it was too {}.", "animal", "street", "tired", "wide"),
    ("The trophy didn't fit in the suitcase because it was too {}.", "trophy", "suitcase", "big", "small"),
    ("The cat could not catch the bird because it was too {}.", "cat", "bird", "slow", "fast"),
    ("The table would not go through the door because it was too {}.", "table", "door", "wide", "narrow"),
    ("The horse easily jumped over the fence because it was so {}.", "horse", "fence", "strong", "low"),
    ("The mouse hid from the cat because it was {}.", "mouse", "cat", "scared", "hungry"),
    ("The car overtook the truck because it was going {}.", "car", "truck", "faster", "slower"),
    ("The boy dropped the plate because it was very {}.", "boy", "plate", "clumsy", "hot"),
    ("The ship could not pass under the bridge because it was too {}.", "ship", "bridge", "tall", "low"),
    ("The lamp could not light the room because it was too {}.", "lamp", "room", "dim", "large"),
    ("The kitten jumped onto the shelf because it was {}.", "kitten", "shelf", "playful", "low"),
    ("The phone would not fit in the pocket because it was too {}.", "phone", "pocket", "long", "tight"),
]
sentences, positions = [], []
for template, first, second, word_first, word_second in PAIRS:
    for word in (word_first, word_second):
        sentence = template.format(word)
        tokens = tokenizer.tokens(sentence)
        sentences.append(sentence)
        positions.append((tokens.index("it"), tokens.index(first), tokens.index(second)))
outputs = run_sentences(model, tokenizer, sentences)

# to_first[s, l, h] = attention of "it" to the first noun, in sentence s, layer l, head h
to_first = np.zeros((len(sentences), L, H))
to_second = np.zeros((len(sentences), L, H))
for s, (out, (it, first, second)) in enumerate(zip(outputs, positions)):
    weights = torch.stack([a[0] for a in out.attentions])        # (L, nh, T, T)
    to_first[s] = weights[:, :, it, first].numpy()
    to_second[s] = weights[:, :, it, second].numpy()
preference = to_first - to_second      # (S, L, nh): > 0 means "it" looks more at the first noun

# %% [markdown]
# ## The seed sentence, head by head

# %%
TIRED, WIDE = 0, 1                      # the animal/street pair comes first
seed_pref = preference[TIRED]           # (L, nh)
best = np.unravel_index(seed_pref.argmax(), seed_pref.shape)
report.number("seed_best_layer", best[0] + 1, "{:.0f}")
report.number("seed_best_head", best[1] + 1, "{:.0f}")
report.number("seed_best_to_animal", to_first[TIRED][best], "{:.2f}")
report.number("seed_best_to_street", to_second[TIRED][best], "{:.2f}")
report.number("seed_best_wide_to_animal", to_first[WIDE][best], "{:.2f}")
report.number("seed_best_wide_to_street", to_second[WIDE][best], "{:.2f}")
report.number("seed_heads_prefer_animal", (seed_pref > 0).sum(), "{:.0f}")
report.number("wide_heads_prefer_street", (preference[WIDE] < 0).sum(), "{:.0f}")
report.number("n_heads_total", L * H, "{:.0f}")
# How much of all the attention of "it" goes to "animal", averaged over the 12 heads of a layer
layer_share = to_first[TIRED].mean(axis=1)                       # (L,)
report.number("seed_layer_share_animal_max", layer_share.max(), "{:.2f}")
report.number("seed_layer_share_street_max", to_second[TIRED].mean(axis=1).max(), "{:.2f}")

# The trophy pair: "…too big" (it = trophy) against "…too small" (it = suitcase)
BIG, SMALL = 2, 3
trophy_best = np.unravel_index(preference[BIG].argmax(), (L, H))
report.number("trophy_best_layer", trophy_best[0] + 1, "{:.0f}")
report.number("trophy_best_head", trophy_best[1] + 1, "{:.0f}")
for sentence, label in ((BIG, "big"), (SMALL, "small")):
    report.number(f"trophy_{label}_to_trophy", to_first[sentence][trophy_best], "{:.2f}")
    report.number(f"trophy_{label}_to_suitcase", to_second[sentence][trophy_best], "{:.2f}")

# %% [markdown]
# ## Does any head follow the referent?
#
# For each pair, a head's *flip* is how far its preference moves towards the
# right noun when the last word changes: (pref in sentence 1) − (pref in
# sentence 2). A head that ignores the meaning has flips around 0; a head that
# follows the referent has positive flips. With 72 heads one of them will look
# good by luck, so we compare the best head with the same statistic computed after
# relabelling which sentence of each pair points where (all 2^12 relabellings).

# %%
flip = preference[0::2] - preference[1::2]                       # (P, L, nh)
mean_flip = flip.mean(axis=0)                                    # (L, nh)
follower = np.unravel_index(mean_flip.argmax(), mean_flip.shape)
signs = np.array(list(itertools.product([1.0, -1.0], repeat=len(PAIRS))))  # (2^P, P)
null_best = np.einsum("rp,plh->rlh", signs, flip).reshape(len(signs), -1).max(axis=1) / len(PAIRS)
p_value = float((null_best >= mean_flip.max() - 1e-12).mean())
report.number("follower_layer", follower[0] + 1, "{:.0f}")
report.number("follower_head", follower[1] + 1, "{:.0f}")
report.number("follower_mean_flip", mean_flip[follower], "{:.3f}")
report.number("follower_p_value", p_value, "{:.2f}")
report.number("follower_pairs_right", (flip[:, follower[0], follower[1]] > 0).sum(), "{:.0f}")
report.number("n_pairs", len(PAIRS), "{:.0f}")
for sentence, label in ((TIRED, "tired"), (WIDE, "wide")):
    report.number(f"follower_{label}_to_animal", to_first[sentence][follower], "{:.2f}")
    report.number(f"follower_{label}_to_street", to_second[sentence][follower], "{:.2f}")

# Clark et al.'s measure: does the head attend more to the right noun than to the wrong one?
right_is_first = np.tile([True, False], len(PAIRS))              # (S,)
correct = np.where(right_is_first[:, None, None], preference > 0, preference < 0)  # (S, L, nh)
accuracy = correct.mean(axis=0)                                  # (L, nh)
top = np.unravel_index(accuracy.argmax(), accuracy.shape)
report.number("best_accuracy", accuracy.max(), "{:.0%}")
report.number("best_accuracy_layer", top[0] + 1, "{:.0f}")
report.number("best_accuracy_head", top[1] + 1, "{:.0f}")
report.number("heads_at_chance", np.isclose(accuracy, 0.5).sum(), "{:.0f}")

# %% [markdown]
# ## Does the *representation* of *it* lean to the referent?
#
# Attention is only the routing. After the last layer, is *it* more similar to
# the right noun? For each sentence: cos(it, first) − cos(it, second), and per
# pair the change between the two sentences (positive = towards the referent).

# %%
def lean(out, it, first, second, layer):
    h = out.hidden_states[layer][0]                              # (T, C)
    cos = torch.nn.functional.cosine_similarity
    return float(cos(h[it], h[first], dim=0) - cos(h[it], h[second], dim=0))


lean_shift = np.array([[lean(outputs[2 * p], *positions[2 * p], layer)
                        - lean(outputs[2 * p + 1], *positions[2 * p + 1], layer)
                        for layer in range(L + 1)] for p in range(len(PAIRS))])  # (P, L+1)
final_shift = lean_shift[:, -1]
report.number("lean_shift_mean", final_shift.mean(), "{:.3f}")
report.number("lean_pairs_right", (final_shift > 1e-6).sum(), "{:.0f}")
report.number("lean_pairs_wrong", (final_shift < -1e-6).sum(), "{:.0f}")
# Scale of the thing that shifts: how different "it" is from the two nouns at all
typical_gap = np.mean([abs(lean(o, *pos, L)) for o, pos in zip(outputs, positions)])
report.number("lean_typical_gap", typical_gap, "{:.2f}")

# %% [markdown]
# ## *bank*: money or river?
#
# Two sentences that differ only in their last word. Whatever makes *bank*
# different between them must travel through attention to that word. We look for
# heads where *bank* attends to *money* / *river*, and at which sense *bank* ends
# up nearer to: we compare it with *bank* in sentences whose sense is plain.

# %%
BANK = ["He walked down to the bank and looked at the money.",
        "He walked down to the bank and looked at the river."]
MONEY_SENSE = ["The bank raised its interest rates on loans.", "I need to get cash from the bank."]
RIVER_SENSE = ["The boat drifted toward the muddy bank of the stream.",
               "We had a picnic on the grassy bank."]
bank_outputs = run_sentences(model, tokenizer, BANK + MONEY_SENSE + RIVER_SENSE)


def bank_vector(k: int, layer: int) -> torch.Tensor:
    tokens = tokenizer.tokens((BANK + MONEY_SENSE + RIVER_SENSE)[k])
    return bank_outputs[k].hidden_states[layer][0, tokens.index("bank")]   # (C,)


bank_to_noun = np.zeros((2, L, H))                               # [money sentence, river sentence]
for k in range(2):
    tokens = tokenizer.tokens(BANK[k])
    weights = torch.stack([a[0] for a in bank_outputs[k].attentions])      # (L, nh, T, T)
    bank_to_noun[k] = weights[:, :, tokens.index("bank"), len(tokens) - 3].numpy()  # noun before "." [SEP]
for k, word in enumerate(("money", "river")):
    where = np.unravel_index(bank_to_noun[k].argmax(), (L, H))
    report.number(f"bank_to_{word}_max", bank_to_noun[k].max(), "{:.2f}")
    report.number(f"bank_to_{word}_layer", where[0] + 1, "{:.0f}")
    report.number(f"bank_to_{word}_head", where[1] + 1, "{:.0f}")
    report.number(f"bank_to_{word}_other", bank_to_noun[1 - k][where], "{:.2f}")


def cos(a, b):
    return float(torch.nn.functional.cosine_similarity(a, b, dim=0))


# sense score: similarity to money-sense banks minus similarity to river-sense banks
sense = np.array([[np.mean([cos(bank_vector(k, layer), bank_vector(m, layer)) for m in (2, 3)])
                   - np.mean([cos(bank_vector(k, layer), bank_vector(r, layer)) for r in (4, 5)])
                   for layer in range(L + 1)] for k in range(2)])  # (2, L+1)
sense_gap = sense[0] - sense[1]                                  # > 0: the contexts pull apart the right way
report.number("bank_sense_gap_final", sense_gap[-1], "{:.2f}")
report.number("bank_sense_gap_max", sense_gap.max(), "{:.2f}")
report.number("bank_same_vector_final", cos(bank_vector(0, L), bank_vector(1, L)), "{:.2f}")

# %% [markdown]
# ## Verdicts

# %%
looks_right_on_seed = seed_pref.max() > 0.3
follows_referent = p_value < 0.05
really_resolves = follows_referent and preference[TIRED][follower] > 0 > preference[WIDE][follower]
lean_count = int((final_shift > 1e-6).sum())
report.claim(
    "C02",
    "verified" if looks_right_on_seed and really_resolves
    else "nuanced" if looks_right_on_seed or follows_referent else "refuted",
    en=f"Real model (MiniLM-L6): on the seed sentence head {head_name(*best)} puts "
       f"{to_first[TIRED][best]:.2f} of the attention of it on animal and {to_second[TIRED][best]:.2f} "
       f"on street — but in '…too wide' it still puts {to_first[WIDE][best]:.2f} on animal. "
       f"Across {len(PAIRS)} minimal pairs the head that best follows the referent "
       f"({head_name(*follower)}) moves by {mean_flip[follower]:.3f} on average "
       f"(chance: p = {p_value:.2f}) — on the seed pair from {to_first[TIRED][follower]:.2f} to "
       f"{to_first[WIDE][follower]:.2f} on animal, while street only goes from "
       f"{to_second[TIRED][follower]:.2f} to {to_second[WIDE][follower]:.2f}; the best head picks the right noun in "
       f"{accuracy.max():.0%} of sentences (chance 50%).",
    zh=f"真实模型（MiniLM-L6）：在原句上，头 {head_name(*best)} 让 it 把 {to_first[TIRED][best]:.2f} "
       f"的注意力给 animal，给 street 只有 {to_second[TIRED][best]:.2f}——可换成 “…too wide” 后，"
       f"它仍给 animal {to_first[WIDE][best]:.2f}。在 {len(PAIRS)} 组最小对句子里，最会“跟着指代走”的头"
       f"（{head_name(*follower)}）平均只移动 {mean_flip[follower]:.3f}（偶然水平 p = {p_value:.2f}）——"
       f"在原句这一对里，它给 animal 的注意力从 {to_first[TIRED][follower]:.2f} 降到 {to_first[WIDE][follower]:.2f}，"
       f"给 street 的只从 {to_second[TIRED][follower]:.2f} 变到 {to_second[WIDE][follower]:.2f}；"
       f"最好的头选对名词的比例是 {accuracy.max():.0%}（瞎猜 50%）。")
report.claim(
    "C03",
    "verified" if layer_share.max() > 0.5 and lean_count >= 10
    else "nuanced" if to_first[TIRED].max() > 0.5 or lean_count >= 10 else "refuted",
    en=f"Real model: one head gives animal up to {to_first[TIRED].max():.2f} of its attention, but "
       f"averaged over a layer's 12 heads animal gets at most {layer_share.max():.2f}, so the "
       f"output at it is not mostly v(animal). After the last layer, it leans toward the right "
       f"noun in {lean_count} of {len(PAIRS)} pairs, by {final_shift.mean():.3f} in cosine on "
       f"average.",
    zh=f"真实模型：单个头最多把 {to_first[TIRED].max():.2f} 的注意力给 animal，但一层 12 个头平均下来，"
       f"animal 最多只得到 {layer_share.max():.2f}，所以 it 处的输出并不“主要由 v(animal) 组成”。"
       f"最后一层之后，{len(PAIRS)} 组里有 {lean_count} 组 it 的表示偏向正确的名词，"
       f"余弦平均只偏 {final_shift.mean():.3f}。")

# %% [markdown]
# ## Figures

# %%
TEXT = {
    "en": {
        "tired": "“…too tired”: it→animal − it→street",
        "wide": "“…too wide”: it→animal − it→street",
        "flip": f"mean move toward the referent ({len(PAIRS)} pairs)",
        "layer": "layer", "head": "head",
        "grid_alt": "Three 6 by 12 grids of heads. Left and middle: how much more it attends to "
                    "animal than to street, with tired and with wide; the two look almost the "
                    "same. Right: the average move toward the referent over twelve pairs, near "
                    "zero for almost every head.",
        "bars_title": "head {}: attention of “it”",
        "sent_tired": "…too tired", "sent_wide": "…too wide",
        "weight": "attention weight",
        "bars_alt": "Bar chart of where it attends in head {} for the tired and the wide "
                    "sentence. Both bars are tall at animal and short at street.",
        "bank_heads": "attention of “bank” to the last noun, per head",
        "money": "…looked at the money", "river": "…looked at the river",
        "sense_title": "which sense is “bank” nearer to?",
        "sense_y": "cos(money senses) − cos(river senses)",
        "layer_x": "layer (0 = embeddings)",
        "bank_alt": "Left: attention from bank to the last noun in every head, for the money "
                    "and the river sentence; a few heads of layer 1 reach river strongly. "
                    "Right: per layer, whether bank is nearer to money-sense or river-sense "
                    "uses of bank; the money sentence's line rises above zero, the river "
                    "sentence's line dips at layer 1 and then stays near zero.",
    },
    "zh": {
        "tired": "“…too tired”：it→animal − it→street",
        "wide": "“…too wide”：it→animal − it→street",
        "flip": f"向指代对象的平均移动（{len(PAIRS)} 组）",
        "layer": "层", "head": "头",
        "grid_alt": "三张 6×12 的头网格。左、中：it 看 animal 比看 street 多多少，分别是 tired "
                    "和 wide 两句，两张几乎一样。右：十二组句子里向正确指代对象的平均移动，"
                    "几乎所有头都接近零。",
        "bars_title": "头 {}：“it” 的注意力",
        "sent_tired": "…too tired", "sent_wide": "…too wide",
        "weight": "注意力权重",
        "bars_alt": "柱状图：头 {} 中 it 在 tired 句和 wide 句里分别看向哪里。两句在 animal 处都很高，"
                    "在 street 处都很低。",
        "bank_heads": "“bank” 对句末名词的注意力（每个头）",
        "money": "…looked at the money", "river": "…looked at the river",
        "sense_title": "“bank” 更接近哪个义项？",
        "sense_y": "cos(钱款义) − cos(河岸义)",
        "layer_x": "层（0 = 词嵌入）",
        "bank_alt": "左：每个头里 bank 对句末名词的注意力，分 money 句和 river 句；第 1 层有几个头强烈地看向 "
                    "river。右：逐层看 bank 更接近“银行”用法还是“河岸”用法；money 句的线升到零以上，"
                    "river 句的线在第 1 层往下一沉，之后一直贴着零。",
    },
}
limit = np.abs(np.stack([preference[TIRED], preference[WIDE]])).max()
seed_tokens = tokenizer.tokens(sentences[TIRED])
wide_weights = torch.stack([a[0] for a in outputs[WIDE].attentions])[best[0], best[1], positions[WIDE][0]]
tired_weights = torch.stack([a[0] for a in outputs[TIRED].attentions])[best[0], best[1], positions[TIRED][0]]
for lang in LANGS:
    text = TEXT[lang]
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.4))
    panels = [(preference[TIRED], text["tired"], limit), (preference[WIDE], text["wide"], limit),
              (mean_flip, text["flip"], limit)]
    for ax, (grid, title, lim) in zip(axes, panels):
        image = ax.imshow(grid, cmap="PuOr", vmin=-lim, vmax=lim)
        ax.set_title(title, fontsize=10)
        ax.set_xticks(range(H), [str(h + 1) for h in range(H)], fontsize=7)
        ax.set_yticks(range(L), [str(l + 1) for l in range(L)], fontsize=7)
        ax.set_xlabel(text["head"])
        ax.set_ylabel(text["layer"])
        fig.colorbar(image, ax=ax, shrink=0.8)
    fig.tight_layout()
    report.figure("referent_grid", fig, lang, alt=text["grid_alt"])

    fig, ax = plt.subplots(figsize=(9, 3.4))
    x = np.arange(len(seed_tokens))
    ax.bar(x - 0.2, tired_weights, 0.4, label=text["sent_tired"], color="#d95f02")
    ax.bar(x + 0.2, wide_weights, 0.4, label=text["sent_wide"], color="#7570b3")
    labels = seed_tokens[:-3] + ["tired/wide"] + seed_tokens[-2:]
    ax.set_xticks(x, labels, rotation=60, fontsize=8)
    ax.set_ylabel(text["weight"])
    ax.set_title(text["bars_title"].format(head_name(*best)))
    ax.legend()
    fig.tight_layout()
    report.figure("seed_head", fig, lang, alt=text["bars_alt"].format(head_name(*best)))

    fig, axes = plt.subplots(1, 3, figsize=(14, 3.4), gridspec_kw={"width_ratios": [1, 1, 1.1]})
    for ax, grid, title in zip(axes[:2], bank_to_noun, (text["money"], text["river"])):
        image = ax.imshow(grid, cmap=SEQUENTIAL_CMAP, vmin=0, vmax=bank_to_noun.max())
        ax.set_title(title, fontsize=10)
        ax.set_xticks(range(H), [str(h + 1) for h in range(H)], fontsize=7)
        ax.set_yticks(range(L), [str(l + 1) for l in range(L)], fontsize=7)
        ax.set_xlabel(text["head"])
        ax.set_ylabel(text["layer"])
    fig.colorbar(image, ax=axes[:2], shrink=0.8)
    axes[2].plot(range(L + 1), sense[0], "o-", color="#1b9e77", label=text["money"])
    axes[2].plot(range(L + 1), sense[1], "s-", color="#7570b3", label=text["river"])
    axes[2].axhline(0, color="grey", lw=0.5)
    axes[2].set_xlabel(text["layer_x"])
    axes[2].set_ylabel(text["sense_y"], fontsize=8)
    axes[2].set_title(text["sense_title"], fontsize=10)
    axes[2].legend(fontsize=8)
    fig.suptitle(text["bank_heads"], fontsize=10, x=0.33)
    report.figure("bank", fig, lang, alt=text["bank_alt"])

report.save()
