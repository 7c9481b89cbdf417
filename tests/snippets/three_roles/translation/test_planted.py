"""C17's planted arms (three_roles.translation.planted, version 2): the verb's-place mask of the
shared toy (explainer.translation_toy.make_planted), greedy decoding under a per-position mask,
the "plant took" diagnostic; plant 2's hinge (explainer.translation_planted), the 红球 control,
the per-head link test against the rule's, and the recorded counts; the verdict is the rule's
(docs/claims.yml)."""

import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "snippets"))
sys.path.insert(0, str(ROOT))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer import translation_toy as t  # noqa: E402



def planted(seeds=(0, 1, 2)):
    return t.make_planted(list(seeds))


def test_the_planted_models_start_as_every_arm_and_learn_the_object_dependent_corpus():
    params, tgt = planted((3, 5))
    toy, _, arm_of = t.make_models([3, 5])
    for k in params:
        assert torch.equal(params[k], toy[k][:2]) and torch.equal(params[k], toy[k][2:4]), k
    full = t.model_targets(arm_of)
    object_dependent = arm_of == list(t.ARMS).index("object_dependent")
    assert torch.equal(tgt[0], full[0][object_dependent]) and torch.equal(tgt[1], full[1][object_dependent])


def test_only_the_verbs_place_reads_only_the_verb():
    _, tgt = planted()
    reads = tgt[2]                                                          # (M, L, 3)
    assert reads.shape == (3, t.MAX_TGT, 3)
    assert reads[:, t.VERB_SLOT].tolist() == [[False, True, False]] * 3
    others = torch.ones(t.MAX_TGT, dtype=torch.bool)
    others[t.VERB_SLOT] = False
    assert reads[:, others].all()
    # the verb's place is where the verb is written, in every sentence of both corpora
    verbs = {t.tgt_id[w] for w in ("chases", "pursues", *t.VERBS.values())}
    assert all(int(v) in verbs for v in tgt[1][0, :, t.VERB_SLOT])


def test_the_mask_blocks_the_subject_and_object_at_the_verbs_place_and_nowhere_else():
    params, tgt = planted()
    rows = list(range(6))
    tgt_in, _ = t.batch_targets(tgt, rows)
    with torch.no_grad():
        memory, _ = t.encode(params, t.src_all[rows])                      # (M, B, 3, C)
        logits, cross = t.decode(params, memory, tgt_in, reads=tgt[2])
        others = memory.clone()
        others[:, :, [t.SUBJECT_POS, t.OBJECT_POS]] += torch.randn_like(others[:, :, [0, 2]])
        moved, _ = t.decode(params, others, tgt_in, reads=tgt[2])
    # one decoder block: what the other positions read of the Chinese never reaches the verb's place
    assert torch.equal(logits[:, :, t.VERB_SLOT], moved[:, :, t.VERB_SLOT])
    for position in (0, 1, t.VERB_SLOT + 1):                                # they read all three words
        assert not torch.allclose(logits[:, :, position], moved[:, :, position])
    assert torch.equal(cross[:, :, t.VERB_SLOT, t.VERB_POS], torch.ones_like(cross[:, :, t.VERB_SLOT, 1]))
    assert (cross[:, :, t.VERB_SLOT + 1, [t.SUBJECT_POS, t.OBJECT_POS]] > 0).all()


@torch.no_grad()
def greedy(params, rows, reads):
    """Greedy decoding written another way: the decoder input always at full length (padded) with
    the whole per-position mask; the causal mask keeps the words not yet written out. (M, B, L)."""
    memory, _ = t.encode(params, t.src_all[rows])
    words = torch.full((*memory.shape[:2], t.MAX_TGT), t.PAD)
    words[:, :, 0] = t.BOS
    said = []
    for position in range(t.MAX_TGT):
        logits, _ = t.decode(params, memory, words, reads=reads)
        said.append(logits[:, :, position].argmax(-1))                     # (M, B)
        if position + 1 < t.MAX_TGT:
            words[:, :, position + 1] = said[-1]
    return torch.stack(said, dim=-1)


