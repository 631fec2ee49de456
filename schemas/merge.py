"""Merging StepZen SDL texts into one schema that graphql-core builds.

StepZen wrote one SDL per sample: every endpoint's response types followed by
its own ``type Query { F(...): F_Root @rest(...) }`` block, with scalars and
the ``@rest`` directive left undeclared. The same endpoint's types also differ
between samples, because StepZen inferred them from different live responses.
The merge rules, applied to all variants at once (so the result does not
depend on their order):

1. :data:`PRELUDE` declares ``JSON``, ``Date``, ``DateTime``, the ``@rest``
   directive and its input/enum types; inputs' own copies of these are dropped.
2. All ``type Query`` blocks fold into one; likewise every type with the same
   name becomes one type whose fields are the union of the variants' fields
   (alphabetical if every variant was, as StepZen prints them; otherwise in
   order of first appearance).
3. A field whose type differs between variants gets one type:

   - ``JSON`` (StepZen's type for a value that was always ``null``) gives way to
     any other type, at any list depth: ``JSON`` + ``String`` -> ``String``,
     ``[JSON]`` + ``[X_ItemsEntry]`` -> ``[X_ItemsEntry]``;
   - lists merge their element types: ``[A]`` + ``[B]`` -> ``[merge(A, B)]``;
   - non-null survives only if every variant is non-null;
   - different scalars widen: ``Int`` + ``Float`` -> ``Float``, anything else
     (``Date`` + ``String``, ``ID`` + ``Int``) -> ``String``;
   - different object types (StepZen numbers nested types per response, so one
     sample's ``X_ArtistsEntry`` is another's ``X_Artists1Entry``): the field
     takes the name that sorts first, and that type also receives the fields
     of the others (rule 2, applied until nothing changes);
   - structural conflicts, a list against a single value or an object against
     a scalar, become ``JSON``, the only type whose values include both, with
     a description saying so.

   The kept field node is the first variant whose type equals the result, so
   its description (e.g. StepZen's ``defined as JSON`` remark) stays true.
4. Other definitions (scalars, enums, inputs, unions, interfaces) must be
   identical when repeated; two different ones with the same name are an error.

Every decision is returned as a note (:func:`merge_notes`), so conflicts are
reported, never silent.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from graphql import GraphQLSyntaxError, parse, print_ast
from graphql.language import (
    DefinitionNode,
    DirectiveDefinitionNode,
    DocumentNode,
    FieldDefinitionNode,
    ListTypeNode,
    NamedTypeNode,
    NameNode,
    NonNullTypeNode,
    ObjectTypeDefinitionNode,
    StringValueNode,
    TypeDefinitionNode,
    TypeNode,
)

from gqlbench.errors import GqlbenchError
from gqlbench.schemas.printer import print_definitions

__all__ = ["PRELUDE", "PRELUDE_NAMES", "MergeResult", "parse_sdl", "merge_documents", "merge_sdl", "merge_notes"]

PRELUDE = '''"""
Any JSON value. StepZen types a field JSON when every example value was null.
"""
scalar JSON

"""
A calendar date such as 2023-01-31, serialized as a string.
"""
scalar Date

"""
A date and time in ISO 8601, serialized as a string.
"""
scalar DateTime

"""
HTTP method of a @rest call.
"""
enum RestMethod {
  GET
  POST
  PUT
  PATCH
  DELETE
}

"""
An HTTP header sent by a @rest call; $name; in the value is replaced by the argument name.
"""
input RestHeader {
  name: String!
  value: String
}

"""
Copies a value found at path in the response into field.
"""
input RestSetter {
  field: String!
  path: String!
}

"""
StepZen's REST connector: this field is resolved by calling endpoint.
"""
directive @rest(
  endpoint: String!
  method: RestMethod = GET
  headers: [RestHeader]
  configuration: String
  resultroot: String
  setters: [RestSetter]
  postbody: String
  contenttype: String
) on FIELD_DEFINITION
'''

PRELUDE_NAMES: frozenset[str] = frozenset(d.name.value for d in parse(PRELUDE).definitions)  # type: ignore[attr-defined]
_JSON = "JSON"
_QUERY = "Query"


@dataclass
class MergeResult:
    """The merged definitions (without the prelude; ``Query`` last) and one note per decision."""

    definitions: list[DefinitionNode]
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        return print_definitions(self.definitions)


def parse_sdl(sdl: str, where: str = "SDL") -> DocumentNode:
    """Parse SDL with a one-line error naming ``where`` and the line."""
    try:
        return parse(sdl)
    except GraphQLSyntaxError as exc:
        line = exc.locations[0].line if exc.locations else "?"
        raise GqlbenchError(f"{where}:{line}: GraphQL syntax error: {exc.message}") from None


def _named(name: str) -> NamedTypeNode:
    return NamedTypeNode(name=NameNode(value=name))


def _key(node: object) -> str:
    return print_ast(node)  # type: ignore[arg-type]


def _unique(nodes: Iterable[TypeNode]) -> list[TypeNode]:
    seen: dict[str, TypeNode] = {}
    for n in nodes:
        seen.setdefault(_key(n), n)
    return list(seen.values())


class _Merger:
    def __init__(self, objects: dict[str, list[ObjectTypeDefinitionNode]]) -> None:
        self.objects = objects
        self.absorbs: dict[str, set[str]] = {name: set() for name in objects}
        self.notes: list[str] = []
        self.new_absorbs: list[tuple[str, str]] = []
        self.conflict = False

    def run(self) -> dict[str, ObjectTypeDefinitionNode]:
        while True:
            self.notes, self.new_absorbs = [], []
            merged = {name: self.merge_type(name) for name in self.objects}
            grew = False
            for keep, other in self.new_absorbs:
                if other not in self.absorbs[keep]:
                    self.absorbs[keep].add(other)
                    grew = True
            if not grew:
                return merged

    def closure(self, name: str) -> list[str]:
        order, todo = [name], [name]
        while todo:
            for other in sorted(self.absorbs[todo.pop()]):
                if other not in order:
                    order.append(other)
                    todo.append(other)
        return order

    def merge_type(self, name: str) -> ObjectTypeDefinitionNode:
        sources = self.closure(name)
        variants = [v for n in sources for v in self.objects[n]]
        shapes = {tuple(_key(f) for f in v.fields or ()) for v in variants}
        if len(shapes) == 1:  # identical (absorbed types may differ in name only)
            return variants[0]
        by_field: dict[str, list[FieldDefinitionNode]] = {}
        for v in variants:
            for f in v.fields or ():
                by_field.setdefault(f.name.value, []).append(f)
        names = list(by_field)
        if all([f.name.value for f in v.fields or ()] == sorted(f.name.value for f in v.fields or ()) for v in variants):
            names.sort()
        fields = tuple(self.merge_field(name, by_field[n]) for n in names)
        absorbed = f"; takes the fields of {', '.join(sources[1:])}" if len(sources) > 1 else ""
        if name != _QUERY:  # folding the per-endpoint Query blocks is expected, not a conflict
            self.notes.append(f"type {name}: {len(shapes)} variants unified by field union{absorbed}")
        first = variants[0]
        interfaces = {i.name.value: i for v in variants for i in v.interfaces or ()}
        return ObjectTypeDefinitionNode(
            name=first.name,
            description=next((v.description for v in variants if v.description), None),
            interfaces=tuple(interfaces.values()),
            directives=first.directives,
            fields=fields,
        )

    def merge_field(self, type_name: str, variants: list[FieldDefinitionNode]) -> FieldDefinitionNode:
        if len({_key(v) for v in variants}) == 1:
            return variants[0]
        types = _unique(v.type for v in variants)
        where = f"{type_name}.{variants[0].name.value}"
        if len(types) == 1:
            self.notes.append(f"{where}: variants differ only in description, arguments or directives; kept the first")
            return variants[0]
        self.conflict = False
        merged = self.merge_types(types)
        merged_key = _key(merged)
        got = " | ".join(sorted(_key(t) for t in types))
        self.notes.append(f"{where}: {got} -> {merged_key}" + (" (structural conflict)" if self.conflict else ""))
        for v in variants:
            if _key(v.type) == merged_key:
                return v
        description = None
        if self.conflict:
            description = StringValueNode(
                value=f'Field "{variants[0].name.value}" is defined as JSON since its samples disagree on its type: {got}',
                block=True,
            )
        first = variants[0]
        return FieldDefinitionNode(
            name=first.name, type=merged, arguments=first.arguments, directives=first.directives, description=description
        )

    def merge_types(self, types: list[TypeNode]) -> TypeNode:
        types = _unique(types)
        if len(types) == 1:
            return types[0]
        if all(isinstance(t, NonNullTypeNode) for t in types):
            inner = self.merge_types([t.type for t in types if isinstance(t, NonNullTypeNode)])
            assert isinstance(inner, (NamedTypeNode, ListTypeNode)), "the inner types of non-null types merge to a nullable type"
            return NonNullTypeNode(type=inner)
        bare = _unique(t.type if isinstance(t, NonNullTypeNode) else t for t in types)
        known = [t for t in bare if not (isinstance(t, NamedTypeNode) and t.name.value == _JSON)]
        if not known:
            return _named(_JSON)
        if len(known) == 1:
            return known[0]
        if all(isinstance(t, ListTypeNode) for t in known):
            return ListTypeNode(type=self.merge_types([t.type for t in known]))  # type: ignore[attr-defined]
        if any(isinstance(t, ListTypeNode) for t in known):
            self.conflict = True
            return _named(_JSON)
        names = sorted({t.name.value for t in known})  # type: ignore[attr-defined]
        objects = [n for n in names if n in self.objects]
        if objects and len(objects) < len(names):
            self.conflict = True
            return _named(_JSON)
        if objects:
            keep = objects[0]
            self.new_absorbs += [(keep, other) for other in objects[1:]]
            return _named(keep)
        return _named("Float" if set(names) <= {"Int", "Float"} else "String")


def merge_documents(documents: Iterable[DocumentNode]) -> MergeResult:
    """Merge parsed SDL documents by the module's rules (prelude definitions excluded)."""
    objects: dict[str, list[ObjectTypeDefinitionNode]] = {}
    others: dict[str, DefinitionNode] = {}
    for doc in documents:
        for d in doc.definitions:
            if isinstance(d, ObjectTypeDefinitionNode):
                objects.setdefault(d.name.value, []).append(d)
            elif isinstance(d, (TypeDefinitionNode, DirectiveDefinitionNode)):
                name = d.name.value
                if name in PRELUDE_NAMES:
                    continue
                if name in others and _key(others[name]) != _key(d):
                    raise GqlbenchError(f"two different definitions of {name!r}; rename one or make them identical")
                others.setdefault(name, d)
            else:
                raise GqlbenchError(f"cannot merge a {d.kind.replace('_', ' ')}; catalog SDL holds type and directive definitions only")
    merger = _Merger(objects)
    merged = merger.run()
    query = merged.pop(_QUERY, None)
    definitions: list[DefinitionNode] = [*others.values(), *merged.values()]
    if query is not None:
        definitions.append(query)
    return MergeResult(definitions, merger.notes)


def _documents(sdl_texts: Iterable[str]) -> list[DocumentNode]:
    return [parse_sdl(text, f"SDL text #{i + 1}") for i, text in enumerate(sdl_texts) if text.strip()]


def merge_sdl(sdl_texts: Iterable[str]) -> str:
    """One SDL text from many: :data:`PRELUDE` plus the merged definitions.

    The result is accepted by graphql-core's ``build_ast_schema``.
    """
    merged = merge_documents(_documents(sdl_texts))
    return PRELUDE + ("\n" + merged.text() if merged.definitions else "")


def merge_notes(sdl_texts: Iterable[str]) -> list[str]:
    """One line per conflict the merge resolved (empty when the texts agree)."""
    return merge_documents(_documents(sdl_texts)).notes
