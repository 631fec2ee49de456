"""Executable mock APIs: deterministic worlds, GraphQL resolvers, callable endpoints.

A program written for the benchmark calls REST endpoints as Python functions.
This package makes those calls real without any network:

* :mod:`~gqlbench.mocks.engine.world` keeps a domain's entities; everything it
  invents is derived from the seed with SHA-256, so runs are reproducible on
  any machine;
* :mod:`~gqlbench.mocks.engine.generic` makes any domain's world coherent from its
  specs, SDL and an optional fixture (``worlds/<domain>.json`` in its catalog
  folder, :mod:`~gqlbench.mocks.engine.fixtures`) with rules inferred per endpoint
  (:mod:`~gqlbench.mocks.engine.rules`, :mod:`~gqlbench.mocks.engine.kinds`,
  :mod:`~gqlbench.mocks.engine.render`); a fixture may declare responses and
  generated values as templates (:mod:`~gqlbench.mocks.engine.declared.declarations`,
  :mod:`~gqlbench.mocks.engine.declared.templates`, with the operations of
  :mod:`~gqlbench.mocks.engine.declared.relations`, :mod:`~gqlbench.mocks.engine.declared.ranges` and
  :mod:`~gqlbench.mocks.engine.declared.listing`), computed fields
  (:mod:`~gqlbench.mocks.engine.declared.computed`), views (:mod:`~gqlbench.mocks.engine.declared.views`),
  pages (:mod:`~gqlbench.mocks.engine.declared.paging`), argument checks
  (:mod:`~gqlbench.mocks.engine.declared.checks`), saved :mod:`~gqlbench.mocks.engine.declared.lists` and
  :mod:`~gqlbench.mocks.engine.effects`; the file is typed and checked whole when it
  loads (:mod:`~gqlbench.mocks.engine.worldfile`); Python for what data cannot say is a
  behaviour found through :mod:`~gqlbench.mocks.engine.registry` (the bundled ones:
  ``mocks/worlds/spotify.py``, ``mocks/worlds/tmdb.py``), which imports only
  :mod:`~gqlbench.mocks.world`;
* :mod:`~gqlbench.mocks.server.resolvers` builds the ariadne executable schema that
  answers from the world and fills what the world does not model from the
  schema;
* :mod:`~gqlbench.mocks.endpoints` turns each function of the specs into a
  checked Python callable returning :mod:`~gqlbench.mocks.engine.responses` objects,
  and gives the sandbox its :func:`make_runtime`;
* :mod:`~gqlbench.mocks.execution` runs a prediction and its gold program and
  returns the two traces (scored by ``gqlbench.metrics.traces``: Exec Success,
  Exec Match);
* :mod:`~gqlbench.mocks.server.server` serves a world over HTTP (``gqlbench mock serve``).

Untrusted code only ever runs through :mod:`~gqlbench.mocks.sandbox.pool` after
:mod:`~gqlbench.mocks.sandbox.policy` admitted it.
"""

from gqlbench.mocks.endpoints import Runtime, check_arguments, make_runtime
from gqlbench.mocks.engine.responses import Response, ResponseList, unwrap
from gqlbench.mocks.engine.world import World
from gqlbench.mocks.errors import BadArguments, MockError, NotFound, UnknownField, UnknownFunction
from gqlbench.mocks.execution import TracePair, execute_samples
from gqlbench.mocks.sandbox.pool import Job, SandboxPool, run_program

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
