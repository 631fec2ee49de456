"""Lists a template declares: every entity of a kind filtered and sorted by the request, and numbered pages.

``{"$query": "movie", "filters": {...}, "sort": {...}}`` is every entity of the
kind (each completed) that passes the filters whose parameter the call gives,
in the requested order. A filter names the field it reads and how:

* ``"gte"``, ``"lte"``, ``"eq"``: compared with the argument (dates as ISO text compare right);
* ``"year"``: the first four characters of a date equal the argument;
* ``"has_all"``: every number in ``"28,12"`` or ``"28|12"`` is among the field's
  values, mapped through ``"vocab"`` when given (genre names -> genre ids).

``"sort": {"param": "sort_by", "default": "popularity.desc", "fields": {"primary_release_date": "release_date"}}``
orders by ``<field>.<asc|desc>`` (ties by the record's ``id``, else its key); a field the entities lack is ``BadArguments``.

``{"$page": list, "param": "page", "size": 20, "max": 500}`` is one numbered page
``{"page", "results", "total_pages", "total_results"}`` (rename with ``"names"``);
a page outside ``1..max`` is ``BadArguments``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared.templates import Scope, evaluate, operation
from gqlbench.mocks.errors import BadArguments

__all__ = ["FILTERS", "page", "query"]


def _numbers(value: Any) -> list[int]:
    # isdecimal, not isdigit: int() refuses "²"; and at most 18 digits, as an id has (int() refuses 4,301)
    return [int(part) for part in re.split(r"[,|]", str(value)) if part.strip().isdecimal() and len(part.strip()) <= 18]


FILTERS: dict[str, Callable[[Any, Any], bool]] = {
    "gte": lambda field, value: field >= value,
    "lte": lambda field, value: field <= value,
    "eq": lambda field, value: field == value,
    "year": lambda field, value: str(field)[:4] == str(value),
    "has_all": lambda field, value: all(n in field for n in _numbers(value)),
}


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


@operation("query", "filters", "sort", literal=("$query", "filters", "sort"))
def query(template: dict[str, Any], scope: Scope) -> list[dict[str, Any]]:
    """Every entity of a kind that passes the given filters, sorted (see the module docstring)."""
    kind, world = template["$query"], scope.world
    keyed = {key: world.get(kind, key) for key in list(world.table(kind))}
    records = list(keyed.values())
    for param, spec in (template.get("filters") or {}).items():
        if spec.get("op") not in FILTERS:
            raise GqlbenchError(f"world template: filter {param!r} has op {spec.get('op')!r}; use one of {', '.join(FILTERS)}")
        value = scope.names.get(param)
        if value is not None:
            test, vocab = FILTERS[spec["op"]], scope.vocab.get(spec.get("vocab", ""))
            records = [r for r in records if test(_field(r, spec["field"], vocab), value)]
    sort = template.get("sort")
    if sort:
        wanted = scope.names.get(sort.get("param", "sort_by")) or sort["default"]
        name, _, order = str(wanted).partition(".")
        name = sort.get("fields", {}).get(name, name)
        if records and name not in records[0]:
            raise BadArguments(
                f"{sort.get('param', 'sort_by')} {wanted!r} is not supported; use e.g. "
                + ", ".join(sort.get("examples", [sort["default"]]))
            )
        keys = {id(r): r.get("id", key) for key, r in keyed.items()}
        records.sort(key=lambda r: (r[name], keys[id(r)]), reverse=order != "asc")
    return records


def _field(record: dict[str, Any], name: str, vocab: Any) -> Any:
    value = record[name]
    return [vocab.get(v) for v in value] if isinstance(vocab, dict) and isinstance(value, list) else value
