"""Translating 猫追逐激光点: the toy (explainer.translation_toy) and the computations behind
the numbers of three_roles.translation; the link of C17 is tests/snippets/three_roles/
translation/test_link.py. The verdict is the rule's (docs/claims.yml)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "snippets"))
sys.path.insert(0, str(ROOT))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer import translation_toy  # noqa: E402
from tools.running import notebooks  # noqa: E402

SNIPPET = ROOT / "snippets" / "three_roles" / "translation.py"
SHOWN = {"corpora", "model", "stacked", "measures", "train"}   # the cells that define, not train


def toy() -> dict:
    """The toy's corpora, model, stacked pass and measures."""
    return vars(translation_toy)


def test_the_pages_cells_use_the_shared_toy():
    page = notebooks.run_tagged(SNIPPET, SHOWN)
    for name in ("sources", "held_out", "Translator", "make_models", "measure", "translate", "train"):
        assert page[name] is getattr(translation_toy, name), name


def untrained(seeds=(0, 1)):
    t = toy()
    params, _, arm_of = t["make_models"](list(seeds))
    return t, params, arm_of, t["model_targets"](arm_of)


def test_only_the_forced_arm_reads_only_the_verb():
    t, _, arm_of, tgt = untrained()
    forced = arm_of == list(t["ARMS"]).index("forced")
    assert forced.sum() == 2
    assert tgt[2][forced].tolist() == [[False, True, False]] * 2
    assert tgt[2][~forced].all()


def test_the_forced_decoder_sees_the_encoder_only_at_the_verb():
    t, params, arm_of, tgt = untrained()
    forced = arm_of == list(t["ARMS"]).index("forced")
    rows = list(range(6))
    tgt_in, _ = t["batch_targets"](tgt, rows)
    with torch.no_grad():
        memory, _ = t["encode"](params, t["src_all"][rows])               # (M, B, 3, C)
        logits, cross = t["decode"](params, memory, tgt_in, reads=tgt[2])
        others = memory.clone()
        others[:, :, [t["SUBJECT_POS"], t["OBJECT_POS"]]] += torch.randn_like(others[:, :, [0, 2]])
        moved, _ = t["decode"](params, others, tgt_in, reads=tgt[2])
        verb = memory.clone()
        verb[:, :, t["VERB_POS"]] += torch.randn_like(verb[:, :, 1])
        moved_verb, _ = t["decode"](params, verb, tgt_in, reads=tgt[2])
    assert torch.equal(logits[forced], moved[forced])                     # subject and object unseen
    assert not torch.allclose(logits[~forced], moved[~forced])            # the full models see them
    assert not torch.allclose(logits[forced], moved_verb[forced])         # the verb is seen
    assert torch.equal(cross[forced][..., t["VERB_POS"]], torch.ones_like(cross[forced][..., 1]))


def test_the_stacked_models_are_the_translator_model_by_model(results):
    assert results("three_roles.translation").number("stacked_vs_module_error") < 1e-5


def test_exercise_answers(results):
    # 2: in greedy decoding the next word is read at the last position, which sees every
    #    earlier word with or without the causal mask: the translations cannot change.
    r = results("three_roles.translation")
    assert r.number("exercise_unmasked_decoding_held_out_exact") == r.number("held_out_exact_mean")


def test_the_cut_off_exercise_is_a_share_of_sentences(results):
    assert 0 <= results("three_roles.translation").number("exercise_no_cross_attention_held_out_exact") <= 1
