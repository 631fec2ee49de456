"""A check of a call's argument, declared in a template: a numbered part must exist.

``{"$within": "$season_number", "count": {"$count": "$tv.seasons"}, "message": "..."}``
is the number when ``1 <= number <= count``, else a :class:`~gqlbench.mocks.errors.NotFound`
(or ``BadArguments`` with ``"error": "bad_arguments"``) whose message may use the names
``value`` and ``count``. A world thus refuses season 9 of a show with three seasons, as
the API does, instead of inventing it. A closed choice of values is the endpoint's
``checks`` (:mod:`gqlbench.mocks.engine.declared.checks`); anything else a world checks
is a function of its behaviour.
"""

from __future__ import annotations

from typing import Any

from gqlbench.mocks.engine.declared.templates import Scope, evaluate, operation
from gqlbench.mocks.errors import BadArguments, NotFound

__all__ = ["within"]

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
