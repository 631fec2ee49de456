"""Saved lists declared in a world fixture: the ordered ids an account keeps (saved tracks, followed artists).

Much of a user API is "save these", "remove these", "list what I saved".
Such a list lives in the world's state under its name, newest first, each
entry ``{"id": ...}`` plus, when the list is ``stamp``ed, the time it was
added (``{"id": ..., "added_at": "2024-06-01T12:00:05Z"}``). An endpoint
declares it in the fixture, with the ``save`` and ``unsave`` actions::

    "PUT_me_tracks": {"action": "save", "kind": "track", "id_param": "ids", "collection": "saved_tracks",
                      "stamp": "added_at"},
    "DELETE_me_tracks": {"action": "unsave", "kind": "track", "id_param": "ids", "collection": "saved_tracks"},
    "GET_me_tracks": {"action": "list", "kind": "track", "collection": "saved_tracks"}

``id_param`` takes one id, several separated by commas (``"a,b"``) or a
list; every id must name an entity of ``kind`` (else ``not_found``). Saving
an id again moves it to the front; a ``list`` with a ``collection`` lists
those entities, newest first. A template reads a list's entries with
``{"$saved": "saved_tracks"}`` (each ``{"id", "added_at"}``), and anything
else the world keeps in its state with ``{"$state": "top_tracks"}`` (``"default"``
when it has none). A behaviour saves to a list that depends on the call
(follow an artist or a user) with :func:`gqlbench.mocks.world.save`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gqlbench.mocks.engine.declared.templates import evaluate, operation
from gqlbench.mocks.engine.effects import check_stored_items
from gqlbench.mocks.engine.world import World
from gqlbench.mocks.errors import BadArguments

__all__ = ["change", "entries", "ids", "split_ids"]


def split_ids(value: Any, name: str) -> list[str]:
    """``"a,b"`` or ``["a", "b"]`` -> ``["a", "b"]``; an empty value is :class:`BadArguments`."""
    items = value if isinstance(value, list) else str(value).split(",")
    found = [str(i).strip() for i in items if str(i).strip()]
    if not found:
        raise BadArguments(f"{name} is empty; pass one or more ids separated by commas")
    return found


def entries(world: World, name: str) -> list[dict[str, Any]]:
    """The list's entries, newest first (an empty list when nothing was saved)."""
    return world.state.setdefault("lists", {}).setdefault(name, [])


def ids(world: World, name: str) -> list[str]:
    """The ids in the list, newest first."""
    return [entry["id"] for entry in entries(world, name)]


def change(world: World, name: str, kind: str, wanted: Iterable[str], *, add: bool, stamp: str | None = None) -> None:
    """Save (``add``) or remove ``wanted`` ids of ``kind``: each must exist; saved ones go to the front.

    One clock tick per stamped entry, then one for the call, so the times
    later calls show follow the order of the calls. A list holds at most
    :data:`~gqlbench.mocks.engine.effects.MAX_STORED_ITEMS` entries.
    """
    wanted = list(wanted)
    for entity_id in wanted:
        world.get(kind, entity_id)
    gone = set(wanted)  # a set: each saved entry was looked for in the list of 20,000 ids a hostile call passed
    kept = [entry for entry in entries(world, name) if entry["id"] not in gone]
    if add:
        check_stored_items(name, len(kept) + len(wanted))
        kept = [{"id": i, **({stamp: world.tick()} if stamp else {})} for i in wanted] + kept
    world.state["lists"][name] = kept
    world.tick()


operation("saved")(lambda t, scope: list(entries(scope.world, evaluate(t["$saved"], scope))))
operation("state", "default")(lambda t, scope: scope.world.state.get(evaluate(t["$state"], scope), evaluate(t.get("default"), scope)))
