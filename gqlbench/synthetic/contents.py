"""A mock runtime whose world digest covers what a user could see change, for telling idle writes apart.

The world's own digest (:meth:`gqlbench.mocks.engine.world.World.digest`)
changes on every write: the clock ticks, a playlist's version counts changes, a re-saved item gets a new stamp
and moves to the front. Following an artist already followed still changes
nothing a user means, so this digest leaves out the clock, stamps, versions, lazily
completed entities and the order of saved lists.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from gqlbench.mocks.endpoints import Runtime

__all__ = ["CONTENTS_RUNTIME", "contents_digest", "make_runtime"]

CONTENTS_RUNTIME = "gqlbench.synthetic.contents:make_runtime"
"""The ``Job.runtime`` that reports :func:`contents_digest` as the world digest."""
_STAMPS = frozenset({"clock", "added_at", "generated_ids", "version"})  # version: a playlist's change count (its snapshot_id)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k not in _STAMPS}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def contents_digest(tables: Any, state: dict[str, Any]) -> str:
    """SHA-256 of ``tables`` and ``state`` without stamps, each saved list as a set of ids."""
    plain = _plain(state)
    plain["lists"] = {name: sorted(entry["id"] for entry in entries) for name, entries in state.get("lists", {}).items()}
    text = json.dumps({"tables": _plain(tables), "state": plain}, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class _ContentsRuntime(Runtime):
    def world_digest(self) -> str | None:
        return contents_digest(self.world.tables, self.world.state)


def make_runtime(domain: str, seed: int = 0, request: str = "") -> Runtime:
    """A runtime on a fresh world whose digest is :func:`contents_digest`."""
    return _ContentsRuntime(domain, seed, request=request)