def test_greedy_decoding_under_a_per_position_mask_writes_what_the_whole_mask_gives():
    # untrained models write arbitrary words: take them as the reference, every one must be exact
    params, tgt = planted()
    rows = list(range(len(t.sources)))
    own = greedy(params, rows, tgt[2])                                      # (M, N, L)
    assert t.translate(params, (tgt[0], own, tgt[2]), rows).all()
    assert not torch.equal(own, greedy(params, rows, torch.ones_like(tgt[2])))  # the mask matters


def test_greedy_decoding_under_a_mask_that_allows_everything_is_the_unmasked_decoding():
    params, tgt = planted()
    rows = list(range(len(t.sources)))
    unmasked = torch.ones(3, 3, dtype=torch.bool)                           # (M, 3)
    own = greedy(params, rows, unmasked)
    assert torch.equal(own, greedy(params, rows, torch.ones_like(tgt[2])))
    assert t.translate(params, (tgt[0], own, unmasked), rows).all()
    assert t.translate(params, (tgt[0], own, torch.ones_like(tgt[2])), rows).all()
    cut = t.cut_edge(3, 2, 0, t.VERB_POS, t.OBJECT_POS)
    assert torch.equal(t.translate(params, (tgt[0], own, torch.ones_like(tgt[2])), rows, cut=cut),
                       t.translate(params, (tgt[0], own, unmasked), rows, cut=cut))


def test_the_verb_follows_the_object_means_the_three_reference_verbs_teacher_forced():
    params, tgt = planted()
    rows = [t.sources.index(["猫", "追逐", obj]) for obj in ("梦想", "目标", "激光点")]
    assert [t.TGT[int(i)] for i in tgt[1][0, rows, t.VERB_SLOT]] == ["pursues", "pursues", "chases"]
    with torch.no_grad():
        logits, _ = t.decode(params, t.encode(params, t.src_all[rows])[0], tgt[0][:, rows], reads=tgt[2])
    said = logits[:, :, t.VERB_SLOT].argmax(-1)                             # (M, 3)
    expected = (said == tgt[1][:, rows, t.VERB_SLOT]).all(-1)
    assert torch.equal(t.verb_by_object(params, tgt), expected)
    # a model that always says "pursues" (or "chases") at the verb's place fails it
    for word in ("pursues", "chases"):
        biased = dict(params, **{"readout.bias": params["readout.bias"].clone()})
        biased["readout.bias"][:, t.tgt_id[word]] += 1e4
        assert not t.verb_by_object(biased, tgt).any()


def test_the_hinge_is_zero_with_no_gradient_once_its_comparison_holds():
    from explainer.translation_planted import chase_aux_loss
    rows = torch.tensor([t.sources.index(["猫", "追逐", "激光点"]), t.sources.index(["狗", "看着", "猫"])])
    # head 0 of 追逐's row: object 0.6, subject 0.3 (0.6 ≥ 1.1 · 0.3): met; then 0.3 and 0.6: not met
    for obj, subj, zero in ((0.6, 0.3, True), (0.3, 0.6, False)):
        w = torch.full((2, 2, 2, 3, 3), 1 / 3)
        w[:, :, 0, t.VERB_POS] = torch.tensor([subj, 1 - obj - subj, obj])
        w.requires_grad_()
        loss = chase_aux_loss(torch.tensor([1.0, 10.0]))(w, rows)            # (M,)
        loss.sum().backward()
        if zero:
            assert torch.equal(loss, torch.zeros(2)) and torch.equal(w.grad, torch.zeros_like(w))
        else:
            gap = math.log(1.1) + math.log(subj) - math.log(obj)
            # only the row whose verb is 追逐 counts, averaged over those rows (one here)
            assert torch.allclose(loss, torch.tensor([gap, 10 * gap]))
            assert w.grad[:, 1].abs().sum() == 0 and w.grad[:, 0, 1].abs().sum() == 0


