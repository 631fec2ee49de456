"""Checks of a call's arguments, declared in a template: numbered parts and closed choices.

``{"$within": "$season_number", "count": {"$count": "$tv.seasons"}, "message": "..."}``
is the number when ``1 <= number <= count``, else a :class:`~gqlbench.mocks.errors.NotFound`
(or ``BadArguments`` with ``"error": "bad_arguments"``) whose message may use the names
``value`` and ``count``. A world thus refuses season 9 of a show with three seasons, as
the API does, instead of inventing it.

``{"$one_of": "$time_window", "options": ["day", "week"], "message": "..."}`` is the
argument when it is one of the options, else ``BadArguments`` (the message may use ``value``).
"""

from __future__ import annotations

from typing import Any

from gqlbench.mocks.engine.declared.templates import Scope, evaluate, operation
from gqlbench.mocks.errors import BadArguments, NotFound

__all__ = ["one_of", "within"]

_ERRORS = {"not_found": NotFound, "bad_arguments": BadArguments}


@operation("within")
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


@operation("one_of")
def one_of(template: dict[str, Any], scope: Scope) -> Any:
    """The argument, which must be one of ``options``."""
    value, options = evaluate(template["$one_of"], scope), evaluate(template["options"], scope)
    if value not in options:
        message = template.get("message", "{value} is not one of {options}")
        raise BadArguments(evaluate(message, scope.having(value=value, options=", ".join(map(str, options)))))
    return value
