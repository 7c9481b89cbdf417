"""Why heads differ (1), C09's planted check: the pull that puts one copied head into the entity
role (explainer/entity_pull.py) and the recorded counts; the verdict is the rule's
(docs/claims.yml)."""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer.batched import StackedTransformer, per_model, train_batched  # noqa: E402
from explainer.entity_pull import attention_at, entity_pull  # noqa: E402
from explainer.head_metrics import attention_to  # noqa: E402
from explainer.pronoun_language import SENTENCE_LENGTH, VOCAB, batch, task  # noqa: E402
from explainer.tiny_transformer import TransformerConfig  # noqa: E402

CONFIG = TransformerConfig(vocab_size=len(VOCAB), n_ctx=SENTENCE_LENGTH, d_model=32, n_heads=2)


def copies(seeds):
    """Models whose head 1 is an exact copy of head 0."""
    model = StackedTransformer.from_seeds(CONFIG, seeds)
    hs = model.head_size
    with torch.no_grad():
        for name in ("W_Q", "W_K", "W_V"):
            getattr(model, name)[:, hs:2 * hs] = getattr(model, name)[:, :hs]
        model.W_O[:, :, hs:2 * hs] = model.W_O[:, :, :hs]
    return model


def gap(model) -> torch.Tensor:
    heads = model.head_parameters()                                    # (M, nh, P)
    return (heads[:, 1] - heads[:, 0]).abs().amax(dim=-1)              # (M,)


def test_attention_at_is_the_forward_passes_attention_and_the_pull_reaches_only_the_pulled_head():
    torch.set_num_threads(1)
    tokens, _, places = batch(random.Random(5), 20)
    it_at, animal_at, _ = places.T
    model = StackedTransformer.from_seeds(CONFIG, [0, 1, 2])
    model.eval()
    model(tokens)
    expected = per_model(attention_to, model.last_weights, it_at, animal_at)    # (M, nh)
    assert torch.allclose(attention_at(model, tokens, it_at, animal_at), expected, atol=1e-6)
    # weight 0, then head 1 pulled, then head 0 pulled: gradient only in that head's W_Q and W_K.
    pull = entity_pull(tokens, it_at, animal_at, torch.tensor([0, 1, 0]), torch.tensor([0.0, 1.0, 1.0]))
    loss = pull(model)
    assert loss[0] == 0 and (loss[1:] > 0).all()                        # untrained heads sit below 0.55
    loss.sum().backward()
    for name in ("W_Q", "W_K"):
        per_head = getattr(model, name).grad.view(3, 2, -1).abs().sum(-1)       # (M, nh)
        assert per_head[0].tolist() == [0, 0]
        assert per_head[1, 0] == 0 and per_head[1, 1] > 0
        assert per_head[2, 0] > 0 and per_head[2, 1] == 0
    for name in ("W_V", "W_O", "token_embedding", "position_embedding"):
        grad = getattr(model, name).grad
        assert grad is None or (grad == 0).all(), name
    # Past the target the hinge is zero: nothing left to pull.
    assert (entity_pull(tokens, it_at, animal_at, torch.tensor([0, 1, 0]), torch.ones(3), target=0.0)(model) == 0).all()


def test_a_pulled_copy_parts_from_its_twin_which_stays_bit_identical():
    # The same draw twice, head 1 copied from head 0; only model 1 is pulled (head 0). The
    # unpulled twin's heads stay bit-identical (a weight of 0 adds nothing), the pulled pair
    # parts, and its pulled head attends from "it" to the animal more than the other head.
    torch.set_num_threads(1)
    tokens, _, places = batch(random.Random(777), 64)
    it_at, animal_at, _ = places.T
    model = copies([3, 3])
    pull = entity_pull(tokens, it_at, animal_at, torch.tensor([0, 0]), torch.tensor([0.0, 10.0]))
    train_batched(model, task, steps=40, batch_size=16, data_seeds=[3, 3], extra_loss=pull)
    assert gap(model)[0] == 0 and gap(model)[1] > 0
    with torch.no_grad():
        pulled = attention_at(model, tokens, it_at, animal_at)[1]           # (nh,)
    assert pulled[0] > pulled[1]


def test_the_recorded_counts_follow_from_the_draws(results):
    r = results("many_heads.why_heads_differ.head_symmetry_planted")
    draws = r.number("planted_draws")
    valid, pattern, view = (r.number(k) for k in ("planted_valid_draws", "planted_pattern_detected_draws",
                                                  "planted_view_detected_draws"))
    detected = r.number("planted_detection_share") * draws
    assert abs(detected - round(detected)) < 1e-6                        # a share of whole draws
    assert max(pattern, view) <= round(detected) <= min(valid, pattern + view)   # either similarity detects
    assert r.number("planted_pull_weight") in (1.0, 10.0, 100.0)
    for key in ("planted_similarity_mean", "planted_view_similarity_mean", "planted_pulled_entity_mean",
                "planted_other_entity_mean"):
        assert 0 <= r.number(key) <= 1, key
