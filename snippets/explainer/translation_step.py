"""The first mistranslation's gradient step on the translation toy, one copy for C38's two
snippets (three_roles.translation.gradient_step, the tested and fixed corpora, and
three_roles.translation.planted_push, the planted toy that checks the test can see the push).

Models stacked from any corpus (``stacked``), the page's training watching the verb's place
of 猫追逐激光点 for the first mistranslation (``train_watching``), and, on float64 copies of the
weights, one tiny descent step (``unit_step``) read in 追逐's row of the encoder's
self-attention (``links``, ``object_half``). The translation page's cells import these names and
print their code (``inspect.getsource``), so the page shows this file as it runs.
"""

import torch
from torch.func import stack_module_state

from explainer.translation_toy import (BOS, MAX_TGT, OBJECT_POS, PAD, SUBJECT_POS, TEST, VERB_POS, VERB_SLOT,
                                       Translator, decode, encode, english, layer_norm, linear, mlp, sources,
                                       src_all, tgt_id, train)

TEST_ROW = sources.index(TEST)                        # 猫追逐激光点 → "the cat chases the laser dot"
SUBJECT_SLOT = 1                                      # "cat" in the English (the verb: VERB_SLOT)
EN_VERBS = ["chases", "pursues", "watches", "likes", "bites"]
VERB_IDS = torch.tensor([tgt_id[w] for w in EN_VERBS])
WRONG_IDS = VERB_IDS[1:]                              # every verb but "chases"
CHASES, CAT = tgt_id["chases"], tgt_id["cat"]
assert all(english(*s, c)[VERB_SLOT] in EN_VERBS for s in sources for c in ("fixed", "object_dependent"))


# The corpora, stacked.
def corpus_targets(english_of):
    """Decoder input <s> y and target y </s>, (N, L) each, padded, for every sentence."""
    rows_in, rows_out = [], []
    for s in sources:
        ids = [tgt_id[w] for w in english_of(*s)]
        pad = [PAD] * (MAX_TGT - 1 - len(ids))
        rows_in.append([BOS] + ids + pad)
        rows_out.append(ids + [tgt_id["</s>"]] + pad)
    return torch.tensor(rows_in), torch.tensor(rows_out)


def stacked(groups):
    """groups: (english_of, seeds, the verb reads only 追逐) -> the models stacked (name ->
    (M, ...)) and their targets: decoder input, target (M, N, L), and what the cross-attention
    may read at each English position (M, L, 3)."""
    models, ins, outs, reads = [], [], [], []
    for english_of, seeds, verb_reads_only_verb in groups:
        tgt_in, tgt_out = corpus_targets(english_of)
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


# Training, watching the verb's place.
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


def weights_at(watch, when):
    """float64 copies of the weights at a checkpoint, the wrong verb (M,) and the step (M,)."""
    return ({k: v.double() for k, v in watch[when]["params"].items()},
            watch[when]["verb"], watch[when]["step"])


# One tiny descent step, in float64.
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


# The object half: does 追逐 come to look at 激光点?
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
