"""Why heads differ (5), C12: free, shared, capacity-matched shared and noisy-copy heads.
The computations behind the numbers, on small inputs; the verdict is the rule's (docs/claims.yml)."""

import random
import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "snippets"))
from explainer.alike_heads import noisy_copies, parameters_in_use  # noqa: E402
from explainer.batched import StackedTransformer, train_batched  # noqa: E402
from explainer.pronoun_language import SENTENCE_LENGTH, VOCAB, batch  # noqa: E402
from explainer.tiny_transformer import TinyTransformer, TransformerConfig  # noqa: E402
from explainer.training import sample_from  # noqa: E402

SNIPPET = ROOT / "snippets" / "many_heads" / "duplicate_heads" / "division_of_labour_test.py"
SHARED_HEADS = ROOT / "snippets" / "many_heads" / "duplicate_heads" / "shared_heads.py"
CONFIG = TransformerConfig(vocab_size=len(VOCAB), n_ctx=SENTENCE_LENGTH, d_model=8, n_heads=2)


def sentences(n=64, seed=1):
    tokens, targets, _ = batch(random.Random(seed), n)
    return tokens, targets


def test_the_arms_use_the_settings_of_shared_heads():
    shared_heads, ours = SHARED_HEADS.read_text(), SNIPPET.read_text()
    for setting in ("STEPS, EVERY = 600, 25", "batch(random.Random(0), 8192)", "batch(random.Random(1234), 400)",
                    "d_model=32, n_heads=2", "batch_size=16", "cosine_decay=True", "SEEDS = list(range(n_seeds(8)))"):
        assert setting in shared_heads and setting in ours, setting


def test_the_wide_model_has_the_free_models_parameters_in_use_and_shared_heads_fewer():
    model = StackedTransformer.from_seeds(CONFIG, [0, 0, 0])
    model.shared[1] = True
    model.wide[2] = True
    free, shared, wide = parameters_in_use(model, *sentences()).tolist()
    C, hs = CONFIG.d_model, CONFIG.d_model // CONFIG.n_heads
    assert wide == free
    assert free - shared == 3 * hs * C            # head 1's W_Q, W_K, W_V slices are never read


def test_the_wide_models_head_slots_are_one_head_as_wide_as_the_model():
    # Both slots attend alike, and the model computes what a 1-head model from the same draw computes.
    model = StackedTransformer.from_seeds(CONFIG, [3])
    model.wide[0] = True
    model.eval()
    tokens, _ = sentences()
    logits = model(tokens)[0]
    assert torch.equal(model.last_weights[0, :, 0], model.last_weights[0, :, 1])
    torch.manual_seed(3)
    one_head = TinyTransformer(TransformerConfig(vocab_size=len(VOCAB), n_ctx=SENTENCE_LENGTH, d_model=8,
                                                 n_heads=1)).eval()
    assert torch.allclose(logits, one_head(tokens), atol=1e-5)


def test_the_wide_flag_leaves_the_other_models_unchanged():
    tokens, _ = sentences()
    plain = StackedTransformer.from_seeds(CONFIG, [0, 1]).eval()
    mixed = StackedTransformer.from_seeds(CONFIG, [0, 1]).eval()
    mixed.wide[1] = True
    assert torch.equal(plain(tokens)[0], mixed(tokens)[0])
    assert not torch.allclose(plain(tokens)[1], mixed(tokens)[1])


def trained_syntax_model():
    source = StackedTransformer.from_seeds(CONFIG, [5])
    source.shared[0] = True
    train_batched(source, sample_from(*sentences(256)), steps=20, batch_size=16)
    return source.eval()


def test_noiseless_copies_compute_what_the_copied_model_computes():
    source = trained_syntax_model()
    model = StackedTransformer.from_seeds(CONFIG, [0]).eval()
    noisy_copies(model, [0], source, [0], 0.0, torch.Generator().manual_seed(0))
    tokens, _ = sentences()
    assert torch.allclose(model(tokens)[0], source(tokens)[0], atol=1e-5)
    for name in ("W_Q", "W_K", "W_V", "W_O"):
        slices = model.head_slices(name)[0]
        assert torch.equal(slices[0], slices[1])
    assert not model.shared[0] and not model.wide[0]


def test_noisy_copies_start_as_copies_within_the_noise():
    source = trained_syntax_model()
    model = StackedTransformer.from_seeds(CONFIG, [0])
    noise = 0.1
    noisy_copies(model, [0], source, [0], noise, torch.Generator().manual_seed(0))
    for name in ("W_Q", "W_K", "W_V", "W_O"):
        original = source.head_slices(name)[0]
        one = original.sum(0) / 2 if name == "W_O" else original[0]     # what each copy copies
        size = one.pow(2).mean().sqrt()
        for copy in model.head_slices(name)[0]:
            deviation = (copy - one).pow(2).mean().sqrt() / size
            assert 0.5 * noise < deviation < 1.5 * noise, (name, float(deviation))
        copies = model.head_slices(name)[0]
        assert not torch.equal(copies[0], copies[1])     # each copy has noise of its own
    for name in ("token_embedding", "position_embedding", "unembed", "unembed_bias"):
        assert torch.equal(getattr(model, name)[0], getattr(source, name)[0])


def test_counts_are_the_per_seed_comparisons(results):
    r = results("many_heads.duplicate_heads.division_of_labour_test")
    # The snippet compares float32 losses with float32 thresholds: so does the test.
    loss = {arm: np.float32(r.per_seed(f"loss_{arm}_mean")) for arm in ("free", "shared", "wide", "noisy")}
    median = float(np.median(loss["free"]))
    assert np.isclose(r.number("loss_free_median"), median)
    margin = np.float32(r.number("margin"))
    both = (loss["shared"] - loss["free"] >= margin) & (loss["wide"] - loss["free"] >= margin)
    assert r.per_seed("free_lower_than_both_seeds") == both.astype(float).tolist()
    for arm in ("shared", "wide"):
        near = loss[arm] <= np.float32(median + r.number("margin"))
        assert r.per_seed(f"{arm}_near_free_median_seeds") == near.astype(float).tolist()
    assert r.number("parameters_wide") == r.number("parameters_free") > r.number("parameters_shared")
    assert r.number("wide_pattern_gap") == 0.0
    moved, started = r.per_seed("noisy_moves_seeds"), r.per_seed("syntax_head_previous_seeds")
    assert all(m <= s for m, s in zip(moved, started))   # a move needs a syntax start


def test_the_gaps_are_each_seeds_loss_minus_the_free_heads_and_the_long_pass_doubles_the_steps(results):
    r = results("many_heads.duplicate_heads.division_of_labour_test")
    free = np.array(r.per_seed("loss_free_mean"))
    for arm in ("shared", "wide"):
        gap = np.array(r.per_seed(f"gap_{arm}_mean"))
        assert np.allclose(gap, np.array(r.per_seed(f"loss_{arm}_mean")) - free, atol=1e-6)
        assert r.per_seed(f"gap_{arm}_ci95_high") == r.per_seed(f"gap_{arm}_mean")
        assert r.per_seed(f"gap_{arm}_it_ci95_high") == r.per_seed(f"gap_{arm}_it_mean")
        change = r.per_seed(f"gap_{arm}_long_change")          # per seed: the gap at 1,200 steps minus at 600
        assert len(change) == len(gap) and np.isclose(np.mean(change), r.number(f"gap_{arm}_long_change"))
    learned = [float(a >= 0.9) for a in r.per_seed("accuracy_free_it_mean")]
    assert r.per_seed("free_it_learned_seeds") == learned
    assert r.number("steps_long") == 2 * r.number("steps")
