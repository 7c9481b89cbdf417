"""Claim C25's two tests on the heads a trained seeded model can lose: backups, or noise smoothers?

Used by many_heads/pruning/backup_or_noise.py (the tested models); a planted arm, should one be
built (docs/proposed_rules/2026-12-03-planted-arms-v3-C25-review.md), would be measured by
exactly these tests. Heads are numbered
layer * n_heads + head; every tensor has the seed first (S seeds, H heads in all)."""

from __future__ import annotations

import torch

from explainer.batched import SeededTransformer, evaluate_batched
from explainer.head_ablation import ablation_damage, accuracy_without, curve, one_hot, prunable
from explainer.residuals import above_reference


def removable_heads(net, ranking_set, test_set, keep: float = 0.95) -> tuple[torch.Tensor, torch.Tensor]:
    """The yardstick of how_many.py: heads ranked by single-ablation damage on ``ranking_set``,
    removed least important first while accuracy on ``test_set`` stays >= ``keep`` of the full
    model's. Returns the full accuracy (S,) and the removed heads (S, H) bool."""
    full_accuracy = evaluate_batched(net, *test_set)[1]                                 # (S,)
    by_damage = ablation_damage(net, ranking_set).argsort(dim=1, stable=True)           # (S, H) least important first
    removable_count = prunable(curve(net, by_damage, test_set), keep)                   # (S,)
    removable = torch.zeros(by_damage.shape, dtype=torch.bool)                          # the heads the yardstick removes
    for s in range(len(by_damage)):
        removable[s, by_damage[s, :removable_count[s]]] = True
    return full_accuracy, removable


def backup_test(net, test_set, full_accuracy: torch.Tensor) -> dict[str, torch.Tensor]:
    """Per head, its twin (the other head whose contribution through W_O is most alike, cosine
    over ``test_set``) and the extra cost of removing it once the twin is gone, against once any
    other single head is gone. Returns ``similarity`` (S, H, H), ``twin`` (S, H), ``alone`` (S, H),
    ``extra`` (S, g, h): extra cost of h after g, ``twin_extra``, ``other_extra`` and
    ``is_backup`` (S, H): twin_extra >= 0.05 and above other_extra."""
    S, L = net.n_seeds, net.config.n_layers
    H = L * net.config.n_heads
    seeds = torch.arange(S)
    with torch.no_grad():
        net.keep_head_outputs = True
        net(test_set[0])
        contributions = torch.cat([net.head_contributions(layer) for layer in range(L)], dim=2)
        net.keep_head_outputs, net.last_head_outputs = False, []
    flat = torch.nn.functional.normalize(contributions.transpose(1, 2).flatten(2), dim=-1)  # (S, H, B*T*C)
    similarity = flat @ flat.transpose(1, 2)                                 # (S, H, H) cosine
    similarity.diagonal(dim1=1, dim2=2).fill_(-2.0)                          # a head is not its own twin
    twin = similarity.argmax(dim=2)                                          # (S, H)
    alone = full_accuracy[:, None] - torch.stack(
        [accuracy_without(net, one_hot(torch.full((S,), h), H), test_set) for h in range(H)], dim=1)  # (S, H)
    without_pair = torch.zeros(S, H, H)                                      # accuracy without g and h
    for g in range(H):
        for h in range(g + 1, H):
            both = one_hot(torch.tensor([g, h]).expand(S, 2), H)
            without_pair[:, g, h] = without_pair[:, h, g] = accuracy_without(net, both, test_set)
    without_one = full_accuracy[:, None] - alone                             # (S, H) accuracy without g
    cost_after = without_one[:, :, None] - without_pair                      # (S, g, h): cost of h once g is gone
    extra = cost_after - alone[:, None, :]                                   # (S, g, h): extra cost of h after g
    rows = torch.arange(H)
    twin_extra = extra[seeds[:, None], twin, rows]                           # (S, H): after its twin
    others = torch.ones(S, H, H, dtype=torch.bool)                           # (S, g, h): g is neither h nor twin(h)
    others[:, rows, rows] = False
    others[seeds[:, None], twin, rows] = False
    other_extra = (extra * others).sum(dim=1) / others.sum(dim=1)            # (S, H)
    is_backup = (twin_extra >= 0.05) & (twin_extra > other_extra)            # (S, H)
    return {"similarity": similarity, "twin": twin, "alone": alone, "extra": extra,
            "twin_extra": twin_extra, "other_extra": other_extra, "is_backup": is_backup}


GRID = torch.tensor([0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0])   # noise std, in units of the embeddings' RMS


def embedding_rms(net, test_set) -> torch.Tensor:
    """Root-mean-square of each seed's input embeddings on ``test_set``: (S,)."""
    with torch.no_grad():
        return net.embed(test_set[0]).pow(2).mean(dim=(1, 2, 3)).sqrt()


