"""gqlbench.mocks (placeholder)."""
