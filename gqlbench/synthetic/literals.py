"""Literal values that exist in a domain's world: the search texts and names a start call may pass.

Names come from the world fixture (every ``name``/``title`` of an entity,
and lists of names such as a playlist's tracks), keyed by the entity kind of
the fixture key that holds them; a domain whose fixture names nothing falls
back on the search texts its human train programs pass. Nothing is invented:
a name the utterance states is one the world or a person already used.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cache
from typing import Any

from gqlbench.mocks.engine.fixtures import GENERIC_KEYS, load_fixture
from gqlbench.mocks.engine.kinds import singular
from gqlbench.specs import CATALOG_ENV

__all__ = ["NAME_FIELDS", "names_for", "world_names"]

NAME_FIELDS = ("name", "title", "display_name")
_MAX_NAME = 60


def _names(value: Any, kind: str, found: dict[str, list[str]]) -> None:
    if isinstance(value, str):
        if 1 < len(value) <= _MAX_NAME and value.strip() == value and value.isprintable():
            found.setdefault(kind, [])
            if value not in found[kind]:
                found[kind].append(value)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                for key in NAME_FIELDS:
                    if isinstance(item.get(key), str):
                        _names(item[key], kind, found)
                        break
            elif isinstance(item, str):
                _names(item, kind, found)
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            _names(inner, singular(str(key)), found)


@cache
def _world_names(domain: str, catalog: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    fixture = load_fixture(domain)
    found: dict[str, list[str]] = {}
    for key, value in fixture.items():
        if key in GENERIC_KEYS - {"entities"}:
            continue
        if key == "entities" and isinstance(value, Mapping):
            for kind, records in value.items():
                _names(records, singular(str(kind)), found)
        elif isinstance(value, list):
            _names(value, singular(key), found)
    return tuple((kind, tuple(names)) for kind, names in sorted(found.items()))


def world_names(domain: str) -> dict[str, tuple[str, ...]]:
    """Names in the domain's world fixture by entity kind (``{"artist": ("Taylor Swift", ...)}``)."""
    return dict(_world_names(domain, os.environ.get(CATALOG_ENV, "")))


_IRREGULAR = {"people": "person", "movy": "movie"}  # what :func:`singular` cannot know


def names_for(domain: str, kind: str | None) -> tuple[str, ...]:
    """Names of entities of ``kind`` (``saved_track`` and ``top_track`` are tracks); every name when kind is None."""
    found: list[str] = []
    for key, names in world_names(domain).items():
        key = _IRREGULAR.get(key, key)
        if kind is None or key == kind or key.endswith("_" + kind):
            found += [n for n in names if n not in found]
    return tuple(found)
