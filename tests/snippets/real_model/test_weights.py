"""Real weights, our code: the project's encoder runs all-MiniLM-L6-v2 exactly."""


def test_our_encoder_equals_the_reference_bert(results):
    r = results("real_model.weights")
    # float32 rounding only: a wrong weight or a missing bias would differ far more
    assert r.number("hidden_error") < 1e-5
    assert r.number("attention_error") < 1e-5


def test_the_model_is_six_layers_of_twelve_heads_of_32_dimensions(results):
    r = results("real_model.weights")
    assert (r.number("n_layers"), r.number("n_heads"), r.number("d_model")) == (6, 12, 384)
    assert r.number("head_size") == 32
    # about 11.9 M in the embeddings (30522 x 384 words, 512 positions) and 1.8 M per layer
    assert 22e6 < r.number("n_params") < 23.5e6


def test_the_key_bias_cannot_change_attention_but_the_query_bias_does(results):
    r = results("real_model.weights")
    # softmax ignores q·b_K, which is the same for every key: only float32 rounding is left
    assert r.number("key_bias_effect") < 1e-5
    # the query bias adds b_Q·k, which differs from key to key: far above rounding
    assert r.number("query_bias_effect") > 0.1


def test_mean_pooled_embeddings_equal_sentence_transformers_encode(monkeypatch):
    """The pruning page embeds sentences as sentence-transformers does; check it against the library."""
    import sys
    from pathlib import Path

    import torch

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the weights come from the installed package only
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "snippets"))
    from explainer.minilm import MiniLM, Tokenizer, mean_pool, model_folder
    from sentence_transformers import SentenceTransformer

    sentences = ["The animal didn't cross the street because it was too tired.",
                 "A man is playing a guitar on the street.", "How do I reset my password?"]
    model, tokenizer = MiniLM.from_pretrained(), Tokenizer()
    ours = torch.cat([mean_pool(model(tokenizer.ids(s)).hidden_states[-1]) for s in sentences])
    reference = SentenceTransformer(str(model_folder()), device="cpu").encode(
        sentences, convert_to_tensor=True)
    assert (ours - reference).abs().max().item() < 1e-5


def test_exercise_answers(results):
    r = results("real_model.weights")
    # 1: b_V enters the output, never the scores of its own layer: layer 1's attention is
    #    untouched, the next layers read a changed input.
    assert r.number("exercise_value_bias_layer_1") < 1e-5
    assert r.number("exercise_value_bias_later_layers") > 0.01
    # 2: without position embeddings attention cannot tell which token came just before:
    #    the best previous-token head loses its role.
    assert r.number("exercise_previous_token_with_positions") > 0.9
    assert r.number("exercise_previous_token_without_positions") < 0.5
