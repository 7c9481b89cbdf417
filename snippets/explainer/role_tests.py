"""The head-role tests of the head-roles page, one copy for its two snippets
(real_model.head_roles.positions: the previous and next token, the [CLS] and [SEP] sinks;
real_model.head_roles.roles: verb and object, *it* and its referent, an ambiguous word and its
cue). Each figure's alt text names every role's passing heads, and the [CLS]-sink overlap and
the page's data read roles of both, so each snippet runs the other's tests too.

One recipe: for each item (a query token in a sentence) the head's most attended key among
the candidates is the target or not; a head has a role when it beats chance after correcting
for the 72 heads tried and is right in half the items (``judge_role``). The page's cells
import these functions and print their code (``inspect.getsource``).
"""

import numpy as np
import torch

from explainer.head_metrics import prefers, top_candidate_hits, top_key_hits
from explainer.head_picks import best_fixed_offset, head_name, mask_of, query_rows, stacked_attention
from explainer.minilm import run_sentences
from explainer.role_sentences import (ambiguous_word_sentences, context_words, coreference_sentences,
                                      verb_object_sentences, word_position)
from explainer.sample_sentences import SENTENCES
from explainer.significance import bonferroni_binomial, pair_relabelling_max_statistic

ALPHA = 0.05       # corrected significance level
MAJORITY = 0.5     # a role also needs the target to be the top pick in half the items
ROLE_NAMES = {
    "en": {"previous_token": "previous token", "next_token": "next token",
           "cls_sink": "[CLS] sink", "sep_sink": "[SEP] sink",
           "verb_object": "verb → object", "object_verb": "object → verb",
           "coreference": "it → referent (of two nouns)",
           "coreference_clark": "it → referent (Clark: of all nouns)",
           "disambiguation": "ambiguous word → deciding word"},
    "zh": {"previous_token": "前一个词元", "next_token": "后一个词元",
           "cls_sink": "停在 [CLS]", "sep_sink": "停在 [SEP]",
           "verb_object": "动词 → 宾语", "object_verb": "宾语 → 动词",
           "coreference": "it → 所指（两个名词里选）",
           "coreference_clark": "it → 所指（Clark：所有名词里选）",
           "disambiguation": "多义词 → 线索词"},
}


def judge_role(roles: dict, role: str, hits: np.ndarray, n: int, chance: float, p: np.ndarray) -> None:
    """hits (72,): items in which each head's top pick is the target, of n; p (72,): corrected.
    A head has the role if it beats chance after the correction AND is right in half the items.
    roles[role] becomes accuracy (72,), corrected p (72,), chance, n, passes (72,), best head."""
    accuracy = hits / n                                          # (72,)
    passes = (p < ALPHA) & (accuracy >= MAJORITY)                # (72,)
    best = int(accuracy.argmax())
    roles[role] = dict(accuracy=accuracy, p=p, chance=chance, n=n, passes=passes, best=best)
    print(f"{role:<17} heads passing: {passes.sum():2d}; best {head_name(best)}, "
          f"right in {accuracy[best]:.0%} (chance {chance:.0%})")


def position_roles(model, tokenizer, roles: dict) -> list:
    """Previous token, next token, [CLS] sink, [SEP] sink on the shipped sample text: is the top
    key at t-1, at t+1, at position 0, at the last position? Chance: one over the keys.
    Returns the sample's attention, per sentence (L, nh, T, T)."""
    L, H = model.config.n_layers, model.config.n_heads
    sample = stacked_attention(run_sentences(model, tokenizer, SENTENCES))   # per sentence (L, nh, T, T)
    positional = {"previous_token": lambda t, T: t - 1 if 2 <= t <= T - 2 else -1,
                  "next_token": lambda t, T: t + 1 if 1 <= t <= T - 3 else -1,
                  "cls_sink": lambda t, T: 0 if 1 <= t <= T - 2 else -1,
                  "sep_sink": lambda t, T: T - 1 if 1 <= t <= T - 2 else -1}
    for role, target_of in positional.items():
        hits, n, chance_sum = np.zeros(L * H), 0, 0.0
        for a in sample:                                             # (L, nh, T, T)
            T = a.shape[-1]
            target = torch.tensor([[target_of(t, T) for t in range(T)]])  # (1, T)
            h, count = top_key_hits(a.reshape(1, L * H, T, T), target)
            hits += h.numpy()
            n += count
            chance_sum += count / T
        position_chance = chance_sum / n
        judge_role(roles, role, hits, n, position_chance, bonferroni_binomial(hits, n, position_chance))
    return sample


