"""Checks of a call's arguments, declared in a template: numbered parts and closed choices.

``{"$within": "$season_number", "count": {"$count": "$tv.seasons"}, "message": "..."}``
is the number when ``1 <= number <= count``, else a :class:`~gqlbench.mocks.errors.NotFound`
(or ``BadArguments`` with ``"error": "bad_arguments"``) whose message may use the names
``value`` and ``count``. A world thus refuses season 9 of a show with three seasons, as
the API does, instead of inventing it.

``{"$one_of": "$time_window", "options": ["day", "week"], "message": "..."}`` is the
argument when it is one of the options, else ``BadArguments`` (the message may use ``value``).

``{"$uri": "$uri", "pattern": "spotify:{kind}:{id}", "kinds": ["track", "episode"], "message": "..."}``
is ``{"kind", "id"}`` of a URI of that pattern and one of those kinds (an id is letters,
digits, ``_``, ``.`` and ``-``), else ``BadArguments``; the message may use ``value`` (quoted)
and ``forms`` (``spotify:track:<id> or spotify:episode:<id>``).

``{"$required": "uris", "message": "..."}`` is the argument, ``BadArguments`` when it is
missing or empty; ``{"$field": "$it", "name": "uri", "message": "..."}`` is a field of an
object the call passed, ``BadArguments`` (the message may use ``value``, quoted) when it is
not an object with that field.
"""

from __future__ import annotations

import re
from typing import Any

from gqlbench.mocks.engine.declared.templates import Scope, evaluate, fill, operation
from gqlbench.mocks.errors import BadArguments, NotFound

__all__ = ["one_of", "parse_uri", "within"]

_ERRORS = {"not_found": NotFound, "bad_arguments": BadArguments}


@operation("within", "lo", "message", "error", required=("count",), binds={"message": ("value", "count", "lo")}, literal=("lo", "error"))
def within(template: dict[str, Any], scope: Scope) -> Any:
    """The number, checked against ``1..count`` (``"lo"`` may move the lower bound)."""
    value = evaluate(template["$within"], scope)
    count = evaluate(template["count"], scope)
    lo = template.get("lo", 1)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= count:
        where = scope.having(value=value, count=count)
        message = evaluate(template.get("message", "{value} is out of range {lo} to {count}"), where.having(lo=lo))
        raise _ERRORS[template.get("error", "not_found")](message)
    return value


@operation("one_of", "message", required=("options",), binds={"message": ("value", "options")})
def one_of(template: dict[str, Any], scope: Scope) -> Any:
    """The argument, which must be one of ``options``."""
    value, options = evaluate(template["$one_of"], scope), evaluate(template["options"], scope)
    if value not in options:
        message = template.get("message", "{value} is not one of {options}")
        raise BadArguments(evaluate(message, scope.having(value=value, options=", ".join(map(str, options)))))
    return value


def parse_uri(value: Any, pattern: str, kinds: list[str], message: str = "{value} is not a URI of the form {forms}") -> dict[str, str]:
    """``{"kind", "id"}`` of ``value`` read with ``pattern`` (see the module docstring), else :class:`BadArguments`."""
    parts = [re.escape(p) for p in re.split(r"\{kind\}|\{id\}", pattern)]
    order = re.findall(r"\{(kind|id)\}", pattern)
    groups = {"kind": f"(?P<kind>{'|'.join(map(re.escape, kinds))})", "id": r"(?P<id>[A-Za-z0-9_.\-]+)"}
    regex = parts[0] + "".join(groups[name] + part for name, part in zip(order, parts[1:], strict=True))
    match = re.fullmatch(regex, str(value).strip())
    if match is None:
        forms = " or ".join(pattern.replace("{kind}", kind).replace("{id}", "<id>") for kind in kinds)
        raise BadArguments(fill(message, {"value": repr(value), "forms": forms}.__getitem__))
    return {"kind": match.groupdict().get("kind") or kinds[0], "id": match.group("id")}


def _check_uri(template: dict[str, Any]) -> str | None:
    pattern, kinds = template.get("pattern"), template.get("kinds")
    if not isinstance(pattern, str) or "{id}" not in pattern or not (isinstance(kinds, list) and kinds or isinstance(kinds, str)):
        return '$uri needs "pattern" with {id} (and {kind}) and "kinds", e.g. "spotify:{kind}:{id}"'
    return None


@operation("uri", "message", required=("pattern", "kinds"), literal=("pattern", "message"), shape=_check_uri)
def _uri(template: dict[str, Any], scope: Scope) -> dict[str, str]:
    kinds = evaluate(template["kinds"], scope)
    return parse_uri(
        evaluate(template["$uri"], scope), template["pattern"], kinds, template.get("message", "{value} is not a URI of the form {forms}")
    )


@operation("required", required=("message",))
def _required(template: dict[str, Any], scope: Scope) -> Any:
    value = scope.names.get(evaluate(template["$required"], scope))
    if not value:
        raise BadArguments(evaluate(template["message"], scope))
    return value


@operation("field", required=("name", "message"), binds={"message": ("value",)})
def _field(template: dict[str, Any], scope: Scope) -> Any:
    value, name = evaluate(template["$field"], scope), evaluate(template["name"], scope)
    if not isinstance(value, dict) or name not in value:
        raise BadArguments(evaluate(template["message"], scope.having(value=repr(value))))
    return value[name]
