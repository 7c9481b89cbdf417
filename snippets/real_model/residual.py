# %% [markdown]
# # V and the residual stream
#
# Source B's postscript says a token's value V stays closest to its own
# embedding and that, layer after layer, the token keeps its meaning — "and if
# continuity fades, the residual path can make up for it" (C19); and that the
# values are handed on, embedding → layer-1 V → layer-2 V → … (C29). In MiniLM
# we measure how similar each token's vector stays to its own input embedding,
# with the residual path as trained and with it removed; how much of the
# embedding's structure survives in Q, K and V; and what each layer's output —
# the next layer's input — is made of. The snippet records numbers; the rules
# that turn them into verdicts are in docs/claims.yml.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.plotting import LANGS, plt
from explainer.report import Report

report = Report("real_model.residual")

# %% tags=["model"]
from explainer.minilm import MiniLM, Tokenizer, run_sentences   # first: it pins torch's CPU kernels
from explainer.sample_sentences import SENTENCES
import numpy as np
import torch
import torch.nn.functional as F

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()       # all-MiniLM-L6-v2, weights on disk
L = model.config.n_layers
print(f"{L} layers; {len(SENTENCES)} sample sentences")

# %% [markdown]
# ## Each token against its own embedding
#
# "Embedding" here is what enters layer 1: token + position + segment
# embeddings after LayerNorm, `hidden_states[0]`. For every token of every
# sentence: cosine of its vector after layer l with its own embedding, against
# the mean cosine with the embeddings of the *other* tokens of its sentence
# (BERT's vectors all share a common direction, so "other" is the baseline);
# and whether its own embedding is the nearest one in the sentence.

# %% tags=["stays_itself"]
def track_tokens(outputs):
    """own[l], other[l], identified[l] averaged over all tokens; l = 0..L."""
    own, other, identified = np.zeros(L + 1), np.zeros(L + 1), np.zeros(L + 1)
    n_tokens = 0
    for out in outputs:
        embeddings = F.normalize(out.hidden_states[0][0], dim=-1)           # (T, C)
        T = embeddings.shape[0]
        off_diagonal = ~torch.eye(T, dtype=torch.bool)
        for layer in range(L + 1):
            vectors = F.normalize(out.hidden_states[layer][0], dim=-1)      # (T, C)
            cos = vectors @ embeddings.T                                    # (T, T): token i vs embedding j
            own[layer] += cos.diagonal().sum().item()
            other[layer] += (cos[off_diagonal].view(T, T - 1).mean(dim=1)).sum().item()
            identified[layer] += (cos.argmax(dim=1) == torch.arange(T)).sum().item()
        n_tokens += T
    return own / n_tokens, other / n_tokens, identified / n_tokens


trained = run_sentences(model, tokenizer, SENTENCES)
own, other, identified = track_tokens(trained)
model.set_residual(False)   # x <- LN(attention(x)), x <- LN(feed_forward(x)): no "x +"
no_residual = run_sentences(model, tokenizer, SENTENCES)
model.set_residual(True)
own_nr, other_nr, identified_nr = track_tokens(no_residual)
print("cosine with the own embedding, after layer 0..6:", np.round(own, 2))
print("  the same, residual path removed:             ", np.round(own_nr, 2))
print("  baseline, the other tokens' embeddings:      ", np.round(other, 2))
print("own embedding the nearest (share of tokens):   ", np.round(identified, 2))
print("  the same, residual path removed:             ", np.round(identified_nr, 2))

# %%
report.number("n_sentences", len(SENTENCES), "{:.0f}", en="sample sentences", zh="样本句子数")
report.number("n_tokens", sum(o.hidden_states[0].shape[1] for o in trained), "{:.0f}",
              en="tokens of the sample sentences ([CLS] and [SEP] included)",
              zh="样本句子的词元数（含 [CLS] 和 [SEP]）")
for layer in (1, L):
    report.number(f"own_layer{layer}", own[layer], "{:.2f}",
                  en=f"mean cosine of a token after layer {layer} with its own embedding",
                  zh=f"第 {layer} 层之后，词元与自己嵌入的平均余弦")
    report.number(f"other_layer{layer}", other[layer], "{:.2f}",
                  en=f"mean cosine after layer {layer} with the other tokens' embeddings (baseline)",
                  zh=f"第 {layer} 层之后，与同句其他词元嵌入的平均余弦（基线）")
    report.number(f"identified_layer{layer}", identified[layer], "{:.0%}",
                  en=f"tokens whose own embedding is the nearest after layer {layer}",
                  zh=f"第 {layer} 层之后，离自己的嵌入最近的词元所占比例")
    report.number(f"own_no_residual_layer{layer}", own_nr[layer], "{:.2f}",
                  en=f"as own_layer{layer}, with the residual path removed",
                  zh=f"同上（与自己嵌入的余弦），去掉残差通路，第 {layer} 层之后")
    report.number(f"identified_no_residual_layer{layer}", identified_nr[layer], "{:.0%}",
                  en=f"as identified_layer{layer}, with the residual path removed",
                  zh=f"同上（离自己嵌入最近的比例），去掉残差通路，第 {layer} 层之后")

# %% [markdown]
# ## Where do Q, K and V sit?
#
# Q, K and V live in spaces of their own (each head's projection has its own
# basis), so a plain cosine with the embedding means nothing. Linear CKA
# (centred kernel alignment, Kornblith et al. 2019) compares *structure*
# instead: do two sets of vectors for the same tokens arrange those tokens the
# same way? 1 = the same up to rotation and scale, 0 = unrelated.

