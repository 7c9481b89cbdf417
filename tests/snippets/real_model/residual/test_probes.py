"""What held-out probes read from MiniLM's values, layer by layer: neighbouring words and word senses (C29).

The verdicts are the rules' (docs/claims.yml); these tests check that the numbers behind them
are computed consistently, whatever the outcome."""

import numpy as np
import pytest


def test_the_sense_probe_cannot_tell_the_senses_apart_in_layer_1(results):
    r = results("real_model.residual.probes")
    # by construction both sentences of a pair give the word the same layer-1 value, so the
    # nearest-centroid probe names the same sense for both: exactly one of each pair is right
    assert r.number("sense_probe_layer1") == 0.5
    assert r.number("n_sense_sentences") == 5 * 20 * 2


def test_the_sense_gain_is_the_best_later_layer_minus_layer_1(results):
    r = results("real_model.residual.probes")
    gain = r.number("sense_probe_best") - r.number("sense_probe_layer1")
    assert abs(r.number("sense_probe_gain") - gain) < 1e-9
    assert r.number("sense_probe_layer6") <= r.number("sense_probe_best")
    assert 2 <= r.number("sense_probe_best_layer") <= 6
    assert r.number("sense_probe_gain_low") <= r.number("sense_probe_gain_high")


def test_the_g1_check_is_the_residual_probe_against_the_majority_guess(results):
    r = results("real_model.residual.probes")
    margin = r.number("neighbour_residual6_probe") - r.number("neighbour_majority_share")
    assert abs(r.number("neighbour_g1_margin") - margin) < 1e-9
    assert r.number("neighbour_g1_held") in (0, 1)
    # a share of the probe items: a whole number of items named right
    share, n_items = r.number("neighbour_residual6_probe"), r.number("n_probe_items")
    assert abs(share * n_items - round(share * n_items)) < 1e-6


def test_the_recorded_probe_numbers_are_shares_of_the_items(results):
    r = results("real_model.residual.probes")
    n = r.number("n_probe_items")
    layers = [r.number(f"neighbour_probe_layer{l}") for l in range(1, 7)]
    for share in layers + [r.number("neighbour_majority_share")]:
        assert 0 <= share <= 1 and abs(share * n - round(share * n)) < 1e-6
    # the gain and the count of gaining steps follow from the six accuracies
    assert r.number("neighbour_probe_gain") == pytest.approx(layers[5] - layers[0])
    assert r.number("neighbour_probe_gain_steps") == sum(b > a for a, b in zip(layers, layers[1:]))
    assert r.number("neighbour_probe_best_layer") == int(np.argmax(layers)) + 1
    assert r.number("neighbour_probe_gain_low") <= r.number("neighbour_probe_gain_high")
    assert 0 <= results("real_model.residual.cka").number("cka_V_bar_layers") <= 5
