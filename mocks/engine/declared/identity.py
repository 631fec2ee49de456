"""What a world fixture declares about its kinds' identity: the ``kinds`` section.

Inference reads a kind's key off its responses (``id``, ``<kind>_id``,
``symbol``, the field a lookup's path parameter names); what it gets wrong is
one short declaration per kind::

    "kinds": {
        "task": {"key": "gid"},
        "repo": {"key": "name", "same": ["repository"]}
    }

``key`` is the field that holds the kind's key (a lookup by it finds the
entity; a value the world showed in that field is that entity); ``same``
lists other kind names that are this kind (``search/repositories`` lists
``repository``, ``/repos/{owner}/{repo}`` looks up ``repo``: one kind).
:func:`read_kinds` checks the section when the fixture loads, with errors
naming the file and the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gqlbench.errors import GqlbenchError

__all__ = ["KindDeclaration", "aliases", "read_kinds"]

_FIELDS = ("key", "same")
_EXAMPLE = '{"task": {"key": "gid"}, "repo": {"same": ["repository"]}}'


@dataclass(frozen=True)
class KindDeclaration:
    """One kind's declared identity."""

    key: str | None = None
    same: tuple[str, ...] = ()


def read_kinds(fixture: Mapping[str, Any], where: str) -> dict[str, KindDeclaration]:
    """The fixture's ``kinds`` section, checked: one-line errors name ``where`` and the field."""
    section = fixture.get("kinds")
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise GqlbenchError(f"{where}: kinds must map each kind to its declaration, e.g. {_EXAMPLE}")
    out: dict[str, KindDeclaration] = {}
    owners: dict[str, str] = {}
    for kind, declared in section.items():
        at = f"{where}: kinds.{kind}"
        if not isinstance(declared, dict):
            raise GqlbenchError(f'{at} must be an object like {{"key": "gid"}}')
        unknown = sorted(set(declared) - set(_FIELDS))
        if unknown:
            raise GqlbenchError(f"{at}.{unknown[0]}: unknown field; a kind declares {', '.join(_FIELDS)}")
        key = declared.get("key")
        if key is not None and (not isinstance(key, str) or not key.isidentifier()):
            raise GqlbenchError(f"{at}.key must be a field name (a string like 'gid'), got {key!r}")
        same = declared.get("same", [])
        if not isinstance(same, list) or not all(isinstance(s, str) and s for s in same):
            raise GqlbenchError(f'{at}.same must be a list of kind names, e.g. ["repository"]')
        for other in same:
            if other == kind or other in section or other in owners:
                taken = kind if other == kind else owners.get(other, other)
                raise GqlbenchError(f"{at}.same: {other!r} is already the kind {taken!r}; a kind name belongs to one kind")
            owners[other] = kind
        out[kind] = KindDeclaration(key=key, same=tuple(same))
    return out


def aliases(kinds: Mapping[str, KindDeclaration]) -> dict[str, str]:
    """Each ``same`` name -> the kind it is."""
    return {other: kind for kind, declared in kinds.items() for other in declared.same}