# %% tags=["cka"]
def linear_cka(X, Y):
    """CKA between (N, d1) and (N, d2) representations of the same N tokens."""
    X = X - X.mean(dim=0)
    Y = Y - Y.mean(dim=0)
    return float((X.T @ Y).norm() ** 2 / ((X.T @ X).norm() * (Y.T @ Y).norm()))


embedding_all = torch.cat([o.hidden_states[0][0] for o in trained])        # (N, C)
cka = {name: np.zeros(L) for name in ("input", "Q", "K", "V")}
values = []                                                                # per layer (N, C)
for layer, block in enumerate(model.layers):
    x = torch.cat([o.hidden_states[layer][0] for o in trained])            # (N, C): layer input
    attention = block.attention
    with torch.no_grad():
        projections = {"input": x, "Q": attention.W_Q(x), "K": attention.W_K(x),
                       "V": attention.W_V(x)}                               # each (N, C)
    for name, vectors in projections.items():
        cka[name][layer] = linear_cka(vectors, embedding_all)
    values.append(projections["V"])
v_closest = cka["V"] > np.maximum(cka["Q"], cka["K"])                     # (L,)
for name in cka:
    print(f"CKA with the embedding, {name:>5}, layers 1..{L}:", np.round(cka[name], 2))
print(f"layers in which V keeps the most of the embedding's structure: {v_closest.sum()} of {L}")

# %%
NAMES = {"input": ("the layer input", "层输入"), "Q": ("Q", "Q"), "K": ("K", "K"), "V": ("V", "V")}
for name in cka:
    for tag, layer in (("first", 0), ("last", L - 1)):
        report.number(f"cka_{name}_{tag}", cka[name][layer], "{:.2f}",
                      en=f"CKA of {NAMES[name][0]} in layer {layer + 1} with the embedding",
                      zh=f"第 {layer + 1} 层{NAMES[name][1]}与嵌入的 CKA")
report.number("layers_v_closest", v_closest.sum(), "{:.0f}",
              en="layers in which V keeps more of the embedding's structure than Q and K",
              zh="V 比 Q、K 保留更多嵌入结构的层数")
report.number("layers_q_closest", (cka["Q"] > np.maximum(cka["V"], cka["K"])).sum(), "{:.0f}",
              en="layers in which Q keeps the most", zh="Q 保留得最多的层数")
report.number("layers_k_closest", (cka["K"] > np.maximum(cka["V"], cka["Q"])).sum(), "{:.0f}",
              en="layers in which K keeps the most", zh="K 保留得最多的层数")

# %% [markdown]
# ## Do the values change gradually?
#
# CKA between the values of two consecutive layers (same tokens), and, as the
# chance level, the same CKA with the tokens of the later layer shuffled.

# %% tags=["consecutive"]
shuffle = torch.from_numpy(np.random.default_rng(0).permutation(len(embedding_all)))
consecutive = np.array([linear_cka(values[l], values[l + 1]) for l in range(L - 1)])   # (L-1,)
shuffled = np.array([linear_cka(values[l], values[l + 1][shuffle]) for l in range(L - 1)])
# C19's bar, step by step: CKA at least 0.5 and more than twice its shuffled value
meets_bar = (consecutive >= 0.5) & (consecutive > 2 * shuffled)            # (L-1,)
print("CKA of V with the previous layer's V, layers 2..6:", np.round(consecutive, 2))
print("  the same, tokens shuffled (chance):            ", np.round(shuffled, 2))
print(f"steps that meet the bar: {meets_bar.sum()} of {L - 1}")

# %%
report.number("cka_V_consecutive_min", consecutive.min(), "{:.2f}",
              en="smallest CKA between the values of two consecutive layers",
              zh="相邻两层值向量之间 CKA 的最小值")
report.number("cka_V_consecutive_max", consecutive.max(), "{:.2f}",
              en="largest CKA between the values of two consecutive layers",
              zh="相邻两层值向量之间 CKA 的最大值")
report.number("cka_V_shuffled_max", shuffled.max(), "{:.2f}",
              en="chance: the largest such CKA with the tokens shuffled",
              zh="偶然水平：打乱词元顺序后，这一 CKA 的最大值")
report.number("cka_V_bar_layers", meets_bar.sum(), "{:.0f}", kind="count",
              en="steps between consecutive layers (of 5) whose values keep CKA ≥ 0.5 and more than twice the shuffled CKA",
              zh="相邻两层之间（共 5 步）值向量 CKA 不低于 0.5 且超过打乱后两倍的步数")

# %% [markdown]
# ### The same question with a debiased CKA (C29)
#
# With 384 dimensions on a few hundred tokens, plain linear CKA is biased
# upwards: two unrelated sets of vectors already score well above 0. The
# debiased CKA (Song et al. 2012's unbiased HSIC, explainer/cka.py) is about 0
# for unrelated sets. Chance is now a distribution: the same CKA with the token
# order of one side shuffled, 200 times; a step counts when its CKA is at least
# 0.5 and above the shuffles' 95th percentile. Last, are the layer-6 values
# still related to the embeddings they started from?

# %% tags=["debiased_cka"]
from explainer.cka import debiased_cka, shuffled_cka

