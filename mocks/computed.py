"""Computed fields declared in a world fixture: values made from an entity's own values.

Many APIs show fields that are only a function of an entity's key or other
fields: Spotify's ``"uri": "spotify:artist:{id}"``, an ``href`` or a web
link. A fixture declares them per kind, instead of Python::

    "templates": {"artist": {"type": "artist",
                             "uri": "spotify:artist:{id}",
                             "external_urls": {"spotify": "https://open.spotify.com/artist/{id}"}},
                  "playlist": {"snapshot_id": {"$token": ["snapshot", "{id}", "{version}"], "length": 32}}}

A string's ``{name}`` is the entity's value ``name`` (``{{`` is a literal
brace); a string that is exactly one ``{name}`` keeps the value's type. An
object or a list is rendered item by item. ``{"$token": [parts], "length":
n}`` is a deterministic base62 token of the world's seed and the rendered
parts (an id that changes when ``version`` does). Placeholders are plain
names, never attribute paths, so a template cannot reach into Python objects.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from gqlbench.errors import GqlbenchError

__all__ = ["check_templates", "computed", "render_template"]

_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{(\w+)\}")
Token = Callable[..., str]  # World.token: (*parts, length=n) -> str


def check_templates(templates: Any, where: str) -> None:
    """Raise a one-line error naming ``where`` unless ``templates`` is ``{kind: {field: template}}``."""
    example = '{"artist": {"uri": "spotify:artist:{id}"}}'
    if not isinstance(templates, dict) or not all(isinstance(v, dict) for v in templates.values()):
        raise GqlbenchError(f"{where}: templates must map each kind to its computed fields, e.g. {example}")
    for kind, fields in templates.items():
        for name, template in fields.items():
            _check(template, f"{where}: templates.{kind}.{name}")


def _check(template: Any, where: str) -> None:
    if isinstance(template, dict) and "$token" in template:
        if not isinstance(template["$token"], list) or not isinstance(template.get("length", 22), int):
            raise GqlbenchError(f'{where}: a token is {{"$token": ["part", "{{id}}"], "length": 22}}')
    elif isinstance(template, dict):
        for name, inner in template.items():
            _check(inner, f"{where}.{name}")
    elif isinstance(template, list):
        for n, inner in enumerate(template):
            _check(inner, f"{where}[{n}]")
    elif isinstance(template, str):
        for match in re.finditer(r"\{([^{}]*)\}", template.replace("{{", "").replace("}}", "")):
            if not re.fullmatch(r"\w+", match.group(1)):
                raise GqlbenchError(f"{where}: {{{match.group(1)}}} is not a field name; write {{id}} or {{name}}")


def render_template(template: Any, values: Mapping[str, Any], token: Token) -> Any:
    """``template`` with the entity's ``values`` filled in (see the module docstring)."""
    if isinstance(template, str):
        whole = re.fullmatch(r"\{(\w+)\}", template)
        if whole:
            return values.get(whole.group(1))

        def fill(match: re.Match[str]) -> str:
            if match.group(1) is None:
                return match.group(0)[0]
            value = values.get(match.group(1))
            return "" if value is None else str(value)

        return _PLACEHOLDER.sub(fill, template)
    if isinstance(template, dict) and "$token" in template:
        parts = [render_template(part, values, token) for part in template["$token"]]
        return token(*parts, length=template.get("length", 22))
    if isinstance(template, dict):
        return {name: render_template(inner, values, token) for name, inner in template.items()}
    if isinstance(template, list):
        return [render_template(inner, values, token) for inner in template]
    return template


def computed(templates: Mapping[str, Any] | None, kind: str, values: Mapping[str, Any], token: Token) -> dict[str, Any]:
    """Every computed field of ``kind`` for an entity with ``values`` (``{}`` when the kind has none)."""
    fields = (templates or {}).get(kind) or {}
    return {name: render_template(template, values, token) for name, template in fields.items()}
