"""explainer/stacked_transformer.py: many seeds in one batched model train like separate models."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "snippets"))
from explainer.first_and_previous import T, V, near_and_far  # noqa: E402
from explainer.stacked_transformer import StackedTransformer, train_stacked  # noqa: E402
from explainer.tiny_transformer import TinyTransformer, TransformerConfig  # noqa: E402
from explainer.training import TrainingConfig, train  # noqa: E402


def test_each_stacked_model_trains_like_the_same_model_alone():
    torch.set_num_threads(1)
    config = TransformerConfig(vocab_size=V, n_ctx=T, d_model=16, n_heads=2)
    stacked = StackedTransformer.from_seeds(config, [3, 4])
    stacked_losses = train_stacked(stacked, near_and_far, steps=30, batch_size=16, data_seeds=[0, 1])
    for m, seed in enumerate([3, 4]):
        torch.manual_seed(seed)
        alone = TinyTransformer(config)
        losses = train(alone, near_and_far, TrainingConfig(steps=30, batch_size=16, seed=m))
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
