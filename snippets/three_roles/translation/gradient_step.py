# %% [markdown]
# # The first mistranslation: which way does the gradient push 追逐's attention?
#
# Source B says that when the model first mistranslates 猫追逐激光点, the loss
# sends back two gradients: a *content* gradient that strengthens 追逐 →
# *chases*, and an *object-mismatch* gradient that builds the link between
# 追逐 and 激光点. We train the translation toy of the page, seeds batched in
# one model, and stop each seed at the first step after which it puts a wrong
# verb (*pursues*, *watches*, *likes* or *bites*) at the verb's place in the
# held-out 猫追逐激光点. On a copy of those weights we take one tiny descent
# step and read what it changes: where 追逐 looks in the encoder (its row of the
# self-attention), and how likely *chases* becomes for 追逐 in other sentences.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
import math

import torch

from explainer.report import Report
from explainer.seeds import n_seeds, report_seed_count

torch.set_num_threads(1)
report = Report("three_roles.translation.gradient_step")

# %% [markdown]
# ## The toy of the translation page
#
# The same corpora, model, seeds and stacked pass as `three_roles.translation`
# (kept in `explainer.translation_toy`): on the page, the cells above import
# them and print their code. Seed *i* starts from the same weights in every
# corpus.

# %% tags=["toy"]
import torch
from torch.func import stack_module_state

from explainer.translation_toy import (BOS, MAX_TGT, OBJECT_POS, PAD, SUBJECT_POS, TEST, VERB_POS,
                                       Translator, decode, encode, english, layer_norm, linear, mlp, sources,
                                       src_all, tgt_id, train)

TEST_ROW = sources.index(TEST)                        # 猫追逐激光点 → "the cat chases the laser dot"
SUBJECT_SLOT, VERB_SLOT = 1, 2                        # "cat" and the verb in the English
EN_VERBS = ["chases", "pursues", "watches", "likes", "bites"]
VERB_IDS = torch.tensor([tgt_id[w] for w in EN_VERBS])
WRONG_IDS = VERB_IDS[1:]                              # every verb but "chases"
CHASES, CAT = tgt_id["chases"], tgt_id["cat"]
assert all(english(*s, c)[VERB_SLOT] in EN_VERBS for s in sources for c in ("fixed", "object_dependent"))

# %% [markdown]
# ## Three corpora
#
# The tested corpus is the page's second one: 追逐 is *pursues* before the two
# goals (梦想, 目标) and *chases* before every other object. The fixed corpus
# (追逐 is always *chases*) is a note. The planted corpus is the check that the
# test can see the push where it must exist: there 追逐 is *chases* only before
# the four laser-class things and *pursues* before every other object, so the
# verb of 猫追逐激光点 depends on its object.

# %% tags=["corpora"]
LASER_THINGS = {"激光点", "激光笔", "红球", "红点"}


def planted_english(subject, verb, obj):
    words = english(subject, verb, obj, "fixed")
    if verb == "追逐" and obj not in LASER_THINGS:
        words[VERB_SLOT] = "pursues"
    return words


def corpus_targets(english_of):
    """Decoder input <s> y and target y </s>, (N, L) each, padded, for every sentence."""
    rows_in, rows_out = [], []
    for s in sources:
        ids = [tgt_id[w] for w in english_of(*s)]
        pad = [PAD] * (MAX_TGT - 1 - len(ids))
        rows_in.append([BOS] + ids + pad)
        rows_out.append(ids + [tgt_id["</s>"]] + pad)
    return torch.tensor(rows_in), torch.tensor(rows_out)


CORPUS = {"tested": lambda s, v, o: english(s, v, o, "object_dependent"),
          "fixed": lambda s, v, o: english(s, v, o, "fixed"),
          "planted": planted_english}


