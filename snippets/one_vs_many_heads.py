# %% [markdown]
# # One head or many, at the same width
#
# A task that needs a near token *and* a far token at every position
# (explainer/first_and_previous.py): the target at position t is
# (previous token + first token) mod V, with V = 10 and sequences of 10.
# The claim under test: one head has one score per pair of tokens, so it
# cannot look near and far at once and must average. We train the same
# one-layer model (d_model = 32, so the same number of parameters) with
# 1, 2, 4 and 8 heads, and look at what each head does.

# %%
import torch

from explainer.first_and_previous import T, V, near_and_far, ordered_pair
from explainer.head_metrics import first_token_score, previous_token_score
from explainer.plotting import LANGS, SEQUENTIAL_CMAP, plt
from explainer.report import Report
from explainer.tiny_transformer import TinyTransformer, TransformerConfig
from explainer.training import TrainingConfig, evaluate, train

torch.set_num_threads(1)
report = Report("one_vs_many_heads")

D_MODEL = 32
HEAD_COUNTS = (1, 2, 4, 8)        # head size 32, 16, 8, 4
STEPS, EVAL_EVERY = 400, 40


def build(n_heads, vocab_out=V):
    torch.manual_seed(0)                                # same seed for every model
    model = TinyTransformer(TransformerConfig(
        vocab_size=max(V, vocab_out), n_ctx=T, d_model=D_MODEL, n_heads=n_heads,
        n_layers=1, d_mlp=64))
    return model


test_batch = near_and_far(torch.Generator().manual_seed(1234), 256)

# %% [markdown]
# ## Train 1, 2, 4 and 8 heads on the same data

# %%
runs = {}
for n_heads in HEAD_COUNTS:
    model = build(n_heads)
    curve = []

    def record(step, model):
        if step % EVAL_EVERY == 0:
            curve.append((step, evaluate(model, test_batch)[1]))

    train(model, near_and_far, TrainingConfig(steps=STEPS, batch_size=64, lr=1e-2), on_step=record)
    loss, accuracy = evaluate(model, test_batch)        # also keeps the attention weights
    weights = model.attention_weights()[0]              # (B, nh, T, T)
    runs[n_heads] = dict(model=model, curve=curve, accuracy=accuracy, weights=weights,
                         previous=previous_token_score(weights), first=first_token_score(weights))
    assert sum(p.numel() for p in model.parameters()) == sum(
        p.numel() for p in runs[HEAD_COUNTS[0]]["model"].parameters()), "same width, same size"
    print(f"{n_heads} heads: accuracy {accuracy:.3f}  previous-token "
          f"{runs[n_heads]['previous'].numpy().round(2)}  first-token {runs[n_heads]['first'].numpy().round(2)}")

report.number("parameters", sum(p.numel() for p in runs[1]["model"].parameters()), "{:,.0f}")


def steps_to(curve, level=0.95):
    """First evaluated step at which accuracy reaches ``level`` (STEPS + EVAL_EVERY if never)."""
    return next((step for step, accuracy in curve if accuracy >= level), STEPS + EVAL_EVERY)


for n_heads, run in runs.items():
    report.number(f"accuracy_{n_heads}", run["accuracy"], "{:.3f}")
    report.number(f"steps_to_95_{n_heads}", steps_to(run["curve"]), "{:.0f}")

# %% [markdown]
# ## What the single head does, and what two heads do
#
# Named scores (explainer/head_metrics.py): the mean weight a position puts on
# the previous position, and on the first position.

# %%
single = runs[1]
report.number("single_previous", single["previous"][0], "{:.2f}")
report.number("single_first", single["first"][0], "{:.2f}")
# The strongest previous-token head and the strongest first-token head of each model.
for n_heads, run in runs.items():
    report.number(f"best_previous_{n_heads}", run["previous"].max(), "{:.2f}")
    report.number(f"best_first_{n_heads}", run["first"].max(), "{:.2f}")

# %% [markdown]
# ## Harder on order: the pair (first, previous)
#
# A sum does not care which token came from where, so an average of the two
# is enough. Here the target is the *ordered* pair — 100 classes — so the
# single head must keep near and far apart.

# %%
pair_test = ordered_pair(torch.Generator().manual_seed(1234), 512)
pair_runs = {}
for n_heads in (1, 2):
    model = build(n_heads, vocab_out=V * V)
    train(model, ordered_pair, TrainingConfig(steps=150, batch_size=64, lr=1e-2))
    _, accuracy = evaluate(model, pair_test)
    weights = model.attention_weights()[0]              # (B, nh, T, T)
    pair_runs[n_heads] = dict(accuracy=accuracy, weights=weights,
                              previous=previous_token_score(weights), first=first_token_score(weights))
    report.number(f"pair_accuracy_{n_heads}", accuracy, "{:.3f}")
    print(f"ordered pair, {n_heads} heads: accuracy {accuracy:.3f}  previous-token "
          f"{pair_runs[n_heads]['previous'].numpy().round(2)}  first-token "
          f"{pair_runs[n_heads]['first'].numpy().round(2)}")
