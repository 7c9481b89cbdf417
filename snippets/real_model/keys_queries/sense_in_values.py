# %% [markdown]
# # Keys, queries and values in a real model (5): the sense in the value
#
# Source B §4 says V directly carries the concrete content: the value of 苹果
# (apple) carries that this apple is a fruit and not a company (C36). Measured
# here in MiniLM's values, head by head, with English words of two senses. The
# snippet records the numbers; the claims registry (docs/claims.yml) holds the rule.

# %%
# Recording what the page cites (numbers, figures): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.report import Report

report = Report("real_model.keys_queries.sense_in_values")

# %% tags=["model"]
from explainer.minilm import MiniLM, Tokenizer, run_sentences   # first: it pins torch's CPU kernels
from explainer.head_vectors import head_vectors
import numpy as np
import torch

torch.set_num_threads(1)
model, tokenizer = MiniLM.from_pretrained(), Tokenizer()       # all-MiniLM-L6-v2, weights on disk
L, H = model.config.n_layers, model.config.n_heads
hs = model.config.d_model // H                                     # 32 dimensions per head
print(f"{L} layers × {H} heads, {hs} dimensions per head")

# %% [markdown]
# ## C36: does the value carry which sense a word has?
#
# Source B says V "directly carries the concrete content": the value of *apple*
# carries that this apple is a fruit and not a company. MiniLM has no 苹果, but
# English has words of two senses: *bank* (money / river), *bat*, *mouse*,
# *seal*, *crane*. Each stands in 20 frames, and each frame is a minimal pair:
# the same sentence with a cue noun of each sense (explainer/word_senses.py).
# For every head, a nearest-centroid probe reads the sense from the word's value
# in that head, held out by frame. In layer 1 the word's value sees only the word
# and its position, the same in both sentences of a pair, so no probe can do
# better than half there: that is the context-free baseline. Significance over
# the 60 heads of layers 2-6 comes from a max-statistic permutation test (swap
# the senses within pairs), and the best head's accuracy gets an interval by
# resampling the frames. The keys get the same probe, for comparison.

# %% tags=["sense_probe"]
from explainer.centroid_probe import centroid_probe_correct, swap_within_pairs
from explainer.word_senses import FRAMES, SENSES, sense_sentences

N_DRAWS = 1000
SENSE_BAR, SENSE_ALPHA = 0.8, 0.05   # C36: a head reads the sense at >= SENSE_BAR with p < SENSE_ALPHA
REFUTED_BELOW = 0.6                  # C36 is refuted only if the best head's interval lies below this
sense_items = sense_sentences()                                    # words x frames x 2 senses
sense_outputs = run_sentences(model, tokenizer, [s.text for s in sense_items])
sense_vectors = {name: torch.zeros(L, len(sense_items), H, hs) for name in ("K", "V")}
for n, (item, out) in enumerate(zip(sense_items, sense_outputs)):
    position = tokenizer.tokens(item.text).index(item.word)
    for layer in range(L):
        projected = head_vectors(model, out.hidden_states[layer][0, position:position + 1], layer)
        for name in ("K", "V"):
            sense_vectors[name][layer, n] = projected[name][0]      # (nh, hs)
sense_truth = np.array([s.sense for s in sense_items])
sense_frame_ids = np.array([s.frame for s in sense_items])
sense_pairs = np.array([f"{s.word}/{s.frame}" for s in sense_items])
sense_word_of = np.array([s.word for s in sense_items])
sense_relabelled = np.vstack([sense_truth, swap_within_pairs(sense_truth, sense_pairs, N_DRAWS,
                                                  np.random.default_rng(0))])   # (1 + N_DRAWS, N)