def stacked(groups):
    """groups: (corpus, seeds, the verb reads only 追逐) -> the models stacked (name -> (M, ...))
    and their targets: decoder input, target (M, N, L), and what the cross-attention may read
    at each English position (M, L, 3)."""
    models, ins, outs, reads = [], [], [], []
    for corpus, seeds, verb_reads_only_verb in groups:
        tgt_in, tgt_out = corpus_targets(CORPUS[corpus])
        for seed in seeds:
            torch.manual_seed(seed)
            models.append(Translator())
            ins.append(tgt_in)
            outs.append(tgt_out)
            allowed = torch.ones(MAX_TGT, 3, dtype=torch.bool)
            if verb_reads_only_verb:                  # the planted toy: the verb reads 追逐 only
                allowed[VERB_SLOT] = torch.arange(3) == VERB_POS
            reads.append(allowed)
    params, _ = stack_module_state(models)
    return params, (torch.stack(ins), torch.stack(outs), torch.stack(reads))


# %% [markdown]
# ## Training, watching the verb's place
#
# The page's training (Adam, the same batches, 猫追逐激光点 and 15 other
# sentences held out), 400 steps. After every update we read each model's
# softmax at the verb's place in 猫追逐激光点, teacher-forced from
# `<s> the cat`, over the whole English vocabulary. The **first mistranslation** is the
# first step at which the five verbs together hold at least half of it and the
# single most likely word is a verb other than *chases*: that verb is the
# seed's wrong verb, and we copy the weights.

# %% tags=["checkpoint"]
def verb_slot_probs(p, tgt):
    """Each model's softmax at the verb's place in 猫追逐激光点 (M, vocab)."""
    memory = encode(p, src_all[[TEST_ROW]])[0]
    logits, _ = decode(p, memory, tgt[0][:, [TEST_ROW]], reads=tgt[2])
    return logits[:, 0, VERB_SLOT].softmax(-1)


def mistranslates(probs):
    """(i) the verbs hold at least half and (ii) one most likely word, a verb other than
    "chases": (M,) truth values, the most likely other verb (M,), and (i) alone (M,)."""
    verb_mass_ok = probs[:, VERB_IDS].sum(-1) >= 0.5
    top = probs.max(-1)
    unique = (probs == top.values[:, None]).sum(-1) == 1
    wrong_top = torch.isin(top.indices, WRONG_IDS)
    other_verb = WRONG_IDS[probs[:, WRONG_IDS].argmax(-1)]
    return verb_mass_ok & unique & wrong_top, other_verb, verb_mass_ok


def train_watching(params, tgt, steps=400, batch_size=32):
    """The page's training, and copies of each model's weights at its first mistranslation
    ("first"), at its last ("last") and at its first step with verb mass ≥ ½ ("onset"), with
    the step (0: none) and the verb to read against."""
    M = len(tgt[0])
    with torch.no_grad():
        _, start_verb, _ = mistranslates(verb_slot_probs(params, tgt))
        start_wrong = torch.isin(verb_slot_probs(params, tgt).argmax(-1), WRONG_IDS)
    watch = {"step0": {"params": {k: v.detach().clone() for k, v in params.items()},
                       "step": torch.zeros(M, dtype=torch.long),
                       "verb": torch.where(start_wrong, start_verb, -1)}}
    for when in ("first", "last", "onset"):
        watch[when] = {"params": {k: v.detach().clone() for k, v in params.items()},
                       "step": torch.zeros(M, dtype=torch.long), "verb": torch.full((M,), -1)}

    def watch_step(step):
        wrong_now, other_verb, verb_mass_ok = mistranslates(verb_slot_probs(params, tgt))
        for when, now in (("first", wrong_now & (watch["first"]["step"] == 0)),
                          ("last", wrong_now),
                          ("onset", verb_mass_ok & (watch["onset"]["step"] == 0))):
            if now.any():
                for k, v in params.items():
                    watch[when]["params"][k][now] = v[now]
                watch[when]["step"][now] = step
                watch[when]["verb"][now] = other_verb[now]

    train(params, tgt, steps, batch_size, after_step=watch_step)
    watch["final"] = {"params": {k: v.detach().clone() for k, v in params.items()}}
    return watch


