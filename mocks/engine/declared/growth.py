"""Declared growth: when a world makes entities on demand, so every call chain leads somewhere.

How a new entity looks, and its collision-free id for a key, is its kind's
``make`` recipe (:mod:`gqlbench.mocks.engine.declared.make`); a fixture's
``"grow"`` says *when* entities are made, with no Python::

    "grow": {
      "fill": {
        "movie": [{"fill": "cast", "to": 4, "add": {"person": {"$make": "person", "key": ["movie", "$id", "cast", "$n"]}}},
                  {"fill": "crew", "where": {"job": ["Director"]}, "to": 1, "at": 0, "add": {...}}],
        "person": [{"referring": {"kind": "movie", "in": "cast", "by": "person"}, "to": 2, "add": {"$make": "movie", ...}}]
      }
    }

* ``fill``: when an entity of the kind is first completed (after ``"generate"``),
  each step in order adds entries to its list ``fill`` (made empty if missing)
  until it holds ``to`` of them (``to`` that match ``where``, if given), each
  ``add`` evaluated with the record's fields and ``n``, the entry's index,
  inserted at ``at`` or appended (unless the list holds it already: a made
  entity may list itself there, a ref's ``back``). A ``referring`` step counts the entities whose
  list refers to this one instead (``$referring`` of
  :mod:`gqlbench.mocks.engine.declared.relations`; without ``by`` the list holds
  plain ids), and evaluates ``add`` (which makes one with ``$make``) for each
  one missing: ``"to": 1`` with an ``add`` that makes two albums gives an
  artist who has none its first two.
* ``{"$once": ["lists", "popular"], "make": template}`` is the value kept in the
  world's state under that path, made by the template the first time it is asked for.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared.relations import referring_to
from gqlbench.mocks.engine.declared.templates import Scope, evaluate, operation

__all__ = ["grow"]


@operation("once", required=("make",))
def _once(t: dict[str, Any], scope: Scope) -> Any:
    steps = evaluate(t["$once"], scope)
    if not isinstance(steps, list) or not steps:
        raise GqlbenchError(f'world template: $once needs a path in the world\'s state, e.g. ["lists", "popular"], not {steps!r}')
    *path, last = [str(step) for step in steps]
    holder = scope.world.state
    for step in path:
        holder = holder.setdefault(step, {})
    if last not in holder:
        holder[last] = evaluate(t["make"], scope)
    return copy.deepcopy(holder[last])


def _matches(entry: Any, where: Mapping[str, list[Any]]) -> bool:
    return isinstance(entry, dict) and all(entry.get(name) in wanted for name, wanted in where.items())


def grow(kind: str, steps: list[dict[str, Any]], record: dict[str, Any], scope: Scope) -> None:
    """Apply a kind's declared ``fill`` steps to a record being completed (``scope`` sees its fields)."""
    for step in steps:
        if "referring" in step:
            by = step["referring"]
            if "id" not in record:
                raise GqlbenchError(f"grow.fill.{kind}: a referring step counts by the record's id, and this {kind} has no 'id' field")
            have = len(referring_to(scope.world, by["kind"], by["in"], by.get("by"), record["id"]))
            for n in range(have, step["to"]):
                evaluate(step["add"], scope.having(n=n))
            continue
        entries = record.setdefault(step["fill"], [])
        where = step.get("where")
        have = sum(1 for e in entries if _matches(e, where)) if where else len(entries)
        added = 0
        for n in range(have, step["to"]):
            entry = evaluate(step["add"], scope.having(n=n))
            if entry not in entries:  # a made entity may have listed itself already (a make ref's "back")
                entries.insert(step["at"] + added if "at" in step else len(entries), entry)
                added += 1
