"""The ariadne executable schema of a mock API.

Each ``Query`` field (one per endpoint with a response schema) is resolved by
asking the :class:`~gqlbench.mocks.engine.world.World` (the domain model's handler
for that endpoint: a behaviour's, or the generic world's rule). Every other
field goes through :class:`SchemaFiller`: it returns what the world's JSON has
for the field, adapted to the declared type (StepZen typed some fields from a
single sample: ``release_date: Int``), and otherwise a value derived from the
seed and the field's place, so a response is complete and deterministic even
where the world models nothing:

* inside an object that has an ``id``, a field's value depends on that id
  (the same person has the same popularity in every response);
* elsewhere it depends on the path from the call (function and arguments);
* an ``id``-like field of the response root echoes the argument the call was
  looked up by (``GET_book(book_id=7).book_id == 7``).

The call's arguments come from the execution context (``context["arguments"]``,
set by :mod:`gqlbench.mocks.endpoints`); a GraphQL client's own arguments are
used when there are none (the HTTP server).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from ariadne import QueryType, make_executable_schema
from graphql import (
    DefinitionNode,
    DocumentNode,
    GraphQLArgument,
    GraphQLBoolean,
    GraphQLEnumType,
    GraphQLField,
    GraphQLFloat,
    GraphQLInt,
    GraphQLList,
    GraphQLNonNull,
    GraphQLNullableInputType,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLString,
    GraphQLType,
    assert_valid_schema,
    build_ast_schema,
    get_named_type,
    print_schema,
)

from gqlbench.mocks.engine.specvalues import MISSING, domain_facts, field_facts, is_keyish, spec_value
from gqlbench.mocks.engine.world import World, stable_int, stable_token
from gqlbench.records import FunctionSpec, ParamSpec

__all__ = [
    "ANCHOR",
    "ARGUMENTS",
    "SchemaFiller",
    "answer",
    "signature_type_defs",
    "endpoint_resolver",
    "build_mock_schema",
    "make_mock_schema",
    "mock_type_defs",
    "generate_value",
]

ANCHOR = "__anchor__"
"""Key of a generated object that records where it sits, for its own fields."""

ARGUMENTS = "__arguments__"
"""Key of a response root that carries the call's arguments (for id echoes).

GraphQL field names cannot start with ``__``, so neither key can shadow a field.
"""

LIST_LENGTH = 2  # generated lists: enough to index [0] and [1]


def mock_type_defs(domain: str) -> str:
    """The domain's merged SDL (from the catalog) as ariadne type definitions."""
    from gqlbench.schemas import build_schema

    return print_schema(build_schema(domain))


_GRAPHQL_NAME = re.compile(r"^[_A-Za-z][_0-9A-Za-z]*$")
_JSON_TO_GRAPHQL = {"string": GraphQLString, "integer": GraphQLInt, "number": GraphQLFloat, "boolean": GraphQLBoolean}


def _argument_type(spec: ParamSpec, json_scalar: GraphQLScalarType) -> GraphQLNullableInputType:
    """A signature parameter's JSON type as a GraphQL input type (``array`` of its ``items``; objects as JSON)."""
    if spec.type == "array":
        items = getattr(spec, "items", None) or {}
        inner = _JSON_TO_GRAPHQL.get(items.get("type", "") if isinstance(items, dict) else "", json_scalar)
        return GraphQLList(inner)
    return _JSON_TO_GRAPHQL.get(spec.type, json_scalar)


