# %% [markdown]
# # A head for "it": one positional head, one content-based head
#
# A toy language (explainer/pronoun_language.py) with two kinds of dependency:
#
# - agreement across one word: `cats often are`, `road still is` — the verb
#   after an adverb agrees with the noun *just before* the adverb;
# - a pronoun: `... because it` is followed by the animal the sentence
#   mentioned, never the thing (the seed's "it → animal, not street").
#
#     so  cats often are  and  road still is  because it  → cats
#
# Animal and thing come in either order, after 0-2 filler words, so neither
# dependency sits at a fixed position. A 1-layer, 2-head attention-only model
# is trained to make the three predictions; we name each head by what it does.

# %%
import random

import torch

from explainer.head_metrics import attention_to, previous_token_score
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.pronoun_language import ANIMALS, ID, SENTENCE_LENGTH, VOCAB, batch, sentence, task
from explainer.report import Report
from explainer.tiny_transformer import TinyTransformer, TransformerConfig
from explainer.training import IGNORE, TrainingConfig, evaluate, train

torch.set_num_threads(1)
report = Report("antecedent_heads")

V, T = len(VOCAB), SENTENCE_LENGTH

probe_tokens, probe_targets, places = batch(random.Random(1234), 400)
it_at, animal_at, thing_at = places.T                        # (B,) each
verb_targets = probe_targets.clone()
verb_targets[torch.arange(len(it_at)), it_at] = IGNORE        # only the two agreement predictions
antecedent_targets = torch.full_like(probe_targets, IGNORE)
antecedent_targets[torch.arange(len(it_at)), it_at] = probe_targets[torch.arange(len(it_at)), it_at]
words, *_ = sentence(random.Random(7))
print("a sentence:", " ".join(words))

# %% [markdown]
# ## Two named scores per head
#
# - *previous-token score*: mean weight on the position just before;
# - *antecedent score*: the weight from `it` to the animal (and, for
#   comparison, to the thing).

# %%
def measure(model):
    _, accuracy = evaluate(model, (probe_tokens, probe_targets))
    weights = model.attention_weights()[0]                     # (B, nh, T, T)
    return dict(accuracy=accuracy, weights=weights,
                previous=previous_token_score(weights),
                antecedent=attention_to(weights, it_at, animal_at),
                to_thing=attention_to(weights, it_at, thing_at))


def train_and_watch(n_heads, steps=300):
    torch.manual_seed(0)
    model = TinyTransformer(TransformerConfig(vocab_size=V, n_ctx=T, d_model=32,
                                              n_heads=n_heads, n_layers=1))
    history = []

    def probe(step, model):
        if step % 20 == 0:
            history.append(dict(step=step, **measure(model)))

    train(model, task, TrainingConfig(steps=steps, batch_size=32, lr=1e-2), on_step=probe)
    return model, history


model, history = train_and_watch(n_heads=2)
final = measure(model)
positional = int(final["previous"].argmax())
content = int(final["antecedent"].argmax())
assert positional != content, "one head took both roles; the page's story would not hold"
verb_accuracy = evaluate(model, (probe_tokens, verb_targets))[1]
antecedent_accuracy = evaluate(model, (probe_tokens, antecedent_targets))[1]
print(f"previous-token score per head {final['previous'].numpy().round(2)}, "
      f"antecedent score per head {final['antecedent'].numpy().round(2)}")

report.number("verb_accuracy", verb_accuracy, "{:.2f}")
report.number("antecedent_accuracy", antecedent_accuracy, "{:.2f}")
report.number("positional_previous", final["previous"][positional], "{:.2f}")
report.number("positional_antecedent", final["antecedent"][positional], "{:.2f}")
report.number("content_antecedent", final["antecedent"][content], "{:.2f}")
report.number("content_to_thing", final["to_thing"][content], "{:.3f}")
report.number("content_previous", final["previous"][content], "{:.2f}")
report.number("antecedent_at_init", history[0]["antecedent"].max(), "{:.2f}")
report.number("to_thing_at_init", history[0]["to_thing"][content], "{:.2f}")
report.number("previous_at_init", history[0]["previous"].max(), "{:.2f}")
# The positional head at the two adverbs only: its weight on the noun just before.
adverbs = [animal_at + 1, thing_at + 1]
at_adverbs = torch.stack([attention_to(final["weights"], a, a - 1) for a in adverbs]).mean(0)
report.number("positional_at_adverbs", at_adverbs[positional], "{:.2f}")

# %% [markdown]
# ## Recognition is a large q·k (C02) and the output is v(animal) (C03)
#
# Inside the content head: the score of `it`'s query with the animal's key and
# with the thing's key, and what the head hands to position `it`.

