"""The first mistranslation's gradient step in the translation toy (C38): the computations
behind the numbers, on known answers and invariants; the verdict is the rule's
(docs/claims.yml). The checkpoint and the step are explainer.translation_step, which the
snippet's cells import (the planted toy's own tests: test_planted_push.py)."""

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
QK = ["enc_self.W_Q.weight", "enc_self.W_K.weight"]


@functools.cache
def snip() -> dict:
    """The snippet's cells that define its corpora, checkpoint, steps and readings (no training)."""
    return notebooks.run_tagged(SNIPPET, {"toy", "corpora", "checkpoint", "gradient_step",
                                          "object_half", "content_half"})


def models(corpus="tested", seeds=(0, 1), planted=False, dtype=torch.float64):
    """Untrained stacked models of one corpus and their targets."""
    params, tgt = snip()["stacked"]([(snip()["CORPUS"][corpus], list(seeds), planted)])
    return {k: v.detach().to(dtype) for k, v in params.items()}, tgt


def wrong_verbs(m, verb="watches"):
    return torch.full((m,), translation_toy.tgt_id[verb])


# --- the toy of the translation page (explainer.translation_toy, which the page's cells import) ----

def test_the_snippets_corpora_and_models_are_the_toys():
    s = snip()
    for corpus, toy_corpus in (("tested", "object_dependent"), ("fixed", "fixed")):
        tgt_in, tgt_out = s["corpus_targets"](s["CORPUS"][corpus])
        expected = translation_toy.targets[translation_toy.CORPORA.index(toy_corpus)]
        assert torch.equal(tgt_in, expected[0]) and torch.equal(tgt_out, expected[1])
    # seed i starts from the same weights in every corpus, and as the toy's make_models draws them
    params, tgt = s["stacked"]([(s["CORPUS"]["tested"], [3, 5], False), (s["CORPUS"]["fixed"], [3, 5], True)])
    toy, _, _ = translation_toy.make_models([3, 5])
    for k in params:
        assert torch.equal(params[k][:2], params[k][2:]) and torch.equal(params[k][:2], toy[k][:2])
    # a model whose verb reads only 追逐 (the planted toy's mask); every other position reads all three words
    reads = tgt[2]
    assert reads[:2].all() and reads[2:, s["VERB_SLOT"]].tolist() == [[False, True, False]] * 2
    assert reads[2:, : s["VERB_SLOT"]].all() and reads[2:, s["VERB_SLOT"] + 1:].all()


def test_the_snippets_encoder_is_the_toys_and_row_only_changes_no_value():
    s = snip()
    p, _ = models(seeds=(0, 1, 2), dtype=torch.float32)
    src = translation_toy.src_all[:20]
    memory, weights = translation_toy.encode(p, src)
    for row_only in (False, True):
        ours, our_weights, _ = s["encode_parts"](p, src, row_only)
        assert torch.allclose(ours, memory, atol=1e-6) and torch.allclose(our_weights, weights, atol=1e-6)


def test_the_row_only_gradient_reaches_w_q_w_k_only_through_zhuis_row():
    s = snip()
    p, _ = models()
    src = translation_toy.src_all[[s["TEST_ROW"]]]
    verb, subject, obj = translation_toy.VERB_POS, translation_toy.SUBJECT_POS, translation_toy.OBJECT_POS

    def grad(row_only, query):
        q = {k: v.detach().requires_grad_(k in QK) for k, v in p.items()}
        weights = s["encode_parts"](q, src, row_only)[1]
        return torch.autograd.grad(weights[..., query, obj].sum(), [q[k] for k in QK], allow_unused=True)

    for query in (subject, obj):                         # the other rows contribute nothing
        assert all(g is None or torch.equal(g, torch.zeros_like(g)) for g in grad(True, query))
        assert any(g is not None and g.abs().max() > 0 for g in grad(False, query))
    for full, row in zip(grad(False, verb), grad(True, verb)):   # 追逐's own row is untouched
        assert torch.allclose(full, row, rtol=1e-12, atol=1e-15)


def test_the_margin_gradient_is_the_difference_of_the_two_cross_entropy_gradients():
    s = snip()
    p, tgt = models(seeds=(0, 1))
    wrong = wrong_verbs(2, "bites")

    def grads(loss):
        q = {k: v.detach().requires_grad_(k in QK) for k, v in p.items()}
        logits = s["forward"](q, tgt, [s["TEST_ROW"]])[0]
        return torch.autograd.grad(loss(logits).sum(), [q[k] for k in QK])

    margin = grads(lambda logits: s["loss_margin"](logits, wrong))
    chases = grads(lambda logits: s["loss_chases"](logits, wrong))
    bites = grads(lambda logits: -logits[:, 0, s["VERB_SLOT"]].log_softmax(-1)[:, wrong[0]])
    for m, c, b in zip(margin, chases, bites):
        assert torch.allclose(m, c - b, rtol=1e-10, atol=1e-13)


