"""The seeded model (a seed dimension on every parameter) is S copies of TinyTransformer,
and training S seeds together trains each as if alone."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "snippets"))
from explainer.first_and_previous import near_and_far  # noqa: E402
from explainer.seeded_training import SeededTrainingConfig, train_seeds  # noqa: E402
from explainer.seeded_transformer import SeededTransformer  # noqa: E402
from explainer.tiny_transformer import TinyTransformer, TransformerConfig  # noqa: E402

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
        train_seeds(model, lambda generator, size: next(fixed), SeededTrainingConfig(steps=3, batch_size=8))
        return model.W_Q[0].detach()

    assert torch.allclose(seed0_after_training(1), seed0_after_training(2), atol=1e-6)
