"""Real weights, our code: the project's encoder runs all-MiniLM-L6-v2 exactly."""


def test_our_encoder_equals_the_reference_bert(results):
    r = results("real_model_weights")
    # measured 4.0e-06 (hidden states) and 1.3e-06 (attention): float32 rounding
    assert r.number("hidden_error") < 1e-5
    assert r.number("attention_error") < 1e-5


def test_the_model_is_six_layers_of_twelve_heads_of_32_dimensions(results):
    r = results("real_model_weights")
    assert (r.number("n_layers"), r.number("n_heads"), r.number("d_model")) == (6, 12, 384)
    assert r.number("head_size") == 32
    assert 22 < r.number("n_params_millions") < 23.5  # measured 22.6


def test_the_key_bias_cannot_change_attention_but_the_query_bias_does(results):
    r = results("real_model_weights")
    # softmax ignores q·b_K, which is the same for every key: measured 1.1e-06
    assert r.number("key_bias_effect") < 1e-5
    # the query bias moves some weight by 0.78: far above rounding
    assert r.number("query_bias_effect") > 0.1


def test_mean_pooled_embeddings_equal_sentence_transformers_encode(monkeypatch):
    """The pruning page embeds sentences as sentence-transformers does; check it against the library."""
    import sys
    from pathlib import Path

    import torch

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the weights come from the installed package only
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))
    from explainer.minilm import MiniLM, Tokenizer, mean_pool, model_folder
    from sentence_transformers import SentenceTransformer

    sentences = ["The animal didn't cross the street because it was too tired.",
                 "A man is playing a guitar on the street.", "How do I reset my password?"]
    model, tokenizer = MiniLM.from_pretrained(), Tokenizer()
    ours = torch.cat([mean_pool(model(tokenizer.ids(s)).hidden_states[-1]) for s in sentences])
    reference = SentenceTransformer(str(model_folder()), device="cpu").encode(
        sentences, convert_to_tensor=True)
    assert (ours - reference).abs().max().item() < 1e-5