def test_a_unit_step_has_the_given_length_moves_only_its_tensors_and_lowers_the_loss():
    s = snip()
    p, tgt = models(seeds=(0, 1, 2))
    wrong = wrong_verbs(3)
    for names in (QK, s["CROSS_QK"]):
        stepped, norm = s["unit_step"](p, tgt, s["loss_chases"], wrong, names, size=1e-4)
        length = torch.stack([(stepped[k] - p[k]).flatten(1).pow(2).sum(-1) for k in names]).sum(0).sqrt()
        assert torch.allclose(length, torch.full_like(length, 1e-4), rtol=1e-8)
        assert all(torch.equal(stepped[k], p[k]) for k in p if k not in names)
        assert (s["changes"](p, stepped, tgt)["loss"] < 0).all() and (norm > 0).all()


def test_batched_models_step_as_each_alone():
    s = snip()
    p, tgt = models(seeds=(0, 1, 2))
    wrong = wrong_verbs(3)
    together = s["object_half"](p, tgt, wrong)["steps"]["row", "m"]["object_subject"]
    for m in range(3):
        alone = s["object_half"]({k: v[m:m + 1] for k, v in p.items()}, tuple(x[m:m + 1] for x in tgt),
                                 wrong[m:m + 1])["steps"]["row", "m"]["object_subject"]
        assert torch.allclose(together[m:m + 1], alone, rtol=1e-6, atol=1e-15)


def test_zero_queries_and_keys_give_no_step_and_no_gain():
    # W_Q = W_K = 0: the scores are bilinear in W_Q, W_K, so their gradient is exactly 0; the
    # step changes nothing, and a change of exactly 0 is not a gain.
    s = snip()
    p, tgt = models()
    for k in QK:
        p[k] = torch.zeros_like(p[k])
    half = s["object_half"](p, tgt, wrong_verbs(2))
    assert (half["norm"] == 0).all()
    assert not half["any_gain"].any() and not half["link_built"].any() and not half["reverse"].any()


def test_a_built_link_includes_a_gain_and_needs_a_wrong_verb():
    s = snip()
    p, tgt = models(seeds=(0, 1, 2, 3, 4, 5))
    wrong = wrong_verbs(6)
    wrong[::2] = -1                                       # no wrong verb: the margin is not read
    half = s["object_half"](p, tgt, wrong)
    assert (half["link_built"] <= half["any_gain"]).all()
    assert (half["link_built"] <= half["built"]["full"]).all() and (half["link_built"] <= half["built"]["row"]).all()
    assert not half["built"]["full"][::2].any()


def test_a_verb_place_that_reads_only_zhui_reads_nothing_but_zhuis_memory():
    s = snip()
    p, tgt = models(seeds=(0, 1), planted=True)
    memory = s["encode_parts"](p, translation_toy.src_all[[s["TEST_ROW"]]])[0].detach().requires_grad_(True)
    logits, _ = translation_toy.decode(p, memory, tgt[0][:, [s["TEST_ROW"]]], reads=tgt[2])
    g, = torch.autograd.grad(logits[:, 0, s["VERB_SLOT"]].sum(), memory)
    assert torch.equal(g[:, :, [0, 2]], torch.zeros_like(g[:, :, [0, 2]]))
    assert g[:, :, 1].abs().max() > 0


def test_the_mistranslation_test_on_hand_built_softmaxes():
    s = snip()
    ids = {w: translation_toy.tgt_id[w] for w in ("chases", "pursues", "watches", "likes", "bites", "cat")}
    vocab = len(translation_toy.TGT)

    def probs(**mass):
        p = torch.zeros(vocab, dtype=torch.float64)
        for w, v in mass.items():
            p[ids[w]] = v
        rest = [i for i in range(vocab) if i not in ids.values()]
        p[rest] = (1 - p.sum()) / len(rest)
        return p

    table = torch.stack([probs(watches=0.3, chases=0.2),            # verbs hold 0.5, watches on top
                         probs(watches=0.3, chases=0.19),           # verbs hold 0.49
                         probs(chases=0.4, bites=0.3),              # chases on top: right
                         probs(likes=0.3, bites=0.3),               # a tie for the top
                         probs(cat=0.45, pursues=0.3, likes=0.25)])  # cat on top
    wrong, verb, mass_ok = s["mistranslates"](table)
    assert wrong.tolist() == [True, False, False, False, False]
    assert mass_ok.tolist() == [True, False, True, True, True]
    assert verb[0] == ids["watches"] and verb[4] == ids["pursues"]


