"""Small shared modules used by the snippets (one job each).

- ``report``: record the numbers, figures, data and claim verdicts a snippet produces.
- ``plotting``: figure style, CJK fonts and reproducible SVG output.
- ``attention``: multi-head attention, written once (manual next to fused).
- ``tiny_transformer``, ``training``: small models built on it and a deterministic trainer.
- ``head_metrics``: named head behaviours (previous-token, induction, first-token, entropy, ...).
- ``first_and_previous``, ``repeated_segments``, ``pronoun_language``: toy tasks.
- ``minilm``, ``sample_sentences``: real all-MiniLM-L6-v2 weights in our own encoder, and its texts.
- ``kernels``: the CPU kernels torch computes with, pinned so every x86-64 machine with AVX2
  gets the same numbers. Importing ``explainer`` pins them, so import it *before* torch.
"""

from explainer import kernels

kernels.pin()
