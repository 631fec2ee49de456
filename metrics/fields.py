"""Field accesses on responses, checked statically against the catalog's GraphQL types.

A program reads responses by attribute and index chains (``r.results[0].id``,
``r["items"][0]``, ``[t.uri for t in r.tracks.items]``). This module walks the
program's syntax tree in statement order, gives every expression it can a
GraphQL type (an API call has its endpoint's response type, a field access
the field's type, an index into a list its element type, a loop or
comprehension variable the element type of what it iterates over, a list
comprehension the list of its element's type) and reports each access the type
does not allow, with the closest valid fields, and each read of the response
of an endpoint that has no response schema. Nothing is executed. It also
reports a response variable read before the statement that assigns it (a
call used before the call producing it).

The one walk serves predictions (:mod:`.errors`) and gold programs
(``gqlbench domains check``, :mod:`gqlbench.scoring.checks`), so a mistake
gets the same diagnosis in both.

The mocks check the same thing at run time (:mod:`gqlbench.mocks.engine.responses`);
checking it here covers programs that are never run and every access of a
program, not only the first failing one.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

from graphql import GraphQLSyntaxError

from gqlbench.errors import closest
from gqlbench.program import ParsedProgram
from gqlbench.records import FunctionSpec

__all__ = ["Catalog", "FieldProblem", "NoSchema", "ObjectShape", "ListShape", "Shape", "load_catalog", "shapes_from_sdl", "check_fields"]


@dataclass(eq=False)
class ObjectShape:
    """A GraphQL object type: its name and its fields' shapes (None: a scalar or ``JSON``)."""

    name: str
    fields: dict[str, Shape] = field(default_factory=dict)


@dataclass(frozen=True)
class ListShape:
    """A GraphQL list of ``of`` (None: of scalars)."""

    of: Shape


Shape = ObjectShape | ListShape | None


def _link(objects: dict[str, ObjectShape], fields: dict[str, dict[str, object]]) -> dict[str, Shape]:
    """Fill the object shapes from ``{type: {field: type reference}}``; return the Query fields."""

    def shape(ref: object) -> Shape:
        if isinstance(ref, list):  # [inner]
            return ListShape(shape(ref[0]))
        return objects.get(str(ref))

    for name, members in fields.items():
        objects[name].fields.update({f: shape(ref) for f, ref in members.items()})
    query = objects.pop("Query", None)
    return dict(query.fields) if query is not None else {}


def _parsed_shapes(sdl: str) -> dict[str, Shape]:
    """:func:`shapes_from_sdl` through graphql-core's parser (the reference reading)."""
    from graphql import ListTypeNode, NonNullTypeNode, ObjectTypeDefinitionNode, TypeNode, parse

    definitions = [d for d in parse(sdl, no_location=True).definitions if isinstance(d, ObjectTypeDefinitionNode)]

    def ref(node: TypeNode) -> object:
        if isinstance(node, NonNullTypeNode):
            return ref(node.type)
        if isinstance(node, ListTypeNode):
            return [ref(node.type)]
        return node.name.value  # type: ignore[attr-defined]

    fields = {d.name.value: {f.name.value: ref(f.type) for f in d.fields or ()} for d in definitions}
    return _link({name: ObjectShape(name) for name in fields}, fields)


_IGNORED = re.compile(r'"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*')
_TOKEN = re.compile(r"[A-Za-z_]\w*|[^\sA-Za-z_,]")
_CLOSING = {"(": ")", "[": "]", "{": "}"}


def _skip_group(tokens: list[str], i: int) -> int:
    """The index after the bracket group opening at ``tokens[i]``."""
    depth = 0
    while i < len(tokens):
        if tokens[i] in _CLOSING:
            depth += 1
        elif tokens[i] in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced brackets")


def _fast_fields(sdl: str) -> dict[str, dict[str, object]]:
    """``{object type: {field: type reference}}`` from a token scan of the SDL (strings and comments dropped)."""
    tokens = _TOKEN.findall(_IGNORED.sub(" ", sdl))
    types: dict[str, dict[str, object]] = {}
    i = 0
    while i < len(tokens):
        if tokens[i] in _CLOSING:
            i = _skip_group(tokens, i)
        elif tokens[i] == "type" and i + 1 < len(tokens):
            members = types.setdefault(tokens[i + 1], {})
            i = tokens.index("{", i) + 1
            while tokens[i] != "}":
                name, i = tokens[i], i + 1
                if tokens[i] == "(":
                    i = _skip_group(tokens, i)
                if tokens[i] != ":":
                    raise ValueError(f"expected ':' after field {name}")
                depth, i = 0, i + 1
                while tokens[i] == "[":
                    depth, i = depth + 1, i + 1
                ref: object = tokens[i]
                i += 1
                for _ in range(depth):
                    ref = [ref]
                while i < len(tokens) and tokens[i] in ("]", "!"):
                    i += 1
                while tokens[i] == "@":  # directives, with their arguments
                    i += 2
                    if tokens[i] == "(":
                        i = _skip_group(tokens, i)
                members[name] = ref
            i += 1
        else:
            i += 1
    return types


