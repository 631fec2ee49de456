"""Response SDL from the response schemas of an OpenAPI 3.0/3.1 document.

GraphQLRestBench's SDL came from StepZen looking at live responses; an
OpenAPI file already describes them, so this module turns each operation's
success response schema into the same StepZen-style SDL (the writer is shared
with :mod:`gqlbench.schemas.infer`, which documents the naming rules).

Schema to shape: ``integer`` -> ``Int``, ``number`` -> ``Float``, ``string``
-> ``String`` (``format: date`` -> ``Date``), ``boolean`` -> ``Boolean``,
``array`` -> a list of its items, ``object`` with properties -> an object
type; ``allOf`` and ``oneOf``/``anyOf`` merge their branches like several
example responses would; a free-form object, a schema without a type and a
``$ref`` that recurses into itself are ``JSON``. Expanding ``$ref`` s can
grow a small file exponentially (a schema that refers twice to one that refers
twice to ...), so one operation's walk is bounded by nodes
(:data:`MAX_SCHEMA_NODES`) and the import is refused past it, naming the file
and the operation. The response is the first
``2xx`` one with a JSON body; an operation without one gets no SDL (the
catalog then says it has no response schema, as for 15 dataset endpoints).

The ``Query`` field's arguments are the operation's parameters (required
ones non-null; a renamed keyword or dunder parameter is sent under its request
name, e.g. ``?class=$class_;``) plus at most one ``String!`` credential: a
bearer/OAuth token ``<domain>_access_token`` sent as ``authorization: Bearer
...`` like the dataset's, or an API key ``<domain>_api_key`` in its header or
query string. When the security requirement names several schemes (SpaceTraders:
``[{'AgentToken': [], 'AccountToken': []}]``) the first one that can be
expressed is used: a benchmark task never depends on the credential, and
several bearer schemes are one ``Authorization`` header anyway.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.schemas.infer import (
    NOT_A_GRAPHQL_NAME,
    NULL_ONLY,
    UNTYPED,
    ListOf,
    Obj,
    RestField,
    Scalar,
    Shape,
    infer_shape,
    is_graphql_name,
    merge_shapes,
    render_endpoint_types,
)
from gqlbench.schemas.openapi_facts import example_facts, response_facts, type_facts
from gqlbench.specs.openapi import Operation, operation_parameters, resolve, select_operations

__all__ = [
    "MAX_SCHEMA_NODES",
    "SchemaBudget",
    "EndpointSdl",
    "schema_shape",
    "response_schema",
    "response_examples",
    "overlay",
    "operation_sdl",
    "sdl_from_openapi",
]

_MAX_DEPTH = 32  # schemas nested deeper than this are cut off as JSON (guards alias cycles)
MAX_SCHEMA_NODES = 20_000
"""How many schema nodes one operation may expand to (its response and its parameters' types)."""
_SCALARS = {"integer": "Int", "number": "Float", "boolean": "Boolean", "string": "String"}


@dataclass
class EndpointSdl:
    """The SDL of one endpoint and what could not be expressed in it."""

    function: str
    sdl: str
    warnings: list[str] = field(default_factory=list)
    facts: dict[str, dict[str, Any]] = field(default_factory=dict)  # SDL type -> what the file says (schemas.openapi_facts)


@dataclass
class SchemaBudget:
    """How many schema nodes a walk may still visit; past :attr:`limit` it refuses, naming :attr:`where`."""

    where: str
    limit: int = MAX_SCHEMA_NODES
    used: int = 0

    def spend(self) -> None:
        self.used += 1
        if self.used > self.limit:
            raise GqlbenchError(
                f"{self.where}: the schema expands to more than {self.limit:,} nodes ($refs or YAML aliases that "
                "repeat nested parts); import stops at this bound. Leave the operation out with --endpoints, "
                "or simplify its schema"
            )


def schema_shape(
    doc: dict[str, Any], schema: Any, budget: SchemaBudget | None = None, _refs: tuple[str, ...] = (), _depth: int = 0
) -> Shape:
    """The shape (see :mod:`gqlbench.schemas.infer`) an OpenAPI schema describes.

    A ``$ref`` already being expanded (a recursive schema) and anything nested
    deeper than ``_MAX_DEPTH`` (e.g. a YAML alias cycle) is ``JSON``. Each
    node visited spends one of ``budget`` (default: a fresh
    :data:`MAX_SCHEMA_NODES`), so the walk is bounded however the document
    repeats itself.
    """
    budget = budget if budget is not None else SchemaBudget("the OpenAPI document")
    budget.spend()
    if _depth > _MAX_DEPTH:
        return UNTYPED
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref in _refs:
            return UNTYPED  # a recursive structure: stop here, as StepZen stops at the data
        return schema_shape(doc, resolve(doc, schema), budget, (*_refs, ref), _depth)
    if not isinstance(schema, dict):
        return UNTYPED

    def inner(sub: Any) -> Shape:
        return schema_shape(doc, sub, budget, _refs, _depth + 1)

    if "allOf" in schema:  # every part holds: unite the typed parts
        parts = [inner(part) for part in schema["allOf"]]
        own = {k: v for k, v in schema.items() if k != "allOf"}
        if "properties" in own:
            parts.append(inner(own))
        return _union([p for p in parts if p != UNTYPED])
    for key in ("oneOf", "anyOf"):  # any branch may come back: merge them like example responses
        if key in schema:
            return _union([inner(branch) for branch in schema[key]])

    kind = schema.get("type")
    if isinstance(kind, list):  # 3.1: ["string", "null"]
        kinds = [k for k in kind if k != "null"]
        if len(kinds) != 1:
            return UNTYPED
        kind = kinds[0]
    if kind is None:
        kind = "object" if "properties" in schema else "array" if "items" in schema else None
    if kind == "object":
        properties = schema.get("properties") or {}
        if not isinstance(properties, dict) or not properties:
            return UNTYPED  # free-form object or a map (additionalProperties only)
        return Obj({str(name): inner(sub) for name, sub in properties.items()})
    if kind == "array":
        items = schema.get("items")
        return ListOf(inner(items) if items is not None else UNTYPED)
    if kind == "string" and schema.get("format") == "date":
        return Scalar("Date")
    return Scalar(_SCALARS[kind]) if kind in _SCALARS else UNTYPED


def _union(shapes: list[Shape]) -> Shape:
    """One shape for several (field union, widened scalars); ``JSON`` for none."""
    merged: Shape = NULL_ONLY
    for shape in shapes:
        merged = merge_shapes(merged, shape)
    return UNTYPED if merged == NULL_ONLY else merged


def _json_media(doc: dict[str, Any], op: Operation) -> dict[str, Any] | None:
    """The media type object of the first 2xx response with a JSON schema."""
    responses = op.spec.get("responses") or {}
    codes = sorted((str(c) for c in responses if str(c).startswith("2")), key=lambda c: (c.upper() == "2XX", c))
    for code in codes:
        response = resolve(doc, responses.get(code, responses.get(int(code)) if code.isdigit() else None))
        content = (response or {}).get("content") or {}
        media = next((m for m in content if m.split(";")[0].strip() == "application/json" or m.endswith("+json")), None)
        if media is None and "*/*" in content:
            media = "*/*"
        if media is not None and isinstance(content[media], dict) and content[media].get("schema") is not None:
            return content[media]
    return None


def response_schema(doc: dict[str, Any], op: Operation) -> dict[str, Any] | None:
    """The JSON schema of the first 2xx response with a JSON body, if any."""
    media = _json_media(doc, op)
    return media["schema"] if media else None


def response_examples(doc: dict[str, Any], op: Operation) -> list[Any]:
    """The example bodies given beside that schema (``example``, ``examples``)."""
    media = _json_media(doc, op)
    if media is None:
        return []
    found = [media["example"]] if "example" in media else []
    for example in (media.get("examples") or {}).values():
        example = resolve(doc, example)
        if isinstance(example, dict) and "value" in example:
            found.append(example["value"])
    schema = resolve(doc, media["schema"])
    if not found and isinstance(schema, dict) and "example" in schema:
        found.append(schema["example"])
    return found


def overlay(declared: Shape, observed: Shape) -> Shape:
    """The declared shape, completed by what examples show.

    Declared types win; examples add the fields the schema does not list and
    give a shape to what the schema leaves untyped (``type: object`` with no
    properties), as a live response gave StepZen.
    """
    if declared in (UNTYPED, NULL_ONLY):
        return declared if observed == NULL_ONLY else observed
    if isinstance(declared, Obj) and isinstance(observed, Obj):
        fields = dict(declared.fields)
        for name, shape in observed.fields.items():
            fields[name] = overlay(fields[name], shape) if name in fields else shape
        return Obj(fields)
    if isinstance(declared, ListOf) and isinstance(observed, ListOf):
        return ListOf(overlay(declared.item, observed.item))
    return declared


def _server_url(doc: dict[str, Any], op: Operation) -> str:
    servers = op.spec.get("servers") or doc.get("servers") or []
    if not servers or not isinstance(servers[0], dict) or not servers[0].get("url"):
        return ""
    server = servers[0]
    url = str(server["url"])
    for name, variable in (server.get("variables") or {}).items():
        url = url.replace("{" + name + "}", str((variable or {}).get("default", "")))
    return url.rstrip("/")


def _argument_type(doc: dict[str, Any], schema: dict[str, Any], budget: SchemaBudget) -> str:
    shape = schema_shape(doc, schema, budget)
    depth = 0
    while isinstance(shape, ListOf):
        shape, depth = shape.item, depth + 1
    name = shape.name if isinstance(shape, Scalar) else "JSON"
    return "[" * depth + name + "]" * depth


def _credential(scheme: Any, domain: str) -> tuple[str, list[tuple[str, str]], list[str]] | None:
    """(argument, headers, query parts) of one security scheme, or None when it cannot be sent."""
    scheme = scheme if isinstance(scheme, dict) else {}
    kind = scheme.get("type")
    if kind in ("oauth2", "openIdConnect") or (kind == "http" and str(scheme.get("scheme", "")).lower() == "bearer"):
        token = f"{domain}_access_token"
        return token, [("authorization", f"Bearer ${token};")], []
    if kind == "apiKey" and scheme.get("in") in ("header", "query") and scheme.get("name"):
        key = f"{domain}_api_key"
        if scheme["in"] == "header":
            return key, [(str(scheme["name"]), f"${key};")], []
        return key, [], [f"{scheme['name']}=${key};"]
    return None


def _security(doc: dict[str, Any], op: Operation, domain: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[str]]:
    """(arguments, headers, query parts) that authenticate the operation: one credential at most.

    The first scheme of the first requirement that can be sent is used; the
    others of that requirement (a second bearer token, an extra key) are left
    out, so the ``Query`` field never declares an argument twice.
    """
    requirements = op.spec["security"] if "security" in op.spec else doc.get("security") or []
    schemes = (doc.get("components") or {}).get("securitySchemes") or {}
    requirement = requirements[0] if isinstance(requirements, list) and requirements and isinstance(requirements[0], dict) else {}
    for name in requirement:
        credential = _credential(resolve(doc, schemes.get(name)), domain)
        if credential is not None:
            argument, headers, query = credential
            return [(argument, "String!")], headers, query
    return [], [], []


def operation_sdl(
    doc: dict[str, Any], op: Operation, domain: str, use_examples: bool = True, source: str = "the OpenAPI document"
) -> EndpointSdl | None:
    """StepZen-style SDL for one operation, or None when it returns no JSON body (``source`` names the file in errors)."""
    schema = response_schema(doc, op)
    if schema is None:
        return None
    budget = SchemaBudget(f"{source}: {op.endpoint}")
    warnings: list[str] = []
    arguments: list[tuple[str, str]] = []
    url_path = op.path
    query: list[str] = []
    for param in operation_parameters(doc, op):
        if not is_graphql_name(param.name):
            warnings.append(f"{op.endpoint}: parameter {param.name!r} {NOT_A_GRAPHQL_NAME}; left out of the Query field")
            continue
        arguments.append((param.name, _argument_type(doc, param.schema, budget) + ("!" if param.required else "")))
        if param.name != param.request_name and param.location == "path":
            url_path = url_path.replace("{" + param.request_name + "}", "{" + param.name + "}")
        elif param.name != param.request_name and param.location == "query":
            query.append(f"{param.request_name}=${param.name};")
    auth_args, headers, auth_query = _security(doc, op, domain)
    url = _server_url(doc, op) + url_path.replace("{", "$").replace("}", ";")
    if query or auth_query:
        url += "?" + "&".join(query + auth_query)
    if not url.startswith(("http://", "https://")):
        warnings.append(f"{op.endpoint}: the document has no absolute server URL; @rest endpoint is {url!r}")
    rest = RestField(op.name, op.method, url, arguments + auth_args, headers)
    shape = schema_shape(doc, schema, budget)
    facts = response_facts(doc, schema)
    if use_examples:
        bodies = response_examples(doc, op)
        shape = overlay(shape, infer_shape(bodies))
        facts = example_facts(bodies, facts)
    sdl, skipped, types = render_endpoint_types(rest, shape)
    warnings += [f"{op.endpoint}: response field {path!r} {NOT_A_GRAPHQL_NAME}; left out" for path in skipped]
    return EndpointSdl(op.name, sdl, warnings, type_facts(facts, types))


def sdl_from_openapi(
    doc: dict[str, Any],
    domain: str,
    endpoints: list[tuple[str, str]] | None = None,
    use_examples: bool = True,
    source: str = "the OpenAPI document",
) -> list[EndpointSdl]:
    """SDL of the chosen operations (default: all) that return a JSON body.

    ``use_examples`` completes each response schema with the document's
    example responses (see :func:`overlay`); ``source`` (the file) names
    where an error comes from.
    """
    if not is_graphql_name(domain):
        raise GqlbenchError(f"domain name {domain!r} must be a GraphQL/Python name (letters, digits, _), e.g. 'openlibrary'")
    found = (operation_sdl(doc, op, domain, use_examples, source) for op in select_operations(doc, endpoints))
    return [e for e in found if e is not None]
