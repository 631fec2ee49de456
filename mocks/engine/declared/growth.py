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
from gqlbench.mocks.engine.declared.templates import Scope, check, evaluate, operation

__all__ = ["check_grow", "grow"]

_STEP_KEYS = frozenset({"fill", "referring", "to", "where", "at", "add"})
_EXAMPLE = '{"fill": "cast", "to": 4, "add": {"person": {"$make": "person", "key": ["$id", "$n"]}}}'


@operation("once")
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


def check_grow(grow: Any, where: str) -> None:
    """Raise a one-line error naming ``where`` and the path unless ``grow`` is a well-formed declaration."""
    if not isinstance(grow, dict) or set(grow) - {"fill"}:
        raise GqlbenchError(
            f'{where}: grow must be an object with "fill", e.g. {{"fill": {{"movie": [{_EXAMPLE}]}}}}; '
            "a new entity's fields are make.<kind>.defaults, its id range make.<kind>.ids"
        )
    if not isinstance(grow.get("fill", {}), dict):
        raise GqlbenchError(f"{where}: grow.fill must be an object of kind -> steps")
    for kind, steps in (grow.get("fill") or {}).items():
        if not isinstance(steps, list):
            raise GqlbenchError(f"{where}: grow.fill.{kind} must be a list of steps, e.g. [{_EXAMPLE}]")
        for n, step in enumerate(steps):
            _check_step(step, f"{where}: grow.fill.{kind}[{n}]")


def _check_step(step: Any, where: str) -> None:
    if not isinstance(step, dict) or ("fill" in step) == ("referring" in step) or "add" not in step:
        raise GqlbenchError(f'{where}: a step has "fill" (a list field) or "referring", and "add", e.g. {_EXAMPLE}')
    unknown = sorted(set(step) - _STEP_KEYS)
    if unknown:
        raise GqlbenchError(f"{where}: unknown key {unknown[0]!r}; a step has {', '.join(sorted(_STEP_KEYS))}")
    if not isinstance(step.get("to"), int) or isinstance(step["to"], bool) or step["to"] < 0:
        raise GqlbenchError(f'{where}: "to" must be a whole number >= 0 (how many entries the list is filled to)')
    by = step.get("referring", {"kind": "", "in": ""})
    if ("fill" in step and not isinstance(step["fill"], str)) or not isinstance(by, dict) or sorted(set(by) - {"by"}) != ["in", "kind"]:
        raise GqlbenchError(
            f'{where}: "fill" names a list field; "referring" is {{"kind": "movie", "in": "cast", "by": "person"}} '
            '(without "by" when the list holds plain ids)'
        )
    where_ = step.get("where", {})
    if not isinstance(where_, dict) or not all(isinstance(v, list) for v in where_.values()):
        raise GqlbenchError(f'{where}: "where" maps an entry\'s field to the values it counts, e.g. {{"job": ["Director"]}}')
    if "at" in step and (not isinstance(step["at"], int) or "fill" not in step):
        raise GqlbenchError(f'{where}: "at" is the position a "fill" step inserts at (0: first)')
    check(step["add"], f"{where}.add")