def shapes_from_sdl(sdl: str) -> dict[str, Shape]:
    """Each ``Query`` field of an SDL text -> its response shape.

    The checks need the object types' fields and list wrappers, not a
    validated schema: a token scan gives them ten times faster than
    graphql-core's parser (which reads any text the scan cannot; the tests
    check both agree on every catalog endpoint).
    """
    try:
        fields = _fast_fields(sdl)
    except (ValueError, IndexError):
        return _parsed_shapes(sdl)
    return _link({name: ObjectShape(name) for name in fields}, fields)


def _endpoint_path(domain: str, function: str) -> Path | None:
    from gqlbench.specs.catalog import endpoint_sdl_file  # the catalog layer, below metrics

    # looked up each time: GQLBENCH_CATALOG may change within a process; None: no response schema (StepZen saw none)
    return endpoint_sdl_file(domain, function)


@lru_cache(maxsize=1024)
def _shape_at(path: Path, mtime_ns: int, function: str) -> Shape:
    """The response shape of ``function`` in one SDL file, read once per version of the file."""
    try:
        return shapes_from_sdl(path.read_text(encoding="utf-8")).get(function)
    except GraphQLSyntaxError:
        return None


@dataclass(frozen=True)
class NoSchema:
    """The response of a catalog endpoint that has no response schema: nothing can be read from it."""

    function: str


@dataclass(frozen=True)
class Catalog:
    """What a domain declares: its signatures and, per endpoint, its response shape (or None)."""

    functions: Mapping[str, FunctionSpec]
    domain: str | None = None  # None: no response schemas, so no field checks

    def response_type(self, function: str) -> Shape:
        """The endpoint's response shape, from its SDL in the catalog; None when it has none."""
        path = _endpoint_path(self.domain, function) if self.domain is not None else None
        return _shape_at(path, path.stat().st_mtime_ns, function) if path is not None else None

    def response_of(self, function: str) -> Shape | NoSchema:
        """Like :meth:`response_type`, but a signature without a response schema is :class:`NoSchema`."""
        if self.domain is not None and function in self.functions and _endpoint_path(self.domain, function) is None:
            return NoSchema(function)
        return self.response_type(function)


def load_catalog(domain: str, functions: Mapping[str, FunctionSpec]) -> Catalog:
    """The catalog of ``domain`` with ``functions`` as its signatures (schemas load lazily, cached)."""
    return Catalog(functions, domain if domain in _known_domains() else None)


@cache
def _known_domains() -> frozenset[str]:
    from gqlbench.specs import list_domains

    return frozenset(list_domains())


@dataclass(frozen=True)
class FieldProblem:
    """One access a response's type does not allow, or a response read before it exists.

    ``kind`` is ``invalid_field`` (the type has no such field, or a list is read
    as an object or an object as a list), ``no_schema`` (a read of the response
    of an endpoint that has no response schema) or ``wrong_order``.
    """

    kind: str
    line: int
    access: str  # the chain as written
    detail: str

    def __str__(self) -> str:
        """``r.docs[0].titel: type X has no field 'titel'; closest: title`` (the access, then why)."""
        return self.detail if self.kind == "wrong_order" else f"{self.access}: {self.detail}"


_LIST_METHODS = frozenset(name for name in dir(list) if not name.startswith("_"))
"""What a response list has besides its items (it is a Python list); a response object has only its fields."""


@dataclass(frozen=True)
class _Pending:
    """An endpoint's response whose shape has not been needed yet (loading a shape reads its SDL)."""

    function: str


Typed = Shape | NoSchema
"""What the walk knows of an expression: a shape, or the response of an endpoint without one."""