step_cka = np.array([debiased_cka(values[l], values[l + 1]) for l in range(L - 1)])    # (L-1,)
step_null95 = np.array([np.percentile(shuffled_cka(values[l], values[l + 1], 200, seed=l), 95)
                        for l in range(L - 1)])                                         # (L-1,)
step_passes = (step_cka >= 0.5) & (step_cka > step_null95)
v6_embedding = debiased_cka(values[L - 1], embedding_all)
v6_embedding_null95 = np.percentile(shuffled_cka(values[L - 1], embedding_all, 200, seed=L), 95)
print("debiased CKA of V with the previous layer's V, layers 2..6:", np.round(step_cka, 3))
print("  95th percentile of 200 shuffles:                        ", np.round(step_null95, 3))
print(f"steps with CKA >= 0.5 and above the shuffles: {step_passes.sum()} of {L - 1}")
print(f"layer-{L} values vs the embeddings: {v6_embedding:.3f} (shuffled 95th percentile "
      f"{v6_embedding_null95:.3f})")

# %%
report.number("cka_steps_passing", step_passes.sum(), "{:.0f}", kind="count",
              en="steps (of 5) whose values keep a debiased CKA ≥ 0.5, above the shuffles' 95th percentile",
              zh="相邻两层之间（共 5 步）值向量去偏 CKA 不低于 0.5 且高于打乱后第 95 百分位数的步数")
for key, null_key, step in (("cka_step1", "cka_step1_null95", 0), ("cka_step2", "cka_step2_null95", 1),
                            ("cka_step3", "cka_step3_null95", 2), ("cka_step4", "cka_step4_null95", 3),
                            ("cka_step5", "cka_step5_null95", 4)):
    report.number(key, step_cka[step], "{:.3f}",
                  en=f"debiased CKA between the values of layers {step + 1} and {step + 2}",
                  zh=f"第 {step + 1} 层与第 {step + 2} 层值向量的去偏 CKA")
    report.number(null_key, step_null95[step], "{:.3f}",
                  en=f"the same with the tokens shuffled: 95th percentile of 200 shuffles",
                  zh=f"同上（第 {step + 1} → {step + 2} 层），打乱词元 200 次后的第 95 百分位数")
report.number("cka_step_min", step_cka.min(), "{:.2f}",
              en="smallest debiased CKA between the values of two consecutive layers",
              zh="相邻两层值向量之间去偏 CKA 的最小值")
report.number("cka_step_null95_max", step_null95.max(), "{:.3f}",
              en="largest shuffled 95th percentile over the 5 steps",
              zh="5 步中打乱后第 95 百分位数的最大值")
report.number("cka_v6_embedding", v6_embedding, "{:.3f}",
              en="debiased CKA of layer 6's values with the embeddings",
              zh="第 6 层值向量与嵌入的去偏 CKA")
report.number("cka_v6_embedding_null95", v6_embedding_null95, "{:.3f}",
              en="debiased CKA of layer 6's values with the embeddings, tokens shuffled: 95th percentile of 200 shuffles",
              zh="第 6 层值向量与嵌入的去偏 CKA，打乱词元 200 次后的第 95 百分位数")

# %% [markdown]
# ## Do the values carry more context, layer after layer?
#
# Source B says each layer's value "carries richer context". One kind of
# context a value can carry is which words stand next to its token. A linear
# probe reads it: fitted on some sentences, it maps a token's value in layer l
# to a guess of the embedding of the word before it (and, with a second probe,
# of the word after it); on the held-out sentences a guess counts when the
# nearest word of the sample, by cosine, is the right one (explainer/probes.py,
# 5 folds of sentences, ridge penalty chosen inside the training sentences).
# Layer 1's values are projections of the embedding alone, so what its probe
# gets right comes from the token itself (after "the" comes a noun); from
# layer 2 on, the values have seen the sentence.

# %% tags=["neighbour_probe"]
from explainer.probes import word_probe_correct

token_ids = [tokenizer.ids(s)[0] for s in SENTENCES]                       # per sentence, (T,)
items = np.array([(s, p, q) for s, ids in enumerate(token_ids)
                  for p in range(1, len(ids) - 1)                 # no [CLS] / [SEP] ...
                  for q in (p - 1, p + 1) if 1 <= q <= len(ids) - 2])   # ... on either side
neighbour_ids = np.array([token_ids[s][q].item() for s, p, q in items])     # (n_items,)
words, targets = np.unique(neighbour_ids, return_inverse=True)              # candidates, (n_items,)
word_vectors = model.embeddings.token.weight.detach().double()[torch.as_tensor(words)]  # (V, C)
is_right = items[:, 2] > items[:, 1]
rows = np.cumsum([0] + [len(ids) for ids in token_ids])[items[:, 0]] + items[:, 1]  # into values[l]
correct = np.zeros((L, len(items)), dtype=bool)                            # (L, n_items)
for layer in range(L):
    X = values[layer].double()[torch.as_tensor(rows)]                      # (n_items, C)
    for side in (False, True):                 # one probe for the word before, one for after
        mask = is_right == side
        correct[layer, mask] = word_probe_correct(X[mask], targets[mask], items[mask, 0],
                                                  word_vectors)
probe_accuracy = correct.mean(axis=1)                                      # (L,)
gains = np.diff(probe_accuracy)                                            # (L-1,) steps 1→2 … 5→6
print("neighbour-word probe by layer:", np.round(probe_accuracy, 3))

