# %% [markdown]
# # Division of labour: a previous-token head feeds an induction head
#
# A sequence contains a random segment twice, with random tokens around it:
# `[noise] A B C D E [noise] A B C D E`. Inside the second copy the next token
# can be read off the first copy: after `C` comes `D`. A model that has learnt
# this looks back at the token that *followed* the earlier copy of the current
# token — an induction head (Elhage et al. 2021; Olsson et al. 2022). That needs
# two steps: first each position must learn which token came just before it.
#
# We train a 2-layer, 2-head attention-only transformer, and a 1-layer control
# with the same heads, and name every head by what it measurably does.
# The sequences come from explainer/repeated_segments.py.

# %%
import torch

from explainer.head_metrics import induction_score, previous_token_score
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.repeated_segments import LENGTH, VOCAB_SIZE, repeated_segment
from explainer.report import Report
from explainer.tiny_transformer import TinyTransformer, TransformerConfig
from explainer.training import IGNORE, TrainingConfig, evaluate, train

torch.set_num_threads(1)
report = Report("induction_heads")

V, T = VOCAB_SIZE, LENGTH  # 32 tokens, sequences of 24
STEPS, PROBE_EVERY = 400, 20
print("a sequence:", repeated_segment(torch.Generator().manual_seed(7), 1)[0][0].tolist())

probe = repeated_segment(torch.Generator().manual_seed(1234), 256)
probe_tokens = probe[0]


def build(n_layers):
    torch.manual_seed(0)
    return TinyTransformer(TransformerConfig(vocab_size=V, n_ctx=T, d_model=32, n_heads=2,
                                             n_layers=n_layers, d_mlp=0))  # attention-only

# %% [markdown]
# ## Train, and measure every head as it learns
#
# At every probe step: accuracy on fresh sequences, each layer-0 head's
# previous-token score, each last-layer head's induction score.

# %%
def train_and_watch(n_layers):
    model = build(n_layers)
    history = []

    def probe_heads(step, model):
        if step % PROBE_EVERY:
            return
        _, accuracy = evaluate(model, probe)                    # keeps the attention weights
        weights = model.attention_weights()                      # n_layers x (B, nh, T, T)
        history.append(dict(step=step, accuracy=accuracy,
                            previous=previous_token_score(weights[0]),
                            induction=induction_score(weights[-1], probe_tokens)))

    train(model, repeated_segment, TrainingConfig(steps=STEPS, batch_size=32, lr=1e-2),
          on_step=probe_heads)
    return model, history


model, history = train_and_watch(n_layers=2)
control, control_history = train_and_watch(n_layers=1)

final, control_final = history[-1], control_history[-1]
_, accuracy = evaluate(model, probe)
weights = model.attention_weights()                             # [(B, nh, T, T)] * 2
scores = {(layer, name): fn(weights[layer])
          for layer in (0, 1)
          for name, fn in (("previous", previous_token_score),
                           ("induction", lambda w: induction_score(w, probe_tokens)))}
for (layer, name), per_head in scores.items():
    print(f"layer {layer} {name:>9} score per head: {per_head.numpy().round(2)}")
previous_head = int(scores[0, "previous"].argmax())
induction_head = int(scores[1, "induction"].argmax())

