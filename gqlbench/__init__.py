"""gqlbench: a benchmark for sequential REST function calling guided by GraphQL schemas.

Subpackages, from the ground floor up (each imports only those before it):

- ``gqlbench.specs``, ``gqlbench.schemas``: the domain catalog (signatures, SDL).
- ``gqlbench.records``, ``gqlbench.dataset``: typed stage records, sample loading.
- ``gqlbench.metrics``: libcst dataflow analysis and the paper's scores.
- ``gqlbench.mocks``: mock resolvers, sandboxed execution, execution scores.
- ``gqlbench.generators``: prompting and model backends.
- ``gqlbench.cli`` and ``gqlbench.runner``: the only layer that wires them together.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("gqlbench")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
