"""The response schema as a prompt shows it: full, types only, or none; names obfuscated or not.

``--schema full`` keeps StepZen's SDL as it is (byte for byte when nothing is
obfuscated); ``types-only`` keeps type names and fields but drops descriptions
and the ``@rest`` directives; ``none`` shows no schema at all (the ablation of
the paper's central claim that the response schema lets a model map outputs
to inputs).

Obfuscation renames what names an endpoint: its ``Query`` field, that
field's arguments, and the response types named after the endpoint
(``GET_search_Root`` becomes ``api_7_Root``). Field names of response types
stay: they are the data the program reads. The ``@rest`` directive is dropped
whenever something is renamed, since its URL spells the real endpoint.

A type belongs to the longest endpoint name it extends by a type name
(:func:`type_owner`): StepZen writes ``<endpoint>_<Type>``, and an endpoint
named after a path parameter ends in ``_`` already (``GET_tracks__id_Album``).
The type part starts with a capital, so ``GET_artists__id__top_tracks_Root``
belongs to ``GET_artists__id__top_tracks``, never to ``GET_artists__id_``.
Every endpoint of the domain's numbering is a candidate, offered or not (a
sample's own SDL may declare an endpoint its signatures lack).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from graphql import parse, print_ast
from graphql.language import (
    FieldDefinitionNode,
    NamedTypeNode,
    NameNode,
    ObjectTypeDefinitionNode,
    TypeDefinitionNode,
    Visitor,
    visit,
)

from gqlbench.errors import GqlbenchError
from gqlbench.generators.obfuscate import NameMap, Obfuscation

__all__ = ["SCHEMA_CHOICES", "type_owner", "shown_type_name", "view_sdl"]

SCHEMA_CHOICES: tuple[str, ...] = ("full", "types-only", "none")


def _type_part(name: str, endpoint: str) -> str | None:
    """What ``name`` adds to ``endpoint`` when it is one of the endpoint's types (``Root``, ``Album``), else None."""
    if name == endpoint:
        return ""
    if not name.startswith(endpoint):
        return None
    rest = name[len(endpoint) :]
    if rest.startswith("_"):
        rest = rest[1:]
    elif not endpoint.endswith("_"):
        return None
    return rest if rest[:1].isupper() else None


def type_owner(name: str, endpoints: Iterable[str]) -> tuple[str, str] | None:
    """(endpoint, type part) of the longest of ``endpoints`` that ``name`` is a type of (see the module docstring)."""
    owners = [(e, part) for e in endpoints if (part := _type_part(name, e)) is not None]
    return max(owners, key=lambda o: len(o[0])) if owners else None


def shown_type_name(name: str, shown: Mapping[str, str]) -> str:
    """``name`` as the prompt shows it: a function of ``shown`` (real -> shown), a type named after one, or unchanged."""
    owner = type_owner(name, shown)
    if owner is None:
        return name
    endpoint, part = owner
    return f"{shown[endpoint]}_{part}" if part else shown[endpoint]


class _View(Visitor):
    """Rebuilds the (frozen) nodes that change; ``leave`` runs bottom-up, so children are done first."""

    def __init__(self, names: NameMap, strip_descriptions: bool, strip_rest: bool) -> None:
        super().__init__()
        self.names, self.strip_descriptions, self.strip_rest = names, strip_descriptions, strip_rest
        self.shown = names.numbering  # real function name -> shown, offered or not, for renaming its types

    def _name(self, node: Any) -> NameNode:
        return NameNode(value=shown_type_name(node.name.value, self.shown))

    def _query_field(self, node: FieldDefinitionNode) -> FieldDefinitionNode:
        real = node.name.value
        keywords = self.names.keywords(real)
        arguments = tuple(
            replace(a, name=NameNode(value=keywords[a.name.value])) if a.name.value in keywords else a for a in node.arguments or ()
        )
        directives = tuple(d for d in node.directives or () if not (self.strip_rest and d.name.value == "rest"))
        return replace(node, name=NameNode(value=self.names.shown(real)), arguments=arguments, directives=directives)

    def leave(self, node: Any, *_: object) -> Any:
        changes: dict[str, Any] = {}
        if self.strip_descriptions and getattr(node, "description", None) is not None:
            changes["description"] = None
        if isinstance(node, ObjectTypeDefinitionNode) and node.name.value == "Query":
            changes["fields"] = tuple(self._query_field(f) for f in node.fields or ())
        elif isinstance(node, (NamedTypeNode, TypeDefinitionNode)):
            changes["name"] = self._name(node)
        return replace(node, **changes) if changes else None


def view_sdl(sdl: str, schema: str, obfuscation: Obfuscation, names: NameMap, where: str = "SDL") -> str:
    """``sdl`` as the prompt shows it under ``--schema`` and ``--obfuscate``."""
    if schema not in SCHEMA_CHOICES:
        raise GqlbenchError(f"--schema {schema!r}: choose one of {', '.join(SCHEMA_CHOICES)}")
    if schema == "none" or not sdl.strip():
        return ""
    renames = bool(names.numbering or names.params or names.other_params)
    if schema == "full" and not obfuscation.descriptions and not renames:
        return sdl
    try:
        document = parse(sdl, no_location=True)
    except Exception as exc:  # graphql-core's GraphQLSyntaxError names the line
        raise GqlbenchError(f"{where}: the GraphQL schema does not parse ({exc}); fix the sample or the catalog file") from None
    strip = schema == "types-only" or obfuscation.descriptions
    viewed = visit(document, _View(names, strip_descriptions=strip, strip_rest=renames or schema == "types-only"))
    return print_ast(viewed) + "\n"
