"""C02's reading of a head: a noun's share summed over its pieces, among the words only,
and the planted head that the power check hides among the real ones. Known answers on
small inputs; the verdict is the rule's."""

import numpy as np
import pytest
import torch

from explainer.coreference_pairs import (TEMPLATES, noun_pieces, noun_shares, pair_sentences,
                                         planted_row, share_positions, word_spans)

TOKENS = ["[CLS]", "the", "fork", "##lift", "lifted", "the", "box", "because", "it", "was", ".", "[SEP]"]


def test_a_noun_split_into_pieces_is_one_word_with_all_its_positions():
    assert ("forklift", [2, 3]) in word_spans(TOKENS)
    assert noun_pieces(TOKENS, "forklift") == [2, 3]
    assert noun_pieces(TOKENS, "box") == [6]
    with pytest.raises(ValueError):
        noun_pieces(TOKENS, "fork")


def test_cls_sep_and_punctuation_never_count_in_a_share():
    assert share_positions(TOKENS) == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert share_positions(["[CLS]", "didn", "'", "t", ",", "[SEP]"]) == [1, 3]


def test_the_noun_share_sums_the_pieces_and_ignores_the_excluded_positions():
    row = torch.zeros(1, len(TOKENS))
    row[0, [0, 11, 10]] = torch.tensor([0.3, 0.2, 0.1])   # [CLS], [SEP], "." : 0.6 left out
    row[0, 2], row[0, 3], row[0, 6], row[0, 1] = 0.1, 0.1, 0.1, 0.1
    right, wrong = noun_shares(row, share_positions(TOKENS), noun_pieces(TOKENS, "forklift"), [6])
    assert right.item() == pytest.approx(0.2 / 0.4)
    assert wrong.item() == pytest.approx(0.1 / 0.4)


def test_the_planted_row_splits_the_nouns_as_asked_and_stays_a_distribution():
    row = torch.softmax(torch.arange(len(TOKENS), dtype=torch.float) * 0.1, dim=0)
    planted = planted_row(row, [2, 3], [6], 5 / 6)
    assert planted.sum().item() == pytest.approx(1.0)
    assert planted[[2, 3]].sum() / planted[6] == pytest.approx(5.0)
    assert planted[2] / planted[3] == pytest.approx(row[2] / row[3])       # pieces keep their split
    untouched = [i for i in range(len(TOKENS)) if i not in (2, 3, 6)]
    assert torch.equal(planted[untouched], row[untouched])


def test_right_in_three_pairs_of_four_at_five_sixths_is_75_percent_right_with_a_2x_ratio():
    # the planted head of coreference.py: right in both sentences of 75 % of the pairs with
    # 5/6 of the nouns' attention, wrong in both of the others; equal noun mass per sentence
    right_pairs = np.array([True, True, True, False] * 5)
    fraction = np.where(np.repeat(right_pairs, 2), 5 / 6, 1 / 6)             # (40,)
    assert np.mean(fraction > 0.5) == pytest.approx(0.75)
    assert fraction.mean() / (1 - fraction).mean() == pytest.approx(2.0)


@pytest.mark.parametrize("per_template", [10, 20])   # the first look's 60 pairs, the second look's 120
def test_the_pairs_come_from_six_templates_each_moving_the_referent_with_its_last_word(per_template):
    sentences = pair_sentences(per_template)
    n_pairs = 6 * per_template
    assert len(TEMPLATES) >= 6 and len(sentences) == 2 * n_pairs and len({s.pair for s in sentences}) == n_pairs
    for first, second in zip(sentences[0::2], sentences[1::2]):
        assert first.pair == second.pair and first.right == second.wrong and first.right_is_first
        assert first.text.split()[:-1] == second.text.split()[:-1] != []
        assert first.right != first.wrong and "it" not in (first.right, first.wrong)
    second_look = {s.text for s in pair_sentences(20)}
    assert all(s.text in second_look for s in pair_sentences(10))      # the first look's pairs are kept
    with pytest.raises(ValueError):
        pair_sentences(21)
    nouns = [{n for pair in pairs for n in pair[:2]} for _, pairs in TEMPLATES]
    assert all(len(n) >= 15 for n in nouns)                                # different nouns


def test_the_counts_nest_as_defined_and_every_resampling_is_recorded(results):
    r = results("real_model.head_roles.coreference")
    # In the run and in every resampling of the pairs: passing heads are judged significant,
    # judged heads were chosen (the definitions nest), and no count exceeds the 72 heads.
    counts = {key: np.array([r.data["numbers"][key]["value"], *r.data["numbers"][key]["resampled"]])
              for key in ("chosen_heads", "judged_significant_heads", "passing_heads", "judging_any_heads")}
    assert (0 <= counts["passing_heads"]).all()
    assert (counts["passing_heads"] <= counts["judged_significant_heads"]).all()
    assert (counts["judged_significant_heads"] <= counts["chosen_heads"]).all()
    assert (counts["chosen_heads"] <= 72).all() and (counts["judging_any_heads"] <= 72).all()
    for key in ("chosen_heads", "judged_significant_heads", "passing_heads", "judging_any_heads",
                "probe_accuracy", "probe_p"):
        assert len(r.data["numbers"][key]["resampled"]) == 1000, key
