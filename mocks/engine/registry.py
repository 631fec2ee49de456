"""World behaviours: the Python a domain's world needs beyond its data.

Every domain runs on the generic world (:mod:`gqlbench.mocks.engine.generic`). A
*behaviour* adds what data cannot say (a player's queue, paging cursors, how a
search invents a catalogue): an object with ``handlers`` (function name ->
``(world, arguments) -> response``), which take precedence over the inferred
rules, and optionally ``load(world, fixture)`` and ``complete(world, kind,
record)``. A domain's behaviour is found, first match wins:

1. the fixture's ``"behaviour"`` key: ``"module:object"`` or
   ``"file.py:object"`` (a file relative to the fixture; sandbox workers
   import it too, so this is the way for a catalog folder's own code);
2. :func:`register_world` in this process;
3. the bundled ones (Spotify, TMDB);
4. the entry point group ``gqlbench.worlds`` (name = domain, value =
   ``module:object``), for an installed plugin (scanning the installed
   packages costs a few tenths of a second per worker, so bundled domains skip it).

The object may also be a class or a function of no arguments that returns one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from gqlbench.errors import GqlbenchError
from gqlbench.plugins import Registry

__all__ = ["ENTRY_POINT_GROUP", "BUILTIN", "WORLDS", "WorldBehaviour", "register_world", "unregister_world", "find_behaviour"]

ENTRY_POINT_GROUP = "gqlbench.worlds"

BUILTIN: dict[str, str] = {
    "spotify": "gqlbench.mocks.worlds.spotify:MODEL",
    "tmdb": "gqlbench.mocks.worlds.tmdb:MODEL",
}

Handler = Callable[[Any, dict[str, Any]], Any]


@runtime_checkable
class WorldBehaviour(Protocol):
    """What a behaviour provides (``load`` and ``complete`` are optional)."""

    handlers: Mapping[str, Handler]


WORLDS: Registry[WorldBehaviour | str] = Registry(
    "world behaviour", ENTRY_POINT_GROUP, "register_world", what="the object with the handlers", module_prefix="gqlbench_world_"
)
"""Behaviours registered in this process by domain (an object or ``"module:object"``); entry points by domain too."""


def register_world(domain: str, behaviour: WorldBehaviour | str) -> None:
    """Give ``domain`` a behaviour in this process (an object or ``"module:object"``), replacing an earlier one."""
    WORLDS.register(domain, behaviour, replace=True)


def unregister_world(domain: str) -> None:
    """Forget a registration made with :func:`register_world`."""
    WORLDS.unregister(domain)


def resolve(reference: str, where: str, base: Path | None = None) -> WorldBehaviour:
    """``"module:object"`` or ``"file.py:object"`` (relative to ``base``) -> the behaviour object."""
    found = WORLDS.load(reference, f"{where}: behaviour", base=base)
    if not hasattr(found, "handlers") and callable(found):
        found = found()
    if not isinstance(getattr(found, "handlers", None), Mapping):
        raise GqlbenchError(f"{where}: behaviour {reference!r} has no 'handlers' mapping of function name -> callable")
    return found


def find_behaviour(domain: str, fixture: Mapping[str, Any], fixture_file: Path | None) -> WorldBehaviour | None:
    """The domain's behaviour (see the module docstring), or None for a data-only world."""
    where = str(fixture_file) if fixture_file else f"world of {domain}"
    reference = fixture.get("behaviour")
    if reference is not None:
        if not isinstance(reference, str):
            raise GqlbenchError(f"{where}: 'behaviour' must be a string like 'package.module:OBJECT' or 'file.py:OBJECT'")
        return resolve(reference, where, fixture_file.parent if fixture_file else None)
    registered = WORLDS.registered().get(domain)
    if registered is not None:
        return resolve(registered, f"register_world({domain!r})") if isinstance(registered, str) else registered
    if domain in BUILTIN:
        return resolve(BUILTIN[domain], "bundled worlds")
    entry = WORLDS.entry_point(domain)
    if entry is not None:
        return resolve(entry.value, f"entry point {ENTRY_POINT_GROUP}:{domain}")
    return None
