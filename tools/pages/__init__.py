"""Rendering pages: the two-language build, the preview, the mkdocs hooks and what they fill in."""
