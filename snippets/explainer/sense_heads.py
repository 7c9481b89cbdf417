"""C21's sentences and tests: does a head look from an ambiguous word to the word that decides
its sense more than from a plain noun in its place, and does zeroing it blur the sense?

The sentences are C36's frames (explainer/word_senses.py: 5 words x 20 frames x 2 senses, the
word and its cue moved around so that no position-only rule finds the cue in more than half of
them), with C21's own cue lists: bank's money sense uses *interest* and *loan* (the source's
银行 → 利率, in English). word_senses.py itself is left as C36 reads it.

A *frame* here is one (word, frame template, sense) sentence; its *plain twin* is the same
sentence with the ambiguous word replaced by a one-sense noun (role_sentences.STAND_INS), one
WordPiece like the word, so every position is the same in both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explainer.head_picks import best_fixed_offset
from explainer.max_statistic import sign_flip_max_statistic
from explainer.role_sentences import STAND_INS
from explainer.word_senses import FRAMES, SENSE_NAMES, SENSES as C36_SENSES

# word -> (cues of sense 0, cues of sense 1); C36's lists except bank's money sense, which
# holds the source's 银行 → 利率 as bank → interest / loan.
SENSES = dict(C36_SENSES) | {"bank": (("money", "interest", "loan", "teller", "vault"),
                                      C36_SENSES["bank"][1])}
SOURCE_CUES = ("interest", "loan")     # bank's cues that stand for 利率
PLAIN = {word: STAND_INS[word] for word in SENSES}
# The attention explorer's sentence for C21's heads (snippets/real_model/explorer.py, by number).
EXPLORER_BANK_INDEX = 11
EXPLORER_BANK = "The bank raised its interest rates on loans."
N_FOLDS = 5                            # probe folds, by frame template: templates f // 4 together


@dataclass(frozen=True)
class SenseFrame:
    text: str       # with the ambiguous word
    plain: str      # the same sentence with PLAIN[word] in its place
    word: str
    sense: int      # which of SENSES[word] the cue picks
    cue: str
    frame: int      # index into FRAMES: both senses of one template share it


def sense_frames() -> list[SenseFrame]:
    """len(SENSES) words x len(FRAMES) templates x 2 senses."""
    out = []
    for word, cues in SENSES.items():
        for f, template in enumerate(FRAMES):
            for sense in (0, 1):
                cue = cues[sense][f % len(cues[sense])]
                out.append(SenseFrame(template.format(w=word, c=cue), template.format(w=PLAIN[word], c=cue),
                                      word, sense, cue, f))
    return out


def fold_of(frame: int) -> int:
    """The probe's held-out fold of a frame template (both senses of a template together)."""
    return frame * N_FOLDS // len(FRAMES)


# ------------------------------------------------------------------ the ambiguity test

def ambiguity_test(hit_ambiguous: np.ndarray, hit_plain: np.ndarray, n_draws: int = 2000, seed: int = 0):
    """Per head: mean of d = hit_ambiguous - hit_plain over frames, and its p-value corrected
    for every head by a sign-flip max statistic (each frame's d flipped at random, the same
    flips for all heads in one draw; p = (1 + draws whose best head's mean >= the head's) /
    (1 + draws)). ``hit_*`` (N, heads) 0/1. Returns (mean d (heads,), p (heads,))."""
    d = np.asarray(hit_ambiguous, dtype=float) - np.asarray(hit_plain, dtype=float)   # (N, heads)
    return d.mean(axis=0), sign_flip_max_statistic(d, n_draws=n_draws, seed=seed)


# ------------------------------------------------------------------ position-only rules

def position_rules(word_pos, cue_pos, candidates) -> dict[str, float]:
    """Share of items each position-only rule gets right: the best fixed offset from the word
    (one offset for all items, the best one) and the nearest candidate (ties to the left)."""
    fixed = float(best_fixed_offset(word_pos, cue_pos).mean())
    nearest = float(np.mean([min(c, key=lambda i: (abs(i - w), i)) == cue
                             for c, w, cue in zip(candidates, word_pos, cue_pos)]))
    return {"fixed_offset": fixed, "nearest_word": nearest}


# ------------------------------------------------------------------ the sense probe

