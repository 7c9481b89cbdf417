"""Keys, queries and values in MiniLM (6), C26, C31, C39: layer-1 probes of verbs' queries
and words' keys. The computations behind the numbers; the verdict is the rule's (docs/claims.yml)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from explainer import projection_baseline as pb  # noqa: E402
from explainer import slot_words  # noqa: E402



# --- the probe and its folds --------------------------------------------------------------------

def test_balanced_accuracy_is_the_mean_recall_over_classes():
    labels = np.array([0, 0, 0, 1, 1])
    predicted = torch.tensor([[0, 0, 1, 1, 1],      # recalls 2/3 and 1
                              [0, 0, 0, 0, 0],      # always the larger class: 1 and 0
                              [1, 1, 1, 0, 0]])     # all wrong
    assert torch.allclose(pb.balanced_accuracy(predicted, labels),
                          torch.tensor([5 / 6, 0.5, 0.0], dtype=torch.double))


def test_folds_hold_out_every_word_once_and_deal_each_class_evenly():
    labels = np.array([0] * 23 + [1] * 7 + [2] * 41)
    folds = pb.stratified_folds(labels, 10, seed=3)
    assert folds.shape == labels.shape and set(folds) == set(range(10))
    for c in (0, 1, 2):
        per_fold = np.bincount(folds[labels == c], minlength=10)
        assert per_fold.max() - per_fold.min() <= 1, c
    assert np.array_equal(folds, pb.stratified_folds(labels, 10, seed=3))


def _planted_direction(n=80, d=12, gap=6.0, seed=0):
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % 2
    X = rng.standard_normal((n, d))
    X[:, 4] += gap * (labels - 0.5)             # one coordinate separates the classes
    return torch.from_numpy(X), labels


def test_the_probe_finds_a_planted_separable_direction_and_not_shuffled_labels():
    X, labels = _planted_direction()
    folds = pb.stratified_folds(labels, 10)
    assert float(pb.ridge_balanced_accuracy(X, labels, folds)) == 1.0
    shuffled = np.random.default_rng(1).permutation(labels)
    noise = torch.from_numpy(np.random.default_rng(2).standard_normal((80, 12)))
    assert 0.25 < float(pb.ridge_balanced_accuracy(noise, shuffled, pb.stratified_folds(shuffled, 10))) < 0.75


def test_the_probe_reads_many_spaces_at_once_as_one_by_one_and_ignores_scale():
    X, labels = _planted_direction(gap=1.5)
    folds = pb.stratified_folds(labels, 10)
    spaces = torch.stack([X, X.flip(-1), X.roll(3, dims=-1) * 2.0])          # (3, N, d)
    together = pb.ridge_balanced_accuracy(spaces, labels, folds)
    alone = torch.stack([pb.ridge_balanced_accuracy(s, labels, folds) for s in spaces])
    assert torch.allclose(together, alone)
    scaled = X * torch.linspace(0.1, 10, X.shape[1], dtype=X.dtype) + 3.0   # standardised away
    assert torch.isclose(pb.ridge_balanced_accuracy(scaled, labels, folds),
                         pb.ridge_balanced_accuracy(X, labels, folds))


def test_a_held_out_word_is_named_without_its_own_label():
    X, labels = _planted_direction(gap=0.8)
    folds = pb.stratified_folds(labels, 4)
    flipped = labels.copy()
    flipped[folds == 0] = 1 - flipped[folds == 0]          # fold 0's labels, all wrong now
    before = pb.held_out_predictions(X[None], labels, folds)
    after = pb.held_out_predictions(X[None], flipped, folds)
    assert torch.equal(before[:, folds == 0], after[:, folds == 0])     # fold 0 never saw them
    assert not torch.equal(before[:, folds != 0], after[:, folds != 0])  # the other folds did


# --- the baselines ------------------------------------------------------------------------------

def test_the_null_is_the_best_of_each_set_of_random_projections():
    X, labels = _planted_direction(n=60, d=20, gap=1.0)
    folds = pb.stratified_folds(labels, 5)
    n_sets, per_set, dim = 5, 3, 4
    null = pb.max_projection_null(X, labels, folds, n_sets, per_set, dim, seed=7, chunk=n_sets * per_set)
    R = torch.randn(n_sets * per_set, X.shape[1], dim, generator=torch.Generator().manual_seed(7),
                    dtype=torch.double)
    each = torch.stack([pb.ridge_balanced_accuracy(X @ r, labels, folds) for r in R])   # one by one
    assert np.allclose(null, each.view(n_sets, per_set).amax(dim=1).numpy())
    single = pb.max_projection_null(X, labels, folds, n_sets * per_set, 1, dim, seed=7, chunk=n_sets * per_set)
    assert np.allclose(single, each.numpy())
    assert (null >= single.reshape(n_sets, per_set).min(axis=1)).all()


def test_top_components_keep_the_most_variance_and_all_of_it_at_full_rank():
    g = torch.Generator().manual_seed(0)
    X = torch.randn(50, 8, generator=g, dtype=torch.double) * torch.arange(1, 9, dtype=torch.double)
    centred = X - X.mean(dim=0)
    eigenvalues = torch.linalg.eigvalsh(centred.T @ centred).flip(0)      # largest first
    for k in (1, 3):
        Z = pb.top_components(X, k)
        assert Z.shape == (50, k)
        assert torch.isclose((Z ** 2).sum(), eigenvalues[:k].sum())
    full = pb.top_components(X, 8)
    assert torch.allclose(full @ full.T, centred @ centred.T)             # a rotation: distances kept


def test_without_class_means_makes_the_class_means_equal_and_keeps_the_rest():
    X, labels = _planted_direction()
    out = pb.without_class_means(X, labels)
    assert torch.allclose(out[labels == 0].mean(0), out[labels == 1].mean(0))
    assert torch.allclose(out.mean(0), X.mean(0))
    within = X[labels == 0] - X[labels == 0].mean(0)
    assert torch.allclose(out[labels == 0] - out[labels == 0].mean(0), within)


def test_a_planted_direction_separates_the_classes_by_its_size_and_nothing_else_does():
    g = torch.Generator().manual_seed(0)
    heads = torch.randn(3, 40, 6, generator=g, dtype=torch.double)
    labels = np.arange(40) % 2
    size = 2.0
    out = pb.planted(heads, labels, size, draws=4, generator=torch.Generator().manual_seed(1))
    assert out.shape == (4, 40, 6)
    gap = out[:, labels == 1].mean(1) - out[:, labels == 0].mean(1)      # (draws, d): only along u
    base = pb.without_class_means(heads, labels)
    for draw in range(4):
        u = torch.nn.functional.normalize(gap[draw], dim=0)
        head = min(range(3), key=lambda h: (out[draw] - base[h]).norm())
        residual = out[draw] - base[head]
        assert torch.allclose(residual - (residual @ u)[:, None] * u, torch.zeros_like(residual), atol=1e-10)
        assert torch.isclose(gap[draw].norm(), size * (base[head] @ u).std())


def test_the_planted_size_is_the_smallest_on_the_grid_that_reaches_the_bar_and_big_plants_are_found():
    g = torch.Generator().manual_seed(0)
    heads = torch.randn(4, 60, 8, generator=g, dtype=torch.double)
    labels = np.arange(60) % 2
    folds = pb.stratified_folds(labels, 5)
    sizes = np.arange(0.5, 6.01, 0.5)
    size, mean = pb.planted_size(heads, labels, folds, 0.75, sizes, draws=40)
    assert mean >= 0.75 and size in sizes
    if size > sizes[0]:
        below = float(pb.ridge_balanced_accuracy(
            pb.planted(heads, labels, size - 0.5, 40, torch.Generator().manual_seed(0)), labels, folds).mean())
        assert below < 0.75
    share, accuracy = pb.planted_detection(heads, labels, folds, 6.0, beats=0.6, draws=30)
    assert share == 1.0 and accuracy.shape == (30,)
    share, _ = pb.planted_detection(heads, labels, folds, 0.0, beats=0.9, draws=30)
    assert share == 0.0


# --- the words ----------------------------------------------------------------------------------

def test_the_word_lists_are_labelled_as_the_claims_need():
    verbs = [v for v, _, _ in slot_words.VERBS]
    assert len(verbs) == len(set(verbs))
    assert set(slot_words.FRAMES) == {"none", "place", "object", "two_objects"}   # C26's frames
    for verb, transitive, frame in slot_words.VERBS:
        if frame is not None:
            assert transitive == slot_words.TRANSITIVE[frame], verb
    words = [w for w, _ in slot_words.WORDS]
    assert len(words) == len(set(words))
    nouns = {w for w, noun in slot_words.WORDS if noun}
    assert nouns == set(slot_words.CONCRETE_NOUNS)
    assert not nouns & {w for ws in slot_words.OTHER_WORDS.values() for w in ws}


def test_every_word_is_one_wordpiece_token_in_the_same_slot_and_a_split_word_stops_the_run():
    from explainer.minilm import Tokenizer

    tokenizer = Tokenizer()
    for words in ([v for v, _, _ in slot_words.VERBS], [w for w, _ in slot_words.WORDS]):
        slot = slot_words.slot_position(tokenizer, words)
        for w in words:
            assert tokenizer.tokens(slot_words.TEMPLATE.format(w))[slot] == w
    with pytest.raises(ValueError, match="single WordPiece"):
        slot_words.slot_position(tokenizer, ["apple", "nibble"])          # ni ##bble
    with pytest.raises(ValueError, match="twice"):
        slot_words.slot_position(tokenizer, ["apple", "apple"])


def test_layer1_queries_and_keys_at_the_slot_do_not_depend_on_the_other_words():
    from explainer.head_vectors import head_vectors
    from explainer.minilm import MiniLM, Tokenizer

    model, tokenizer = MiniLM.from_pretrained(), Tokenizer()
    slot = slot_words.slot_position(tokenizer, ["horse"])
    a = model(tokenizer.ids(slot_words.TEMPLATE.format("horse"))).hidden_states[0][0, slot]
    b = model(tokenizer.ids("Nobody saw horse in the field.")).hidden_states[0][0, slot]
    assert tokenizer.tokens("Nobody saw horse in the field.")[slot] == "horse"
    assert torch.equal(a, b)
    qa, qb = head_vectors(model, a[None], 0), head_vectors(model, b[None], 0)
    assert torch.equal(qa["Q"], qb["Q"]) and torch.equal(qa["K"], qb["K"])


# --- the recorded numbers -----------------------------------------------------------------------

def test_the_recorded_counts_and_comparisons_agree(results):
    r = results("real_model.keys_queries.layer1_probes")
    assert r.number("n_transitive") + r.number("n_intransitive") == r.number("n_verbs")
    assert sum(r.number(f"n_frame_{f}") for f in slot_words.FRAMES) == r.number("n_frame_verbs")
    assert r.number("n_nouns") + r.number("n_other_words") == r.number("n_words")
    for name, vector in (("transitive", "query"), ("frame", "query"), ("noun", "key")):
        best, passing = r.number(f"{name}_best_{vector}"), r.number(f"{name}_passing_heads")
        assert 0 <= passing <= r.number(f"{name}_beating_heads") <= 12
        assert r.number(f"{name}_{vector}_median") <= best <= 1
        assert 1 <= r.number(f"{name}_best_{vector}_head") <= 12
        # a head passes exactly when the best one does: the baselines are the same for every head
        beats = best > r.number(f"{name}_null_p95") and best > r.number(f"{name}_pca")
        assert (passing >= 1) == (beats and best >= r.number("pass_bar")), name
        assert (r.number(f"{name}_beating_heads") >= 1) == beats, name
    assert 0 <= r.number("key_planted_detection_share") <= 1
