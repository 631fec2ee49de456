"""The dataflow graph of a domain: which response fields can feed which parameters.

Two sources of edges:

* **the schema**: an id-like scalar of an endpoint's response type (``id``,
  ``<kind>_id``, ``<kind>Id``, ``symbol``...) feeds an id-like required
  parameter of another endpoint when both name the same entity kind. A field's
  kind comes from its name (``author_id``) or, for a bare key, from where it
  sits (``artists.items[0].id`` is an artist's); a parameter's kind from its
  name or from the path segment it follows (``GET_artists__id_``'s ``id``), as
  the mock world's rules read them (:mod:`gqlbench.mocks.engine.rules`).
* **the human gold programs** of the train split: every argument that reads
  an earlier response (``response_obj.docs[0].book_id``), as the metrics'
  dataflow analysis standardizes it.

Paths into lists take the first element (``[0]``); the walk stops at
:data:`MAX_DEPTH` fields, which is deeper than any human gold path.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

from graphql import GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLType

from gqlbench.errors import GqlbenchError
from gqlbench.metrics import analyze
from gqlbench.mocks.engine.fixtures import load_fixture
from gqlbench.mocks.engine.generic import domain_schema
from gqlbench.mocks.engine.kinds import KEY_WORDS, NAME_KEYS, is_generic, reference, singular
from gqlbench.mocks.engine.rules import TEXT_PARAMS, Rule, endpoint_path, infer_keys, infer_rules
from gqlbench.records import FunctionSpec
from gqlbench.specs import CATALOG_ENV, load_specs
from gqlbench.synthetic.human import human_samples

__all__ = ["LIMITS", "MAX_DEPTH", "WRITE_METHODS", "Path", "Edge", "Endpoint", "DataflowGraph", "build_graph", "render_path"]

MAX_DEPTH = 4
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
URI_PARAMS = ("uri", "uris")
"""Parameters that take an entity's ``uri`` field rather than its id."""
Path = tuple[str | int, ...]
_GOLD_REF = re.compile(r"^(?P<function>\w+)#\d+(?P<path>(?:\.\w+|\[\d+\])+)$")
_PATH_PART = re.compile(r"\.(\w+)|\[(\d+)\]")


def render_path(path: Path) -> str:
    """``("docs", 0, "book_id")`` -> ``.docs[0].book_id``."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


@dataclass(frozen=True)
class Edge:
    """A response field of ``producer`` that can be passed as ``consumer``'s ``param``."""

    producer: str
    path: Path
    consumer: str
    param: str
    source: str  # "schema" or "gold"
    scope: tuple[tuple[str, Path], ...] = ()  # parameters fed with it from the same element: (owner, (owner, login))


@dataclass(frozen=True)
class Endpoint:
    """What the sampler needs to know of one endpoint."""

    name: str
    description: str  # its first sentence, without the final period
    required: tuple[str, ...]
    param_kinds: Mapping[str, str]  # id-like parameter -> the entity kind it names
    text_param: str | None = None  # the search text of a search endpoint
    kind: str | None = None  # the entity kind it returns or lists
    literals: Mapping[str, tuple[str | int, ...]] = field(default_factory=dict)  # values human gold passes
    optional: Mapping[str, tuple[str | int, ...]] = field(default_factory=dict)  # optional parameters and values to pass
    extra_kinds: Mapping[str, str] = field(default_factory=dict)  # optional parameter -> the kind whose id or uri it takes
    segments: tuple[str, ...] = ()  # path segments, parameters as ``{name}``
    scoped: tuple[str, ...] = ()  # path parameters an edge feeds with the key: the owner of /repos/{owner}/{repo}

    @property
    def writes(self) -> bool:
        """Whether the endpoint changes the world (POST, PUT, PATCH, DELETE)."""
        return self.name.split("_", 1)[0] in WRITE_METHODS

    @property
    def lookup(self) -> bool:
        """Whether the endpoint reads one entity by its id (its path ends with the id parameter)."""
        return bool(self.segments) and self.segments[-1].startswith("{") and not self.writes

    @property
    def literal_params(self) -> tuple[str, ...]:
        """Required parameters that take a literal (not an id from a response)."""
        return tuple(p for p in self.required if p not in self.param_kinds and p not in self.scoped)


