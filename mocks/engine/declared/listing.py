"""Numbered pages, declared in a template.

``{"$page": list, "param": "page", "size": 20, "max": 500}`` is one numbered page
``{"page", "results", "total_pages", "total_results"}`` (rename with ``"names"``);
a page outside ``1..max`` is ``BadArguments``. Which items a list holds (filtered
and sorted by the call's arguments) is the template's ``$each``/``$sort``, or a
function of the behaviour (TMDB's ``GET /discover/movie``).
"""

from __future__ import annotations

from typing import Any

from gqlbench.mocks.engine.declared.templates import Scope, evaluate, operation
from gqlbench.mocks.errors import BadArguments

__all__ = ["page"]


@operation("page", "param", "size", "max", "names", literal=("param", "size", "max", "names"))
def page(template: dict[str, Any], scope: Scope) -> dict[str, Any]:
    """One numbered page of the list (see the module docstring)."""
    items = list(evaluate(template["$page"], scope))
    param, size, most = template.get("param", "page"), template.get("size", 20), template.get("max", 500)
    number = scope.names.get(param) or 1
    if not 1 <= number <= most:
        raise BadArguments(f"{param} must be between 1 and {most}, got {number}")
    names = {"page": "page", "items": "results", "total_pages": "total_pages", "total": "total_results", **template.get("names", {})}
    return {
        names["page"]: number,
        names["items"]: items[(number - 1) * size : number * size],
        names["total_pages"]: max(1, -(-len(items) // size)),
        names["total"]: len(items),
    }
