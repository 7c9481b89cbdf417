"""C23 in MiniLM: direction or length? The angle between a head's query and its target's key.
The counts nest as their definitions say, whatever the outcome; the verdict is the rule's."""

HEADS = 72


def test_the_largest_score_is_the_most_attended_key_and_the_shares_are_shares(results):
    r = results("real_model.head_roles.angles")
    for head in ("coreference", "verb_object"):
        # softmax is monotone: the largest q.k is the most attended candidate
        assert r.number(f"direction_{head}_score_matches_attention") == 1
        for by in ("cos", "norm"):
            share = r.number(f"direction_{head}_{by}_share")
            assert 0 <= share <= 1, (head, by)


def test_yet_the_winning_angle_is_far_from_small(results):
    r = results("real_model.head_roles.angles")
    for head in ("coreference", "verb_object"):
        assert r.number(f"direction_{head}_winner_angle") > 45


def test_c23_target_shares_are_weights_of_passing_heads(results):
    r = results("real_model.head_roles.angles")
    # the heads angles.py measures again are those that pass C02, C21 and C22 in their own files
    passing = {"c02": results("real_model.head_roles.roles").number("coreference_heads"),
               "c21": results("real_model.head_roles.ambiguous_words").number("c21_ambiguity_heads"),
               "c22": results("real_model.head_roles.noun_between").number("c22_heads")}
    for claim, heads in passing.items():
        at_0_3, largest = r.number(f"c23_{claim}_heads_at_0_3"), r.number(f"c23_{claim}_max_target_weight")
        assert 0 <= at_0_3 <= heads and 0 <= largest <= 1, claim
        assert (at_0_3 > 0) == (largest >= 0.3), claim


def test_c23_counts_only_qualifying_heads_and_its_bands_do_not_overlap(results):
    r = results("real_model.head_roles.angles")
    qualifying = r.number("c23_heads")
    assert qualifying == sum(r.number(f"c23_{claim}_heads_at_0_3") for claim in ("c02", "c21", "c22"))
    # a head cannot be both below the small band and above the large one
    assert r.number("c23_small_heads") + r.number("c23_large_heads") <= qualifying
    if qualifying:
        assert 0 <= r.number("c23_target_angle") <= 180 and 0 <= r.number("c23_others_angle") <= 180
        assert 0 <= r.number("c23_smallest_angle_share") <= 1
    for name in ("coreference", "verb_object"):
        assert 0 <= r.number(f"direction_{name}_cos_heads_75") <= HEADS


def test_c23_counts_on_hand_made_angles():
    import numpy as np
    from explainer.angle_resampling import c23_counts
    # one claim, three heads, two sentences; head 2 does not pass, head 1 gives its target too little
    passes = {"c": np.array([True, True, False])}
    weights = {"c": np.array([[0.5, 0.1, 0.9], [0.3, 0.2, 0.9]])}
    to_target = np.array([[40.0, 30.0, 10.0], [50.0, 30.0, 10.0]])
    to_others = [np.array([[70.0, 80.0], [80.0, 80.0], [90.0, 90.0]]), np.array([[60.0], [80.0], [90.0]])]
    rule = dict(share=0.3, small=60.0, gap=15.0, large=75.0)
    both = c23_counts(passes, weights, {"c": (to_target, to_others)}, {"c": np.array([0, 1])}, **rule)
    assert both == dict(heads=1, small_heads=1, large_heads=0)   # head 0: median 45 vs 70
    # sentence 1 drawn twice: head 0's weight 0.3 still qualifies; medians 50 vs 60: not 15 apart
    again = c23_counts(passes, weights, {"c": (to_target, to_others)}, {"c": np.array([1, 1])}, **rule)
    assert again == dict(heads=1, small_heads=0, large_heads=0)


def test_c02_passes_on_every_pair_is_the_pair_relabelling_test():
    import numpy as np
    from explainer.angle_resampling import c02_passes
    from explainer.significance import pair_relabelling_max_statistic
    rng = np.random.default_rng(0)
    right = rng.random((40, 5)) < np.array([0.95, 0.5, 0.5, 0.6, 0.4])   # head 0 right in most sentences
    wrong = ~right
    pair = np.repeat(np.arange(20), 2)
    p = pair_relabelling_max_statistic(right, wrong, pair, 2000, 0)
    expected = (p < 0.05) & (right.mean(axis=0) >= 0.5)
    assert (c02_passes(right, wrong, np.arange(40), alpha=0.05, majority=0.5, n_relabellings=2000) == expected).all()
    assert expected[0]


def test_every_heads_centred_angles_are_each_heads_own():
    import torch
    from explainer.head_angles import centred_angles_all
    from explainer.minilm import MiniLM, Tokenizer, run_sentences
    model, tokenizer = MiniLM.from_pretrained(), Tokenizer()
    texts = ["The bank raised its interest rates.", "The animal did not cross the street."]
    outputs = run_sentences(model, tokenizer, texts)
    queries, targets, candidates = [2, 2], [5, 7], [[1, 3, 4, 5], [1, 4, 6, 7]]
    to_target, to_others = centred_angles_all(model, outputs, queries, targets, candidates)
    assert to_target.shape == (2, HEADS) and to_others[0].shape == (HEADS, 3)
    for n, flat in ((0, 0), (1, 40), (1, 71)):
        attention = model.layers[flat // 12].attention
        x = outputs[n].hidden_states[flat // 12]
        q = attention.split_heads(attention.W_Q(x))[0, flat % 12, queries[n]]
        k = attention.split_heads(attention.W_K(x))[0, flat % 12]
        k = k - k.mean(dim=0)
        cos = torch.nn.functional.cosine_similarity(k, q[None], dim=-1)
        angle = torch.rad2deg(torch.arccos(cos.clamp(-1, 1))).detach().numpy()
        assert abs(to_target[n, flat] - angle[targets[n]]) < 1e-3
        others = [i for i in candidates[n] if i != targets[n]]
        assert abs(to_others[n][flat] - angle[others]).max() < 1e-3
