"""Vendored benchmark data: package data only, no code (see PROVENANCE.md).

Each folder is a benchmark (``<split>.jsonl`` files and an optional
``errata.json``) read through :mod:`gqlbench.dataset`.
"""

__all__: list[str] = []
