"""One way to make an entity: its kind's recipe (``make``); the file's ``entities``, ``$make`` and growth say when it runs.

A fixture written by hand names things ("the album Midnights by Taylor
Swift") while the world keys records by ids that are the same for a seed on
every machine and differ between seeds, so each seed is its own catalogue.
``"make"`` says per kind how a record is made from an entry (a name, or an
object of its own values): it is the one place that says how a new entity of
a kind looks. It runs when the world is created, for each entry the file
writes under ``"entities"`` for that kind (:func:`entities`, kinds in file
order, entries in order: ids depend on the order entities are made; a kind
without a recipe is stored as written), and while the world runs: a
template's ``$make``, a ref's ``create``, a search's ``invent`` and the
``grow`` steps (:mod:`gqlbench.mocks.engine.declared.growth`). ``"load"``
then keeps references in the world's state (``refer`` steps, below)::

    "make": {
      "artist": {"id": {"$token": ["artist", "$name"]}, "complete": false,
                 "defaults": {"popularity": {"$int": ["$id", "popularity"], "lo": 20, "hi": 80}}},
      "album": {"refs": {"artists": "artist"}, "id": {"$token": {"$add": [["album", "$name"], "$artists"]}},
                "children": {"tracks": "track"}, "defaults": {"release_date": {"$date": "$id"}}},
      "track": {"id": {"$token": ["track", "$parent.id", "$name"]},
                "defaults": {"album": "$parent.id", "artists": "$parent.artists", "track_number": "$position"}},
      "person": {"key": ["$name"], "complete": false, "defaults": {"name": {"$shape": "person_name", "of": {"key": ["$id"]}}}}
    },
    "entities": {"artist": ["Taylor Swift"], "album": [{"name": "Midnights", "artists": ["Taylor Swift"], "tracks": ["Karma"]}]},
    "load": [{"refer": "track", "from": "saved_tracks", "state": "lists.saved_tracks",
              "as": {"id": "$it", "added_at": {"$tick": null}}}]

A record is made in this order: ``refs`` (a field holding a name or an id, or
a list of them, becomes ids: the entity with that id, else the one entity of
that kind with that name; anything else stops the load with a line naming the
file and entry), its id (the entry's ``id``; else, given a ``key`` or the
recipe's ``key`` template, the collision-free id of :func:`new_id`; else the
recipe's ``id`` template), ``children`` (entries written inside it, made with
the names ``parent``, its values, and ``position``, 1, 2, ...; the field
becomes their ids), ``defaults``
for the fields the entry does not have (in order, each seeing ``key`` and the
values so far), and last a ref's ``"as"`` (``{"kind": "track", "as": template}``),
which turns each id (``it``) into an entry, e.g. with the time it was added
(``{"$tick": null}``, the world clock's next time), or, with ``item`` (what the
entry wrote), a TMDB cast pair into ``{"person": id, "character": ...}``. A ref
may also say ``"create": true`` (a name that matches nothing makes that entity
from the name, by its kind's recipe), ``"by"`` (a template reading the
reference from each written item ``it``, e.g. ``{"$at": "$it", "index": 0}``
of a ``[person, character]`` pair) and ``"back"`` (a list field of the
referred entity that gets the made one's id: a collection its parts). An
entity with the made id already is kept as it is. ``"name"`` is the field a bare name fills and refs
match (``name`` unless given). A record is stored complete unless ``"complete":
false``: then its first lookup completes it (the fixture's ``generate``, then
its ``grow.fill`` steps, :mod:`gqlbench.mocks.engine.declared.growth`, such as
an artist's first albums). ``ids`` (``{"lo": 1000000, "hi": 99999999}``) is the
range of the kind's keyed ids. ``invent`` is a template (the name ``query``)
that makes what a search for unknown text finds (:func:`invent`).

Each entry of the file's own must be a new entity: two for one are refused
(an entry written after a ref created its entity is one of them). A field
only the file's entries have is written in them; ``defaults`` are for every
entity of the kind. A ``load`` step resolves each entry of the fixture's
section ``from`` (a name or an id; a list, or one: ``"default"`` stands in
when the section is missing) to an id, after all the file's entities are
made; ``state`` keeps the ids (or ``as`` entries) in the world's state under
that dotted name (``lists.saved_tracks`` is the saved list the ``save``
actions and ``$saved`` use, :mod:`gqlbench.mocks.engine.declared.lists`; a
section of one name keeps one id, as Spotify's ``"me"``). A recipe's default
that reads the state sees it only once the load is done.

Templates make entities on demand: ``{"$make": "artist", "entry": {"name": "$q"}}``
is the made one's id. With ``"key": ["movie", "$id", "cast", "$n"]`` the id is
the one made for that key: the same key always gives the same id, drawn from
the seed and the key and never one the world already has, so the order in which
entities are made decides who gets which id. ``"find": "name"`` first looks for
an entity whose ``name`` is the one the entry gives.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared.templates import Scope, evaluate, operation
from gqlbench.mocks.engine.world import World

__all__ = ["entities", "invent", "load", "make", "new_id", "resolve", "scope_of"]

_IDS = {"lo": 1_000_000, "hi": 99_999_999}
_ATTEMPTS = 1000  # a range this full of ids is too small for a graph that keeps growing


def _recipes(scope: Scope) -> Mapping[str, Any]:
    return scope.fixture.get("make") or {}


def _found(world: World, kind: str, ref: Any, name: str) -> list[tuple[Any, dict[str, Any]]]:
    """(id, record) of the entities a reference means: the one with that id, else those with that name."""
    if isinstance(ref, (str, int)) and not isinstance(ref, bool) and world.has(kind, ref):
        return [(ref, world.table(kind)[str(ref)])]
    return [(r["id"], r) for r in world.find(kind, lambda r: r.get(name) == ref)]


def _one(world: World, kind: str, ref: Any, where: str, name: str) -> tuple[Any, dict[str, Any]]:
    found = _found(world, kind, ref, name)
    if len(found) != 1:
        what = "no" if not found else f"{len(found)}"
        raise GqlbenchError(f"{where}: {what} {kind} named {ref!r}; refer to a {kind} defined earlier in the file by its name or id")
    return found[0]


def resolve(world: World, kind: str, ref: Any, where: str, name: str = "name") -> Any:
    """A reference (an id, or the name of exactly one entity of ``kind``) -> the entity's id (an id as written)."""
    return _one(world, kind, ref, where, name)[0]


