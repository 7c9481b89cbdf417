"""Small shared modules used by the snippets (one job each).

- ``report``: record the numbers, figures and claim verdicts a snippet produces.
- ``plotting``: figure style, CJK fonts and reproducible SVG output.
"""
