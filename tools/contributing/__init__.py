"""Contributor tools: new pages, translation status, citations, benchmarks, system packages."""
