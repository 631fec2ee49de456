"""Executable mock APIs: deterministic worlds, GraphQL resolvers, callable endpoints.

A program written for the benchmark calls REST endpoints as Python functions.
This package makes those calls real without any network:

* :mod:`~gqlbench.mocks.world` keeps a domain's entities; everything it
  invents is derived from the seed with SHA-256, so runs are reproducible on
  any machine;
* :mod:`~gqlbench.mocks.generic` makes any domain's world coherent from its
  specs, SDL and an optional fixture (``worlds/<domain>.json`` in its catalog
  folder, :mod:`~gqlbench.mocks.fixtures`) with rules inferred per endpoint
  (:mod:`~gqlbench.mocks.rules`, :mod:`~gqlbench.mocks.kinds`,
  :mod:`~gqlbench.mocks.render`); a fixture may declare responses and
  generated values as templates (:mod:`~gqlbench.mocks.declared`,
  :mod:`~gqlbench.mocks.templates`, with the operations of
  :mod:`~gqlbench.mocks.relations`, :mod:`~gqlbench.mocks.ranges` and
  :mod:`~gqlbench.mocks.listing`), computed fields
  (:mod:`~gqlbench.mocks.computed`), views (:mod:`~gqlbench.mocks.views`),
  pages (:mod:`~gqlbench.mocks.paging`), argument checks
  (:mod:`~gqlbench.mocks.checks`), saved :mod:`~gqlbench.mocks.lists` and
  :mod:`~gqlbench.mocks.effects`; Python for what data cannot say is a
  behaviour found through :mod:`~gqlbench.mocks.registry` (the bundled ones:
  ``mocks/spotify.py``, ``mocks/tmdb.py``);
* :mod:`~gqlbench.mocks.resolvers` builds the ariadne executable schema that
  answers from the world and fills what the world does not model from the
  schema;
* :mod:`~gqlbench.mocks.endpoints` turns each function of the specs into a
  checked Python callable returning :mod:`~gqlbench.mocks.responses` objects,
  and gives the sandbox its :func:`make_runtime`;
* :mod:`~gqlbench.mocks.execution` runs a prediction and its gold program and
  returns the two traces (scored by ``gqlbench.metrics.traces``: Exec Success,
  Exec Match);
* :mod:`~gqlbench.mocks.server` serves a world over HTTP (``gqlbench mock serve``).

Untrusted code only ever runs through :mod:`~gqlbench.mocks.sandbox` after
:mod:`~gqlbench.mocks.policy` admitted it.
"""

from gqlbench.mocks.endpoints import Runtime, check_arguments, make_runtime
from gqlbench.mocks.errors import BadArguments, MockError, NotFound, UnknownField, UnknownFunction
from gqlbench.mocks.execution import TracePair, execute_samples
from gqlbench.mocks.responses import Response, ResponseList, unwrap
from gqlbench.mocks.sandbox import Job, SandboxPool, run_program
from gqlbench.mocks.world import World

__all__ = [
    "World",
    "Runtime",
    "make_runtime",
    "check_arguments",
    "Response",
    "ResponseList",
    "unwrap",
    "MockError",
    "UnknownFunction",
    "BadArguments",
    "UnknownField",
    "NotFound",
    "Job",
    "SandboxPool",
    "run_program",
    "execute_samples",
    "TracePair",
]