# %% [markdown]
# ## One tiny descent step, in float64
#
# Everything below runs on the copied weights in float64. A step on a loss $L$
# and a set of weight tensors is $W \leftarrow W - 10^{-4}\, g/\lVert g\rVert$
# ($g$ the gradient, one norm over all the tensors): plain descent with a
# fixed length, so the step's direction is what we read. The losses are at the
# verb's place of 猫追逐激光点: $L_c$, the cross-entropy of *chases*, and the
# margin $L_m = \text{logit(wrong verb)} - \text{logit(chases)}$, whose
# gradient is exactly $L_c$'s minus the wrong verb's cross-entropy's: the part
# that depends on which verb is the target. `encode_parts` is the toy's
# `encode` written out, so that it can also return each head's output and
# detach the score rows of the queries 猫 and 激光点 (`row_only`): the gradient
# then reaches $W_Q$ and $W_K$ only through 追逐's own scores.

# %% tags=["gradient_step"]
QK = ["enc_self.W_Q.weight", "enc_self.W_K.weight"]    # where each Chinese word looks
CROSS_QK = ["cross.W_Q.weight", "cross.W_K.weight"]    # where each English word looks
WHERE_TO_LOOK = [f"{layer}.{m}.weight" for layer in ("enc_self", "dec_self", "cross")
                 for m in ("W_Q", "W_K")]
STEP = 1e-4


def encode_parts(p, src, row_only=False):
    """The toy's encode: memory (M, B, S, C), self-attention weights (M, B, nh, S, S) and
    each head's output (M, B, nh, S, hs). row_only: the score rows of every query but 追逐
    are detached."""
    x = p["src_embed.weight"][:, src] + p["src_pos"][:, None, : src.shape[1]]  # (M, B, S, C)
    h = layer_norm(x, p, "enc_norm1")
    M, B, S, C = h.shape
    n_heads, hs = 2, C // 2
    q = linear(h, p["enc_self.W_Q.weight"]).view(M, B, S, n_heads, hs).transpose(2, 3)
    k = linear(h, p["enc_self.W_K.weight"]).view(M, B, S, n_heads, hs).transpose(2, 3)
    v = linear(h, p["enc_self.W_V.weight"]).view(M, B, S, n_heads, hs).transpose(2, 3)
    scores = q @ k.transpose(-2, -1) / hs ** 0.5                             # (M, B, nh, S, S)
    if row_only:
        own_row = (torch.arange(S) == VERB_POS)[:, None]                     # (S, 1)
        scores = torch.where(own_row, scores, scores.detach())
    weights = scores.softmax(dim=-1)
    heads = weights @ v                                                      # (M, B, nh, S, hs)
    x = x + linear(heads.transpose(2, 3).reshape(M, B, S, C), p["enc_self.W_O.weight"])
    return x + mlp(layer_norm(x, p, "enc_norm2"), p, "enc_mlp"), weights, heads


def forward(p, tgt, rows, row_only=False):
    """Teacher-forced pass on sources[rows]: logits (M, B, T, vocab), encoder self-attention
    (M, B, nh, 3, 3), cross-attention (M, B, T, 3), head outputs."""
    memory, self_weights, heads = encode_parts(p, src_all[rows], row_only)
    logits, cross = decode(p, memory, tgt[0][:, rows], reads=tgt[2])
    return logits, self_weights, cross, heads


def loss_chases(logits, wrong):                        # L_c: (M,)
    return -logits[:, 0, VERB_SLOT].log_softmax(-1)[:, CHASES]


def loss_margin(logits, wrong):                        # L_m = logit(wrong) - logit(chases)
    at_verb = logits[:, 0, VERB_SLOT]
    return at_verb.gather(-1, wrong.clamp_min(0)[:, None])[:, 0] - at_verb[:, CHASES]


def loss_cat(logits, wrong):                           # a placebo: "cat" at its own place
    return -logits[:, 0, SUBJECT_SLOT].log_softmax(-1)[:, CAT]


