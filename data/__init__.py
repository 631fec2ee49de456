"""Vendored benchmark data (package data only; see PROVENANCE.md)."""
