"""The angle between a head's query and its keys, in every head of a model at once
(real_model/head_roles/angles.py: does the cosine alone pick the winning key? C23's centred
angles, measured once for every head so that resampling the sentences needs no model run)."""

from __future__ import annotations

import numpy as np
import torch

from explainer.head_picks import stacked_attention, weight_on


@torch.no_grad()
def cosine_picks_winner(model, outputs, queries, candidates) -> np.ndarray:
    """(72,): per head, the share of sentences in which the cosine alone picks the candidate
    with the largest q·k."""
    L, H = model.config.n_layers, model.config.n_heads
    hits = np.zeros(L * H)
    for n, (query, allowed) in enumerate(zip(queries, candidates)):
        for layer in range(L):
            attention = model.layers[layer].attention
            x = outputs[n].hidden_states[layer]                  # (1, T, C)
            q = attention.split_heads(attention.W_Q(x))[0][:, query]          # (H, hs)
            k = attention.split_heads(attention.W_K(x))[0][:, allowed]        # (H, c, hs)
            score = (k @ q[..., None])[..., 0]                   # (H, c)
            cos = score / (k.norm(dim=-1) * q.norm(dim=-1, keepdim=True))     # (H, c)
            hits[layer * H:(layer + 1) * H] += (cos.argmax(-1) == score.argmax(-1)).numpy()
    return hits / len(queries)


@torch.no_grad()
def centred_angles_all(model, outputs, queries, targets, candidates):
    """Every head at once: (N, L*nh) degrees between q and the target's centred key, and per
    sentence an (L*nh, c) array of degrees to the other candidates' centred keys (the
    sentence's mean key removed, as ``centred_angles`` in angles.py does for one head)."""
    to_target, to_others = [], []
    for n, (query, target, allowed) in enumerate(zip(queries, targets, candidates)):
        others = [int(i) for i in allowed if int(i) != target]
        target_row, other_rows = [], []
        for layer, block in enumerate(model.layers):
            attention = block.attention
            x = outputs[n].hidden_states[layer]                           # (1, T, C)
            q = attention.split_heads(attention.W_Q(x))[0]                # (nh, T, hs)
            k = attention.split_heads(attention.W_K(x))[0]
            k = k - k.mean(dim=1, keepdim=True)                           # each head's mean key removed
            cos = torch.nn.functional.cosine_similarity(k, q[:, query][:, None], dim=-1)   # (nh, T)
            angle = torch.rad2deg(torch.arccos(cos.clamp(-1, 1)))
            target_row.append(angle[:, target].numpy())
            other_rows.append(angle[:, others].numpy())
        to_target.append(np.concatenate(target_row))
        to_others.append(np.concatenate(other_rows))                      # (L*nh, c)
    return np.stack(to_target), to_others


def angles_by_claim(model, c23_sets) -> tuple[dict, dict]:
    """For every claim of angles.py's ``c23_sets`` (claim -> (passes, outputs, items of a flat
    head index)): ``centred_angles_all``, and the (N, heads) weight each sentence's query gives
    its target; a claim with two directions (C22: 144 head-directions) gets both, the second's
    columns after the first's. Returns (angles, weights), by claim."""
    n_heads, angles, weights = model.config.n_layers * model.config.n_heads, {}, {}
    for claim, (passes, outputs, items) in c23_sets.items():
        starts = range(0, len(passes), n_heads)
        parts = [centred_angles_all(model, outputs, *items(start)) for start in starts]
        angles[claim] = (np.concatenate([to_target for to_target, _ in parts], axis=1),
                         [[row for _, to_others in parts for row in to_others[n]] for n in range(len(parts[0][1]))])
        weights[claim] = np.concatenate([weight_on(stacked_attention(outputs), *items(start)[:2]) for start in starts],
                                        axis=1)
    return angles, weights


__all__ = ["angles_by_claim", "centred_angles_all", "cosine_picks_winner"]