def unit_step(p, tgt, loss, wrong, names, size=STEP, row_only=False):
    """A copy of p with W <- W - size * g/|g| on the named tensors (g: the gradient of each
    model's loss on 猫追逐激光点, |g| one norm per model), and |g| (M,)."""
    p = {k: v.detach().requires_grad_(k in names) for k, v in p.items()}
    with torch.enable_grad():
        logits = forward(p, tgt, [TEST_ROW], row_only)[0]
        grads = torch.autograd.grad(loss(logits, wrong).sum(), [p[k] for k in names])
    norm = torch.stack([g.flatten(1).pow(2).sum(-1) for g in grads]).sum(0).sqrt()  # (M,)
    scale = size / torch.where(norm > 0, norm, torch.ones_like(norm))
    stepped = {k: p[k] - scale.view(-1, *[1] * (g.dim() - 1)) * g for k, g in zip(names, grads)}
    return {k: stepped.get(k, v).detach() for k, v in p.items()}, norm


@torch.no_grad()
def links(p, tgt):
    """What the steps are read on, per model: in 追逐's encoder row the log-odds of 激光点
    against 猫 and against 追逐 per head (M, nh) and 激光点's head-mean share (M,); in 激光点's
    row the log-odds of 追逐 against 猫 (M, nh); at the verb's place the cross-attention's
    log-odds of 激光点 against 猫 (M,); and L_c (M,)."""
    logits, self_weights, cross, _ = forward(p, tgt, [TEST_ROW])
    row, back = self_weights[:, 0, :, VERB_POS], self_weights[:, 0, :, OBJECT_POS]   # (M, nh, 3)
    at_verb = cross[:, 0, VERB_SLOT]                                                 # (M, 3)
    return {"object_subject": (row[..., OBJECT_POS] / row[..., SUBJECT_POS]).log(),
            "object_self": (row[..., OBJECT_POS] / row[..., VERB_POS]).log(),
            "attention": row[..., OBJECT_POS].mean(-1), "row": row.mean(1),
            "reverse": (back[..., VERB_POS] / back[..., SUBJECT_POS]).log().mean(-1),
            "cross": (at_verb[:, OBJECT_POS] / at_verb[:, SUBJECT_POS]).log(),
            "loss": loss_chases(logits, None)}


def changes(p, stepped, tgt):
    before, after = links(p, tgt), links(stepped, tgt)
    return {k: after[k] - before[k] for k in before}


# %% [markdown]
# ## The object half: does 追逐 come to look at 激光点?
#
# One step on the encoder's $W_Q$ and $W_K$ (both heads) for $L_c$ and one for
# $L_m$, each read two ways: with the full gradient and with the row-only one.
# 激光点 **gains on 猫** when the $L_c$ step raises its log-odds against 猫 in
# 追逐's row (head mean). The link is **built** when the $L_c$ step also raises
# it against 追逐 itself and raises 激光点's share, and the $L_m$ step raises both
# log-odds too.

# %% tags=["object_half"]
def object_half(p, tgt, wrong, size=STEP):
    """Per model: the changes after each step (reading, loss) -> dict, and the verdicts."""
    steps, norms = {}, []
    for reading, row_only in (("full", False), ("row", True)):
        for name, loss in (("c", loss_chases), ("m", loss_margin)):
            stepped, norm = unit_step(p, tgt, loss, wrong, QK, size, row_only)
            steps[reading, name] = changes(p, stepped, tgt)
            norms.append(norm)
    gain, built = {}, {}
    for reading in ("full", "row"):
        c, m = steps[reading, "c"], steps[reading, "m"]
        gain[reading] = c["object_subject"].mean(-1) > 0
        built[reading] = (gain[reading] & (c["object_self"].mean(-1) > 0) & (c["attention"] > 0)
                          & (m["object_subject"].mean(-1) > 0) & (m["object_self"].mean(-1) > 0)
                          & (wrong >= 0))
    return {"steps": steps, "gain": gain, "built": built,
            "link_built": built["full"] & built["row"], "any_gain": gain["full"] | gain["row"],
            "reverse": steps["full", "c"]["reverse"] > 0, "norm": torch.stack(norms).amin(0)}


def cross_link(p, tgt, wrong, size=STEP):
    """An L_c step on the cross-attention's W_Q, W_K: does the verb's place look more at
    激光点 against 猫? (M,), and |g|."""
    stepped, norm = unit_step(p, tgt, loss_chases, wrong, CROSS_QK, size)
    return changes(p, stepped, tgt)["cross"] > 0, norm