def test_a_batch_without_a_chase_row_adds_nothing():
    from explainer.translation_planted import chase_aux_loss
    rows = torch.tensor([t.sources.index(["狗", "看着", "猫"])])
    assert torch.equal(chase_aux_loss(torch.ones(3))(torch.rand(3, 1, 2, 3, 3), rows), torch.zeros(3))


def test_with_weight_zero_the_plant_trains_as_the_tested_model():
    params, tgt = planted((0, 1))
    tgt = (tgt[0], tgt[1], torch.ones_like(tgt[2]))
    from explainer.translation_planted import chase_aux_loss
    twin = {k: v.detach().clone().requires_grad_() for k, v in params.items()}
    t.train(params, tgt, 3)
    t.train(twin, tgt, 3, extra_loss=chase_aux_loss(torch.zeros(2)))
    for k in params:
        assert torch.equal(params[k], twin[k]), k


def test_the_control_keeps_the_edge_weight_and_changes_only_its_value():
    from explainer.translation_planted import encode_stand_in
    params, _ = planted((0, 1))
    src = t.src_all[[t.sources.index(t.TEST)]]
    with torch.no_grad():
        memory, weights = t.encode(params, src)
        same, same_weights = encode_stand_in(params, src, 0, word="激光点")   # its own object: no change
        other, other_weights = encode_stand_in(params, src, 1)                 # 红球 in head 1
    assert torch.equal(weights, same_weights) and torch.equal(weights, other_weights)
    assert torch.allclose(memory, same, atol=1e-6)
    # the edge 追逐 → object only: the other positions are untouched, the verb's changes
    assert torch.equal(memory[:, :, [t.SUBJECT_POS, t.OBJECT_POS]], other[:, :, [t.SUBJECT_POS, t.OBJECT_POS]])
    assert not torch.allclose(memory[:, :, t.VERB_POS], other[:, :, t.VERB_POS])


def test_the_link_per_head_is_the_rules_link_test():
    from explainer.translation_planted import link_by_head, translate_memory
    params, tgt = planted((0, 1))
    full = (tgt[0], tgt[1], torch.ones_like(tgt[2]))
    t.train(params, full, 60)
    for target in (tgt, full):
        heads, rule = link_by_head(params, target), t.chase_laser_link(params, target)
        for key in ("link", "link_attention", "link_breaks"):
            assert torch.equal(heads[key].any(-1), rule[key].bool()), key
        test = [t.sources.index(t.TEST)]
        with torch.no_grad():
            plain = translate_memory(params, target, test, t.encode(params, t.src_all[test])[0])
        assert torch.equal(plain, t.translate(params, target, test))


def test_the_counts_add_up(results):
    r = results("three_roles.translation.planted")
    n = r.number("planted_draws")
    assert n == 32
    for plant in ("masked", "unmasked"):
        detected, valid = r.number(f"planted_{plant}_detected"), r.number(f"planted_{plant}_valid_draws")
        link = r.number(f"planted_{plant}_link_draws")
        assert detected + r.number(f"planted_{plant}_control_breaks_draws") <= min(valid, link)
        assert link <= min(r.number(f"planted_{plant}_link_attention_draws"),
                           r.number(f"planted_{plant}_link_breaks_draws"), r.number(f"planted_{plant}_correct_draws"))
    assert r.number("planted_valid_draws") == min(r.number("planted_masked_valid_draws"),
                                                  r.number("planted_unmasked_valid_draws"))
    assert r.number("planted_detection_share") == min(r.number("planted_masked_detected"),
                                                      r.number("planted_unmasked_detected")) / n
    assert r.number("planted_unmasked_weight") in (1, 10, 100)