def _resolve_all(scope: Scope, ref: Any, value: Any, where: str, linked: list[dict[str, Any]] | None = None) -> Any:
    """A ref's value (one reference or a list) -> ids; ``by`` reads the reference from each written item, ``create``
    makes the entity a name that matches none describes; the referred records are added to ``linked``."""
    spec = ref if isinstance(ref, dict) else {"kind": ref}
    kind = spec["kind"]
    name = (_recipes(scope).get(kind) or {}).get("name", "name")

    def refer(item: Any) -> Any:
        if "by" in spec and not isinstance(item, (list, dict)):
            raise GqlbenchError(f"{where}: write each item as a list or an object here (the reference is read from it), not {item!r}")
        reference = _read(spec["by"], scope.having(it=item), where) if "by" in spec else item
        if spec.get("create") and not _found(scope.world, kind, reference, name):
            made = make(scope, kind, reference, where)
            found = (made, scope.world.table(kind)[str(made)])
        else:
            found = _one(scope.world, kind, reference, where, name)
        if linked is not None:
            linked.append(found[1])
        return found[0]

    return [refer(item) for item in value] if isinstance(value, list) else refer(value)


def _read(template: Any, scope: Scope, where: str) -> Any:
    """A ref's ``by`` or ``as`` template, whose mistakes on a written item (a pair too short) are one line naming it."""
    try:
        return evaluate(template, scope)
    except (IndexError, KeyError, TypeError) as exc:
        raise GqlbenchError(
            f"{where}: cannot read {scope.names.get('item', scope.names.get('it'))!r} ({type(exc).__name__}: {exc})"
        ) from None


def _shaped(scope: Scope, template: Any, value: Any, written: Any = None, where: str = "as") -> Any:
    """Each id (``it``) as the template shapes it; ``item`` is what the entry wrote for it."""
    if isinstance(value, list):
        items = written if isinstance(written, list) else value
        return [_read(template, scope.having(it=it, item=item), where) for it, item in zip(value, items, strict=True)]
    return _read(template, scope.having(it=value, item=value if written is None else written), where)


def new_id(world: World, kind: str, *key: Any, lo: int = _IDS["lo"], hi: int = _IDS["hi"]) -> int:
    """The id of the entity made for ``key``: the same key always gives the same id, never one the world has."""
    registry = world.state.setdefault("generated_ids", {})
    name = json.dumps([kind, *key], default=str)
    if name not in registry:
        attempt = 0
        while world.has(kind, entity_id := world.int(kind, *key, attempt, lo=lo, hi=hi)):
            attempt += 1
            if attempt > _ATTEMPTS:
                raise GqlbenchError(
                    f"no free id for a new {kind} in {lo}..{hi} after {_ATTEMPTS} tries; widen the fixture's make.{kind}.ids"
                )
        registry[name] = entity_id
    return int(registry[name])


