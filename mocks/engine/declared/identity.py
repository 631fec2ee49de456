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
The typed world file checks the section when it loads, every mistake a line
naming the file, the line and the field (:mod:`gqlbench.mocks.engine.worldfile`);
:func:`read_kinds` reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["KindDeclaration", "aliases", "read_kinds"]


@dataclass(frozen=True)
class KindDeclaration:
    """One kind's declared identity."""

    key: str | None = None
    same: tuple[str, ...] = ()


def read_kinds(fixture: Mapping[str, Any]) -> dict[str, KindDeclaration]:
    """The fixture's ``kinds`` section (checked when the file loads: :class:`gqlbench.mocks.engine.worldfile.KindSection`)."""
    return {
        kind: KindDeclaration(key=declared.get("key"), same=tuple(declared.get("same", ())))
        for kind, declared in (fixture.get("kinds") or {}).items()
    }


def aliases(kinds: Mapping[str, KindDeclaration]) -> dict[str, str]:
    """Each ``same`` name -> the kind it is."""
    return {other: kind for kind, declared in kinds.items() for other in declared.same}