def centroid_probe(train_x: np.ndarray, train_y: np.ndarray):
    """A nearest-centroid classifier: (classes, class means). Predict with ``probe_predict``."""
    classes = np.unique(train_y)
    return classes, np.stack([train_x[train_y == c].mean(axis=0) for c in classes])


def probe_predict(probe, x: np.ndarray) -> np.ndarray:
    """The nearest class mean of each row of ``x`` (..., C): (...) classes."""
    classes, means = probe
    distance = ((x[..., None, :] - means) ** 2).sum(axis=-1)              # (..., classes)
    return classes[distance.argmin(axis=-1)]


def probe_accuracy(clean: np.ndarray, tested: np.ndarray, words, senses, folds) -> np.ndarray:
    """Held-out accuracy of a per-word sense probe, averaged over words.

    ``clean`` (N, C): unablated states the probes are trained on; ``tested`` (K, N, C): K
    versions of the same items' states (e.g. unablated, then each head zeroed). For each
    word and each fold, a probe trained on the clean states of the word's other folds is
    tested on this fold's items in every version. Returns (K,) accuracies."""
    words, senses, folds = np.asarray(words), np.asarray(senses), np.asarray(folds)
    per_word = []
    for word in np.unique(words):
        right = np.zeros(tested.shape[0])
        mine = words == word
        for fold in np.unique(folds[mine]):
            train, test = mine & (folds != fold), mine & (folds == fold)
            probe = centroid_probe(clean[train], senses[train])
            right += (probe_predict(probe, tested[:, test]) == senses[test]).sum(axis=-1)   # all K at once
        per_word.append(right / mine.sum())
    return np.mean(per_word, axis=0)


def settling_heads(drop: np.ndarray, n_heads: int, threshold: float = 0.1) -> np.ndarray:
    """(L*nh,) bool: the head's drop is >= threshold and larger than every other head's of its layer."""
    by_layer = np.asarray(drop, dtype=float).reshape(-1, n_heads)        # (L, nh)
    out = np.zeros_like(by_layer, dtype=bool)
    for layer, row in enumerate(by_layer):
        for h in range(n_heads):
            others = np.delete(row, h)
            out[layer, h] = row[h] >= threshold - 1e-12 and (row[h] > others).all()
    return out.reshape(-1)


# ------------------------------------------------------------------ every number the rule reads

def c21_numbers(items, hit_ambiguous, hit_plain, word_pos, cue_pos, candidates, clean, tested, words, senses,
                folds, *, n_heads: int, gap_min: float, drop_min: float, alpha: float, n_draws: int = 2000,
                seed: int = 0) -> dict[str, float]:
    """C21's rule on the frames ``items`` (indices, repeats allowed: a repeated frame is flipped
    on its own in the sign-flip test, and stays in its fold for the probe). ``hit_*`` (N, heads)
    0/1; ``clean`` (N, C) unablated states; ``tested`` (K, N, C): the unablated states, then one
    version per head zeroed; ``folds`` (N,) each frame's probe fold. The rule's counts and the
    numbers its cases read."""
    items = np.asarray(items)
    gap, p = ambiguity_test(hit_ambiguous[items], hit_plain[items], n_draws=n_draws, seed=seed)
    ambiguity = (gap >= gap_min) & (p < alpha)
    rules = position_rules([word_pos[i] for i in items], [cue_pos[i] for i in items],
                           [candidates[i] for i in items])
    probe = probe_accuracy(clean[items], tested[:, items], np.asarray(words)[items], np.asarray(senses)[items],
                           np.asarray(folds)[items])
    settles = settling_heads(probe[0] - probe[1:], n_heads, drop_min)
    return dict(ambiguity_heads=int(ambiguity.sum()), max_difference=float(gap.max()),
                position_rule_max=max(rules.values()), settling_heads=int(settles.sum()),
                both_heads=int((ambiguity & settles).sum()), max_drop=float((probe[0] - probe[1:]).max()))


__all__ = ["EXPLORER_BANK", "EXPLORER_BANK_INDEX", "FRAMES", "PLAIN", "SENSES", "SENSE_NAMES", "SOURCE_CUES",
           "SenseFrame", "ambiguity_test", "c21_numbers", "centroid_probe", "fold_of", "position_rules",
           "probe_accuracy", "probe_predict", "sense_frames", "settling_heads"]
