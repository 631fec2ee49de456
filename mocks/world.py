"""What a world's Python behaviour may use: the one public module of the mock engine for behaviour.

A world is data first (its file, ``worlds/<domain>.json``); a *behaviour* is
the Python for what data cannot say (a search over several kinds, a player
that branches). It imports this module and nothing else of the engine, so
the engine can change underneath it (``tests/test_layering.py`` checks the
bundled ones). A behaviour is an object with ``handlers`` (function name ->
``(world, arguments) -> response``), and optionally ``load(world, fixture)``,
``complete(world, kind, record)``, ``functions`` (name -> ``(world, *args) ->
value``, for a template's ``{"$call": name, "args": [...]}``) and ``sections``
(the top-level keys of the file it reads); see ``docs/add-your-own-api.md``.

What it works with:

* the :class:`World`: ``world.get(kind, id)`` (the complete record, else
  :class:`NotFound`), ``world.has``, ``world.table(kind)``, ``world.find``,
  ``world.search`` (by words, through an index), ``world.put``, and
  ``world.state`` (singletons and lists, part of the world's digest);
* seeded values, the same for a seed on every machine: ``world.int(*key, lo=, hi=)``,
  ``world.pick(options, *key)``, ``world.token(*key, length=)``;
* time: ``world.tick()``, the clock's next timestamp (it advances per change);
* entities: :func:`make` (by the kind's recipe in the file), :func:`resolve`
  (a name or id to the id), :func:`invent` (what a search for unknown text makes);
* how things are shown: :func:`view` (a view of the file), :func:`computed`
  (a kind's computed fields), :func:`shape` (a named template of the file, with names),
  :func:`offset_page` (a page of a list);
* saved lists: :func:`saved`, :func:`save`, :func:`unsave`, and :func:`split_ids`
  for an argument of ids; :func:`check_stored_items` before a behaviour grows a
  list of its own (the mock's bound on what a write may store);
* errors a call may answer with: :class:`NotFound`, :class:`BadArguments`
  (a program's mistake, recorded in its trace); :class:`GqlbenchError` for a
  mistake in the world's own file (it stops the world from loading).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared import lists
from gqlbench.mocks.engine.declared import make as _make
from gqlbench.mocks.engine.declared.computed import computed as _computed
from gqlbench.mocks.engine.declared.paging import offset_page
from gqlbench.mocks.engine.declared.templates import evaluate
from gqlbench.mocks.engine.declared.views import render_view
from gqlbench.mocks.engine.effects import check_stored_items
from gqlbench.mocks.engine.world import Handler, World, search_text
from gqlbench.mocks.errors import BadArguments, NotFound

__all__ = [
    "BadArguments",
    "GqlbenchError",
    "Handler",
    "NotFound",
    "World",
    "check_stored_items",
    "computed",
    "fixture",
    "invent",
    "make",
    "offset_page",
    "resolve",
    "save",
    "saved",
    "search_text",
    "shape",
    "split_ids",
    "unsave",
    "view",
]

split_ids = lists.split_ids


def fixture(world: World) -> Mapping[str, Any]:
    """The world's file as read (``{}`` for a world without one): the sections a behaviour declared it reads."""
    return world.model.fixture if world.model is not None else {}


def make(world: World, kind: str, entry: Any, where: str = "behaviour", *, key: list[Any] | None = None, find: str | None = None) -> Any:
    """Make (and store) the ``kind`` entity ``entry`` describes, by the kind's recipe (``make`` in the file); its id.

    ``key`` gives it the id made for that key (the same key, the same id);
    ``find`` returns the id of an entity whose field of that name is the
    entry's instead, when there is one. ``where`` names the caller in errors.
    """
    return _make.make(_make.scope_of(world), kind, entry, where, key=key, find=find)


def resolve(world: World, kind: str, ref: Any, where: str, name: str = "name") -> Any:
    """The id of the ``kind`` entity ``ref`` names: its id, or the name (field ``name``) of exactly one."""
    return _make.resolve(world, kind, ref, where, name)


def invent(world: World, kind: str, query: str) -> None:
    """Make what a search for ``query`` finds when nothing matches (the kind's ``invent`` in the file)."""
    _make.invent(_make.scope_of(world), kind, query)


def view(world: World, name: str, entity_id: Any) -> dict[str, Any]:
    """The entity as the file's view ``name`` shows it."""
    return render_view(world, fixture(world), name, entity_id)


def computed(world: World, kind: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """The computed fields the file declares for ``kind`` (``uri``, ``href``...), for an entity with ``values``."""
    return _computed(fixture(world), kind, values, world)


def shape(world: World, name: str, **names: Any) -> Any:
    """The file's shape ``name`` evaluated with ``names`` (a check a handler shares with declared endpoints)."""
    scope = _make.scope_of(world)
    return evaluate(scope.shapes[name], scope.having(**names))


def saved(world: World, name: str) -> list[dict[str, Any]]:
    """The entries of the saved list ``name``, newest first (each ``{"id": ...}``, with its stamp if any)."""
    return lists.entries(world, name)


def save(world: World, name: str, kind: str, ids: Iterable[str], *, stamp: str | None = None) -> None:
    """Save ``ids`` (each must be a ``kind`` entity) at the front of the list ``name``; ``stamp`` records when."""
    lists.change(world, name, kind, ids, add=True, stamp=stamp)


def unsave(world: World, name: str, kind: str, ids: Iterable[str]) -> None:
    """Remove ``ids`` from the saved list ``name`` (each must be a ``kind`` entity)."""
    lists.change(world, name, kind, ids, add=False)