def test_training_while_watching_is_the_pages_training():
    s = snip()
    params, tgt = s["stacked"]([(s["CORPUS"]["tested"], [0, 1], False)])
    toy = {k: v.detach().clone().requires_grad_(True) for k, v in params.items()}
    watch = s["train_watching"](params, tgt, steps=3)
    translation_toy.train(toy, tgt, 3)
    assert all(torch.equal(watch["final"]["params"][k], toy[k]) for k in toy)
    assert all(torch.equal(watch["step0"]["params"][k], s["stacked"]([(s["CORPUS"]["tested"], [0, 1], False)])[0][k])
               for k in toy)


def test_the_content_sets():
    s = snip()
    sources = translation_toy.sources
    for corpus, size in (("tested", 39), ("fixed", 49)):
        a, b = s["content_sets"](s["CORPUS"][corpus])
        assert len(a) == size and len(b) == 3 * size and len(set(a)) == len(a) and len(set(b)) == len(b)
        assert s["TEST_ROW"] not in a and not set(a) & set(b)
        assert all(sources[i][1] == "追逐" for i in a) and all(sources[i][1] != "追逐" for i in b)
        for j, i in enumerate(a):                        # each A pair's three matches
            assert [sources[x][1] for x in b[3 * j: 3 * j + 3]] == ["看着", "喜欢", "咬"]
            assert all((sources[x][0], sources[x][2]) == (sources[i][0], sources[i][2]) for x in b[3 * j: 3 * j + 3])
    a, _ = s["content_sets"](s["CORPUS"]["tested"])
    assert not any(sources[i][2] in translation_toy.GOALS for i in a)   # pursues pairs in neither


def test_a_content_step_that_only_raises_chases_everywhere_does_not_count():
    # Shift the readout bias of "chases" alone: log p(chases) rises more where it was lower,
    # so a step that raises chases for every sentence fails Δ_A > Δ_B.
    s = snip()
    p, tgt = models(seeds=(0,))
    a, b = s["content_sets"](s["CORPUS"]["tested"])
    shifted = dict(p)
    shifted["readout.bias"] = p["readout.bias"].clone()
    shifted["readout.bias"][:, s["CHASES"]] += 1e-3
    delta_a = s["mean_log_chases"](shifted, tgt, a) - s["mean_log_chases"](p, tgt, a)
    delta_b = s["mean_log_chases"](shifted, tgt, b) - s["mean_log_chases"](p, tgt, b)

    def mean_p(rows):                                    # d log p / d bias = 1 - p
        logits = s["forward"](p, tgt, rows)[0]
        return logits[:, :, s["VERB_SLOT"]].softmax(-1)[..., s["CHASES"]].mean(-1)

    assert torch.allclose(delta_a, 1e-3 * (1 - mean_p(a)), rtol=1e-3)
    assert torch.allclose(delta_b, 1e-3 * (1 - mean_p(b)), rtol=1e-3)
    assert ((delta_a > delta_b) == (mean_p(a) < mean_p(b))).all()


def test_a_model_trains_the_same_in_any_stack():
    # The rule's extension to 64 seeds trains the extra seeds in a stack of their own, and the
    # planted toy trains in planted_push.py: each model's training must not depend on which
    # other models share its stack.
    s = snip()
    params, tgt = s["stacked"]([(s["CORPUS"]["tested"], [0, 1], False), (s["CORPUS"]["fixed"], [0], True)])
    alone, alone_tgt = s["stacked"]([(s["CORPUS"]["tested"], [1], False)])
    together = s["train_watching"](params, tgt, steps=3)["final"]["params"]
    by_itself = s["train_watching"](alone, alone_tgt, steps=3)["final"]["params"]
    assert all(torch.allclose(together[k][1:2], by_itself[k], rtol=0, atol=1e-6) for k in by_itself)



# --- the recorded numbers -----------------------------------------------------------------------

def test_recorded_counts_are_consistent(results):
    r = results("three_roles.translation.gradient_step")
    n = int(r.number("n_seeds"))
    tested = r.per_seed("tested_seeds")
    for key in ("tested_seeds", "link_built_seeds", "any_gain_seeds", "reverse_link_seeds",
                "cross_link_seeds", "content_specific_seeds", "step0_gain_seeds", "fixed_tested_seeds"):
        assert len(r.per_seed(key)) == n and r.number(key) == sum(r.per_seed(key)), key
    for key in ("link_built_seeds", "any_gain_seeds", "reverse_link_seeds", "cross_link_seeds",
                "content_specific_seeds", "gain_full_seeds", "gain_row_seeds"):
        assert all(c <= t for c, t in zip(r.per_seed(key), tested)), key   # untested seeds never count
    assert all(b <= g for b, g in zip(r.per_seed("link_built_seeds"), r.per_seed("any_gain_seeds")))
    assert all(b <= g for b, g in zip(r.per_seed("link_built_full_seeds"), r.per_seed("gain_full_seeds")))
    assert r.number("content_a_pairs") == 39 and r.number("content_b_pairs") == 117
