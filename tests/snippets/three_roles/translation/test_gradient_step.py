"""The first gradient step in the translation toy (C38): the computations behind the numbers;
the verdict is the rule's (docs/claims.yml)."""

import functools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "snippets"))
sys.path.insert(0, str(ROOT))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer import translation_toy  # noqa: E402
from tools.running import notebooks  # noqa: E402

SNIPPET = ROOT / "snippets" / "three_roles" / "translation" / "gradient_step.py"
PAGE_SNIPPET = ROOT / "snippets" / "three_roles" / "translation.py"
QK = ["enc_self.W_Q.weight", "enc_self.W_K.weight"]


@functools.cache
def page_toy() -> dict:
    """The translation page's own cells that define the toy, run without training."""
    return notebooks.run_tagged(PAGE_SNIPPET, {"corpora", "model", "stacked", "train"})


@functools.cache
def step() -> dict:
    """The snippet's gradient_step cell, on the shared toy."""
    namespace = dict(vars(translation_toy))
    for cell in notebooks.read_cells(SNIPPET.read_text(encoding="utf-8")):
        if cell.kind == "code" and "gradient_step" in cell.tags:
            exec(compile(cell.source, str(SNIPPET), "exec"), namespace)
    return namespace


def models(seeds=(0, 1), arm="object_dependent", dtype=torch.float32):
    """Step-0 models of one arm and their targets."""
    params, _, arm_of = translation_toy.make_models(list(seeds))
    mine = arm_of == list(translation_toy.ARMS).index(arm)
    tgt = tuple(x[mine] for x in translation_toy.model_targets(arm_of))
    return {k: v[mine].detach().to(dtype) for k, v in params.items()}, tgt


# --- the same toy as the translation page -------------------------------------------------------

def test_the_shared_toy_is_the_translation_pages_toy():
    page = page_toy()
    for name in ("sources", "held_out", "train_rows", "SRC", "TGT", "MAX_TGT"):
        assert getattr(translation_toy, name) == page[name], name
    ours, _, arm_ours = translation_toy.make_models([3, 5])
    theirs, _, arm_theirs = page["make_models"]([3, 5])
    assert ours.keys() == theirs.keys() and torch.equal(arm_ours, arm_theirs)
    assert all(torch.equal(ours[k], theirs[k]) for k in ours)
    tgt = translation_toy.model_targets(arm_ours)
    assert all(torch.equal(a, b) for a, b in zip(tgt, page["model_targets"](arm_theirs)))
    rows = list(range(10))
    with torch.no_grad():
        memory, weights = translation_toy.encode(ours, translation_toy.src_all[rows])
        page_memory, page_weights = page["encode"](theirs, page["src_all"][rows])
        tgt_in, _ = translation_toy.batch_targets(tgt, rows)
        logits = translation_toy.decode(ours, memory, tgt_in, reads=tgt[2])[0]
        page_logits = page["decode"](theirs, page_memory, tgt_in, reads=tgt[2])[0]
    assert torch.equal(memory, page_memory) and torch.equal(weights, page_weights)
    assert torch.equal(logits, page_logits)
    translation_toy.train(ours, tgt, 3)
    page["train"](theirs, tgt, 3)
    assert all(torch.equal(ours[k], theirs[k]) for k in ours)


# --- the step ------------------------------------------------------------------------------------

def test_zero_queries_give_uniform_attention_and_no_step():
    # W_Q = 0: every score is 0, so 追逐 attends 1/3 to each word. With W_K = 0 too, the scores
    # are bilinear in W_Q, W_K, so their gradient is exactly 0 and the step changes nothing.
    s = step()
    p, tgt = models()
    p["enc_self.W_Q.weight"] = torch.zeros_like(p["enc_self.W_Q.weight"])
    _, _, row = s["sentence_loss"](p, tgt)
    assert torch.allclose(row, torch.full_like(row, 1 / 3), atol=1e-7)
    p["enc_self.W_K.weight"] = torch.zeros_like(p["enc_self.W_K.weight"])
    change, loss_change, chases_change = s["step_changes"](p, tgt, QK, 0.5)
    assert torch.equal(change, torch.zeros_like(change)) and torch.equal(loss_change, torch.zeros_like(loss_change))
    assert not s["rises_most"](change).any()


def test_rises_most_on_hand_built_changes():
    s = step()
    change = torch.tensor([[-0.3, 0.1, 0.2],     # 激光点 rises most
                           [0.2, -0.3, 0.1],     # 猫 rises most
                           [0.1, -0.2, 0.1],     # a tie is not "more than any other"
                           [0.0, 0.2, -0.2]])    # 追逐 itself rises most
    assert s["rises_most"](change).tolist() == [True, False, False, False]
    assert s["rises_most"](change, word=0).tolist() == [False, True, False, False]