def signature_type_defs(domain: str, specs: Mapping[str, FunctionSpec]) -> str:
    """The domain's SDL with each query field's arguments taken from its signature.

    The catalog's SDL keeps StepZen's arguments (a required credential, ids
    typed as ``String``); a client of the mock server calls the endpoints the
    way the prompt shows them, so it passes the signature's parameters with
    their types (an id a search returned as an integer is an ``Int``),
    required ones non-null; the credential is optional and ignored.
    """
    from gqlbench.schemas import build_schema

    schema = build_schema(domain)
    if schema.query_type is None:
        return print_schema(schema)
    json_scalar = schema.type_map.get("JSON")
    if not isinstance(json_scalar, GraphQLScalarType):
        json_scalar = GraphQLScalarType("JSON")
    fields = {}
    for name, field in schema.query_type.fields.items():
        spec = specs.get(name)
        if spec is None:
            fields[name] = field
            continue
        required = set(spec.parameters.required)
        args = {
            param: GraphQLArgument(GraphQLNonNull(kind) if param in required else kind, description=p.description or None)
            for param, p in spec.parameters.properties.items()
            if _GRAPHQL_NAME.match(param) and (kind := _argument_type(p, json_scalar)) is not None
        }  # a parameter GraphQL cannot name (TMDB's ``certification.lte``) is left out of the served field
        for extra, argument in field.args.items():  # the catalog's credential: accepted, optional, ignored
            if extra not in args and extra not in spec.parameters.properties:
                args[extra] = GraphQLArgument(get_named_type(argument.type), description="not needed by the mock; ignored")
        fields[name] = GraphQLField(field.type, args=args, description=field.description)
    query = GraphQLObjectType(schema.query_type.name, fields, description=schema.query_type.description)
    types = [t for n, t in schema.type_map.items() if not n.startswith("__") and n != schema.query_type.name]
    return print_schema(GraphQLSchema(query, types=[*types, json_scalar]))


def answer(world: World, function: str, arguments: dict[str, Any]) -> Any:
    """The REST-like JSON the world returns for one call (``{}`` if it models nothing)."""
    handler = world.handler(function)
    if handler is None:
        return {}
    return handler(world, arguments)


def endpoint_resolver(function: str) -> Callable[..., Any]:
    """The resolver of ``Query.<function>``: the world's answer, anchored for the filler.

    The call's arguments are ``context["arguments"]`` when a Python call set
    them; otherwise the GraphQL arguments, passed through
    ``context["prepare"](function, args)`` when the context has one (the
    server checks and converts them there).
    """

    def resolve(_root: Any, info: GraphQLResolveInfo, **graphql_args: Any) -> Any:
        context = info.context
        arguments = context.get("arguments")
        if arguments is None:
            prepare = context.get("prepare")
            arguments = prepare(function, graphql_args) if prepare else graphql_args
        data = answer(context["world"], function, arguments)
        if not isinstance(data, dict):
            return data
        call = json.dumps([function, arguments], sort_keys=True, default=str)
        return {**data, ANCHOR: call, ARGUMENTS: arguments}

    return resolve


class SchemaFiller:
    """Ariadne bindable: every field without a resolver answers from the world or the schema."""

    def __init__(self, world_of: Callable[[GraphQLResolveInfo], World]) -> None:
        self.world_of = world_of

    def bind_to_schema(self, schema: GraphQLSchema) -> None:
        for graphql_type in schema.type_map.values():
            if isinstance(graphql_type, GraphQLObjectType) and not graphql_type.name.startswith("__"):
                for field in graphql_type.fields.values():
                    if field.resolve is None:
                        field.resolve = self.resolve

    def resolve(self, parent: Any, info: GraphQLResolveInfo) -> Any:
        name = info.field_name
        if not isinstance(parent, dict):
            return None
        world = self.world_of(info)
        if parent.get("id") is not None:
            key = f"id:{parent['id']}.{name}"
        else:
            key = f"{parent.get(ANCHOR) or _path(info)}.{name}"
        if name in parent:
            return conform(parent[name], info.return_type, world, key)
        echo = _echo(name, parent.get(ARGUMENTS))
        if echo is not None:
            return conform(echo, info.return_type, world, key)
        return generate_value(info.return_type, world, key, name, field_facts(world, info.parent_type.name, name))


def _path(info: GraphQLResolveInfo) -> str:
    return ".".join(str(p) for p in info.path.as_list()[:-1])


def _echo(field: str, arguments: dict[str, Any] | None) -> Any:
    """At the response root, an id-like field repeats the id the call was made with."""
    if not arguments:
        return None
    if field in arguments and (field == "id" or field.endswith("_id")):
        return arguments[field]
    if field == "id":
        ids = [v for k, v in arguments.items() if k.endswith("_id")]
        if len(ids) == 1:
            return ids[0]
    return None