# %% [markdown]
# ## The content half: does 追逐 come to mean *chases*?
#
# A descent step lowers this sentence's loss by construction; what we read is
# whether it raises *chases* for 追逐 rather than for every sentence. The $L_c$
# step moves every weight except the six $W_Q$, $W_K$ that decide where a
# position looks; we read the mean change of log p(*chases*) at the verb's
# place over set A, the other sentences where 追逐 is *chases*, and over B, the
# same subjects and objects with the other three verbs.

# %% tags=["content_half"]
def content_sets(english_of):
    """A: the other sentences whose verb is 追逐 and whose English verb is "chases";
    B: for each, the same subject and object with 看着, 喜欢 and 咬."""
    a = [i for i, (s, v, o) in enumerate(sources)
         if v == "追逐" and english_of(s, v, o)[VERB_SLOT] == "chases" and i != TEST_ROW]
    b = [sources.index([sources[i][0], verb, sources[i][2]]) for i in a for verb in ("看着", "喜欢", "咬")]
    return a, b


@torch.no_grad()
def mean_log_chases(p, tgt, rows):
    logits = forward(p, tgt, rows)[0]                                    # (M, B, T, vocab)
    return logits[:, :, VERB_SLOT].log_softmax(-1)[..., CHASES].mean(-1)  # (M,)


def content_half(p, tgt, wrong, a, b, frozen=WHERE_TO_LOOK):
    """Per model: content link strengthens (M,), Δ_A, Δ_B, L_c falls, |g|."""
    names = [k for k in p if k not in frozen]
    stepped, norm = unit_step(p, tgt, loss_chases, wrong, names)
    delta_a = mean_log_chases(stepped, tgt, a) - mean_log_chases(p, tgt, a)
    delta_b = mean_log_chases(stepped, tgt, b) - mean_log_chases(p, tgt, b)
    falls = changes(p, stepped, tgt)["loss"] < 0
    return (delta_a > 0) & (delta_a > delta_b), delta_a, delta_b, falls, norm


# %% [markdown]
# ## The run
#
# The tested corpus and the fixed one on seeds 0 … n−1, and the planted toy on
# seeds 0–31, as one stacked model. If fewer than 16 of the n seeds
# mistranslate at all, the rule takes the seeds up to 64 (a choice made on that
# count alone).

# %%
SEED_CAP, FEWEST_TESTED, PLANTED_DRAWS = 64, 16, 32


def take(tree, index):
    """Models index of a nested dict of tensors (M, ...) or a target tuple."""
    if isinstance(tree, dict):
        return {k: take(v, index) for k, v in tree.items()}
    if isinstance(tree, tuple):
        return tuple(take(v, index) for v in tree)
    return tree[index]


def join(a, b):
    if isinstance(a, dict):
        return {k: join(a[k], b[k]) for k in a}
    if isinstance(a, tuple):
        return tuple(join(x, y) for x, y in zip(a, b))
    return torch.cat([a, b])


def run(seeds, planted_draws):
    """Train tested and fixed models on seeds (and the planted ones): watch, targets."""
    params, tgt = stacked([("tested", seeds, False), ("fixed", seeds, False),
                           ("planted", range(planted_draws), True)])
    watch = train_watching(params, tgt)
    groups = torch.arange(len(tgt[0]))
    parts = {"tested": groups[: len(seeds)], "fixed": groups[len(seeds): 2 * len(seeds)],
             "planted": groups[2 * len(seeds):]}
    return {name: (take(watch, i), take(tgt, i)) for name, i in parts.items()}


n = n_seeds(32)
runs = run(list(range(n)), PLANTED_DRAWS)
if int((runs["tested"][0]["first"]["step"] > 0).sum()) < FEWEST_TESTED and n < SEED_CAP:
    more = run(list(range(n, SEED_CAP)), 0)                 # the rule's extension, checkpoints only
    for name in ("tested", "fixed"):
        runs[name] = join(runs[name], more[name])
    n = SEED_CAP


