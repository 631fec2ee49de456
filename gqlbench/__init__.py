"""gqlbench: a benchmark for sequential REST function calling guided by GraphQL schemas.

Subpackages, from the ground floor up (each imports only those before it):

- ``gqlbench.specs``, ``gqlbench.schemas``: the domain catalog (signatures, SDL).
- ``gqlbench.records``, ``gqlbench.dataset``: typed stage records, sample loading.
- ``gqlbench.metrics``: libcst dataflow analysis and the paper's scores.
- ``gqlbench.mocks``: mock resolvers, sandboxed execution, execution scores.
- ``gqlbench.generators``: prompting and model backends.
- ``gqlbench.cli`` and ``gqlbench.run.runner``: the only layer that wires them together.
"""

from __future__ import annotations

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    """``__version__`` is read on first use: importlib.metadata costs ~0.1 s, which ``gqlbench --help`` never pays."""
    if name != "__version__":
        raise AttributeError(f"module 'gqlbench' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("gqlbench")
    except PackageNotFoundError:  # running from a source tree that is not installed
        found = "0.0.0+unknown"
    globals()["__version__"] = found
    return found
