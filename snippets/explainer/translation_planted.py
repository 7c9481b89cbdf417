"""The planted arms of C17's power check (three_roles.translation.planted), version 2
(docs/proposed_rules/2026-12-03-planted-arms-v2-C11-C17-C25.md with the fixes of its review).

Plant 1 is the masked model of ``translation_toy.make_planted``. Plant 2 is the full model,
trained with one auxiliary loss (``chase_aux_loss``): a one-sided log hinge that pulls head 0 of
追逐's encoder row towards the object until a₀(追逐 → object) ≥ 1.1 · a₀(追逐 → subject), on the
training rows whose verb is 追逐. ``hinge_met`` is its stopping rule, read on those rows only.
``link_by_head`` is the rule's link test per encoder head, with the mass-matched control: in the
same head the edge 追逐 → 激光点 keeps its weight but carries the value computed from 红球's
embedding at the object's place (红球 is a thing: its verb is *chases* too). A draw counts only
where some head passes the link test and its control leaves the translation exact.
"""

import math

import torch

from explainer.translation_toy import (BOS, MAX_TGT, OBJECT_POS, PAD, SUBJECT_POS, TEST, VERB_POS,
                                       attention, batch_targets, cut_edge, decode, encode, layer_norm,
                                       linear, mlp, sources, src_all, src_id, train_rows, translate)

MARGIN = 1.1                      # (i)'s own comparison plus a tenth (the review's fix 1)
STAND_IN = "红球"                 # the control's object: a thing, so its verb is chases too
CHASE_ROWS = [r for r in train_rows if sources[r][1] == "追逐"]     # training rows whose verb is 追逐


def chase_aux_loss(weight, head=0, margin=MARGIN):
    """extra_loss for translation_toy.train: per model m, weight[m] · the mean, over the batch's
    rows whose verb is 追逐, of relu(log margin + log a(追逐 → subject) − log a(追逐 → object)) in
    ``head`` of the encoder's self-attention; 0 for a batch without such a row. weight: (M,)."""
    def extra(self_weights, rows):                    # self_weights (M, B, nh, 3, 3), rows (B,)
        chase = torch.tensor([sources[int(r)][1] == "追逐" for r in rows])
        if not chase.any():
            return torch.zeros(len(self_weights))
        row = self_weights[:, chase, head, VERB_POS]                           # (M, b, 3)
        gap = math.log(margin) + row[..., SUBJECT_POS].log() - row[..., OBJECT_POS].log()
        return weight * torch.relu(gap).mean(-1)                               # (M,)
    return extra


@torch.no_grad()
def hinge_met(p, head=0, margin=MARGIN, share=0.9):
    """The stopping rule, on the final weights: at least ``share`` of the training rows whose verb
    is 追逐 have a(追逐 → object) ≥ margin · a(追逐 → subject) in ``head``. (M,) bool, and the
    share of those rows per model (M,)."""
    _, w = encode(p, src_all[CHASE_ROWS])
    row = w[:, :, head, VERB_POS]                                              # (M, R, 3)
    met = (row[..., OBJECT_POS] >= margin * row[..., SUBJECT_POS]).float().mean(-1)
    return met >= share, met


def encode_stand_in(p, src, head, word=STAND_IN):
    """translation_toy.encode, except that in ``head`` the edge 追逐 → object keeps its weight and
    carries the value computed from ``word``'s embedding at the object's place (the mass-matched
    control). Memory (M, B, S, C) and the self-attention weights, which are unchanged."""
    x = p["src_embed.weight"][:, src] + p["src_pos"][:, None, : src.shape[1]]   # (M, B, S, C)
    normed = layer_norm(x, p, "enc_norm1")
    attended, weights = attention(normed, normed, p, "enc_self", n_heads=2)
    swapped = x.clone()
    swapped[:, :, OBJECT_POS] = (p["src_embed.weight"][:, src_id[word]]
                                 + p["src_pos"][:, OBJECT_POS])[:, None]
    value = linear(normed[:, :, OBJECT_POS], p["enc_self.W_V.weight"])         # (M, B, C)
    stand_in = linear(layer_norm(swapped, p, "enc_norm1")[:, :, OBJECT_POS], p["enc_self.W_V.weight"])
    hs = x.shape[-1] // 2
    change = torch.zeros_like(value)                                           # (M, B, C): head slice only
    change[..., head * hs:(head + 1) * hs] = (stand_in - value)[..., head * hs:(head + 1) * hs]
    change = change * weights[:, :, head, VERB_POS, OBJECT_POS, None]          # the edge's own weight
    attended = attended.clone()
    attended[:, :, VERB_POS] = attended[:, :, VERB_POS] + linear(change, p["enc_self.W_O.weight"])
    x = x + attended
    return x + mlp(layer_norm(x, p, "enc_norm2"), p, "enc_mlp"), weights


@torch.no_grad()
def translate_memory(p, tgt, rows, memory):
    """translation_toy.translate's greedy decoding from a given memory (M, B, S, C): exact? (M, B)."""
    out = torch.full((len(memory), len(rows), 1), BOS)
    for _ in range(MAX_TGT):
        reads = tgt[2] if tgt[2].dim() == 2 else tgt[2][:, : out.shape[-1]]
        logits, _ = decode(p, memory, out, reads=reads)
        out = torch.cat([out, logits[:, :, -1].argmax(-1, keepdim=True)], dim=-1)
    _, tgt_out = batch_targets(tgt, rows)
    return ((out[:, :, 1:] == tgt_out) | (tgt_out == PAD)).all(-1)


@torch.no_grad()
def link_by_head(p, tgt):
    """chase_laser_link per encoder head: link (M, nh) = (i) ∧ (ii) ∧ (iii), and control_breaks
    (M, nh): the translation of 猫追逐激光点 is exact and stops being exact when that head's edge
    追逐 → 激光点 carries 红球's value at its own weight."""
    test = sources.index(TEST)
    _, w = encode(p, src_all[[test]])
    w = w[:, 0]                                                                # (M, nh, 3, 3)
    M, n_heads = w.shape[:2]
    to_object = w[:, :, VERB_POS, OBJECT_POS]
    largest = to_object > w[:, :, VERB_POS, SUBJECT_POS]
    beyond_cat = to_object > w[:, :, SUBJECT_POS, OBJECT_POS]
    exact = translate(p, tgt, [test])[:, 0]                                    # (M,)
    breaks = torch.stack([exact & ~translate(p, tgt, [test], cut=cut_edge(M, n_heads, h, VERB_POS,
                                                                           OBJECT_POS))[:, 0]
                          for h in range(n_heads)], dim=-1)                    # (M, nh)
    control = torch.stack([exact & ~translate_memory(p, tgt, [test],
                                                     encode_stand_in(p, src_all[[test]], h)[0])[:, 0]
                           for h in range(n_heads)], dim=-1)                   # (M, nh)
    return {"link": largest & beyond_cat & breaks, "link_attention": largest & beyond_cat,
            "link_breaks": breaks, "control_breaks": control, "correct": exact}