@dataclass(frozen=True)
class DataflowGraph:
    """Every endpoint of a domain and the edges between them."""

    domain: str
    endpoints: Mapping[str, Endpoint]
    edges: tuple[Edge, ...]

    def edges_from(self, producer: str) -> list[Edge]:
        """The edges a response of ``producer`` can feed, each consumer fully fed by it and literals."""
        return [
            e
            for e in self.edges
            if e.producer == producer and e.param in self.endpoints[e.consumer].param_kinds and self.fed_by_one(e.consumer)
        ]

    def fed_by_one(self, consumer: str) -> bool:
        """Whether ``consumer`` needs exactly one id from a response (its other required params are literals)."""
        endpoint = self.endpoints[consumer]
        ids = [p for p in endpoint.required if p in endpoint.param_kinds]
        return len(ids) == 1 and all(self.literal_ok(consumer, p) for p in endpoint.literal_params)

    def literal_ok(self, function: str, param: str) -> bool:
        """Whether the sampler has values for a literal parameter: a search text or values human gold passes."""
        endpoint = self.endpoints[function]
        return param == endpoint.text_param or bool(endpoint.literals.get(param))

    def edges_into(self, consumer: str, param: str) -> list[Edge]:
        """The edges that can feed ``consumer``'s ``param``."""
        return [e for e in self.edges if e.consumer == consumer and e.param == param]

    def fan_in_targets(self) -> list[str]:
        """Endpoints that can take values from two responses: two fed parameters, every required one among them."""
        found = []
        for name, endpoint in self.endpoints.items():
            ids = [p for p in endpoint.required if p in endpoint.param_kinds]
            fed = [p for p in (*ids, *endpoint.extra_kinds) if self.edges_into(name, p)]
            if len(fed) >= 2 and set(ids) <= set(fed) and len(ids) <= 2 and all(self.literal_ok(name, p) for p in endpoint.literal_params):
                found.append(name)
        return found

    def starts(self) -> list[str]:
        """Endpoints a program can start with: every required parameter a literal the sampler has values for."""
        return [
            name
            for name, e in self.endpoints.items()
            if not any(p in e.param_kinds for p in e.required) and all(self.literal_ok(name, p) for p in e.required)
        ]


def _first_sentence(text: str) -> str:
    paragraph = re.split(r"\n\s*\n", re.sub(r"<[^>]+>|\*\*|`", "", text).strip(), maxsplit=1)[0]
    return re.split(r"(?<=[a-z)][.!?])(?<!e\.g\.)(?<!i\.e\.)\s", " ".join(paragraph.split()), maxsplit=1)[0].strip().rstrip(".")


def _unwrap(graphql_type: GraphQLType) -> GraphQLType:
    while isinstance(graphql_type, GraphQLNonNull):
        graphql_type = graphql_type.of_type
    return graphql_type


def _objects(root: GraphQLObjectType, hint: str | None) -> list[tuple[Path, str | None, GraphQLObjectType]]:
    """``(path, kind, type)`` of every object reachable from ``root`` within :data:`MAX_DEPTH` fields, ``root`` first;
    an object's kind is its field's name, or its parent's for a generic one (``data``, ``items``)."""
    found: list[tuple[Path, str | None, GraphQLObjectType]] = []

    def walk(obj: GraphQLObjectType, path: Path, hint: str | None, seen: frozenset[str]) -> None:
        if len([p for p in path if isinstance(p, str)]) >= MAX_DEPTH or obj.name in seen:
            return
        found.append((path, hint, obj))
        for name, fld in obj.fields.items():
            inner = _unwrap(fld.type)
            step: Path = (name,)
            if isinstance(inner, GraphQLList):
                inner = _unwrap(inner.of_type)
                step = (name, 0)
            if isinstance(inner, GraphQLObjectType):
                own = singular(name)
                walk(inner, path + step, hint if is_generic(own) else own, seen | {obj.name})

    walk(root, (), hint, frozenset())
    return found