sense_correct = {}                             # name -> (draws, L, H, N); the keys: observed only
for name, draws in (("V", sense_relabelled), ("K", sense_relabelled[:1])):
    sense_hits = torch.zeros(len(draws), L, H, len(sense_items), dtype=torch.bool)
    for word in SENSES:                                            # one probe per word
        word_rows = np.flatnonzero(sense_word_of == word)
        heads_of_word = sense_vectors[name][:, word_rows].permute(1, 0, 2, 3).reshape(
            len(word_rows), L * H, hs)                             # (n, L*H, hs)
        word_hits = centroid_probe_correct(heads_of_word, torch.as_tensor(draws[:, word_rows]),
                                         sense_frame_ids[word_rows], n_folds=5)    # (D, L*H, n)
        sense_hits[:, :, :, word_rows] = word_hits.view(len(draws), L, H, len(word_rows))
    sense_correct[name] = sense_hits
sense_accuracy = {name: hits.double().mean(-1) for name, hits in sense_correct.items()}  # (D, L, H)
sense_observed = sense_accuracy["V"][0]                                        # (L, H)
sense_null_max = sense_accuracy["V"][1:, 1:].amax(dim=(1, 2))                  # (D,): best of layers 2-6
sense_layer, sense_head = divmod(int(sense_observed[1:].argmax()), H)
sense_layer += 1                                                    # index into all L layers
sense_best = float(sense_observed[sense_layer, sense_head])
sense_p = (1 + int((sense_null_max >= sense_best).sum())) / (1 + N_DRAWS)
# 95 % interval of the best head's accuracy: resample the frames
sense_per_frame = np.array([[sense_correct["V"][0, sense_layer, sense_head, sense_frame_ids == f].double().sum(),
                       (sense_frame_ids == f).sum()] for f in range(len(FRAMES))])  # (F, 2)
sense_frame_draws = np.random.default_rng(1).multinomial(
    len(FRAMES), np.full(len(FRAMES), 1 / len(FRAMES)), size=1000)   # (1000, F)
sense_low, sense_high = np.percentile(sense_frame_draws @ sense_per_frame[:, 0] / (sense_frame_draws @ sense_per_frame[:, 1]),
                                    [2.5, 97.5])
print(f"best value head: layer {sense_layer + 1} head {sense_head + 1}, sense read "
      f"{sense_best:.2f} [{sense_low:.2f}, {sense_high:.2f}], p = {sense_p:.3f}; "
      f"layer 1 at most {float(sense_observed[0].max()):.2f}")

# %% [markdown]
# The verdict must survive another draw of the frames: 1,000 draws of the 20 frames with
# replacement (a frame brings its sentences of all five words; every copy of a frame stays in
# its frame's fold), each running the probe, the permutation test (50 relabellings here)
# and the interval again, all heads together.

# %% tags=["resampled"]
from explainer.item_resampling import stratified_draws
from explainer.sense_resampling import sense_rule_numbers

frame_draws = stratified_draws(np.zeros(len(FRAMES)), seed=0)             # (1000, 20) frames
again = [sense_rule_numbers(sense_vectors["V"], sense_truth, sense_frame_ids, sense_word_of,
                            frames, n_draws=50, seed=d) for d, frames in enumerate(frame_draws)]

# %%
report.number("n_items", len(FRAMES), kind="count")
report.number("sense_words", len(SENSES), "{:.0f}", kind="count")
report.number("sense_frames", len(FRAMES), "{:.0f}", kind="count")
report.number("sense_best_accuracy", sense_best, "{:.0%}", kind="share", resampled=[r["best"] for r in again])
report.number("sense_best_layer", sense_layer + 1, "{:.0f}")
report.number("sense_best_head", sense_head + 1, "{:.0f}")
report.number("sense_best_low", sense_low, "{:.0%}", kind="share", resampled=[r["low"] for r in again])
report.number("sense_best_high", sense_high, "{:.0%}", kind="share", resampled=[r["high"] for r in again])
report.number("sense_best_p", sense_p, kind="p", resampled=[r["p"] for r in again])
report.number("sense_layer1_best", sense_observed[0].max(), "{:.0%}", kind="share", resampled=[r["layer1"] for r in again])
report.number("sense_bar", SENSE_BAR, kind="share")
report.number("sense_alpha", SENSE_ALPHA, "{:.2f}")
report.number("refuted_below", REFUTED_BELOW, kind="share")
report.number("sense_heads_passing", int(((sense_observed[1:] >= SENSE_BAR)
                                           & (sense_observed[1:] > sense_observed[0].max())
                                           & (((1 + (sense_null_max[:, None, None] >= sense_observed[1:]).sum(0))
                                               / (1 + N_DRAWS)) < SENSE_ALPHA)).sum()), "{:.0f}", kind="count")
