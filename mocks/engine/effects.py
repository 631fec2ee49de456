"""What a write does to the entity it names, declared in a world fixture.

Most state changes of a real API follow a few patterns, so a fixture says
them as data instead of Python (``endpoints.<function>.effects``)::

    "POST_my_contracts__contractId__accept": {"effects": {"set": {"accepted": true}}},
    "POST_my_ships__shipSymbol__navigate": {"effects": {"set": {"nav.waypointSymbol": "$waypointSymbol",
                                                                 "nav.status": "IN_TRANSIT"}}},
    "POST_playlists__id__tracks": {"effects": {"append": {"tracks": "$uris"}}},
    "DELETE_playlists__id__tracks": {"effects": {"remove": {"tracks": "$uris"}}},
    "POST_mixes__id__songs": {"effects": {"insert": {"songs": {"items": "$uri", "at": "$position"}},
                                          "increment": {"version": 1}}}

A path is dotted through the entity's own values and plain sub-objects
(``nav.waypointSymbol``); a value ``"$name"`` is the call's argument ``name``
(``"$$x"`` is the text ``$x``). ``insert`` puts ``items`` before index
``at`` (at the end when ``at`` is not given; outside the list is a
``bad_arguments`` error; so is a list grown past :data:`MAX_STORED_ITEMS`), and ``increment`` adds a number (a version that a
computed snapshot id is made from, :mod:`gqlbench.mocks.engine.declared.templates`).
``set_given`` sets only the paths whose value is not null (a PUT that changes
the fields it is given), and ``remove`` with ``{"items": ids, "by": "id"}``
removes the entries whose field ``by`` is one of ``items``. A template changes
any record or object of the world's state the same way (``{"$change": ...}``,
:mod:`gqlbench.mocks.engine.declared.writes`), its values templates. Later
reads of the entity show the change, because stored values win over derived
ones when an entity is rendered.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.errors import BadArguments

__all__ = ["MAX_STORED_ITEMS", "OPERATIONS", "apply_effects", "check_effects", "check_stored_items"]

OPERATIONS = ("set", "set_given", "append", "remove", "insert", "increment")

MAX_STORED_ITEMS = 10_000
"""Most items an insert or append leaves in a list (a Spotify playlist holds 10,000 tracks): a client growing a
playlist to 52,000 made every later read and write of it take seconds under the mock server's world lock."""


def check_effects(effects: Any, where: str) -> None:
    """Raise a one-line error naming ``where`` unless ``effects`` maps operations (:data:`OPERATIONS`) to ``{path: value}``."""
    if not isinstance(effects, dict):
        raise GqlbenchError(f'{where}: effects must be an object like {{"set": {{"accepted": true}}}}')
    for operation, changes in effects.items():
        if operation not in OPERATIONS:
            raise GqlbenchError(f"{where}: effects.{operation}: unknown operation; use {', '.join(OPERATIONS)}")
        if not isinstance(changes, dict) or not all(isinstance(p, str) and p.strip(".") for p in changes):
            raise GqlbenchError(f'{where}: effects.{operation} must map field paths ("nav.status") to values')
        if operation == "insert" and not all(isinstance(c, dict) and "items" in c and set(c) <= {"items", "at"} for c in changes.values()):
            raise GqlbenchError(f'{where}: effects.insert must map field paths to {{"items": "$uris", "at": "$position"}}')
        if operation == "remove" and any(isinstance(c, dict) and set(c) != {"items", "by"} for c in changes.values()):
            raise GqlbenchError(f'{where}: effects.remove of entries must be {{"items": "$ids", "by": "id"}}')


def check_stored_items(name: str, size: int) -> None:
    """:class:`BadArguments` when a write would leave ``size`` items, over :data:`MAX_STORED_ITEMS`, in the list ``name``."""
    if size > MAX_STORED_ITEMS:
        raise BadArguments(f"{name} would hold {size:,} items, over the mock's limit of {MAX_STORED_ITEMS:,}; remove some first")


def _value(value: Any, arguments: Mapping[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith("$$"):
        return value[1:]
    if isinstance(value, str) and value.startswith("$"):
        return arguments.get(value[1:])
    return value


def apply_effects(
    record: dict[str, Any],
    effects: Mapping[str, Any],
    arguments: Mapping[str, Any],
    shown: Callable[[str], Any],
    value_of: Callable[[Any], Any] | None = None,
) -> None:
    """Change ``record`` as ``effects`` say; ``shown(field)`` is the field's value as rendered now.

    ``value_of`` turns a declared value into the value written (default: ``"$name"`` is the argument).

    A field that was derived (never stored) is stored as it was shown before
    it changes, so the rest of it keeps the values callers already saw. The
    changes are made on a copy that replaces the record only when all of them
    succeed: a refused call (an insert outside the list) changes nothing.
    """
    resolve = value_of or (lambda raw: _value(raw, arguments))
    changed = copy.deepcopy(record)
    for operation, changes in effects.items():
        for path, raw in changes.items():
            *parents, last = path.split(".")
            holder = changed
            for depth, name in enumerate(parents):
                if not isinstance(holder.get(name), dict):
                    holder[name] = dict(shown(name)) if depth == 0 and isinstance(shown(name), dict) else {}
                holder = holder[name]
            entries = isinstance(raw, dict) and operation in ("insert", "remove")
            value = resolve(raw["items"] if entries else raw)
            if operation == "set" or (operation == "set_given" and value is not None):
                holder[last] = value
            if operation in ("set", "set_given"):
                continue
            if operation == "increment":
                current = holder.get(last, shown(last) if not parents else None)
                holder[last] = (current if isinstance(current, (int, float)) else 0) + value
                continue
            if not isinstance(holder.get(last), list):
                current = shown(last) if not parents else None
                holder[last] = list(current) if isinstance(current, list) else []
            items = value if isinstance(value, list) else [value]
            if operation in ("insert", "append"):
                check_stored_items(path, len(holder[last]) + len(items))
            if operation == "insert":
                at = resolve(raw.get("at"))
                size = len(holder[last])
                at = size if at is None else at
                if not isinstance(at, int) or not 0 <= at <= size:
                    raise BadArguments(f"position {at} is outside the {size} items of {path}; use 0 to {size}")
                holder[last][at:at] = items
            elif operation == "append":
                holder[last].extend(items)
            else:
                holder[last] = _without(holder[last], items, raw["by"] if entries else None)
    record.clear()
    record.update(changed)


def _frozen(value: Any) -> Any:
    """``value`` as a hashable that equals another's exactly when the values are equal (JSON lists and objects too)."""
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return frozenset((k, _frozen(v)) for k, v in value.items())
    return value


def _without(entries: list[Any], items: list[Any], by: str | None) -> list[Any]:
    """``entries`` less those equal to one of ``items`` (with ``by``: the objects whose field ``by`` is).

    One pass over each list: a membership test in the list of items made a
    DELETE of 20,000 tracks from 52,000 take 20 s under the world's lock.
    """
    gone = {_frozen(item) for item in items}
    if by is None:
        return [entry for entry in entries if _frozen(entry) not in gone]
    return [entry for entry in entries if not isinstance(entry, dict) or _frozen(entry.get(by)) not in gone]