def _id_fields(root: GraphQLObjectType, hint: str | None, keys: Mapping[str, str]) -> list[tuple[Path, str, str]]:
    """``(path, kind, scalar type)`` of every id-like scalar reachable from ``root`` within :data:`MAX_DEPTH` fields,
    a kind's key of the world (``keys``: an Asana project's ``gid``) among them."""
    found: list[tuple[Path, str, str]] = []
    for path, kind, obj in _objects(root, hint):
        for name, fld in obj.fields.items():
            inner = _unwrap(fld.type)
            if isinstance(inner, GraphQLList | GraphQLObjectType):
                continue
            ref = reference(name)
            if ref is not None:
                found.append(((*path, name), singular(ref[0]), getattr(inner, "name", "")))
            elif kind and (name in KEY_WORDS or name == "uri" or name == keys.get(kind)):
                found.append(((*path, name), kind, getattr(inner, "name", "")))
    return found


def _name_of(obj: GraphQLObjectType) -> str | None:
    """The scalar field that names an entity of this type (a user's ``login``, a repo's ``name``), if any."""
    scalars = [n for n in NAME_KEYS if n in obj.fields and not isinstance(_unwrap(obj.fields[n].type), GraphQLList | GraphQLObjectType)]
    return scalars[0] if scalars else None


def _scoped_edges(producer: str, root: GraphQLObjectType, prefix: Path, hint: str | None, consumers: Mapping[str, Endpoint]) -> list[Edge]:
    """Edges into a lookup by a name within object scopes (``/repos/{owner}/{repo}``): an object of the kind
    (a listed repo) feeds its name, and each scope its object field's name (``owner.login``), as the world keys them."""
    edges = []
    for path, kind, obj in _objects(root, hint):
        name = _name_of(obj)
        if not kind or name is None:
            continue
        for consumer, endpoint in consumers.items():
            param = next((p for p in endpoint.param_kinds if p not in endpoint.scoped and endpoint.param_kinds[p] == kind), None)
            scope = []
            for s in endpoint.scoped:
                inner = _unwrap(obj.fields[s].type) if s in obj.fields else None
                key = _name_of(inner) if isinstance(inner, GraphQLObjectType) else None
                if key is not None:
                    scope.append((s, (*prefix, *path, s, key)))
            if param is not None and len(scope) == len(endpoint.scoped):
                edges.append(Edge(producer, (*prefix, *path, name), consumer, param, "schema", tuple(scope)))
    return edges


def _param_kinds(required: list[str], rule: Rule, segments: list[str], keys: Mapping[str, str] | None = None) -> dict[str, str]:
    """The entity kind each id-like required parameter names (a free name such as a subject names none).

    ``keys`` are the world's kinds' keys (:func:`~gqlbench.mocks.engine.rules.infer_keys`): the path parameter of
    a lookup of a keyed kind names it (``{project_gid}``, the ``gid`` of a project)."""
    kinds: dict[str, str] = {}
    owner = rule.parent or rule.kind
    for param in required:
        ref = reference(param)
        if ref is not None:  # the name says it: playlist_id names a playlist, whatever the endpoint lists
            kinds[param] = singular(ref[0])
        elif param == rule.id_param and not rule.open and owner and (owner in (keys or {}) or _scope(rule, segments)):
            kinds[param] = owner
        elif param == rule.id_param and param in KEY_WORDS and not rule.open and (rule.parent or rule.kind):  # an id, not a number or name
            kinds[param] = singular(rule.parent or rule.kind or "")  # GET_artists__id__albums: id of the parent artist
        elif param in KEY_WORDS and f"{{{param}}}" in segments:
            at = segments.index(f"{{{param}}}")
            if at > 0 and not segments[at - 1].startswith("{"):
                kinds[param] = singular(segments[at - 1])
        elif param in ("ids", *URI_PARAMS) and _own_kind(rule, segments):
            kinds[param] = _own_kind(rule, segments) or ""  # PUT_me_tracks(ids=...): ids of tracks
    return kinds