# %% tags=["gain_interval"]
# How sure is the gain from layer 1 to layer 6? Resample the sentences (with replacement)
# and recompute both accuracies from the held-out hits: a 95 % interval.
hits = np.stack([np.bincount(items[:, 0], weights=correct[l], minlength=len(SENTENCES))
                 for l in (0, L - 1)])                                     # (2, n_sentences)
n_items = np.bincount(items[:, 0], minlength=len(SENTENCES))               # (n_sentences,)
draws = np.random.default_rng(0).multinomial(
    len(SENTENCES), np.full(len(SENTENCES), 1 / len(SENTENCES)), size=1000)  # (1000, n_sentences)
gain_draws = (draws @ hits[1] - draws @ hits[0]) / (draws @ n_items)       # (1000,)
gain_low, gain_high = np.percentile(gain_draws, [2.5, 97.5])
print(f"gain from layer 1 to layer {L}: {probe_accuracy[L - 1] - probe_accuracy[0]:+.3f} "
      f"(95 % interval {gain_low:+.3f} to {gain_high:+.3f})")

# %%
report.number("n_probe_items", len(items), "{:.0f}", kind="count",
              en="probe items: a token and its word before or after (no [CLS] / [SEP])",
              zh="探针样本数：一个词元加上它前一个或后一个词（不含 [CLS] / [SEP]）")
report.number("n_probe_words", len(words), "{:.0f}", kind="count",
              en="candidate neighbour words the probe chooses from",
              zh="探针可选的相邻词个数")
report.number("neighbour_majority_share", np.bincount(targets).max() / len(targets), "{:.0%}",
              kind="share", en="items whose neighbour is the sample's most frequent neighbour word",
              zh="相邻词恰为样本中最常见相邻词的样本所占比例")
for layer in range(L):
    report.number(f"neighbour_probe_layer{layer + 1}", probe_accuracy[layer], "{:.0%}", kind="share",
                  en=f"held-out neighbour-word probe on layer {layer + 1}'s values: share named right",
                  zh=f"用第 {layer + 1} 层值向量的相邻词探针（留出句子）：说对的比例")
report.number("neighbour_probe_gain_steps", (gains > 0).sum(), "{:.0f}", kind="count",
              en="steps from one layer to the next (of 5) in which the probe gains",
              zh="相邻两层之间（共 5 步）探针有提高的步数")
report.number("neighbour_probe_gain", probe_accuracy[L - 1] - probe_accuracy[0], "{:+.3f}",
              en="probe's gain from layer 1 to layer 6 (share named right)",
              zh="探针从第 1 层到第 6 层的提高（说对的比例之差）")
report.number("neighbour_probe_gain_low", gain_low, "{:+.3f}",
              en="the neighbour probe's layer 1 → 6 gain, 95 % interval (sentences resampled): lower end",
              zh="相邻词探针从第 1 层到第 6 层的提高，95% 区间（对句子重抽样）：下端")
report.number("neighbour_probe_gain_high", gain_high, "{:+.3f}",
              en="the neighbour probe's layer 1 → 6 gain, 95 % interval: upper end",
              zh="相邻词探针从第 1 层到第 6 层的提高，95% 区间：上端")
report.number("neighbour_probe_best_layer", int(np.argmax(probe_accuracy)) + 1, "{:.0f}",
              en="layer whose values the probe reads best", zh="探针读得最好的那一层")

if gain_high < 0.02:
    outcome = ("By this measure the values do not grow richer in context layer after layer: the "
               "probe reads the neighbours best from layer {best}'s values, and from layer 6's no "
               "better than from layer 1's (the gain's 95 % interval lies below 0.02).",
               "按这个指标，值向量并没有一层比一层带上更多的上下文：探针从第 {best} 层的值向量里读得最好，"
               "而从第 6 层读到的并不比第 1 层多（提高的 95% 区间整个低于 0.02）。")
elif gain_low >= 0.1:
    outcome = ("The values carry more of their neighbours layer after layer: the probe gains "
               "from layer 1 to layer 6, and reads best from layer {best}'s values.",
               "值向量一层比一层带上更多相邻词的信息：探针从第 1 层到第 6 层有提高，在第 {best} 层读得最好。")
else:
    outcome = ("The run cannot tell whether the values carry more of their neighbours by layer 6 "
               "than in layer 1; the probe reads best from layer {best}'s values.",
               "这次运行分辨不出第 6 层的值向量是否比第 1 层带上更多相邻词的信息；探针在第 {best} 层读得最好。")
best = int(np.argmax(probe_accuracy)) + 1
report.text("probe_outcome", en=outcome[0].format(best=best), zh=outcome[1].format(best=best))

# %% [markdown]
# ### Could the probe have seen it at all? (G1)
#
# A probe that reads little from the values may read little from anything.
# The check: the same probe on the layer-6 *residual stream* — the model's own
# output, which has seen every word. If it cannot beat always guessing the most
# frequent neighbour by 0.1 there, this probe is too weak to tell whether the
# values carry the neighbours, and C29's rule does not count it.

# %% tags=["neighbour_g1"]
residual_correct = np.zeros(len(items), dtype=bool)
X = torch.cat([o.hidden_states[L][0] for o in trained]).double()[torch.as_tensor(rows)]  # (n_items, C)
for side in (False, True):
    mask = is_right == side
    residual_correct[mask] = word_probe_correct(X[mask], targets[mask], items[mask, 0], word_vectors)
majority = np.bincount(targets).max() / len(targets)
print(f"neighbour named from the layer-{L} residual stream: {residual_correct.mean():.3f} "
      f"(always the most frequent word: {majority:.3f})")