def at(name, when):
    """float64 weights of a corpus's models at a checkpoint, their targets, wrong verb, step."""
    watch, tgt = runs[name]
    params = {k: v.double() for k, v in watch[when]["params"].items()}
    return params, tgt, watch[when]["verb"], watch[when]["step"]


# %%
p, tgt, wrong, first_step = at("tested", "first")
tested = first_step > 0
half = object_half(p, tgt, wrong)
cross_gain, cross_norm = cross_link(p, tgt, wrong)
a_rows, b_rows = content_sets(CORPUS["tested"])
content, delta_a, delta_b, content_falls, content_norm = content_half(p, tgt, wrong, a_rows, b_rows)
print(f"{int(tested.sum())} of {n} seeds mistranslate 猫追逐激光点's verb; the link is built in "
      f"{int((half['link_built'] & tested).sum())}, 激光点 gains on 猫 in {int((half['any_gain'] & tested).sum())}")

# %% [markdown]
# ## The planted check
#
# The same checkpoint, the same steps, in the planted toy: a draw is detected
# when, under the full gradient, both the $L_c$ and the $L_m$ step raise
# 激光点 against 猫 in 追逐's row.

# %%
pp, planted_tgt, planted_wrong, planted_step = at("planted", "first")
planted_tested = planted_step > 0
planted_half = object_half(pp, planted_tgt, planted_wrong)
full_c, full_m = planted_half["steps"]["full", "c"], planted_half["steps"]["full", "m"]
planted_detected = planted_tested & (full_c["object_subject"].mean(-1) > 0) & (full_m["object_subject"].mean(-1) > 0)
row_c, row_m = planted_half["steps"]["row", "c"], planted_half["steps"]["row", "m"]
planted_row_detected = planted_tested & (row_c["object_subject"].mean(-1) > 0) & (row_m["object_subject"].mean(-1) > 0)
print(f"planted toy: {int(planted_tested.sum())} of {PLANTED_DRAWS} draws mistranslate, "
      f"{int(planted_detected.sum())} detected")

# %% [markdown]
# ## Notes: the same tests elsewhere

# %%
# A hundred times longer step; the last mistranslation; step 0; the first step where the verbs
# hold half the softmax; the fixed corpus.
large = object_half(p, tgt, wrong, size=1e-2)
p_last, _, wrong_last, _ = at("tested", "last")
last = object_half(p_last, tgt, wrong_last)
p0, _, wrong0, _ = at("tested", "step0")
step0 = object_half(p0, tgt, wrong0)
p_onset, _, wrong_onset, onset_step = at("tested", "onset")
onset = object_half(p_onset, tgt, wrong_onset)
pf, fixed_tgt, fixed_wrong, fixed_step = at("fixed", "first")
fixed_tested = fixed_step > 0
fixed = object_half(pf, fixed_tgt, fixed_wrong)
fixed_a, fixed_b = content_sets(CORPUS["fixed"])
fixed_content = content_half(pf, fixed_tgt, fixed_wrong, fixed_a, fixed_b)[0]
# v1's content step (every weight but the encoder's W_Q, W_K) with v1's B (every other verb).
v1_b = [i for i, (s, v, o) in enumerate(sources) if v != "追逐"]
v1_content = content_half(p, tgt, wrong, a_rows, v1_b, frozen=QK)[0]
# The placebo: the same step driven by "cat" at its own place.
placebo = changes(p, unit_step(p, tgt, loss_cat, wrong, QK)[0], tgt)["object_subject"].mean(-1) > 0
# The head whose output at 追逐 carries the larger L_c gradient, chosen before any step.
with torch.enable_grad():
    q = {k: v.detach().requires_grad_(k in QK) for k, v in p.items()}
    logits, _, _, heads = forward(q, tgt, [TEST_ROW])
    head_grad, = torch.autograd.grad(loss_chases(logits, wrong).sum(), heads)
picked = head_grad[:, 0, :, VERB_POS].norm(dim=-1).argmax(-1)                  # (M,)
per_head = half["steps"]["full", "c"]["object_subject"]                       # (M, nh)
picked_gain = per_head.gather(-1, picked[:, None])[:, 0] > 0
start = links(p, tgt)
premise = start["row"].argmax(-1) != OBJECT_POS
# The planted toy after 400 steps: does it give 追逐 the right verb in its own sentences?
chase_rows = [i for i, s in enumerate(sources) if s[1] == "追逐"]
final_logits = forward({k: v.double() for k, v in runs["planted"][0]["final"]["params"].items()},
                       planted_tgt, chase_rows)[0]
