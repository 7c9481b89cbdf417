"""C25's planted arms, version 2 (explainer/planted_pruning.py, run by
many_heads.pruning.backup_or_noise_planted): the plants are what the proposal and its review say,
on small models and inputs; the recorded counts add up. The verdict is the rule's (docs/claims.yml)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer.batched import SeededTransformer, train_batched  # noqa: E402
from explainer.planted_pruning import (NoiseSmoothers, PartialBackups, pair_schedule, partner,  # noqa: E402
                                       plain)
from explainer.removable_heads import GRID  # noqa: E402
from explainer.tiny_transformer import TransformerConfig  # noqa: E402

CONFIG = TransformerConfig(vocab_size=12, n_ctx=6, d_model=16, n_heads=4, n_layers=2)
HS = CONFIG.d_model // CONFIG.n_heads


def tokens(batch=8, seed=0):
    return torch.randint(0, CONFIG.vocab_size, (batch, CONFIG.n_ctx), generator=torch.Generator().manual_seed(seed))


def task(generator, batch_size):
    x = torch.randint(0, CONFIG.vocab_size, (batch_size, CONFIG.n_ctx), generator=generator)
    return x, x.roll(1, dims=1)


def test_partners_are_j_and_j_plus_half_the_heads_of_the_same_layer():
    assert partner(2, 8).tolist() == [4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11]
    p = partner(3, 4)
    assert torch.equal(p[p], torch.arange(12)) and (p != torch.arange(12)).all()
    assert torch.equal(p // 4, torch.arange(12) // 4)                     # never across layers


def test_the_pair_schedule_never_switches_a_pair_off_and_the_key_only_when_the_first_token_is_low():
    u = torch.tensor([0.1, 0.6, 0.8, 0.8]).view(1, 1, 4, 1).expand(1, 1, 4, 1)
    first = torch.tensor([[7, 7, 2, 7]])                                  # (S, B)
    mask = pair_schedule(u, first)                                        # (1, 1, 4, 2): key, backup
    assert mask[0, 0].tolist() == [[1, 1], [1, 0], [0, 1], [1, 0]]
    g = torch.Generator().manual_seed(0)
    u = torch.rand(3, 2, 40000, 4, generator=g)
    first = torch.randint(0, 10, (3, 40000), generator=g)
    mask = pair_schedule(u, first)                                        # (3, 2, B, 8)
    keys, backups = mask[..., :4], mask[..., 4:]
    assert ((keys + backups) >= 1).all()                                  # a pair is never fully off
    high = (first >= 5)[:, None, :, None].expand_as(keys)
    assert keys[high].eq(1).all()                                         # key never off when x0 >= 5
    low = ~high
    assert abs((1 - keys[low]).mean().item() - 0.25) < 0.01               # key off a quarter of the low rows
    assert abs(backups[high].mean().item() - 0.5) < 0.01                  # backup on only in "both on"
    assert abs(backups[low].mean().item() - 0.75) < 0.01


def test_the_schedule_reads_each_sequences_first_token_and_draws_fresh_each_step():
    plant = PartialBackups(CONFIG, [0, 1])
    x = tokens(batch=64).expand(2, 64, CONFIG.n_ctx)
    first, second = plant.training_mask(x), plant.training_mask(x)        # (S, L, B, nh)
    assert first.shape == (2, 2, 64, 4) and not torch.equal(first, second)
    keys_off = first[..., :2] == 0
    assert not keys_off[:, :, x[0, :, 0] > 4].any()


def test_every_value_block_has_rank_one_the_top_singular_pair_of_the_draw():
    plant = PartialBackups(CONFIG, [3])
    drawn = SeededTransformer(CONFIG, [3])
    for layer in range(CONFIG.n_layers):
        for head in range(CONFIG.n_heads):
            block = plant.W_V.detach()[0, layer, :, head * HS:(head + 1) * HS]      # (C, hs)
            assert torch.linalg.matrix_rank(block) == 1
            U, sigma, Vh = torch.linalg.svd(drawn.W_V[0, layer, :, head * HS:(head + 1) * HS])
            assert torch.allclose(block, sigma[0] * torch.outer(U[:, 0], Vh[0]), atol=1e-6)
    for name in ("W_Q", "W_K", "W_O", "token_embedding", "W_unembed"):
        assert torch.equal(getattr(plant, name), getattr(drawn, name))
    train_batched(plant, task, steps=3, batch_size=8)
    block = plant.W_V.detach()[0, 1, :, :HS]
    assert torch.linalg.matrix_rank(block) == 1                            # still rank 1 after training


def test_the_silent_heads_write_nothing_before_and_after_training():
    lowest = torch.tensor([2, 8])
    plant = NoiseSmoothers(CONFIG, [0, 1], smoothers=[3, 7], silent=[2, 6], lowest=lowest)
    drawn = SeededTransformer(CONFIG, [0, 1])
    train_batched(plant, task, steps=5, batch_size=8)
    W_O = plant.W_O.detach().view(2, 2, 4, HS, CONFIG.d_model)             # (S, L, nh, hs, C)
    assert W_O[:, :, 2].eq(0).all()                                        # head 2 of each layer
    assert W_O[:, :, :2].ne(0).all() and not torch.equal(plant.W_Q, drawn.W_Q)


def test_the_smoothers_are_off_on_the_clean_half_only():
    plant = NoiseSmoothers(CONFIG, [0, 1], smoothers=[1, 6], silent=[], lowest=torch.tensor([0, 0]))
    mask = plant.training_mask(tokens(batch=10).expand(2, 10, CONFIG.n_ctx))     # (S, L, B, nh)
    assert (mask[:, 0, :5, 1] == 0).all() and (mask[:, 1, :5, 2] == 0).all()     # 6 = layer 1, head 2
    assert mask[:, :, 5:].eq(1).all() and mask.sum() == mask.numel() - 2 * 2 * 5


def test_noisy_levels_lie_on_the_draws_step_and_above_and_the_noise_scales_with_the_clean_rms():
    lowest = torch.tensor([3, 8])
    plant = NoiseSmoothers(CONFIG, [0, 1], smoothers=[], silent=[], lowest=lowest)
    levels = plant.training_levels(2, 20000)                               # (S, n)
    assert levels[0].min() == 3 and levels[0].max() == len(GRID) - 1
    assert levels[1].eq(8).all()
    counts = torch.bincount(levels[0], minlength=len(GRID))[3:].float()
    assert (abs(counts / counts.sum() - 1 / 6) < 0.015).all()
    x = torch.zeros(2, 4000, CONFIG.n_ctx, dtype=torch.long)
    plant.eval()
    clean = plant.embed(x)
    plant.train()
    noisy = plant.embed(x)
    assert torch.equal(noisy[:, :2000], clean[:, :2000])                    # the clean half
    rms = clean.pow(2).mean(dim=(1, 2, 3)).sqrt()
    measured = (noisy[1, 2000:] - clean[1, 2000:]).std()                   # draw 1: always the top level
    assert torch.allclose(measured, GRID[8] * rms[1], rtol=0.02)


def test_plain_copies_the_effective_weights_and_evaluates_like_the_plant():
    plant = PartialBackups(CONFIG, [0, 1])
    net = plain(plant)
    assert torch.equal(net.W_V, plant.W_V.detach()) and torch.equal(net.W_O, plant.W_O.detach())
    x = tokens()
    plant.eval()
    with torch.no_grad():
        assert torch.allclose(net(x), plant(x), atol=1e-6)


def test_the_counts_add_up(results):
    r = results("many_heads.pruning.backup_or_noise_planted")
    n = r.number("planted_draws")
    assert n == 32 and r.number("n_seeds") == n
    detected = (r.number("planted_backup_detected"), r.number("planted_smoothing_detected"))
    assert r.number("planted_detection_share") == min(detected) / n
    valid = (r.number("planted_backup_on_bar_draws"), r.number("planted_smoothing_took_draws"))
    assert r.number("planted_valid_draws") == min(valid)
    # detected = valid and the rule's test fires: at most each
    assert detected[0] <= min(valid[0], r.number("planted_backup_test_draws"))
    assert detected[1] <= min(valid[1], r.number("planted_smoothing_test_draws"))
    assert valid[0] + r.number("planted_backup_off_bar_draws") <= n
    assert valid[1] + r.number("planted_smoothing_off_bar_draws") <= n
    assert valid[1] <= r.number("planted_smoothers_in_removable_draws")