# %%
report.number("neighbour_residual6_probe", residual_correct.mean(), "{:.0%}", kind="share",
              en="G1: the neighbour-word probe on the layer-6 residual stream, share named right",
              zh="G1：相邻词探针用在第 6 层残差流上，说对的比例")
report.number("neighbour_g1_margin", residual_correct.mean() - majority, "{:+.3f}",
              en="G1: that share minus always guessing the most frequent neighbour",
              zh="G1：这一比例减去总猜最常见相邻词的比例")
report.number("neighbour_g1_held", float(residual_correct.mean() - majority >= 0.1), "{:.0f}",
              en="G1 held (1) or not (0): the layer-6 residual probe beats the majority guess by ≥ 0.1",
              zh="G1 是否成立（1 / 0）：第 6 层残差流上的探针比总猜最常见的词至少高 0.1")
g1_numbers = dict(share=residual_correct.mean(), majority=majority)
if residual_correct.mean() - majority >= 0.1:
    g1_outcome = ("On the layer-6 residual stream the probe names {share:.0%} of the neighbours, at "
                  "least 0.1 above always guessing the most frequent one ({majority:.0%}): it could "
                  "have seen the neighbours, so C29's rule counts it.",
                  "在第 6 层残差流上，探针说对 {share:.0%} 的相邻词，比总猜最常见的词（{majority:.0%}）"
                  "至少高 0.1：它有能力看到相邻词，所以 C29 的规则把它算数。")
else:
    g1_outcome = ("Even on the layer-6 residual stream the probe names only {share:.0%} of the "
                  "neighbours, less than 0.1 above always guessing the most frequent one "
                  "({majority:.0%}): it could not have seen the effect, so C29's rule does not count it.",
                  "即使在第 6 层残差流上，探针也只说对 {share:.0%} 的相邻词，比总猜最常见的词"
                  "（{majority:.0%}）高不到 0.1：这个探针本来就看不到要找的效应，所以 C29 的规则不把它算数。")
report.text("neighbour_g1_outcome", en=g1_outcome[0].format(**g1_numbers),
            zh=g1_outcome[1].format(**g1_numbers))

# %% [markdown]
# ### A context the values certainly need: a word's sense (C36's probe)
#
# C36's frames (explainer/word_senses.py) put *bank*, *bat*, *mouse*, *seal*
# and *crane* next to a cue word of one sense or the other, each frame a
# minimal pair. The same nearest-centroid probe as in C36, held out by frame,
# reads the sense from the word's value in each layer (heads concatenated).
# In layer 1 both sentences of a pair give the word the same value, so the
# probe is right exactly half the time: the context-free baseline. The gain
# is the best of layers 2–6 minus layer 1; its 95 % interval resamples the 20
# frames *before* the held-out split (a frame's copies stay in one fold) and
# chooses the best layer again each time.

# %% tags=["sense_probe"]
from explainer.centroid_probe import centroid_probe_correct
from explainer.word_senses import FRAMES as SENSE_FRAMES, SENSES, sense_sentences

sense_items = sense_sentences()                                  # 5 words x 20 frames x 2 senses
sense_outputs = run_sentences(model, tokenizer, [s.text for s in sense_items])
sense_values = torch.zeros(len(sense_items), L, model.config.d_model)      # (N, L, C)
with torch.no_grad():
    for n, (item, out) in enumerate(zip(sense_items, sense_outputs)):
        position = tokenizer.tokens(item.text).index(item.word)
        for layer, block in enumerate(model.layers):
            sense_values[n, layer] = block.attention.W_V(out.hidden_states[layer][0, position])
sense_label = np.array([s.sense for s in sense_items])
sense_frame = np.array([s.frame for s in sense_items])
sense_word = np.array([s.word for s in sense_items])


def sense_probe_by_layer(rows):
    """Held-out accuracy of C36's probe (one per word, 5 folds of frames) on each layer's values,
    over the items ``rows`` (copies allowed: a frame's copies share its fold). Returns (L,)."""
    right = np.zeros(L)
    for word in SENSES:
        mine = rows[sense_word[rows] == word]
        hits = centroid_probe_correct(sense_values[mine], torch.as_tensor(sense_label[mine])[None],
                                      sense_frame[mine], n_folds=5)         # (1, L, n)
        right += hits[0].sum(dim=-1).numpy()
    return right / len(rows)


sense_by_layer = sense_probe_by_layer(np.arange(len(sense_items)))         # (L,)
sense_gain = sense_by_layer[1:].max() - sense_by_layer[0]
frame_rows = [np.flatnonzero(sense_frame == f) for f in range(len(SENSE_FRAMES))]
rng = np.random.default_rng(0)
sense_gain_draws = np.zeros(1000)
for draw in range(1000):
    drawn = rng.integers(0, len(SENSE_FRAMES), len(SENSE_FRAMES))           # frames, with replacement
    accuracy = sense_probe_by_layer(np.concatenate([frame_rows[f] for f in drawn]))
    sense_gain_draws[draw] = accuracy[1:].max() - accuracy[0]
sense_gain_low, sense_gain_high = np.percentile(sense_gain_draws, [2.5, 97.5])
print("sense probe by layer:", np.round(sense_by_layer, 3))
print(f"gain, best of layers 2-{L} minus layer 1: {sense_gain:+.3f} "
      f"(95 % interval {sense_gain_low:+.3f} to {sense_gain_high:+.3f})")

