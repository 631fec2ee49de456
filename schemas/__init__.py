"""gqlbench.schemas (placeholder)."""