# %%
attention = model.attentions[0]
with torch.no_grad():
    x = model.token_embedding(probe_tokens) + model.position_embedding(torch.arange(T))  # (B, T, C)
    q = attention.split_heads(attention.W_Q(x))[:, content]            # (B, T, hs)
    k = attention.split_heads(attention.W_K(x))[:, content]            # (B, T, hs)
    v = attention.split_heads(attention.W_V(x))[:, content]            # (B, T, hs)
rows = torch.arange(len(it_at))
scale = attention.head_size ** 0.5
qk_animal = ((q[rows, it_at] * k[rows, animal_at]).sum(-1) / scale)   # (B,)
qk_thing = ((q[rows, it_at] * k[rows, thing_at]).sum(-1) / scale)     # (B,)
head_output = (final["weights"][rows, content, it_at, :, None] * v).sum(1)  # (B, hs)
cos_animal = torch.cosine_similarity(head_output, v[rows, animal_at], dim=-1)
cos_thing = torch.cosine_similarity(head_output, v[rows, thing_at], dim=-1)
report.number("qk_animal", qk_animal.mean(), "{:.1f}")
report.number("qk_thing", qk_thing.mean(), "{:.1f}")
report.number("qk_animal_wins", (qk_animal > qk_thing).float().mean(), "{:.2f}")
report.number("cos_output_animal", cos_animal.mean(), "{:.2f}")
report.number("cos_output_thing", cos_thing.mean(), "{:.2f}")

# Per animal word: does the head look at it? A word the head never looks at
# must be answered another way (by elimination: "none of the others").
animal_words = probe_tokens[rows, animal_at]                           # (B,)
weight_on_animal = final["weights"][rows, content, it_at, animal_at]  # (B,)
ignored = [VOCAB[w] for w in animal_words.unique().tolist()
           if weight_on_animal[animal_words == w].mean() < 0.5]
print("animal words the content head does not look at:", ignored or "none")
report.number("ignored_animal_words", len(ignored), "{:.0f}")
report.number("animal_words", len(ANIMALS) * 2, "{:.0f}")
others = ~torch.isin(animal_words, torch.tensor([ID[w] for w in ignored], dtype=torch.long))
report.number("qk_animal_wins_others", (qk_animal > qk_thing)[others].float().mean(), "{:.2f}")
report.number("antecedent_others", weight_on_animal[others].mean(), "{:.2f}")
# ...and yet the model names those animals too:
with torch.no_grad():
    answers = model(probe_tokens)[rows, it_at].argmax(-1)                # (B,)
report.number("ignored_named_correctly", (answers == animal_words)[~others].float().mean()
              if ignored else 1.0, "{:.2f}")

# %% [markdown]
# ## The same language with one head

# %%
single, single_history = train_and_watch(n_heads=1)
single_final = measure(single)
report.number("single_accuracy", single_final["accuracy"], "{:.2f}")
report.number("two_head_accuracy", final["accuracy"], "{:.2f}")
report.number("single_previous", single_final["previous"][0], "{:.2f}")
report.number("single_antecedent", single_final["antecedent"][0], "{:.2f}")

# %% [markdown]
# ## Verdicts

# %%
divided = (final["previous"][positional] >= 0.4 and final["antecedent"][content] >= 0.6
           and final["antecedent"][positional] < 0.1 and final["to_thing"][content] < 0.05)
report.claim(
    "C07", "verified" if divided else "refuted",
    en=f"Toy language, 1 layer, 2 heads: one head is positional (previous-token score "
       f"{final['previous'][positional]:.2f}, {at_adverbs[positional]:.2f} at the adverbs), the other "
       f"content-based (from it to the animal {final['antecedent'][content]:.2f}, to the thing "
       f"{final['to_thing'][content]:.3f}). One head alone reaches {single_final['accuracy']:.2f} "
       f"against {final['accuracy']:.2f}.",
    zh=f"玩具语言，1 层 2 头：一个头按位置工作（前一个词得分 {final['previous'][positional]:.2f}，"
       f"在副词处为 {at_adverbs[positional]:.2f}），另一个头按内容工作（it 指向动物 "
       f"{final['antecedent'][content]:.2f}，指向物体 {final['to_thing'][content]:.3f}）。"
       f"只有一个头时准确率 {single_final['accuracy']:.2f}，两个头为 {final['accuracy']:.2f}。")
