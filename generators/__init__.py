"""gqlbench.generators (placeholder)."""
