"""explainer/batched.py: many models in one batched model compute and train like separate models."""

import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
from explainer.batched import (SeededTransformer, StackedTransformer, evaluate_batched,  # noqa: E402
                               losses_on, train_batched)
from explainer.first_and_previous import T, V, near_and_far  # noqa: E402
from explainer.tiny_transformer import TinyTransformer, TransformerConfig  # noqa: E402
from explainer.training import IGNORE  # noqa: E402

CONFIG = TransformerConfig(vocab_size=12, n_ctx=10, d_model=16, n_heads=4, n_layers=2, d_mlp=8)


def copy_into(seeded: SeededTransformer, s: int, model: TinyTransformer) -> None:
    with torch.no_grad():
        seeded.token_embedding[s] = model.token_embedding.weight
        seeded.position_embedding[s] = model.position_embedding.weight
        for layer, block in enumerate(model.blocks):
            for name in "QKVO":
                getattr(seeded, f"W_{name}")[s, layer] = getattr(block.attention, f"W_{name}").weight.T
            seeded.W_in[s, layer], seeded.b_in[s, layer] = block.mlp[0].weight.T, block.mlp[0].bias
            seeded.W_out[s, layer], seeded.b_out[s, layer] = block.mlp[2].weight.T, block.mlp[2].bias
        seeded.W_unembed[s], seeded.b_unembed[s] = model.unembed.weight.T, model.unembed.bias


def train_alone(model: TinyTransformer, task, steps: int, batch_size: int, data_seed: int) -> list[float]:
    """The reference: one model, plain AdamW with the same warm-up, its own stream of batches."""
    generator = torch.Generator().manual_seed(data_seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.0)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 20))
    model.train()
    losses = []
    for _ in range(steps):
        tokens, targets = task(generator, batch_size)
        loss = F.cross_entropy(model(tokens).flatten(0, 1), targets.flatten(), ignore_index=IGNORE)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        losses.append(loss.item())
    return losses


def test_each_seed_computes_what_tiny_transformer_computes_with_its_weights():
    torch.manual_seed(0)
    reference = TinyTransformer(CONFIG)
    seeded = SeededTransformer(CONFIG, seeds=[0, 1, 2])
    copy_into(seeded, 1, reference)
    tokens = torch.randint(CONFIG.vocab_size, (5, CONFIG.n_ctx))
    mask = torch.ones(3, 2, 4)
    mask[1, 0, 2] = 0
    seeded.set_head_mask(mask)
    reference.set_head_mask(mask[1])
    with torch.no_grad():
        assert torch.allclose(seeded(tokens)[1], reference(tokens), atol=1e-5)
        assert torch.allclose(seeded.attention_weights()[1][1], reference.attention_weights()[1], atol=1e-6)


def test_seeds_train_independently_of_each_other():
    # Seed 0 trained alongside seed 1 ends where seed 0 trained alongside seed 2 ends,
    # given the same batches: nothing leaks between seeds.
    def seed0_after_training(partner):
        model = SeededTransformer(CONFIG, seeds=[0, partner])
        batches = near_and_far(torch.Generator().manual_seed(5), 2 * 8 * 3)
        fixed = iter([(batches[0][i:i + 16], batches[1][i:i + 16]) for i in range(0, 48, 16)])
        train_batched(model, lambda generator, size: next(fixed), steps=3, batch_size=8)
        return model.W_Q[0].detach()

    assert torch.allclose(seed0_after_training(1), seed0_after_training(2), atol=1e-6)


def test_one_stream_gives_each_model_its_own_slice_of_every_draw():
    # Default data option: each step draws M x B examples from one stream; model m gets rows
    # m*B:(m+1)*B. Recorded through the task itself, so a loop that gave every model the
    # same rows, or reordered them, fails.
    drawn = []

    def task(generator, size):
        tokens, targets = near_and_far(generator, size)
        drawn.append(tokens)
        return tokens, targets

    model = SeededTransformer(CONFIG, seeds=[0, 1, 2])
    seen = []
    original_forward = model.forward
    model.forward = lambda tokens: seen.append(tokens.clone()) or original_forward(tokens)
    train_batched(model, task, steps=2, batch_size=4)
    assert [len(d) for d in drawn] == [12, 12]
    for tokens, step_tokens in zip(drawn, seen):
        assert step_tokens.shape == (3, 4, tokens.shape[-1])
        assert torch.equal(step_tokens.reshape(12, -1), tokens)


def test_each_stacked_model_trains_like_the_same_model_alone():
    torch.set_num_threads(1)
    config = TransformerConfig(vocab_size=V, n_ctx=T, d_model=16, n_heads=2)
    stacked = StackedTransformer.from_seeds(config, [3, 4])
    stacked_losses = train_batched(stacked, near_and_far, steps=30, batch_size=16, data_seeds=[0, 1])
    for m, seed in enumerate([3, 4]):
        torch.manual_seed(seed)
        alone = TinyTransformer(config)
        losses = train_alone(alone, near_and_far, steps=30, batch_size=16, data_seed=m)
        assert torch.allclose(stacked_losses[:, m], torch.tensor(losses), atol=1e-4)
        assert torch.allclose(stacked.W_Q[m], alone.attentions[0].W_Q.weight, atol=1e-4)


def test_shared_models_use_head_0_for_every_head():
    config = TransformerConfig(vocab_size=V, n_ctx=T, d_model=16, n_heads=2)
    stacked = StackedTransformer.from_seeds(config, [0, 0])
    stacked.shared[1] = True
    tokens, _ = near_and_far(torch.Generator().manual_seed(0), 8)
    stacked.eval()
    stacked(tokens)
    weights = stacked.last_weights                                   # (M, B, nh, T, T)
    assert torch.equal(weights[1, :, 0], weights[1, :, 1])
    assert not torch.allclose(weights[0, :, 0], weights[0, :, 1])


def test_losses_on_is_each_models_mean_cross_entropy_in_both_layouts():
    # Known answer: the mean over scored positions of -log softmax at the target, per model.
    logits = torch.randn(3, 4, 5, 7, generator=torch.Generator().manual_seed(0))   # (M, B, T, V)
    targets = torch.randint(7, (3, 4, 5), generator=torch.Generator().manual_seed(1))
    targets[0, :, :2] = IGNORE
    targets[2, 1] = IGNORE
    log_p = logits.log_softmax(-1)
    for m in range(3):
        scored = targets[m] != IGNORE
        expected = -log_p[m][scored].gather(-1, targets[m][scored][:, None]).mean()
        for classes_last in (True, False):
            assert torch.allclose(losses_on(logits, targets, classes_last)[m], expected, atol=1e-6)


def test_evaluate_counts_correct_scored_positions_and_restores_the_mode():
    config = TransformerConfig(vocab_size=V, n_ctx=T, d_model=16, n_heads=2)
    model = StackedTransformer.from_seeds(config, [0, 1])
    tokens, targets = near_and_far(torch.Generator().manual_seed(0), 8)
    model.eval()
    predicted = model(tokens).argmax(-1)                              # (M, B, T)
    targets = targets.clone()
    targets[:, :3] = IGNORE
    model.train()
    _, accuracy = evaluate_batched(model, tokens, targets)
    assert model.training
    for m in range(2):
        scored = targets != IGNORE
        expected = (predicted[m][scored] == targets[scored]).float().mean()
        assert torch.allclose(accuracy[m], expected)