planted_right = (final_logits[:, :, VERB_SLOT].argmax(-1) == planted_tgt[1][:, chase_rows, VERB_SLOT]).double().mean(-1)

# %% [markdown]
# ## Results over the seeds

# %%
k = int(tested.sum())
kept = tested.nonzero()[:, 0]
full_c = half["steps"]["full", "c"]
gain_delta = full_c["object_subject"].mean(-1)[kept] * 1e4
decisive_norms = torch.stack([half["norm"], cross_norm, content_norm])[:, kept]
bootstrap = torch.Generator().manual_seed(0)
draws = torch.randint(max(k, 1), (1000, max(k, 1)), generator=bootstrap)
boot_means = gain_delta[draws].mean(-1) if k else torch.zeros(1)
gains_full = int((half["gain"]["full"] & tested).sum())
binomial_p = math.fsum(math.comb(k, j) for j in range(gains_full, k + 1)) / 2 ** k
steps_kept = first_step[kept].double() if k else torch.zeros(1)
row_change = changes(p, unit_step(p, tgt, loss_chases, wrong, QK)[0], tgt)["row"][kept] * 1e4   # (k, 3)

# %%
# Recording the decisive counts (the rule's cases read them) and the planted check.
report.number("n_seeds", n, "{:.0f}")
report_seed_count(report, "tested_seeds", tested)
report_seed_count(report, "link_built_seeds", half["link_built"] & tested)
report_seed_count(report, "any_gain_seeds", half["any_gain"] & tested)
report_seed_count(report, "reverse_link_seeds", half["reverse"] & tested)
report_seed_count(report, "cross_link_seeds", cross_gain & tested)
report_seed_count(report, "content_specific_seeds", content & tested)
report.number("planted_draws", PLANTED_DRAWS, kind="count")
report.number("planted_tested_draws", planted_tested.sum(), kind="count")
report.number("planted_detected", planted_detected.sum(), kind="count")
report.number("planted_detection_share", planted_detected.sum() / PLANTED_DRAWS, kind="share")

# %%
# The notes, not in the verdict.
from explainer.translation_toy import chase_laser_link  # C17's link test, for a note at the end

report.number("step_size", STEP, "{:g}")
report.number("large_step_size", 1e-2, "{:g}")
report.number("tested_share", k / n, kind="share")
report.number("checkpoint_step_mean", steps_kept.mean(), "{:.1f}")
report.number("checkpoint_step_min", steps_kept.min(), kind="count")
report.number("checkpoint_step_max", steps_kept.max(), kind="count")
report_seed_count(report, "wrong_verb_pursues_seeds", tested & (wrong == tgt_id["pursues"]))
report_seed_count(report, "wrong_verb_watches_seeds", tested & (wrong == tgt_id["watches"]))
report_seed_count(report, "wrong_verb_likes_seeds", tested & (wrong == tgt_id["likes"]))
report_seed_count(report, "wrong_verb_bites_seeds", tested & (wrong == tgt_id["bites"]))
report_seed_count(report, "premise_seeds", premise & tested)
report_seed_count(report, "gain_full_seeds", half["gain"]["full"] & tested)
report_seed_count(report, "gain_row_seeds", half["gain"]["row"] & tested)
report_seed_count(report, "link_built_full_seeds", half["built"]["full"] & tested)
report_seed_count(report, "link_built_row_seeds", half["built"]["row"] & tested)
report_seed_count(report, "margin_gain_seeds",
                  (half["steps"]["full", "m"]["object_subject"].mean(-1) > 0) & tested)
report.number("logodds_object_subject_mean", gain_delta.mean() if k else 0, "{:+.3f}")
report.number("logodds_object_subject_ci95_low", boot_means.quantile(0.025), "{:+.3f}")
report.number("logodds_object_subject_ci95_high", boot_means.quantile(0.975), "{:+.3f}")
report.number("logodds_object_self_mean",
              (full_c["object_self"].mean(-1)[kept] * 1e4).mean() if k else 0, "{:+.3f}")