def conform(value: Any, graphql_type: GraphQLType, world: World, key: str) -> Any:
    """The world's value made valid for the declared type (or generated if it cannot be)."""
    nullable = graphql_type.of_type if isinstance(graphql_type, GraphQLNonNull) else graphql_type
    if value is None:
        return generate_value(graphql_type, world, key, key.rsplit(".", 1)[-1]) if nullable is not graphql_type else None
    if isinstance(nullable, GraphQLList):
        if not isinstance(value, list):
            return generate_value(nullable, world, key, key.rsplit(".", 1)[-1])
        return [conform(v, nullable.of_type, world, f"{key}.{i}") for i, v in enumerate(value)]
    if isinstance(nullable, GraphQLObjectType):
        return value if isinstance(value, dict) else generate_value(nullable, world, key, key.rsplit(".", 1)[-1])
    if isinstance(nullable, GraphQLScalarType):
        return _conform_scalar(value, nullable.name, world, key)
    if isinstance(nullable, GraphQLEnumType):
        return value if value in nullable.values else next(iter(nullable.values))
    return value


def _conform_scalar(value: Any, scalar: str, world: World, key: str) -> Any:
    name = key.rsplit(".", 1)[-1]
    if scalar == "Int":
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, (int, float)):
            return int(value)
        digits = str(value)[:10].split("-")[0].strip()
        return int(digits) if digits.isdigit() else _scalar("Int", world, key, name)
    if scalar == "Float":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        try:
            return float(str(value))
        except ValueError:
            return _scalar("Float", world, key, name)
    if scalar == "Boolean":
        return value if isinstance(value, bool) else bool(value)
    if scalar in ("String", "ID"):
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return str(value)
        return json.dumps(value, sort_keys=True)
    return value  # JSON, Date, DateTime and other custom scalars pass through


def generate_value(graphql_type: GraphQLType, world: World, key: str, name: str, facts: Mapping[str, Any] | None = None) -> Any:
    """A deterministic value of the type for the field ``name`` at ``key``.

    ``facts`` is what the OpenAPI file says about the field (a domain imported
    from one; :mod:`gqlbench.mocks.engine.specvalues`): they come first.
    """
    if isinstance(graphql_type, GraphQLNonNull):
        graphql_type = graphql_type.of_type
    if isinstance(graphql_type, GraphQLList):
        return [generate_value(graphql_type.of_type, world, f"{key}.{i}", name, facts) for i in range(LIST_LENGTH)]
    if isinstance(graphql_type, GraphQLObjectType):
        return {ANCHOR: key}
    if isinstance(graphql_type, GraphQLEnumType):
        values = list(graphql_type.values)
        return values[stable_int(world.domain, world.seed, key, modulo=len(values))]
    scalar = getattr(get_named_type(graphql_type), "name", "JSON")
    if facts is not None:
        value = spec_value(facts, scalar, world, key, name)
        if value is not MISSING:
            return value
    value = _scalar(scalar, world, key, name)
    if isinstance(value, str) and " " in value and is_keyish(name) and domain_facts(world):
        return value.replace(" ", "-").replace("_", "-").lower()  # a key a later call may pass: no spaces
    return value


def _handle(lowered: str, n: int, token: str) -> str | None:
    """A key-like or formatted string as APIs write it (no spaces): a login, a slug, a gid, a uuid, an email, a timestamp."""
    if lowered in ("login", "username", "slug", "handle", "screen_name", "user_name") or lowered.endswith("_slug"):
        return f"{lowered.split('_')[0]}-{token[:6].lower()}"
    if lowered in ("symbol", "code") or lowered.endswith("symbol"):
        return token[:6].upper()
    if lowered in ("gid", "sha", "node_id"):
        return str(n % 10**16) if lowered == "gid" else token
    if lowered == "uuid" or lowered.endswith("_uuid"):
        hexed = f"{n:016x}{n ^ 0x5DEECE66D:016x}"
        return f"{hexed[:8]}-{hexed[8:12]}-{hexed[12:16]}-{hexed[16:20]}-{hexed[20:32]}"
    if lowered == "email" or lowered.endswith("_email"):
        return f"{token[:6].lower()}@example.com"
    if lowered.endswith(("_at", "_on")) or lowered in ("created", "updated", "timestamp"):
        return f"{1970 + n % 54}-{1 + n % 12:02d}-{1 + n % 28:02d}T{n % 24:02d}:{n % 60:02d}:00Z"
    return None