# %%
report.number("n_sense_sentences", len(sense_items), "{:.0f}", kind="count",
              en="sense sentences (C36's 5 words × 20 frames × 2 senses)",
              zh="词义句子数（C36 的 5 个词 × 20 个句框 × 2 种词义）")
report.number("sense_probe_layer1", sense_by_layer[0], "{:.0%}", kind="share",
              en="sense probe on layer 1's values (held out by frame): share right",
              zh="词义探针用在第 1 层值向量上（按句框留出）：说对的比例")
report.number("sense_probe_best", sense_by_layer[1:].max(), "{:.0%}", kind="share",
              en="sense probe on the best of layers 2–6: share right",
              zh="词义探针在第 2–6 层中最好的一层：说对的比例")
report.number("sense_probe_best_layer", int(np.argmax(sense_by_layer[1:])) + 2, "{:.0f}",
              en="that layer", zh="那一层")
report.number("sense_probe_layer6", sense_by_layer[L - 1], "{:.0%}", kind="share",
              en="sense probe on layer 6's values: share right", zh="词义探针用在第 6 层值向量上：说对的比例")
report.number("sense_probe_gain", sense_gain, "{:+.3f}",
              en="sense probe's gain: best of layers 2–6 minus layer 1",
              zh="词义探针的提高：第 2–6 层中最好的一层减去第 1 层")
report.number("sense_probe_gain_low", sense_gain_low, "{:+.3f}",
              en="the sense probe's gain, 95 % interval (frames resampled before the split): lower end",
              zh="词义探针的提高，95% 区间（在划分之前对句框重抽样）：下端")
report.number("sense_probe_gain_high", sense_gain_high, "{:+.3f}",
              en="the sense probe's gain, 95 % interval: upper end", zh="词义探针的提高，95% 区间：上端")

# %% [markdown]
# ## What does the next layer read?
#
# A BERT block is x₁ = LN₁(x + attention(x)), then x₂ = LN₂(x₁ + FFN(x₁)); x₂
# is the next layer's input. LayerNorm subtracts the mean and divides by one
# number per token, so x₂ splits *exactly* into four parts: what came in (x),
# the attention output (the heads' weighted sums of values, through W_O), the
# feed-forward output, and LN₁'s offset β₁ — plus LN₂'s own offset β₂. Each
# part's share is its projection onto x₂ − β₂; the four shares add up to 1.

# %% tags=["input_shares"]
def input_shares(block, x):
    """x (B, T, C) -> share of x2 - beta2 (summed over tokens) from the residual, attention,
    feed-forward and LN1-offset parts, in that order; and the largest difference between
    the rebuilt x2 and the block's own output (a check on the split)."""
    ln1, ln2 = block.ln_attention, block.ln_feed_forward
    with torch.no_grad():
        a = block.attention(x)                                             # (B, T, C)
        h = x + a
        sigma1 = (h.var(-1, unbiased=False, keepdim=True) + ln1.eps).sqrt()  # (B, T, 1)
        centre = lambda v: v - v.mean(-1, keepdim=True)
        residual, attended = ln1.weight * centre(x) / sigma1, ln1.weight * centre(a) / sigma1
        offset = ln1.bias.expand_as(x)
        x1 = residual + attended + offset                                  # = LN1(x + a)
        f = block.feed_forward(x1)
        s = x1 + f
        sigma2 = (s.var(-1, unbiased=False, keepdim=True) + ln2.eps).sqrt()
        x2 = ln2.weight * centre(s) / sigma2                               # = LN2(s) - beta2
        parts = [ln2.weight * centre(p) / sigma2 for p in (residual, attended, f, offset)]
        error = float((x2 + ln2.bias - block(x)).abs().max())
        total = (x2 * x2).sum()
        return np.array([float((p * x2).sum() / total) for p in parts]), error


shares = np.zeros((L, 4))                                                  # (L, [residual, attention, ffn, offset])
n_total = sum(o.hidden_states[0].shape[1] for o in trained)
split_error = 0.0
for out in trained:
    weight = out.hidden_states[0].shape[1] / n_total    # sentences weighted by their tokens
    for layer, block in enumerate(model.layers):
        share, error = input_shares(block, out.hidden_states[layer])
        shares[layer] += weight * share
        split_error = max(split_error, error)
print("layer  residual  attention  feed-forward  offset")
for layer in range(L):
    print(f"{layer + 1:5d}" + "".join(f"{share:>10.1%}" for share in shares[layer]))
print(f"largest difference between the four parts' sum and the output: {split_error:.1e}")

# %%
report.number("split_error", split_error, "{:.1e}",
              en="largest difference between the four parts' sum and the layer's output",
              zh="四个部分之和与该层实际输出之间的最大差值")
PARTS = {"residual": ("the incoming residual stream", "流进来的残差流"),
         "attention": ("the attention output", "注意力输出"),
         "ffn": ("the feed-forward output", "前馈网络输出"),
         "offset": ("LayerNorm's offset", "层归一化的偏移")}
for j, (part, (en, zh)) in enumerate(PARTS.items()):
    for layer in range(L):
        report.number(f"{part}_share_layer{layer + 1}", shares[layer, j], "{:.0%}",
                      en=f"share of layer {layer + 1}'s output that is {en}",
                      zh=f"第 {layer + 1} 层输出中{zh}所占的份额")
    report.number(f"{part}_share_mean", shares[:, j].mean(), "{:.0%}",
                  en=f"share of {en} in a layer's output, mean over the 6 layers",
                  zh=f"{zh}在一层输出中的份额（6 层平均）")
