"""Keys, queries and values in MiniLM (5), C36: does a word's value carry its sense?
The computations behind the numbers; the verdict is the rule's (docs/claims.yml)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))


def test_the_sense_probe_numbers_are_shares_of_the_sentences_and_layer_1_is_blind(results):
    r = results("real_model.keys_queries.sense_in_values")
    n = 2 * r.number("sense_words") * r.number("sense_frames")          # sentences
    for key in ("sense_best_accuracy", "sense_layer1_best", "sense_best_k_accuracy",
                "sense_k_best_accuracy"):
        share = r.number(key)
        assert 0 <= share <= 1 and abs(share * n - round(share * n)) < 1e-6, key
    # (that the context-free layer-1 value gives exactly one half is the probe's own test,
    # tests/snippets/real_model/test_centroid_probe.py; the rule reads that number)
    # the best head is the best of layers 2-6
    assert 2 <= r.number("sense_best_layer") <= 6 and 1 <= r.number("sense_best_head") <= 12
    assert r.number("sense_best_low") <= r.number("sense_best_high")
    assert r.number("sense_v_median_accuracy") <= r.number("sense_best_accuracy")
    assert r.number("sense_k_best_accuracy") >= r.number("sense_best_k_accuracy")
    assert 0 <= r.number("sense_heads_passing") <= 60
