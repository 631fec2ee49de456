"""A graph held as entries in records, read both ways: a movie's cast lists people, a person's credits list movies.

A record keeps its side of a relation as a list of entries that name the other
entity (``"cast": [{"person": 17, "character": "Cobb"}]``). The forward way is
that list (``{"$each": "$cast", ...}``); the way back is declared in a template:

``{"$referring": "$id", "kind": "movie", "in": "cast", "by": "person"}``

is every ``{"of": <movie record>, "entry": <its cast entry>}`` whose entry's
``person`` is this id, in the order the movies were made, so a person's movie
credits and the movies' casts can never disagree. Without ``"by"`` the list
holds plain ids (an album's ``"artists"``) and the answer is the records.
"""

from __future__ import annotations

from typing import Any

from gqlbench.mocks.engine.declared.templates import Scope, evaluate, operation
from gqlbench.mocks.engine.world import World

__all__ = ["referring", "referring_to"]


def referring(world: World, kind: str, field: str, by: str, entity_id: Any) -> list[dict[str, Any]]:
    """``{"of": record, "entry": entry}`` for each entry of ``kind``'s list ``field`` whose ``by`` is ``entity_id``."""
    return [
        {"of": record, "entry": entry}
        for record in world.table(kind).values()
        for entry in record.get(field) or ()
        if entry.get(by) == entity_id
    ]


def referring_to(world: World, kind: str, field: str, by: str | None, entity_id: Any) -> list[dict[str, Any]]:
    """What refers to ``entity_id``: :func:`referring`'s entries, or without ``by`` (a list of plain ids) the records."""
    if by is None:
        return world.referring(kind, field, entity_id)
    return referring(world, kind, field, by, entity_id)


@operation("referring", "by", required=("kind", "in"), literal=("in", "by"))
def _referring(template: dict[str, Any], scope: Scope) -> list[dict[str, Any]]:
    kind, entity_id = evaluate(template["kind"], scope), evaluate(template["$referring"], scope)
    return referring_to(scope.world, kind, template["in"], template.get("by"), entity_id)