report.number("attention_share_min", shares[:, 1].min(), "{:.0%}",
              en="smallest share of the attention output in a layer's output",
              zh="注意力输出在一层输出中的最小份额")
report.number("attention_share_max", shares[:, 1].max(), "{:.0%}",
              en="largest share of the attention output in a layer's output",
              zh="注意力输出在一层输出中的最大份额")
report.number("residual_largest_layers", (shares[:, 0] >= shares.max(axis=1)).sum(), "{:.0f}",
              en="layers whose output is made mostly of the incoming residual stream (largest part)",
              zh="流进来的残差流是最大一份的层数")
report.number("attention_above_residual_layers", (shares[:, 1] > shares[:, 0]).sum(), "{:.0f}",
              en="layers whose output holds more attention output than incoming residual stream",
              zh="输出中注意力输出的份额超过流进来的残差流的层数")


# %% [markdown]
# ## Exercises, answered by the run
#
# Each exercise changes one thing above; the run records the answer so the
# page can show it folded under the question.

# %%
# Exercise 1: without the residual path, follow the tokens through all six layers
# (the `stays_itself` cell's identified_nr, after the last layer).
report.number("exercise_identified_no_residual_layer6", identified_nr[L], "{:.0%}",
              en="exercise 1: tokens whose own embedding is the nearest after layer 6, no residual path",
              zh="练习 1：去掉残差通路后，第 6 层之后离自己的嵌入最近的词元比例")

# %% tags=["no_attention"]
# Exercise 2: keep the residual path but switch every attention head off (only the
# feed-forward parts still act). Does a token stay itself?
model.set_head_mask(torch.zeros(L, model.config.n_heads))                 # was: all ones
own_na, _, identified_na = track_tokens(run_sentences(model, tokenizer, SENTENCES))
model.set_head_mask(torch.ones(L, model.config.n_heads))
print(f"every head off, after layer {L}: cosine with the own embedding {own_na[L]:.2f}, "
      f"own embedding the nearest for {identified_na[L]:.0%} of tokens")

# %%
report.number("exercise_identified_no_attention_layer6", identified_na[L], "{:.0%}",
              en="exercise 2: tokens whose own embedding is the nearest after layer 6, every head off",
              zh="练习 2：关掉所有注意力头后，第 6 层之后离自己的嵌入最近的词元比例")
report.number("exercise_own_no_attention_layer6", own_na[L], "{:.2f}",
              en="exercise 2: mean cosine with the own embedding after layer 6, every head off",
              zh="练习 2：关掉所有注意力头后，第 6 层之后与自己嵌入的平均余弦")

# %% [markdown]
# ## Figures

# %%
TEXT = {
    "en": {
        "own": "own embedding, residual as trained", "other": "other tokens' embeddings",
        "own_nr": "own embedding, residual removed",
        "cos": "cosine with the input embedding", "layer": "after layer (0 = embedding)",
        "cos_alt": "Line chart over layers 0 to 6 of the mean cosine between a token's vector and "
                   "its own input embedding, with the residual path as trained and with it removed, "
                   "and, as a baseline, the mean cosine with the other tokens' embeddings.",
        "cos_caption": "A token's vector compared with its own embedding, layer by layer, with and "
                       "without the residual path.",
        "cka": "CKA with the embedding", "cka_layer": "layer",
        "names": {"input": "layer input x", "Q": "Q", "K": "K", "V": "V"},
        "consecutive": "V of this layer vs the previous layer's V",
        "cka_alt": "Line chart over layers 1 to 6 of the linear CKA with the input embedding for "
                   "the layer input, Q, K and V, and the CKA between the values of consecutive "
                   "layers.",
        "cka_caption": "How much of the embedding's structure the layer input, Q, K and V keep, and "
                       "how alike the values of consecutive layers are.",
        "share": "share of the layer's output", "parts": {
            "residual": "incoming residual stream", "attention": "attention output (values)",
            "ffn": "feed-forward output", "offset": "LayerNorm offset"},
        "share_alt": "Stacked bars for layers 1 to 6: the shares of each layer's output that are "
                     "the incoming residual stream, the attention output, the feed-forward output "
                     "and LayerNorm's offset.",
        "share_caption": "What the next layer reads: each layer's output split into its four parts.",
        "probe": "neighbour words named right (held out)", "majority": "always the most frequent neighbour",
        "probe_y": "share named right (held out)", "sense": "word senses named right (C36's frames)",
        "g1": "neighbour probe on the layer-6 residual stream (G1)",
        "probe_alt": "Line chart over layers 1 to 6 of the share of held-out tokens whose word before "
                     "or after a linear probe names right from the token's values, with a horizontal "
                     "line for always guessing the most frequent neighbour word and one point for the "
                     "same probe on the layer-6 residual stream; a second line gives the share of "
                     "sentences whose word sense C36's probe names right from the word's values.",
        "probe_caption": "What a probe reads from the values, layer by layer: a token's neighbouring "
                         "words (sentences held out) and a word's sense (frames held out).",
    },
    "zh": {
        "own": "自己的嵌入（保留残差）", "other": "同句其他词元的嵌入",
        "own_nr": "自己的嵌入（去掉残差）",
        "cos": "与输入嵌入的余弦", "layer": "第几层之后（0 = 嵌入）",
        "cos_alt": "第 0 到第 6 层的折线图：词元向量与自己输入嵌入的平均余弦，分别在保留和去掉残差通路时计算；"
                   "作为基线，还画了与其他词元嵌入的平均余弦。",
        "cos_caption": "逐层比较词元向量与它自己的嵌入：保留残差与去掉残差。",
        "cka": "与嵌入的 CKA", "cka_layer": "层",
        "names": {"input": "层输入 x", "Q": "Q", "K": "K", "V": "V"},
        "consecutive": "本层的 V 对上一层的 V",
        "cka_alt": "第 1 到第 6 层的折线图：层输入、Q、K、V 与输入嵌入的线性 CKA，以及相邻两层值向量之间的 CKA。",
        "cka_caption": "层输入、Q、K、V 各自保留了多少嵌入的结构，相邻两层的值向量又有多像。",
        "share": "在该层输出中的份额", "parts": {
            "residual": "流进来的残差流", "attention": "注意力输出（值向量）",
            "ffn": "前馈网络输出", "offset": "层归一化的偏移"},
        "share_alt": "第 1 到第 6 层的堆叠柱状图：每层输出中，流进来的残差流、注意力输出、前馈网络输出和"
                     "层归一化的偏移各占的份额。",
        "share_caption": "下一层读到的是什么：把每层的输出拆成四个部分。",
        "probe": "说对相邻词的比例（留出句子）", "majority": "总猜最常见的相邻词",
        "probe_y": "说对的比例（留出）", "sense": "说对词义的比例（C36 的句框）",
        "g1": "相邻词探针用在第 6 层残差流上（G1）",
        "probe_alt": "第 1 到第 6 层的折线图：线性探针从词元的值向量里说对它前一个或后一个词的比例"
                     "（在留出的句子上），一条水平线表示总猜最常见相邻词的水平，一个点表示同一探针用在"
                     "第 6 层残差流上的结果；另一条折线是 C36 的探针从词的值向量里说对词义的句子比例。",
        "probe_caption": "逐层看探针能从值向量里读出什么：词元的相邻词（留出句子）和词的词义（留出句框）。",
    },
}
STYLE = {"input": ("o-", "#444444"), "Q": ("s-", "#1b9e77"), "K": ("^-", "#7570b3"),
         "V": ("d-", "#d95f02")}