def noisy_accuracy(net, removed: torch.Tensor, std: torch.Tensor, test_set) -> torch.Tensor:
    """Accuracy with heads ``removed`` (S, H) ablated and Gaussian noise of std ``std`` (S,) on
    the input embeddings, the same noise for every head set (generator seeded 0): (S,)."""
    net.input_noise = std
    net.noise_generator.manual_seed(0)
    accuracy = accuracy_without(net, removed, test_set)
    net.input_noise = None
    return accuracy


def noise_cost(net, removed: torch.Tensor, std: torch.Tensor, test_set, full_accuracy: torch.Tensor,
               noisy_full: torch.Tensor) -> torch.Tensor:
    """Extra accuracy lost under noise by removing ``removed`` (S, H), beyond its cost on clean
    input: (S,). ``noisy_full`` is the full model's accuracy under that noise."""
    return ((noisy_full - noisy_accuracy(net, removed, std, test_set))
            - (full_accuracy - accuracy_without(net, removed, test_set)))


def noise_level(net, test_set, full_accuracy: torch.Tensor, rms: torch.Tensor) -> torch.Tensor:
    """Per seed, the smallest level of GRID (times ``rms``) that costs the full model >= 0.1
    accuracy (the largest level if none does): (S,)."""
    S, H = net.n_seeds, net.config.n_layers * net.config.n_heads
    nobody = torch.zeros(S, H, dtype=torch.bool)
    grid_accuracy = torch.stack([noisy_accuracy(net, nobody, level.expand(S) * rms, test_set)
                                 for level in GRID])                                   # (levels, S)
    costly = full_accuracy - grid_accuracy >= 0.1                                      # (levels, S)
    level_index = torch.where(costly.any(dim=0), costly.int().argmax(dim=0), len(GRID) - 1)  # (S,)
    return GRID[level_index]                                                           # (S,)


class Copies(SeededTransformer):
    """Copies of trained seeds (seed s at rows s*chunk ... s*chunk + chunk - 1), with a fixed
    noise tensor added to the input embeddings (the same noise for every copy of a seed)."""
    offset = None

    def embed(self, tokens):
        x = super().embed(tokens)
        return x if self.offset is None else x + self.offset


def smoothing_test(net, test_set, removable: torch.Tensor, full_accuracy: torch.Tensor,
                   noisy_full: torch.Tensor, std: torch.Tensor, generator: torch.Generator,
                   n_sets: int = 511, chunk: int = 32) -> dict[str, torch.Tensor]:
    """Per seed, ``n_sets`` random head sets (sizes uniform in 1..H-1, drawn from ``generator``)
    and the removable set: each set's clean cost and noise cost (under noise of std ``std`` (S,),
    the noise of ``noisy_accuracy``), a fit noise cost ~ 1 + clean cost + size over the random
    sets, and whether the removable set's residual lies above their 95th percentile
    (``above_reference``). All sets at once: every seed copied ``chunk`` times into one model."""
    S, L, nh = net.n_seeds, net.config.n_layers, net.config.n_heads
    H = L * nh
    assert (n_sets + 1) % chunk == 0
    sizes = torch.randint(1, H, (S, n_sets), generator=generator)                    # (S, N) in 1..H-1
    keys = torch.rand(S, n_sets, H, generator=generator)
    chosen_sets = keys.argsort(dim=2).argsort(dim=2) < sizes[:, :, None]              # (S, N, H): the first k of a random order
    all_sets = torch.cat([removable[:, None], chosen_sets], dim=1)                    # (S, 1 + N, H): set 0 is the removable one
    copies = Copies(net.config, list(range(S * chunk)))
    copies.load_state_dict({name: value.repeat_interleave(chunk, dim=0)     # every tensor has the seed first
                            for name, value in net.state_dict().items() if name != "head_mask"}, strict=False)
    copies.keep_weights = False
    with torch.no_grad():
        clean_embedding = net.embed(test_set[0])                                      # (S, B, T, C)
        noise = std.view(-1, 1, 1, 1) * torch.randn(
            clean_embedding.shape, generator=torch.Generator().manual_seed(0))      # the noise of noisy_accuracy
    set_accuracy = {"clean": [], "noisy": []}
    for start in range(0, n_sets + 1, chunk):
        block = all_sets[:, start:start + chunk]                                        # (S, chunk, H)
        copies.set_head_mask((~block).float().reshape(S * chunk, L, nh))
        for name, offset in (("clean", None), ("noisy", noise.repeat_interleave(chunk, dim=0))):
            copies.offset = offset
            with torch.no_grad():
                set_accuracy[name].append(evaluate_batched(copies, *test_set)[1].view(S, chunk))
    clean_cost = full_accuracy[:, None] - torch.cat(set_accuracy["clean"], dim=1)      # (S, 1 + N)
    set_noise_cost = (noisy_full[:, None] - torch.cat(set_accuracy["noisy"], dim=1)) - clean_cost
    covariates = torch.stack([clean_cost, all_sets.sum(dim=2).float()], dim=2)          # (S, 1 + N, 2)
    test = above_reference(set_noise_cost[:, 0], covariates[:, 0], set_noise_cost[:, 1:], covariates[:, 1:])
    return {**test, "clean_cost": clean_cost, "noise_cost": set_noise_cost}
