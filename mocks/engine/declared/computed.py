"""Computed fields declared in a world fixture: values made from an entity's own values.

Many APIs show fields that are only a function of an entity's key or other
fields: Spotify's ``"uri": "spotify:artist:{id}"``, an ``href`` or a web
link. A fixture declares them per kind under ``"computed"``, as templates of
:mod:`gqlbench.mocks.engine.declared.templates` over the entity's values::

    "computed": {"artist": {"type": "artist", "uri": "spotify:artist:{id}",
                            "external_urls": {"spotify": "https://open.spotify.com/artist/{id}"}},
                 "playlist": {"snapshot_id": {"$token": ["snapshot", "$id", "$version"], "length": 32}}}

A template shows some of them with ``{"$computed": "playlist", "of": "$p", "only": ["snapshot_id"]}``
(``of`` the entity's values, at least its ``id``; all of the kind's fields without ``only``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gqlbench.mocks.engine.declared.templates import Scope, evaluate, operation
from gqlbench.mocks.engine.world import World

__all__ = ["computed"]


def computed(fixture: Mapping[str, Any], kind: str, values: Mapping[str, Any], world: World, only: Any = None) -> dict[str, Any]:
    """Every computed field of ``kind`` (the fixture's ``computed``; those in ``only``) for an entity with ``values``."""
    templates = (fixture.get("computed") or {}).get(kind) or {}
    templates = {name: templates[name] for name in only if name in templates} if only is not None else templates
    scope = Scope(world, dict(values), fixture=fixture, fields=True)
    return {name: evaluate(template, scope) for name, template in templates.items()}


@operation("computed", "only", required=("of",), literal=("only",))
def _computed(template: dict[str, Any], scope: Scope) -> dict[str, Any]:
    kind, values = evaluate(template["$computed"], scope), evaluate(template["of"], scope)
    return computed(scope.fixture, kind, values, scope.world, template.get("only"))