PART_COLOURS = {"residual": "#440154", "attention": "#d95f02", "ffn": "#21918c", "offset": "#cccccc"}
for lang in LANGS:
    text = TEXT[lang]
    steps = np.arange(L + 1)

    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    ax.plot(steps, own, "o-", color="#d95f02", label=text["own"])
    ax.plot(steps, own_nr, "s--", color="#7570b3", label=text["own_nr"])
    ax.plot(steps, other, "^:", color="#666666", label=text["other"])
    ax.set_xlabel(text["layer"], fontsize=10)
    ax.set_ylabel(text["cos"], fontsize=10)
    ax.set_ylim(-0.05, 1.05)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9)
    fig.tight_layout()
    report.figure("stays_itself", fig, lang, alt=text["cos_alt"], caption=text["cos_caption"])

    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    for name, (style, colour) in STYLE.items():
        ax.plot(np.arange(1, L + 1), cka[name], style, color=colour, label=text["names"][name])
    ax.plot(np.arange(2, L + 1), consecutive, "d:", color="#d95f02", alpha=0.6,
            label=text["consecutive"])
    ax.set_xlabel(text["cka_layer"], fontsize=10)
    ax.set_ylabel(text["cka"], fontsize=10)
    ax.set_ylim(0, 1.05)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="lower left")
    fig.tight_layout()
    report.figure("cka", fig, lang, alt=text["cka_alt"], caption=text["cka_caption"])

    fig, ax = plt.subplots(figsize=(5.6, 4.4))
    bottom_pos, bottom_neg = np.zeros(L), np.zeros(L)
    for j, part in enumerate(PART_COLOURS):
        height = shares[:, j]
        base = np.where(height >= 0, bottom_pos, bottom_neg)
        ax.bar(np.arange(1, L + 1), height, bottom=base, color=PART_COLOURS[part],
               label=text["parts"][part], edgecolor="white", linewidth=0.5)
        bottom_pos += np.clip(height, 0, None)
        bottom_neg += np.clip(height, None, 0)
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xlabel(text["cka_layer"], fontsize=10)
    ax.set_ylabel(text["share"], fontsize=10)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    fig.tight_layout()
    report.figure("input_parts", fig, lang, alt=text["share_alt"], caption=text["share_caption"])

    fig, ax = plt.subplots(figsize=(5.6, 4.2))
    ax.plot(np.arange(1, L + 1), probe_accuracy, "d-", color="#d95f02", label=text["probe"])
    ax.axhline(np.bincount(targets).max() / len(targets), color="#666666", ls=":",
               label=text["majority"])
    ax.plot([L], [residual_correct.mean()], "s", color="#7570b3", label=text["g1"])
    ax.plot(np.arange(1, L + 1), sense_by_layer, "o-", color="#1b9e77", label=text["sense"])
    ax.set_xlabel(text["cka_layer"], fontsize=10)
    ax.set_ylabel(text["probe_y"], fontsize=10)
    ax.set_ylim(0, 1.02)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="center right")
    fig.tight_layout()
    report.figure("neighbour_probe", fig, lang, alt=text["probe_alt"], caption=text["probe_caption"])

report.save()
