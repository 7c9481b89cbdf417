"""The build glue, by job (tools/README.md). Run from the repository root: python -m tools.<folder>.<module>."""
