"""Views declared in a world fixture: how a stored entity is shown, with the entities it refers to.

A view is the one way a world file renders an entity (Spotify's tracks,
TMDB's movies in a list and in full); ``"shapes"`` are named templates for
what is not one entity (a page of credits, an episode made up from its show).

A world may store entities compactly (a track refers to its album and
artists by id) and show them in several shapes: a track in full, or the
short form nested in an album. A fixture names each shape (``views``), and
a behaviour renders an entity with one call (:func:`render_view`)::

    "views": {
      "artist_simple": {"kind": "artist", "fields": {"id": "$id", "name": "$name"}},
      "track": {"kind": "track", "complete": true,
                "fields": {"id": "$id", "name": "$name", "disc_number": 1,
                           "artists": {"$view": "artist_simple", "of": "$artists"},
                           "album": {"$view": "album_simple", "of": "$album"}}},
      "album": {"kind": "album", "base": "album_simple", "complete": true,
                "fields": {"total_tracks": {"$count": "$tracks"},
                           "tracks": {"$view": "track_simple", "of": "$tracks"}}}
    }

Field values are templates (:mod:`gqlbench.mocks.engine.declared.templates`) whose names are
the entity's stored values (one it lacks reads as null), and the kind's ``computed`` fields are always
part of its views. One operation belongs to views: ``{"$view": name, "of":
"$field"}`` shows the entity (or each entity of the list) that the field
refers to through another view; the name may be filled in from names
(``{"$view": "{kind}_brief", "of": "$it.id"}``), and ``"label"`` names the
entity in the not-found message (``"TV show"`` for the kind ``tv``).
``base`` starts from another view's fields; ``complete`` looks the entity up
as a lookup would (a partial entity is completed first). An unknown id is
not found in every view.

An endpoint answers with a view as with any template: ``"respond": {"$view": "track", "of": "$id"}``,
or a saved list's entities, ``{"$view": "artist", "of": {"$each": {"$saved": "following"}, "do": "$it.id"}}``
(paged as its ``paging`` says).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared.computed import computed
from gqlbench.mocks.engine.declared.templates import Scope, evaluate, fill, functions_of, operation
from gqlbench.mocks.engine.world import World

__all__ = ["render_view"]


def render_view(world: World, fixture: Mapping[str, Any], name: str, entity_id: Any, *, label: str | None = None) -> dict[str, Any]:
    """The entity ``entity_id`` as the fixture's view ``name`` shows it (an unknown id is :class:`NotFound`, named ``label``)."""
    views = fixture.get("views") or {}
    if name not in views:
        raise GqlbenchError(f"world template: no view {name!r} under views ({', '.join(sorted(views))})")
    view = views[name]
    kind = view["kind"]
    if view.get("complete") or not world.has(kind, entity_id):  # completed first; an unknown id is NotFound, as a lookup says it
        stored = world.get(kind, entity_id, label=label)
    else:
        stored = world.table(kind)[str(entity_id)]
    record = {"id": str(entity_id), **stored}
    out = render_view(world, fixture, view["base"], entity_id, label=label) if view.get("base") else {}
    out.update(computed(fixture, kind, record, world))
    scope = Scope(world, record, fixture.get("shapes", {}), fixture.get("vocab", {}), functions_of(world), fixture, fields=True)
    for field, template in (view.get("fields") or {}).items():
        value = evaluate(template, scope)
        out[field] = list(value) if isinstance(value, list) else value  # a copy: the response never shares a stored list
    return out


def _name(template: dict[str, Any], scope: Scope) -> str:
    """The view's name: ``"{kind}_brief"`` names the view by the names in scope."""
    return fill(template["$view"], scope.lookup)


@operation("view", "of", "label", literal=("$view", "label"))
def _view(template: dict[str, Any], scope: Scope) -> Any:
    """``{"$view": name, "of": "$field"}``: the entity (each entity of a list) the field refers to, in view ``name``."""
    ids = evaluate(template.get("of", "$id"), scope)
    name, label = _name(template, scope), template.get("label")
    if isinstance(ids, list):
        return [render_view(scope.world, scope.fixture, name, i, label=label) for i in ids]
    return None if ids is None else render_view(scope.world, scope.fixture, name, ids, label=label)