report.number("sense_best_k_accuracy", sense_accuracy["K"][0, sense_layer, sense_head], "{:.0%}", kind="share")
report.number("sense_k_best_accuracy", sense_accuracy["K"][0, 1:].max(), "{:.0%}", kind="share")
report.number("sense_v_median_accuracy", sense_observed[1:].median(), "{:.0%}", kind="share")

k_best = float(sense_accuracy["K"][0, 1:].max())
# Does a value carry the sense (and do the keys, about as well: then it is in the stream), no head's,
# or can the run not tell?
carried = sense_best >= SENSE_BAR and sense_low >= SENSE_BAR and sense_p < SENSE_ALPHA
report.category("sense_outcome", ("in_stream" if k_best >= sense_best - 0.05 else "yes") if carried else
                "no" if sense_high < REFUTED_BELOW else "unclear")

# %% [markdown]
# ## Could the test see such a head? A planted one (G1)
#
# C36 is refuted only if the best head's whole interval lies below 0.6. Would a head that
# reads the sense at 0.8 on average have escaped? In each of 200 draws one of the 60 heads
# of layers 2-6, drawn at random, has its values replaced, word by word: the two senses'
# class means removed, then ±s/2 standard deviations (of that word along u) added by sense
# along one random unit direction u. s is the smallest step of 0.1 at which 50 planted
# heads reach a mean held-out accuracy of 0.8 (the same probe). The planted head's accuracy
# replaces its own, the best head is chosen again, its interval comes from 1,000 redraws of
# the frames (a fresh seed in each draw), and the draw counts as detected when the upper end
# reaches 0.6 (the refuted case does not hold).

# %% tags=["planted"]
from explainer.planted_senses import frame_interval, planted_draws, planted_size

PLANTED_BAR, PLANTED_DRAWS, CALIBRATION_DRAWS = 0.8, 200, 50
later_values = sense_vectors["V"][1:].permute(0, 2, 1, 3).reshape((L - 1) * H, len(sense_items), hs)
planted_s, _ = planted_size(later_values, sense_truth, sense_frame_ids, sense_word_of, PLANTED_BAR,
                            np.round(np.arange(1, 201) * 0.1, 1), CALIBRATION_DRAWS, seed=0)
planted_rng = np.random.default_rng(1)
planted_heads, planted_hits = planted_draws(later_values, sense_truth, sense_frame_ids, sense_word_of,
                                            planted_s, PLANTED_DRAWS, planted_rng)
planted_accuracy = planted_hits.double().mean(-1)                              # (draws,)
planted_detected = []
for flat, hits, accuracy in zip(planted_heads, planted_hits, planted_accuracy):
    observed = sense_observed.clone()
    observed[1 + flat // H, flat % H] = accuracy
    best_layer, best_head = divmod(int(observed[1:].argmax()), H)
    best_hits = hits if (best_layer, best_head) == (flat // H, flat % H) else sense_correct["V"][0, best_layer + 1, best_head]
    _, high = frame_interval(best_hits, sense_frame_ids, len(FRAMES),
                             np.random.default_rng(int(planted_rng.integers(1 << 30))))
    planted_detected.append(high >= REFUTED_BELOW)
print(f"planted size {planted_s:.1f} sd: mean accuracy {float(planted_accuracy.mean()):.2f}, "
      f"detected in {np.mean(planted_detected):.0%} of {PLANTED_DRAWS} draws")
report.number("planted_detection_share", np.mean(planted_detected), kind="share")
report.number("planted_size", planted_s, "{:.1f}")
report.number("planted_accuracy_mean", planted_accuracy.mean(), kind="share")
report.number("planted_bar", PLANTED_BAR, kind="share")
report.number("planted_draws", PLANTED_DRAWS, "{:.0f}", kind="count")

report.save()