def make(
    scope: Scope,
    kind: str,
    entry: Any,
    where: str = "world fixture",
    *,
    key: list[Any] | None = None,
    find: str | None = None,
    **names: Any,
) -> Any:
    """Make (and store) the ``kind`` entity an entry describes; its id (an entity with that id already is kept).

    ``key`` gives it the collision-free id of :func:`new_id` (unless the entry has an id); ``find`` returns the id
    of an entity whose field of that name equals the entry's instead, when there is one.
    """
    recipe = _recipes(scope).get(kind)
    if recipe is None:
        raise GqlbenchError(f"{where}: the fixture's make has no kind {kind!r}")
    if not isinstance(entry, (dict, str)):
        raise GqlbenchError(f"{where}: an entry of {kind} must be a name or an object, got {entry!r}")
    values = {"id": None, **(entry if isinstance(entry, dict) else {recipe.get("name", "name"): entry})}  # the id first
    if find is not None:
        found = scope.world.find(kind, lambda r: r.get(find) == values.get(find))
        if found:
            return found[0]["id"]
    if key is not None:
        names = {**names, "key": key}
    scope = dataclasses.replace(scope, names={}, fields=False)  # the caller's names do not leak in
    try:
        refs, written = recipe.get("refs", {}), {}
        linked: dict[str, list[dict[str, Any]]] = {}  # per ref, the records it refers to (for "back")
        for field, ref in refs.items():
            if field in values:
                written[field], linked[field] = values[field], []
                values[field] = _resolve_all(scope, ref, values[field], f"{where}.{field}", linked[field])
        if values["id"] is None and key is None and "key" in recipe:
            made = evaluate(recipe["key"], scope.having(**{**names, **values}))
            key = made if isinstance(made, list) else [made]
            names = {**names, "key": key}
        if values["id"] is None and key is not None:
            values["id"] = new_id(scope.world, kind, *key, **{**_IDS, **recipe.get("ids", {})})
        if values["id"] is None:
            values["id"] = evaluate(recipe["id"], scope.having(**{**names, **values})) if "id" in recipe else None
        if values["id"] is None:
            raise GqlbenchError(f'{where}: the entry has no "id" and make.{kind} declares none')
        for field, child in recipe.get("children", {}).items():
            children = values.get(field) or []
            values[field] = [
                make(scope, child, item, f"{where}.{field}[{n}]", parent=values, position=n + 1) for n, item in enumerate(children)
            ]
        for field, template in recipe.get("defaults", {}).items():
            if field not in values:
                values[field] = evaluate(template, scope.having(**{**names, **values}))
        for field, ref in refs.items():
            if isinstance(ref, dict) and "as" in ref and field in values:
                values[field] = _shaped(scope, ref["as"], values[field], written.get(field), f"{where}.{field}")
    except GqlbenchError as exc:
        raise GqlbenchError(str(exc) if str(exc).startswith(where) else f"{where}: {exc}") from None
    record = copy.deepcopy(values)  # a record never shares a list with another
    entity_id = scope.world.put(kind, record, complete=recipe.get("complete", True))["id"]
    for field, ref in refs.items():
        if isinstance(ref, dict) and "back" in ref:
            for other in linked.get(field, []):  # a collection lists the movies that name it
                other.setdefault(ref["back"], []).append(entity_id)
    return entity_id


def scope_of(world: World) -> Scope:
    """What a behaviour's Python makes entities in: the world, with its fixture's recipes, vocabularies, shapes and functions."""
    return Scope.of(world, {})


def entities(scope: Scope, kind: str, entries: list[Any], where: str) -> list[Any]:
    """Make the file's own entries of ``kind`` (``entities.<kind>``) by its recipe, in order; their ids.

    Each must be a new entity: a second entry for one would be dropped unseen.
    """
    table = scope.world.table(kind)
    made = []
    for n, entry in enumerate(entries):
        at = f"{where}: entities.{kind}[{n}]"
        before = len(table)
        made.append(make(scope, kind, entry, at))
        if len(table) == before:
            raise GqlbenchError(f"{at}: the {kind} {made[-1]!r} is already defined (two entries with the same name or id); keep one")
    return made


def load(scope: Scope, fixture: Mapping[str, Any], where: str) -> None:
    """Run the fixture's ``load`` steps: resolve each section's references to ids, kept in the world's state."""
    for step in fixture.get("load") or []:
        section = step["from"]
        given = fixture.get(section, step.get("default"))
        entries = [] if given is None else given if isinstance(given, list) else [given]
        at = f"{where}: {section}"
        ids = [_resolve_all(scope, step["refer"], e, f"{at}[{n}]") for n, e in enumerate(entries)]
        kept: Any = _shaped(scope, step["as"], ids) if "as" in step else ids
        if "state" in step:
            *path, last = step["state"].split(".")
            holder = scope.world.state
            for part in path:
                holder = holder.setdefault(part, {})
            holder[last] = kept if isinstance(given, list) or given is None else kept[0]


def invent(scope: Scope, kind: str, query: str) -> None:
    """Run the kind's ``invent`` template (the name ``query``): what makes a search for unknown text find something."""
    template = (_recipes(scope).get(kind) or {}).get("invent")
    if template is None:
        raise GqlbenchError(f"world fixture: make.{kind} declares no invent; say how a search for unknown text makes a {kind}")
    evaluate(template, scope.having(query=query))


@operation("make", "entry", "key", "find", literal=("find",))
def _make(template: dict[str, Any], scope: Scope) -> Any:
    """``{"$make": "artist", "entry": {...}, "key": [...], "find": "name"}``: the id of the entity made from the entry."""
    key = evaluate(template["key"], scope) if "key" in template else None
    entry = evaluate(template.get("entry", {}), scope)  # first, as a call's arguments are: it may make entities too
    kind = evaluate(template["$make"], scope)
    key = key if isinstance(key, list) or key is None else [key]
    return make(scope, kind, entry, f"$make {kind}", key=key, find=template.get("find"))