def verb_object_roles(model, tokenizer, roles: dict) -> dict:
    """Verb → object and object → verb across 1–3 adjectives: of every word but the query, is
    the other the top pick? Returns the sentences, each role's hits (N, 72) with its attention
    rows and candidates, the adjective counts (N,), the best fixed offset's hits (N,), and the
    model's outputs and the verb and object positions (the page's later cells read them)."""
    vo_set = verb_object_sentences()
    vo_outputs = run_sentences(model, tokenizer, [s.text for s in vo_set])
    vo_attention = stacked_attention(vo_outputs)
    vo_tokens = [tokenizer.tokens(s.text) for s in vo_set]
    verbs = [word_position(t, s.verb) for t, s in zip(vo_tokens, vo_set)]
    objects = [word_position(t, s.object) for t, s in zip(vo_tokens, vo_set)]
    n_adjectives = np.array([s.n_adjectives for s in vo_set])
    vo_hits = {}
    for role, queries, targets in (("verb_object", verbs, objects), ("object_verb", objects, verbs)):
        rows = query_rows(vo_attention, queries)                     # (N, 72, S)
        candidates = mask_of([[i for i, w in enumerate(t) if w.isalpha() and i != q]  # every word
                              for t, q in zip(vo_tokens, queries)], rows.shape[-1])
        hits = top_candidate_hits(rows, candidates, torch.tensor(targets)).numpy()  # (N, 72)
        vo_hits[role] = (hits, rows, candidates)
        vo_chance = float(np.mean(1 / candidates.sum(dim=1).numpy()))
        judge_role(roles, role, hits.sum(axis=0), len(vo_set), vo_chance,
                   bonferroni_binomial(hits.sum(axis=0), len(vo_set), vo_chance))
        vo_best = roles[role]["best"]
        print("  its accuracy with 1, 2, 3 adjectives in between:",
              ", ".join(f"{hits[n_adjectives == k, vo_best].mean():.0%}" for k in (1, 2, 3)))
    offset_rule = best_fixed_offset(verbs, objects)                 # (N,): the best fixed offset finds the object
    print(f"best fixed offset: right in {offset_rule.mean():.0%}")
    return dict(sentences=vo_set, hits=vo_hits, n_adjectives=n_adjectives, offset_rule=offset_rule,
                outputs=vo_outputs, verbs=verbs, objects=objects)


def coreference_roles(model, tokenizer, roles: dict) -> dict:
    """*it* → its referent in minimal pairs: of the two nouns (ours, chance ½) and of all the
    nouns before it (Clark et al.'s, chance ⅓), corrected by relabelling the pairs (max
    statistic). Returns the sentences, the model's outputs and attention, the positions of
    *it* and of the three nouns, the pairs and the nouns' mask (the page's later cells read them)."""
    co_set = coreference_sentences()
    co_outputs = run_sentences(model, tokenizer, [s.text for s in co_set])
    co_attention = stacked_attention(co_outputs)
    co_tokens = [tokenizer.tokens(s.text) for s in co_set]
    it_pos = [word_position(t, "it") for t in co_tokens]
    right = torch.tensor([word_position(t, s.right) for t, s in zip(co_tokens, co_set)])
    wrong = torch.tensor([word_position(t, s.wrong) for t, s in zip(co_tokens, co_set)])
    other = torch.tensor([word_position(t, s.other) for t, s in zip(co_tokens, co_set)])
    pair = np.array([s.pair for s in co_set])
    co_rows = query_rows(co_attention, it_pos)                      # (N, 72, S)
    ours_right = prefers(co_rows, right, wrong).numpy()             # (N, 72)
    ours_wrong = prefers(co_rows, wrong, right).numpy()
    nouns = mask_of([[int(o), int(r), int(w)] for o, r, w in zip(other, right, wrong)], co_rows.shape[-1])
    clark_right = top_candidate_hits(co_rows, nouns, right).numpy()
    clark_wrong = top_candidate_hits(co_rows, nouns, wrong).numpy()
    for role, hit_right, hit_wrong, co_chance in (("coreference", ours_right, ours_wrong, 0.5),
                                                  ("coreference_clark", clark_right, clark_wrong, 1 / 3)):
        p = pair_relabelling_max_statistic(hit_right, hit_wrong, pair)
        judge_role(roles, role, hit_right.sum(axis=0), len(co_set), co_chance, p)
    return dict(sentences=co_set, outputs=co_outputs, attention=co_attention, it_pos=it_pos, right=right,
                wrong=wrong, other=other, pair=pair, nouns=nouns)


def disambiguation_role(model, tokenizer, roles: dict) -> dict:
    """An ambiguous word → the word that decides its sense: of the sentence's content words, is
    the cue the top pick? Returns the sentences, the word and cue positions, the hits (N, 72),
    the chance and the two position-only baselines."""
    am_set = ambiguous_word_sentences()
    am_attention = stacked_attention(run_sentences(model, tokenizer, [s.text for s in am_set]))
    am_tokens = [tokenizer.tokens(s.text) for s in am_set]
    word_pos = [word_position(t, s.word) for t, s in zip(am_tokens, am_set)]
    cue_pos = [word_position(t, s.cue) for t, s in zip(am_tokens, am_set)]
    am_candidates = [context_words(t, w) for t, w in zip(am_tokens, word_pos)]
    am_rows = query_rows(am_attention, word_pos)                    # (N, 72, S)
    am_hits = top_candidate_hits(am_rows, mask_of(am_candidates, am_rows.shape[-1]),
                                 torch.tensor(cue_pos)).numpy()      # (N, 72)
    am_chance = float(np.mean([1 / len(c) for c in am_candidates]))
    judge_role(roles, "disambiguation", am_hits.sum(axis=0), len(am_set), am_chance,
               bonferroni_binomial(am_hits.sum(axis=0), len(am_set), am_chance))
    fixed_offset = best_fixed_offset(word_pos, cue_pos).mean()
    nearest_word = np.mean([min(c, key=lambda i: (abs(i - w), i)) == cue
                            for c, w, cue in zip(am_candidates, word_pos, cue_pos)])
    print(f"position-only rules: best fixed offset {fixed_offset:.0%}, nearest content word {nearest_word:.0%}")
    return dict(sentences=am_set, word_pos=word_pos, cue_pos=cue_pos, hits=am_hits, chance=am_chance,
                fixed_offset=fixed_offset, nearest_word=nearest_word)
