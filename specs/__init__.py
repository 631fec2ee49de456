"""gqlbench.specs (placeholder)."""