def _scalar(scalar: str, world: World, key: str, name: str) -> Any:
    n = stable_int(world.domain, world.seed, key)
    lowered = name.lower()
    if scalar == "Int":
        if "year" in lowered:
            return 1970 + n % 54
        if lowered.endswith("_ms"):
            return 1000 * (n % 600)
        return n % 100
    if scalar == "Float":
        if "vote" in lowered or "rating" in lowered:
            return round((n % 100) / 10, 1)
        return round((n % 10000) / 100, 2)
    if scalar == "Boolean":
        return bool(n % 2)
    if scalar == "Date" or (scalar == "String" and (lowered.endswith("date") or lowered in ("birthday", "deathday"))):
        return f"{1970 + n % 54}-{1 + n % 12:02d}-{1 + n % 28:02d}"
    if scalar == "DateTime":
        return f"{1970 + n % 54}-{1 + n % 12:02d}-{1 + n % 28:02d}T{n % 24:02d}:{n % 60:02d}:00Z"
    if scalar in ("String", "ID"):
        token = stable_token(world.domain, world.seed, key, length=12)
        if lowered == "id" or lowered.endswith("_id") or scalar == "ID":
            return token
        if lowered.endswith("_path"):
            return f"/{token}.jpg"
        if lowered in ("url", "href") or lowered.endswith("_url"):
            return f"https://mock.{world.domain}.example/{token}"
        if lowered == "uri":
            return f"{world.domain}:mock:{token}"
        handle = _handle(lowered, n, token)
        if handle is not None:
            return handle
        return f"{name.replace('_', ' ')} {token[:6]}"
    return None  # JSON: StepZen typed a field JSON when every value it saw was null


def build_mock_schema(
    domain: str, extra_type_defs: str = "", bindables: tuple[Any, ...] = (), specs: Mapping[str, FunctionSpec] | None = None
) -> GraphQLSchema:
    """The executable schema of a domain: endpoint resolvers plus the schema filler.

    ``extra_type_defs`` and ``bindables`` let the HTTP server add its
    ``Mutation`` type and the resolvers for it; with ``specs`` each query
    field takes the signature's parameters (:func:`signature_type_defs`).
    """
    from gqlbench.schemas import build_schema

    query = QueryType()
    catalog = build_schema(domain)
    query_type = catalog.query_type  # None when no endpoint of the domain has a response schema
    for function in query_type.fields if query_type else {}:
        query.set_field(function, endpoint_resolver(function))
    filler = SchemaFiller(lambda info: info.context["world"])
    if specs is None and not extra_type_defs:
        return _executable_copy(catalog, query, *bindables, filler)
    base = signature_type_defs(domain, specs) if specs is not None else mock_type_defs(domain)
    type_defs = [base, extra_type_defs] if extra_type_defs else base
    return make_executable_schema(type_defs, query, *bindables, filler)


def _executable_copy(schema: GraphQLSchema, *bindables: Any) -> GraphQLSchema:
    """A new schema built from ``schema``'s own definitions with ``bindables`` bound (what ``make_executable_schema`` does).

    Built from the parsed definitions rather than printed and parsed again:
    parsing is most of the cost of a large domain's schema (GitHub's 637
    endpoint schemas merge into 1.8 MB of SDL, seconds to parse), and the
    catalog's schema is parsed already. A copy, so the catalog's schema never
    gets resolvers.
    """
    nodes: list[DefinitionNode] = [t.ast_node for t in schema.type_map.values() if t.ast_node is not None]
    nodes += [d.ast_node for d in schema.directives if d.ast_node is not None]
    copy = build_ast_schema(DocumentNode(definitions=tuple(nodes)), assume_valid_sdl=True)
    for bindable in bindables:
        bindable.bind_to_schema(copy)
    assert_valid_schema(copy)
    return copy


def make_mock_schema(domain: str) -> GraphQLSchema:
    """:func:`build_mock_schema`, built once per process and catalog path (workers reuse it for every program)."""
    from gqlbench.specs import CATALOG_ENV

    return _mock_schema_in(domain, os.environ.get(CATALOG_ENV, ""))


@cache
def _mock_schema_in(domain: str, catalog: str) -> GraphQLSchema:
    return build_mock_schema(domain)