def _scope(rule: Rule, segments: list[str]) -> tuple[str, ...]:
    """The path parameters before the one a name-keyed lookup or list reads (``owner`` of ``/repos/{owner}/{repo}``)."""
    if rule.action not in ("lookup", "children") or rule.id_param is None or f"{{{rule.id_param}}}" not in segments:
        return ()
    at = segments.index(f"{{{rule.id_param}}}")
    return tuple(s[1:-1] for s in segments[:at] if s.startswith("{"))


def _own_kind(rule: Rule, segments: list[str]) -> str | None:
    """The kind an endpoint acts on: its rule's, else its last literal path segment's (``me/tracks``: track)."""
    literal = [s for s in segments if not s.startswith("{")]
    return singular(rule.kind) if rule.kind else singular(literal[-1]) if literal else None


_KIND_WORDS = {"people": "person", "crew": "person"}  # what :func:`singular` cannot know


def _fits(scalar: str, json_type: str | None) -> bool:
    """Whether a response scalar (``Int``, ``String``, ``ID``) can be passed as an optional parameter of ``json_type``.

    The worlds check an optional parameter's type (a ``with_people`` string
    refuses an integer id), so an edge into one must carry its type.
    """
    wanted = {"Int": "integer", "String": "string", "Float": "number"}.get(scalar)
    return wanted is None or json_type in (None, wanted)


def _extra_kinds(spec: FunctionSpec, rule: Rule, segments: list[str]) -> dict[str, str]:
    """Optional parameters that take an entity's id or uri: ``device_id``, ``uris``, ``with_companies``."""
    kinds: dict[str, str] = {}
    for param, schema in spec.parameters.properties.items():
        if param in spec.parameters.required or schema.type not in ("string", None):
            continue
        ref = reference(param)
        if ref is not None:
            kinds[param] = singular(ref[0])
        elif param in URI_PARAMS and _own_kind(rule, segments):
            kinds[param] = _own_kind(rule, segments) or ""
        elif param.startswith("with_") and param.isidentifier():  # discover(with_people=..., with_companies=...)
            word = param.removeprefix("with_")
            kinds[param] = _KIND_WORDS.get(word, singular(word))
    return kinds


GoldLiterals = dict[tuple[str, str], list[str | int]]


def _gold_edges_and_literals(domain: str, functions: Mapping[str, FunctionSpec]) -> tuple[list[Edge], GoldLiterals]:
    """The edges and literal arguments of the human gold programs of the domain's train split."""
    edges: list[Edge] = []
    literals: GoldLiterals = {}
    for sample in human_samples(domain, splits=("train",)):
        analysis = analyze(sample.gold_code, functions, limits=None)  # the human programs are trusted
        for call in analysis.calls:
            for param, value in call.args.items():
                match = _GOLD_REF.match(value)
                if match is not None:
                    path = tuple(int(i) if i else f for f, i in _PATH_PART.findall(match["path"]))
                    edges.append(Edge(match["function"], path, call.name, param, "gold"))
                    continue
                try:
                    literal = ast.literal_eval(value)
                except (ValueError, SyntaxError):
                    continue
                if isinstance(literal, str | int) and not isinstance(literal, bool):
                    literals.setdefault((call.name, param), [])
                    if literal not in literals[(call.name, param)]:
                        literals[(call.name, param)].append(literal)
    return edges, literals


def build_graph(domain: str) -> DataflowGraph:
    """The domain's dataflow graph (cached per domain and catalog setting)."""
    return _build_graph(domain, os.environ.get(CATALOG_ENV, ""))


LIMITS = (2, 3, 5)
"""Values of an optional integer ``limit`` the sampler may pass (the utterance states it)."""