wins = (qk_animal > qk_thing).float().mean().item()
report.claim(
    "C02", "verified" if wins > 0.95 else "nuanced" if wins > 0.5 else "refuted",
    en=f"Trained from random weights on the toy language: in the antecedent head, q(it)·k(animal)/√d_k "
       f"= {qk_animal.mean():.1f} on average vs q(it)·k(thing)/√d_k = {qk_thing.mean():.1f}; the animal "
       f"scores higher in {wins:.0%} of sentences. Animal words the head never looks at: "
       f"{len(ignored)} of {len(ANIMALS) * 2}; the model still names them, by elimination.",
    zh=f"在玩具语言上从随机权重训练：指代头里 q(it)·k(动物)/√d_k 平均为 {qk_animal.mean():.1f}，"
       f"q(it)·k(物体)/√d_k 为 {qk_thing.mean():.1f}；{wins:.0%} 的句子里动物得分更高。"
       f"{len(ANIMALS) * 2} 个动物词里有 {len(ignored)} 个从不被看，模型靠排除法说出它。")
report.claim(
    "C03", "verified" if cos_animal.mean() > 0.8 and cos_thing.mean() < cos_animal.mean() - 0.3 else "nuanced",
    en=f"Same head: its output at it has mean cosine {cos_animal.mean():.2f} with v(animal) and "
       f"{cos_thing.mean():.2f} with v(thing).",
    zh=f"同一个头：它在 it 处的输出与 v(动物) 的平均余弦为 {cos_animal.mean():.2f}，"
       f"与 v(物体) 为 {cos_thing.mean():.2f}。")

# %% [markdown]
# ## Figures

# %%
TEXT = {
    "en": {
        "positional": "positional head (head {})", "content": "content head (head {})",
        "single": "1-head model",
        "maps_alt": "Attention of each head over one toy sentence, words on both axes. The "
                    "positional head's bright cells sit just left of the diagonal: each word looks "
                    "at the word before it. The content head's row for it is bright at the animal "
                    "only. The single head of the 1-head model does both in one pattern.",
        "step": "training step", "score": "score / accuracy", "acc": "accuracy",
        "prev": "positional head: previous-token score", "ant": "content head: it → animal",
        "thing": "content head: it → thing",
        "curve_alt": "Over 300 training steps the positional head's previous-token score and the "
                     "content head's weight from it to the animal rise, while its weight on the "
                     "thing falls to zero; accuracy rises with them.",
    },
    "zh": {
        "positional": "位置头（头 {}）", "content": "内容头（头 {}）", "single": "单头模型",
        "maps_alt": "一个玩具句子上各个头的注意力，两条坐标轴都是词。位置头的亮格紧贴对角线左侧："
                    "每个词都看它前面那个词。内容头在 it 这一行只有动物那一格发亮。"
                    "单头模型的那一个头，把两件事做在同一张图里。",
        "step": "训练步数", "score": "得分 / 准确率", "acc": "准确率",
        "prev": "位置头：前一个词得分", "ant": "内容头：it → 动物", "thing": "内容头：it → 物体",
        "curve_alt": "300 步训练中，位置头的前一个词得分、内容头从 it 指向动物的权重一同上升，"
                     "指向物体的权重降到零；准确率随之上升。",
    },
}
example = 0
labels = [VOCAB[i] for i in probe_tokens[example]]
for lang in LANGS:
    text = TEXT[lang]
    panels = [(final["weights"][example, positional], text["positional"].format(positional)),
              (final["weights"][example, content], text["content"].format(content)),
              (single_final["weights"][example, 0], text["single"])]
    fig, axes = plt.subplots(1, 3, figsize=(16, 5.4))
    for ax, (pattern, title) in zip(axes, panels):
        ax.imshow(pattern, cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1)
        ax.set_xticks(range(T), labels, rotation=70, fontsize=8)
        ax.set_yticks(range(T), labels, fontsize=8)
        ax.set_title(title)
    fig.tight_layout()
    report.figure("attention_maps", fig, lang, alt=text["maps_alt"])

    fig, ax = plt.subplots(figsize=(7.5, 4))
    steps = [h["step"] for h in history]
    ax.plot(steps, [h["accuracy"] for h in history], color="black", label=text["acc"])
    ax.plot(steps, [h["previous"][positional] for h in history], color="#1b9e77", label=text["prev"])
    ax.plot(steps, [h["antecedent"][content] for h in history], color="#d95f02", label=text["ant"])
    ax.plot(steps, [h["to_thing"][content] for h in history], color="#d95f02", ls=":",
            label=text["thing"])
    ax.set_xlabel(text["step"])
    ax.set_ylabel(text["score"])
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    report.figure("roles_over_training", fig, lang, alt=text["curve_alt"])

report.save()
