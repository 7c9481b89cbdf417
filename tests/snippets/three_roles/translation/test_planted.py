"""C17's planted arm (three_roles.translation.planted): the verb's-place mask of the shared toy
(explainer.translation_toy.make_planted), greedy decoding under a per-position mask, the
"plant took" diagnostic, and the recorded counts recomputed from their per-seed values; the
verdict is the rule's (docs/claims.yml)."""

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


def test_the_counts_are_their_per_seed_values(results):
    r = results("three_roles.translation.planted")
    n = r.number("n_seeds")
    link, attention, breaks = (r.per_seed(k) for k in ("planted_link_seeds", "planted_link_attention_seeds",
                                                       "planted_link_breaks_seeds"))
    correct = r.per_seed("planted_correct_seeds")
    assert len(link) == n
    for key in ("planted_link_seeds", "planted_correct_seeds", "planted_link_attention_seeds",
                "planted_link_breaks_seeds", "planted_object_used_seeds"):
        assert r.number(key) == sum(r.per_seed(key))
    # a link is its attention conditions and a cut that breaks a translation that was exact
    assert all(k <= min(a, b, c) for k, a, b, c in zip(link, attention, breaks, correct))
    assert r.number("planted_detection_share") == r.number("planted_link_seeds") / n
