"""Writes declared in a template: what a call changes in the world, in the order the template says.

A ``respond`` template may change the world before it answers, each step a
name of a ``{"$let": ...}`` (evaluated in order), so the order of the checks,
the changes and the clock's ticks is the template's:

* ``{"$change": <record or state object>, "set": {...}, "insert": {...}, ...}``
  changes what the first value is (a record ``{"$get": ...}`` returned, or an
  object of the world's state ``{"$state": "player"}``) with the effects of
  :mod:`gqlbench.mocks.engine.effects`; the effects' values are templates, and a name
  the call left out is null there (``"at": "$position"`` is the end when no
  position is given). All the changes are made, or none (an insert outside the
  list changes nothing). Only stored values change: a field the object does
  not hold starts empty (``[]``, ``0``). The answer is the changed object;
* ``{"$tick": null}`` advances the world's clock and is its new time.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared.templates import Scope, evaluate, operation
from gqlbench.mocks.engine.effects import OPERATIONS as EFFECTS
from gqlbench.mocks.engine.effects import apply_effects, check_effects

__all__: list[str] = []


def _check_change(template: dict[str, Any]) -> str | None:
    try:
        check_effects({k: v for k, v in template.items() if k != "$change"}, "$change")
    except GqlbenchError as exc:
        return str(exc)
    return None


@operation("change", *EFFECTS, open=True, shape=_check_change)
def _change(template: dict[str, Any], scope: Scope) -> Any:
    target = evaluate(template["$change"], scope)
    if not isinstance(target, dict):
        raise GqlbenchError(f"world template: $change needs a record or an object of the state, got {type(target).__name__}")
    values = dataclasses.replace(scope, fields=True)  # a name the call left out is null
    effects = {k: v for k, v in template.items() if k in EFFECTS}
    apply_effects(target, effects, {}, lambda name: None, lambda raw: evaluate(raw, values))
    return target


@operation("tick")
def _tick(template: dict[str, Any], scope: Scope) -> str:
    """``{"$tick": null}``: the world clock's next time (it advances): when a track was added or saved."""
    return scope.world.tick()