def _optional(name: str, spec: FunctionSpec, gold_literals: GoldLiterals) -> dict[str, tuple[str | int, ...]]:
    """Optional parameters the sampler may pass: those human gold passes, with its values, and an integer ``limit``."""
    found: dict[str, tuple[str | int, ...]] = {}
    for param, schema in spec.parameters.properties.items():
        if param in spec.parameters.required:
            continue
        values = tuple(gold_literals.get((name, param), ()))
        if param == "limit" and schema.type == "integer":
            values += tuple(v for v in LIMITS if v not in values)
        if values:
            found[param] = values
    return found


@cache
def _build_graph(domain: str, catalog: str) -> DataflowGraph:
    specs = load_specs(domain)
    if not specs:
        raise GqlbenchError(f"domain {domain!r} has no endpoints in the catalog; see `gqlbench domains`")
    schema = domain_schema(domain)
    keys = infer_keys(schema, specs)
    rules = infer_rules(schema, specs, load_fixture(domain).get("endpoints"), keys=keys)
    query = schema.query_type.fields if schema is not None and schema.query_type else {}
    gold_edges, gold_literals = _gold_edges_and_literals(domain, specs)
    endpoints: dict[str, Endpoint] = {}
    produced: dict[str, list[tuple[Path, str, str]]] = {}
    scoped_roots: dict[str, tuple[GraphQLObjectType, Path, str | None]] = {}
    for name, spec in specs.items():
        rule = rules[name]
        required = list(spec.parameters.required)
        segments = endpoint_path(name, query.get(name), list(spec.parameters.properties))
        text = rule.text_param if rule.action == "search" and rule.text_param in required else None
        text = text or next((p for p in required if p in TEXT_PARAMS), None)
        literals = {p: tuple(gold_literals.get((name, p), ())) for p in required}
        endpoints[name] = Endpoint(
            name,
            _first_sentence(spec.description) or name,
            tuple(required),
            _param_kinds(required, rule, segments, keys),
            text,
            rule.kind,
            literals,
            _optional(name, spec, gold_literals),
            _extra_kinds(spec, rule, segments),
            tuple(segments),
            _scope(rule, segments) if rule.id_param in required and (rule.parent or rule.kind or "") not in keys else (),
        )
        root = _unwrap(query[name].type) if name in query else None
        if isinstance(root, GraphQLList):
            root = _unwrap(root.of_type)
        if isinstance(root, GraphQLObjectType):
            prefix: Path = (0,) if isinstance(_unwrap(query[name].type), GraphQLList) else ()
            hint = singular(rule.kind) if rule.kind else None
            produced[name] = [(prefix + p, k, t) for p, k, t in _id_fields(root, hint, keys)]
            scoped_roots[name] = (root, prefix, hint)
    edges = {(e.producer, e.path, e.consumer, e.param): e for e in gold_edges if e.producer in endpoints and e.consumer in endpoints}
    for producer, fields in produced.items():
        for path, kind, scalar in fields:
            for consumer, endpoint in endpoints.items():
                if endpoint.scoped:
                    continue  # fed by a whole element (:func:`_scoped_edges`)
                for param, param_kind in (*endpoint.param_kinds.items(), *endpoint.extra_kinds.items()):
                    typed = param not in endpoint.extra_kinds or _fits(scalar, specs[consumer].parameters.properties[param].type)
                    keyed = kind not in keys or path[-1] == keys[kind]  # a kind the world keys by a field takes that field
                    if param_kind == kind and typed and keyed and (param in URI_PARAMS) == (path[-1] == "uri"):
                        edges.setdefault((producer, path, consumer, param), Edge(producer, path, consumer, param, "schema"))
    scoped = {n: e for n, e in endpoints.items() if e.scoped}
    for producer, (root, prefix, hint) in scoped_roots.items():
        for edge in _scoped_edges(producer, root, prefix, hint, scoped):
            edges.setdefault((edge.producer, edge.path, edge.consumer, edge.param), edge)
    return DataflowGraph(domain, endpoints, tuple(sorted(edges.values(), key=lambda e: (e.producer, e.consumer, e.param, str(e.path)))))