def test_the_gradient_is_the_finite_difference_of_the_loss():
    s = step()
    p, tgt = models(seeds=(2,), dtype=torch.float64)
    stepped = s["descent_step"](p, tgt, QK, 1.0)                  # W - 1.0 * grad: grad = W - stepped
    h = 1e-6
    for name in QK:
        grad = p[name] - stepped[name]                            # (1, 16, 16)
        for i, j in ((0, 0), (3, 7), (15, 2)):
            plus, minus = dict(p), dict(p)
            plus[name], minus[name] = p[name].clone(), p[name].clone()
            plus[name][0, i, j] += h
            minus[name][0, i, j] -= h
            numeric = (s["sentence_loss"](plus, tgt)[0] - s["sentence_loss"](minus, tgt)[0]) / (2 * h)
            assert abs(numeric.item() - grad[0, i, j].item()) < 1e-6 * max(1.0, abs(numeric.item()))
    assert all(torch.equal(p[k], stepped[k]) for k in p if k not in QK)   # only W_Q, W_K move


def test_a_small_step_changes_attention_as_its_first_order_term():
    # d(attention)/d(step) = -J g: a step of 1e-6 in float64 matches the directional derivative.
    s = step()
    p, tgt = models(seeds=(4,), dtype=torch.float64)
    eta = 1e-6
    change, loss_change, _ = s["step_changes"](p, tgt, QK, eta)
    grad = {k: (p[k] - s["descent_step"](p, tgt, QK, 1.0)[k]) for k in QK}
    tangent = {k: -grad[k] for k in QK}
    fixed = {k: v for k, v in p.items() if k not in QK}
    _, derivative = torch.func.jvp(lambda *w: s["sentence_loss"]({**fixed, **dict(zip(QK, w))}, tgt)[2],
                                   tuple(p[k] for k in QK), tuple(tangent[k] for k in QK))
    assert torch.allclose(change / eta, derivative, rtol=1e-4, atol=1e-8)
    # and the loss falls by |g|^2 per unit step, to first order
    squared = sum((g ** 2).sum() for g in grad.values())
    assert abs(loss_change.item() / eta + squared.item()) < 1e-4 * squared.item()


def test_rows_stay_distributions_and_small_steps_lower_every_loss():
    s = step()
    p, tgt = models(seeds=(0, 1, 2))
    for names in (QK, s["VALUE"], s["OUTPUT"]):
        change, loss_change, _ = s["step_changes"](p, tgt, names, 1e-3)
        assert torch.allclose(change.sum(-1), torch.zeros_like(change[:, 0]), atol=1e-12)  # a row sums to 1
        assert (loss_change < 0).all(), names                             # a descent step


def test_batched_models_step_as_each_alone():
    s = step()
    p, tgt = models(seeds=(0, 1, 2))
    together = s["step_changes"](p, tgt, QK, 0.01)[0]
    for m in range(3):
        alone = s["step_changes"]({k: v[m:m + 1] for k, v in p.items()}, tuple(x[m:m + 1] for x in tgt),
                                  QK, 0.01)[0]
        assert torch.allclose(together[m:m + 1], alone, atol=1e-7)


# --- the recorded numbers -----------------------------------------------------------------------

def test_counts_are_recomputed_from_per_seed_values(results):
    r = results("three_roles.translation.gradient_step")
    n = int(r.number("n_seeds"))
    for key in ("rises_most_seeds", "rises_most_seeds_small_step", "rises_most_seeds_large_step",
                "forced_rises_most_seeds", "qk_loss_falls_seeds", "value_loss_falls_seeds"):
        assert len(r.per_seed(key)) == n and r.number(key) == sum(r.per_seed(key)), key
    # 追逐's row stays a distribution: its three changes cancel in every seed.
    words = [r.per_seed(f"change_{w}_mean") for w in ("subject", "verb", "object")]
    assert all(abs(sum(c)) < 1e-3 for c in zip(*words))
    # 激光点 rises most exactly where its change beats the other two.
    assert r.per_seed("rises_most_seeds") == [float(o > max(a, b)) for a, b, o in zip(*words)]
    assert r.number("corpora_difference") == 0          # same weights, same English at step 0
    assert r.number("planted_qk_moved") == 0            # the planted toy's W_Q, W_K stay at step 0
    assert r.number("planted_detection_share") == r.number("planted_detected") / r.number("planted_draws")
