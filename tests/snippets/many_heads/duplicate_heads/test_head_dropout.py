"""Why heads differ (3), C11: does dropping whole heads in training make them carry
complementary information? The computations behind the numbers; the verdict is the rule's."""

import numpy as np


def test_the_seed_counts_are_per_seed_comparisons_of_the_two_arms(results):
    r = results("many_heads.duplicate_heads.head_dropout")
    none, dropout = np.float32(r.per_seed("r2_none_mean")), np.float32(r.per_seed("r2_dropout_mean"))
    # less_redundant_seeds keeps each seed's change of R^2 (with dropout minus without) and
    # counts the seeds where it is below 0: where dropout lowered R^2.
    change = np.float64(r.per_seed("less_redundant_seeds"))
    assert r.data["numbers"]["less_redundant_seeds"]["of"] == "count_below"
    assert r.data["numbers"]["less_redundant_seeds"]["line"] == 0.0
    assert change.tolist() == (dropout - none).astype(float).tolist()
    assert ((change < 0) == (dropout < none)).all() and r.number("less_redundant_seeds") == (dropout < none).sum()
    none = np.float32(r.per_seed("ablation_cost_none_mean"))
    dropout = np.float32(r.per_seed("ablation_cost_dropout_mean"))
    assert r.per_seed("cheaper_ablation_seeds") == (dropout < none).astype(float).tolist()


def test_r2_on_held_out_sentences_is_at_most_one(results):
    # R^2 = 1 - residual / total: at most 1 (a perfect prediction); below 0 on held-out
    # sentences only when the fit predicts worse than the mean.
    r = results("many_heads.duplicate_heads.head_dropout")
    for value in r.per_seed("r2_none_mean") + r.per_seed("r2_dropout_mean"):
        assert value <= 1 + 1e-6


def test_exercise_answers_are_loss_rises_from_a_non_negative_loss(results):
    # A cross-entropy is never negative, so removing heads can lower the loss by at most
    # the full model's loss: a rise of at least -loss.
    r = results("many_heads.duplicate_heads.head_dropout")
    assert r.number("exercise_pair_ablation_cost_none_mean") >= -r.number("loss_none_mean")
    assert r.number("exercise_pair_ablation_cost_dropout_mean") >= -r.number("loss_dropout_mean")


# C11's planted check, version 2 (explainer.pattern_hinge).
def _hinge_module():
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[4]
    for path in (str(root / "snippets"), str(root)):
        if path not in sys.path:
            sys.path.insert(0, path)
    import explainer  # noqa: F401 — first: it pins torch's CPU kernels
    from explainer import pattern_hinge
    return pattern_hinge


def _model(seeds=(0, 1)):
    import random
    from explainer.pronoun_language import SENTENCE_LENGTH, VOCAB, batch
    from explainer.tiny_transformer import TransformerConfig
    ph = _hinge_module()
    config = TransformerConfig(vocab_size=len(VOCAB), n_ctx=SENTENCE_LENGTH, d_model=32, n_heads=4)
    tokens, targets, _ = batch(random.Random(5), 24)
    return ph, ph.PatternHinge.from_seeds(config, list(seeds)), tokens, targets


def test_the_recomputed_weights_are_the_forward_passes():
    import torch
    ph, model, tokens, _ = _model()
    with torch.no_grad():
        model(tokens)
    assert model.last_tokens.shape == (2, *tokens.shape)
    assert torch.allclose(ph.attention_weights(model, model.last_tokens), model.last_weights, atol=1e-6)


def test_the_scored_rows_are_the_two_adverbs_and_it_which_carry_the_targets():
    import torch
    from explainer.pronoun_language import ADVERBS, ID
    from explainer.training import IGNORE
    ph, _, tokens, targets = _model()
    where = ph.scored_positions(tokens)                                    # (B, 3)
    assert where.shape == (len(tokens), 3)
    words = tokens.gather(1, where)
    assert all(w in [ID[a] for a in ADVERBS] for w in words[:, :2].flatten().tolist())
    assert (words[:, 2] == ID["it"]).all()
    assert torch.equal(where, torch.stack([torch.nonzero(row != IGNORE).flatten() for row in targets]))


def test_the_scored_similarity_is_pattern_similarity_on_those_rows():
    import torch
    from explainer.head_metrics import pattern_similarity
    ph, model, tokens, _ = _model()
    weights = torch.rand(2, len(tokens), 4, tokens.shape[1], tokens.shape[1])
    expanded = tokens.expand(2, *tokens.shape)
    where = ph.scored_positions(tokens)
    for m in range(2):
        rows = weights[m, torch.arange(len(tokens))[:, None], :, where].transpose(1, 2)  # (B, nh, 3, T)
        similarity = pattern_similarity(rows)
        expected = similarity[~torch.eye(4, dtype=torch.bool)].mean()
        assert torch.allclose(ph.scored_similarity(weights, expanded)[m], expected)


def test_the_hinge_is_zero_with_no_gradient_once_its_margin_is_met():
    import torch
    ph, model, tokens, _ = _model()
    model(tokens)
    s = ph.similarity_on(model, tokens)                                    # (M,)
    for targets, zero in ((s / 0.9 + 0.01, True), (s / 0.9 - 0.01, False)):
        model.zero_grad()
        penalty = ph.hinge(model, targets, 10.0)
        penalty.sum().backward()
        grads = [p.grad for p in (model.W_Q, model.W_K) if p.grad is not None]
        if zero:
            assert torch.equal(penalty, torch.zeros(2)) and all(g.abs().sum() == 0 for g in grads)
        else:
            assert torch.allclose(penalty, 10 * (s - 0.9 * targets), atol=1e-5) and (penalty > 0).all()
            assert any(g.abs().sum() > 0 for g in grads)


def test_the_planted_counts_add_up(results):
    r = results("many_heads.duplicate_heads.head_dropout")
    n = r.number("planted_draws")
    assert n == 32
    valid = r.number("planted_valid_draws")
    assert valid <= min(r.number(k) for k in ("planted_hinge_met_draws", "planted_heads_all_used_draws",
                                              "planted_less_duplicated_draws",
                                              "planted_less_duplicated_than_dropout_draws"))
    assert r.number("planted_detected") <= min(valid, r.number("planted_less_redundant_draws"))
    assert r.number("planted_detection_share") == r.number("planted_detected") / n
    assert r.number("planted_lambda") in (1, 10, 100) and r.number("planted_margin") == 0.9
