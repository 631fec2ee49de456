"""gqlbench.metrics (placeholder)."""