report.number("margin_logodds_object_subject_mean",
              (half["steps"]["full", "m"]["object_subject"].mean(-1)[kept] * 1e4).mean() if k else 0,
              "{:+.3f}")
report.number("change_subject_mean", row_change[:, SUBJECT_POS].mean() if k else 0, "{:+.3f}")
report.number("change_verb_mean", row_change[:, VERB_POS].mean() if k else 0, "{:+.3f}")
report.number("change_object_mean", row_change[:, OBJECT_POS].mean() if k else 0, "{:+.3f}")
report.number("start_attention_object_mean", start["attention"][kept].mean() if k else 0,
              kind="share")
report.number("gain_binomial_p", binomial_p, kind="p")
report_seed_count(report, "some_head_over_subject_seeds", (per_head > 0).any(-1) & tested)
report_seed_count(report, "picked_head_gain_seeds", picked_gain & tested)
report.number("gradient_norm_min", decisive_norms.min() if k else 0, "{:.1e}")
report_seed_count(report, "tiny_gradient_seeds",
                  (torch.stack([half["norm"], cross_norm, content_norm]).amin(0) < 1e-10) & tested)
report_seed_count(report, "qk_loss_falls_seeds", (half["steps"]["full", "c"]["loss"] < 0) & tested)
report_seed_count(report, "content_loss_falls_seeds", content_falls & tested)
report.number("content_delta_a_mean", delta_a[kept].mean() * 1e4 if k else 0, "{:+.3f}")
report.number("content_delta_b_mean", delta_b[kept].mean() * 1e4 if k else 0, "{:+.3f}")
report.number("content_a_pairs", len(a_rows), kind="count")
report.number("content_b_pairs", len(b_rows), kind="count")
report_seed_count(report, "content_specific_all_weights_seeds", v1_content & tested)
report_seed_count(report, "subject_slot_gain_seeds", placebo & tested)
report_seed_count(report, "large_step_gain_seeds", large["gain"]["full"] & tested)
report_seed_count(report, "large_step_link_built_seeds", large["link_built"] & tested)
report_seed_count(report, "last_wrong_gain_seeds", last["gain"]["full"] & tested)
report_seed_count(report, "last_wrong_link_built_seeds", last["link_built"] & tested)
report_seed_count(report, "step0_gain_seeds", step0["gain"]["full"])
report_seed_count(report, "step0_link_built_seeds", step0["link_built"])
has_onset = onset_step > 0
report_seed_count(report, "verb_onset_seeds", has_onset)
report_seed_count(report, "verb_onset_gain_seeds", onset["gain"]["full"] & has_onset)
report_seed_count(report, "verb_onset_link_built_seeds", onset["link_built"] & has_onset)
report_seed_count(report, "fixed_tested_seeds", fixed_tested)
report_seed_count(report, "fixed_link_built_seeds", fixed["link_built"] & fixed_tested)
report_seed_count(report, "fixed_any_gain_seeds", fixed["any_gain"] & fixed_tested)
report_seed_count(report, "fixed_content_specific_seeds", fixed_content & fixed_tested)
report.number("planted_row_detected_share", planted_row_detected.sum() / PLANTED_DRAWS,
              kind="share")
report.number("planted_link_built_share",
              (planted_half["link_built"] & planted_tested).sum() / PLANTED_DRAWS, kind="share")
report.number("planted_checkpoint_step_mean",
              planted_step[planted_tested].double().mean() if planted_tested.any() else 0, "{:.1f}")
report.number("planted_verb_right_share", planted_right.mean(), kind="share")
# A note for C17: its link test (attention, and a cut that breaks the masked greedy translation) on the
# planted toy's final weights, whose corpus makes 追逐's verb the minority word (C17's planted arm does not).
report.number("planted_toy_link_seeds",
              chase_laser_link(runs["planted"][0]["final"]["params"], planted_tgt)["link"].sum(),
              kind="count")

report.save()