report.number("accuracy", accuracy, "{:.2f}")
report.number("control_accuracy", control_final["accuracy"], "{:.2f}")
report.number("chance", 1 / V, "{:.2f}")
report.number("previous_score", scores[0, "previous"][previous_head], "{:.2f}")
report.number("previous_score_other", scores[0, "previous"][1 - previous_head], "{:.2f}")
# The same score on the first 12 positions only (the top-left block of the
# pattern), where the first copy — the keys the induction head reads — lives.
first_half = weights[0][:, :, :T // 2, :T // 2]                 # (B, nh, T/2, T/2)
report.number("previous_score_first_half", previous_token_score(first_half)[previous_head], "{:.2f}")
report.number("previous_score_layer1", scores[1, "previous"].max(), "{:.2f}")
report.number("induction_score", scores[1, "induction"][induction_head], "{:.2f}")
report.number("induction_score_other", scores[1, "induction"][1 - induction_head], "{:.2f}")
report.number("induction_score_layer0", scores[0, "induction"].max(), "{:.2f}")
report.number("control_induction_score", control_final["induction"].max(), "{:.2f}")
report.number("previous_score_at_init", history[0]["previous"].max(), "{:.2f}")
report.number("induction_score_at_init", history[0]["induction"].max(), "{:.2f}")


def first_step(history, key, level):
    return next(h["step"] for h in history if h[key].max() >= level)


report.number("step_induction_half", first_step(history, "induction", 0.5), "{:.0f}")
report.number("step_accuracy_half", next(h["step"] for h in history if h["accuracy"] >= 0.5), "{:.0f}")

# %% [markdown]
# ## Remove one head at a time
#
# Ablating a head zeroes its output before W_O (the `head_mask`). If the
# layer-0 previous-token head really feeds the layer-1 induction head, removing
# it must break the model although it never looks at the answer itself.

# %%
ablated = {}
for layer in (0, 1):
    for head in (0, 1):
        mask = torch.ones(2, 2)
        mask[layer, head] = 0
        model.set_head_mask(mask)
        ablated[layer, head] = evaluate(model, probe)[1]
        print(f"without layer {layer} head {head}: accuracy {ablated[layer, head]:.2f}")
model.set_head_mask(torch.ones(2, 2))
report.number("ablate_previous_head", ablated[0, previous_head], "{:.2f}")
report.number("ablate_other_layer0_head", ablated[0, 1 - previous_head], "{:.2f}")
report.number("ablate_induction_head", ablated[1, induction_head], "{:.2f}")
report.number("ablate_other_layer1_head", ablated[1, 1 - induction_head], "{:.2f}")

# %% [markdown]
# ## Verdict (C07, the positional and the content-based head)

# %%
specialised = (scores[0, "previous"][previous_head] >= 0.4 and scores[1, "induction"][induction_head] >= 0.6
               and accuracy >= 0.8 and control_final["accuracy"] <= accuracy - 0.3)
report.claim(
    "C07", "verified" if specialised else "refuted",
    en=f"2-layer attention-only model on repeated random segments: a layer-0 head attends to the "
       f"previous token (score {scores[0, 'previous'][previous_head]:.2f}), a layer-1 head to the token "
       f"after the earlier copy (induction score {scores[1, 'induction'][induction_head]:.2f}); accuracy "
       f"{accuracy:.2f}, against {control_final['accuracy']:.2f} for a 1-layer control.",
    zh=f"在重复随机片段上训练的两层纯注意力模型：第 0 层有一个头盯着前一个词（得分 "
       f"{scores[0, 'previous'][previous_head]:.2f}），第 1 层有一个头看向上一次出现之后的那个词"
       f"（归纳得分 {scores[1, 'induction'][induction_head]:.2f}）；准确率 {accuracy:.2f}，"
       f"单层对照模型只有 {control_final['accuracy']:.2f}。")

# %% [markdown]
# ## Figures

# %%
TEXT = {
    "en": {
        "head": "layer {} head {}", "previous": "previous-token {:.2f}", "induction": "induction {:.2f}",
        "key": "key position", "query": "query position",
        "maps_alt": "Attention maps of the four heads for one sequence whose segment appears twice. "
                    "Layer-0 heads are bright on the diagonal just below the main one (previous "
                    "token). Layer-1 heads, inside the second copy, are bright on an off-diagonal "
                    "stripe that points at the token after the earlier copy.",
        "step": "training step", "score": "score / accuracy",
        "acc": "accuracy, 2 layers", "prev": "best previous-token score, layer 0",
        "ind": "best induction score, layer 1", "c_acc": "accuracy, 1-layer control",
        "c_ind": "best induction score, 1-layer control",
        "curve_alt": "Scores over 400 training steps. The layer-0 previous-token score, the layer-1 "
                     "induction score and the accuracy of the 2-layer model rise together; the "
                     "1-layer control's accuracy and induction score stay far lower.",
    },
    "zh": {
        "head": "第 {} 层 头 {}", "previous": "前一个词 {:.2f}", "induction": "归纳 {:.2f}",
        "key": "键的位置", "query": "查询的位置",
        "maps_alt": "一条含有重复片段的序列上，四个头的注意力图。第 0 层的头在主对角线下方那条斜线上发亮"
                    "（前一个词）。第 1 层的头在第二份拷贝里沿一条偏离对角线的斜线发亮，"
                    "指向上一次出现之后的那个词。",
        "step": "训练步数", "score": "得分 / 准确率",
        "acc": "准确率（两层）", "prev": "第 0 层最高的前一个词得分",
        "ind": "第 1 层最高的归纳得分", "c_acc": "准确率（单层对照）",
        "c_ind": "单层对照最高的归纳得分",
        "curve_alt": "400 步训练中各项得分的变化。两层模型第 0 层的前一个词得分、第 1 层的归纳得分和准确率"
                     "一同上升；单层对照模型的准确率和归纳得分一直低得多。",
    },
}
example = int((probe[1] != IGNORE).sum(dim=1).argmax())        # a sequence with a long repeat
for lang in LANGS:
    text = TEXT[lang]
    fig, axes = plt.subplots(1, 4, figsize=(16, 4.4))
    for ax, (layer, head) in zip(axes, [(0, 0), (0, 1), (1, 0), (1, 1)]):
        ax.imshow(weights[layer][example, head], cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1)
        ax.set_title(text["head"].format(layer, head) + "\n"
                     + text["previous"].format(scores[layer, "previous"][head].item()) + " · "
                     + text["induction"].format(scores[layer, "induction"][head].item()), fontsize=10)
        ax.set_xlabel(text["key"])
    axes[0].set_ylabel(text["query"])
    fig.tight_layout()
    report.figure("attention_maps", fig, lang, alt=text["maps_alt"])

    fig, ax = plt.subplots(figsize=(7.5, 4))
    steps = [h["step"] for h in history]
    ax.plot(steps, [h["accuracy"] for h in history], color="black", label=text["acc"])
    ax.plot(steps, [h["previous"].max() for h in history], color="#1b9e77", label=text["prev"])
    ax.plot(steps, [h["induction"].max() for h in history], color="#d95f02", label=text["ind"])
    ax.plot(steps, [h["accuracy"] for h in control_history], color="black", ls="--", label=text["c_acc"])
    ax.plot(steps, [h["induction"].max() for h in control_history], color="#d95f02", ls="--",
            label=text["c_ind"])
    ax.set_xlabel(text["step"])
    ax.set_ylabel(text["score"])
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    report.figure("roles_over_training", fig, lang, alt=text["curve_alt"])

report.save()
