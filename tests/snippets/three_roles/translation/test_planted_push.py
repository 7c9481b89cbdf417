"""The planted check of C38's gradient step (planted_push.py): its corpus, its mask and the
counts it records, on known answers and invariants; the step itself is tested with
gradient_step.py's (test_gradient_step.py), from explainer.translation_step."""

import functools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "snippets"))
sys.path.insert(0, str(ROOT))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer import translation_step, translation_toy  # noqa: E402
from tools.running import notebooks  # noqa: E402

SNIPPET = ROOT / "snippets" / "three_roles" / "translation" / "planted_push.py"


@functools.cache
def snip() -> dict:
    """The snippet's cell that defines its corpus (no training)."""
    return notebooks.run_tagged(SNIPPET, {"planted_corpus"})


def test_the_planted_corpus():
    s = snip()
    english = s["planted_english"]
    assert english("猫", "追逐", "激光点") == "the cat chases the laser dot".split()
    assert english("狗", "追逐", "红球")[2] == "chases"
    assert english("狗", "追逐", "猫")[2] == "pursues"            # an animal as object
    assert english("狗", "追逐", "梦想")[2] == "pursues"
    assert english("狗", "看着", "猫")[2] == "watches"            # other verbs as in the toy
    chases = {o for s_, v, o in translation_toy.sources if v == "追逐" and english(s_, v, o)[2] == "chases"}
    assert chases == s["LASER_THINGS"]


def test_the_planted_models_start_as_the_toys_and_their_verb_reads_only_zhui():
    s = snip()
    params, tgt = translation_step.stacked([(s["planted_english"], [3, 5], True)])
    toy, _, _ = translation_toy.make_models([3, 5])
    assert all(torch.equal(params[k], toy[k][:2]) for k in params)   # draw i starts from seed i
    reads, slot = tgt[2], translation_step.VERB_SLOT
    assert reads[:, slot].tolist() == [[False, True, False]] * 2
    assert reads[:, :slot].all() and reads[:, slot + 1:].all()
    tgt_in, tgt_out = translation_step.corpus_targets(s["planted_english"])
    assert torch.equal(tgt[0][0], tgt_in) and torch.equal(tgt[1][1], tgt_out)


def test_recorded_counts_are_consistent(results):
    r = results("three_roles.translation.planted_push")
    draws = r.number("planted_draws")
    assert r.number("n_seeds") == draws == 32                      # seeds 0–31, whatever C38's n
    assert r.number("planted_detection_share") == r.number("planted_detected") / draws
    assert r.number("planted_detected") <= r.number("planted_tested_draws") <= draws
    assert 0 <= r.number("planted_row_detected_share") <= r.number("planted_tested_draws") / draws
    assert r.number("planted_link_built_share") <= r.number("planted_tested_draws") / draws
    assert 0 <= r.number("planted_toy_link_seeds") <= draws          # a note for C17