pair_single, pair_two = pair_runs[1], pair_runs[2]
pair_accuracy = pair_single["accuracy"]
report.number("pair_previous", pair_single["previous"][0], "{:.2f}")
report.number("pair_first", pair_single["first"][0], "{:.2f}")
near_head = int(pair_two["previous"].argmax())
far_head = 1 - near_head
report.number("pair_two_near_previous", pair_two["previous"][near_head], "{:.2f}")
report.number("pair_two_far_first", pair_two["first"][far_head], "{:.2f}")

# %% [markdown]
# ## Verdict

# %%
single_splits = single["previous"][0] > 0.25 and single["first"][0] > 0.25
single_solves = single["accuracy"] >= 0.95 and pair_accuracy >= 0.95
many_solve = all(run["accuracy"] >= 0.95 for n, run in runs.items() if n > 1)
slower = steps_to(single["curve"]) > max(steps_to(run["curve"]) for n, run in runs.items() if n > 1)
verdict = ("refuted" if single_solves and single_splits else
           "verified" if many_solve and not single_solves else "nuanced")
report.claim(
    "C08", verdict,
    en=f"One head of 32 does attend near and far at once: previous-token score "
       f"{single['previous'][0]:.2f}, first-token score {single['first'][0]:.2f}. It reaches "
       f"{single['accuracy']:.1%} on (previous + first) mod V and {pair_accuracy:.1%} on the ordered "
       f"pair, like 2, 4 and 8 heads of the same total width"
       + (f" — only later (95% at step {steps_to(single['curve'])} vs "
          f"{steps_to(runs[2]['curve'])} for two heads)." if slower else "."),
    zh=f"一个 32 维的头确实能同时看近处和远处：前一个词得分 {single['previous'][0]:.2f}，"
       f"首词得分 {single['first'][0]:.2f}。它在（前一个词 + 首词）mod V 上达到 "
       f"{single['accuracy']:.1%}，在有序词对上达到 {pair_accuracy:.1%}，与总宽度相同的 2、4、8 头一样"
       + (f"——只是学得更慢（第 {steps_to(single['curve'])} 步才到 95%，两个头是第 "
          f"{steps_to(runs[2]['curve'])} 步）。" if slower else "。"))

# %% [markdown]
# ## Figures

# %%
TEXT = {
    "en": {
        "one": "sum\n1 head (width 32)", "two": "ordered pair\n2 heads: head {}",
        "pair": "ordered pair\n1 head (width 32)",
        "key": "key position", "query": "query position", "weight": "attention weight",
        "maps_alt": "Attention weights for one test sequence. On the sum, the single head's rows "
                    "each have two equally bright cells, at the first and at the previous position. "
                    "On the ordered pair the single head still lights both, but the first position "
                    "brighter. With two heads on the ordered pair, one head lights only the diagonal "
                    "just below the main one (previous token) and the other only the first column.",
        "step": "training step", "accuracy": "test accuracy", "heads": "{} head(s), head size {}",
        "curve_alt": "Test accuracy over 400 training steps for 1, 2, 4 and 8 heads of the same "
                     "total width. All four reach nearly 100 percent; the single head gets there last.",
    },
    "zh": {
        "one": "求和\n1 个头（宽 32）", "two": "有序词对\n2 个头中的头 {}",
        "pair": "有序词对\n1 个头（宽 32）",
        "key": "键的位置", "query": "查询的位置", "weight": "注意力权重",
        "maps_alt": "一条测试序列上的注意力权重。求和任务中，单头的每一行都有两个一样亮的格子："
                    "一个在首词，一个在前一个词。有序词对任务中，单头仍然同时点亮两处，但首词更亮。"
                    "有序词对任务的两头模型里，一个头只点亮主对角线下方那条斜线（前一个词），"
                    "另一个头只点亮第一列。",
        "step": "训练步数", "accuracy": "测试准确率", "heads": "{} 个头，每头 {} 维",
        "curve_alt": "总宽度相同的 1、2、4、8 头模型在 400 步训练中的测试准确率。四者最后都接近 100%，"
                     "单头最晚到达。",
    },
}
example = 0
for lang in LANGS:
    text = TEXT[lang]
    panels = [(single["weights"][example, 0], text["one"]),
              (pair_single["weights"][example, 0], text["pair"]),
              (pair_two["weights"][example, near_head], text["two"].format(near_head)),
              (pair_two["weights"][example, far_head], text["two"].format(far_head))]
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.8))
    for ax, (pattern, title) in zip(axes, panels):
        image = ax.imshow(pattern, cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1)
        ax.set_title(title)
        ax.set_xlabel(text["key"])
        ax.set_xticks(range(T))
        ax.set_yticks(range(T))
    axes[0].set_ylabel(text["query"])
    fig.colorbar(image, ax=axes, label=text["weight"], shrink=0.8)
    report.figure("attention_maps", fig, lang, alt=text["maps_alt"])

    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for n_heads, run in runs.items():
        steps, accuracies = zip(*run["curve"])
        ax.plot(steps, accuracies, marker=".", label=text["heads"].format(n_heads, D_MODEL // n_heads))
    ax.axhline(1 / V, color="grey", lw=0.8, ls=":")
    ax.set_xlabel(text["step"])
    ax.set_ylabel(text["accuracy"])
    ax.set_ylim(0, 1.02)
    ax.legend(loc="lower right")
    fig.tight_layout()
    report.figure("learning_curves", fig, lang, alt=text["curve_alt"])

report.save()