class _Checker(ast.NodeVisitor):
    """Give expressions GraphQL types in statement order and record what the types forbid."""

    def __init__(self, is_api: Callable[[str], bool], response_type: Callable[[str], Typed], response_vars: set[str]) -> None:
        self.is_api = is_api
        self.response_type = response_type
        self.response_vars = response_vars  # names some statement assigns an API response to
        self.env: dict[str, ObjectShape | ListShape | NoSchema | _Pending] = {}
        self.bound: set[str] = set()
        self.problems: list[FieldProblem] = []
        self._types: dict[int, Typed | _Pending] = {}

    # -- types -------------------------------------------------------------

    def type_of(self, node: ast.expr) -> Typed:
        """The node's GraphQL type (None: unknown or not a response), each node judged once."""
        found = self._held(node)
        return self.response_type(found.function) if isinstance(found, _Pending) else found

    def _held(self, node: ast.expr) -> Typed | _Pending:
        """Like :meth:`type_of`, but a call's response stays unread (for assignments)."""
        if id(node) not in self._types:
            self._types[id(node)] = self._compute(node)
        return self._types[id(node)]

    def _compute(self, node: ast.expr) -> Typed | _Pending:
        if isinstance(node, ast.Name):
            self._load(node)
            return self.env.get(node.id)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and self.is_api(node.func.id):
            self.generic_visit(node)
            return _Pending(node.func.id)  # the response's shape is read only if the response is
        if isinstance(node, ast.Attribute):
            return self._field(node, self.type_of(node.value), node.attr, is_attribute=True)
        if isinstance(node, ast.Subscript):
            base = self.type_of(node.value)
            self.visit(node.slice)
            key = node.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                return self._field(node, base, key.value, is_attribute=False)
            if isinstance(base, ListShape):
                return base if isinstance(key, ast.Slice) else base.of
            if isinstance(base, ObjectShape):
                self._report(node, f"{base.name} is an object, not a list; read one of its fields ({_fields(base)})")
            elif isinstance(base, NoSchema):
                self._report(node, f"{base.function} has no response schema, so its response cannot be indexed", "no_schema")
            return None
        if isinstance(node, ast.NamedExpr):
            self.visit_NamedExpr(node)
            return self.env.get(node.target.id)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            item = self._comprehension(node)
            return ListShape(item) if isinstance(item, (ObjectShape, ListShape)) else None
        self.generic_visit(node)
        return None

    def _field(self, node: ast.expr, base: Typed, name: str, is_attribute: bool) -> Shape:
        if isinstance(base, ObjectShape):
            if name in base.fields:
                return base.fields[name]
            near = closest(name, list(base.fields))
            hint = f"closest: {', '.join(near)}" if near else f"its fields: {_fields(base)}"
            self._report(node, f"type {base.name} has no field {name!r}; {hint}")
        elif isinstance(base, ListShape) and not (is_attribute and name in _LIST_METHODS):
            inner = base.of
            example = f"[0].{name}" if isinstance(inner, ObjectShape) and name in inner.fields else "[0]"
            what = inner.name if isinstance(inner, ObjectShape) else "values"
            self._report(node, f"a list of {what}, not an object: index it first ({example})")
        elif isinstance(base, NoSchema):
            self._report(node, f"{base.function} has no response schema, so no field of its response can be read", "no_schema")
        return None  # scalars, JSON and unknown types are not checked further

    def _report(self, node: ast.expr, detail: str, kind: str = "invalid_field") -> None:
        self.problems.append(FieldProblem(kind, node.lineno, ast.unparse(node), detail))

    def _load(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) and node.id in self.response_vars and node.id not in self.bound:
            self.problems.append(FieldProblem("wrong_order", node.lineno, node.id, f"{node.id} is read before the call that assigns it"))

    # -- expressions that are chains: type them (which checks them) --------

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.type_of(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.type_of(node)

    def visit_Name(self, node: ast.Name) -> None:
        self.type_of(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.type_of(node)  # a method is read like a field: a response object has none, a list has a list's

    def visit_comprehension_expression(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        self.type_of(node)

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = visit_comprehension_expression

    # -- statements that bind names ----------------------------------------

    def _bind(self, target: ast.expr, t: Typed | _Pending) -> None:
        if isinstance(target, ast.Name):
            self.bound.add(target.id)
            if t is None:
                self.env.pop(target.id, None)
            else:
                self.env[target.id] = t
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._bind(element, None)
        else:
            self.visit(target)

    def visit_Assign(self, node: ast.Assign) -> None:
        t = self._held(node.value)
        for target in node.targets:
            self._bind(target, t)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._bind(node.target, self.type_of(node.value) if node.value is not None else None)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        if id(node) not in self._types:
            self._types[id(node)] = None
            self._bind(node.target, self.type_of(node.value))

    def visit_For(self, node: ast.For) -> None:
        self._bind(node.target, _element(self.type_of(node.iter)))
        for statement in [*node.body, *node.orelse]:
            self.visit(statement)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> Typed:
        """Walk a comprehension in its own scope; the type of its element (None for a dict)."""
        saved = dict(self.env)
        for generator in node.generators:
            self._bind(generator.target, _element(self.type_of(generator.iter)))
            for condition in generator.ifs:
                self.visit(condition)
        item: Typed = None
        if isinstance(node, ast.DictComp):
            self.visit(node.key)
            self.visit(node.value)
        else:
            item = self.type_of(node.elt)
        self.env = saved
        return item


def _element(t: Typed) -> Shape:
    return t.of if isinstance(t, ListShape) else None


def _fields(t: ObjectShape, shown: int = 8) -> str:
    names = list(t.fields)
    return ", ".join(names[:shown]) + (", ..." if len(names) > shown else "")


def _response_vars(tree: ast.Module, is_api: Callable[[str], bool]) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Name) and is_api(func.id):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def check_fields(program: ParsedProgram, catalog: Catalog, is_api: Callable[[str], bool]) -> list[FieldProblem]:
    """Every response access of ``program`` its GraphQL type forbids, in program order.

    ``is_api(name)`` says whether a bare callee is an API call. A program that
    does not parse has no problems here (its parse error is reported instead).
    """
    tree = program.tree
    if tree is None:
        return []
    checker = _Checker(is_api, catalog.response_of, _response_vars(tree, is_api))
    try:
        checker.visit(tree)
    except RecursionError:
        return []
    return sorted(checker.problems, key=lambda p: p.line)
