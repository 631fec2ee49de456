"""Function signatures from an OpenAPI 3.0/3.1 document.

GraphQLRestBench made its signatures from RestBench's OpenAPI files; this
module does the same step for any API, in the dataset's format, so a new
domain needs no hand-written specs:

* the name is the method plus the path with ``/``, ``{``, ``}``, ``-`` (any
  character a Python name cannot hold) turned into ``_`` (``GET /tv/{tv_id}``
  -> ``GET_tv__tv_id_``; ``GET /`` -> ``GET_root``): the one rule of
  :mod:`gqlbench.specs.names`, which is also why an ``operationId`` that is a
  keyword or a dunder never becomes a name;
* path and query parameters (path-level first, then the operation's), then the
  properties of a JSON request body, become ``properties`` with a type and a
  description; the body's names are also listed in ``body_params`` so an
  executor knows which arguments travel in the body. A body composed with
  ``allOf``/``anyOf``/``oneOf`` gives the fields of all its parts, at any
  depth, and a body that wraps one object under a single key
  (``{"data": {...}}``) gives that object's fields, the key kept as
  ``body_envelope``; a parameter whose name
  is a Python keyword or a dunder is renamed (``class`` -> ``class_``,
  ``__typename`` -> ``typename``; :func:`~gqlbench.specs.names.parameter_name`)
  and its property records the name the request uses as ``request_name``;
* ``required`` lists required parameters (path parameters always are) and the
  body's required properties.

A parameter's description is its schema's description; otherwise its own
``description`` or, failing that, its name with ``_`` read as a space, followed
by ``Valid values: a,b`` when the schema has an enum (the dataset's rule, except
that the dataset skipped parameter-level descriptions: see
``docs/openapi-fidelity.md``). The function's description is the
operation's ``description``, else its ``summary``.

The document helpers here (:func:`load_openapi`, from
:mod:`gqlbench.specs.openapi_load`, which also reads the files a document
refers to; :func:`resolve`; :func:`select_operations`) are shared with
``gqlbench.schemas.openapi``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.specs.names import HTTP_METHODS, parameter_name
from gqlbench.specs.names import endpoint_function_name as function_name
from gqlbench.specs.openapi_load import follow_pointer, load_openapi, unread_reason

__all__ = [
    "HTTP_METHODS",
    "Operation",
    "load_openapi",
    "resolve",
    "function_name",
    "parse_endpoints",
    "select_operations",
    "json_type",
    "Parameter",
    "BodyFields",
    "body_fields",
    "operation_parameters",
    "function_spec",
    "specs_from_openapi",
]


@dataclass(frozen=True)
class Operation:
    """One ``METHOD /path`` of a document, with its path-level parameters."""

    method: str  # upper case, e.g. "GET"
    path: str  # as written in the document, e.g. "/tv/{tv_id}"
    spec: dict[str, Any]  # the operation object
    path_parameters: list[Any]  # the path item's own ``parameters``

    @property
    def name(self) -> str:
        return function_name(self.method, self.path)

    @property
    def endpoint(self) -> str:
        return f"{self.method} {self.path}"


def resolve(doc: dict[str, Any], node: Any, seen: frozenset[str] = frozenset()) -> Any:
    """Follow ``$ref`` (local JSON pointers, possibly chained) to the node it names.

    Sibling keys of a ``$ref`` (allowed in 3.1, e.g. a description) override
    the target's. Raises on external or dangling references (a file
    :func:`load_openapi` could not read raises its reason here, when the
    reference is used) and on a chain of references that loops back on itself.
    """
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/"):
            raise GqlbenchError(
                f"$ref {ref!r}: only references inside the same document ('#/...') are followed here; "
                "read the document with load_openapi, which reads the files it refers to"
            )
        reason = unread_reason(doc, ref)
        if reason is not None:
            raise GqlbenchError(reason)
        if ref in seen:
            raise GqlbenchError(f"$ref {ref!r} refers to itself through a chain of references")
        seen = seen | {ref}
        try:
            target = follow_pointer(doc, ref[1:])
        except LookupError:
            raise GqlbenchError(f"$ref {ref!r} points to nothing in the document; fix the reference") from None
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        node = {**target, **siblings} if siblings and isinstance(target, dict) else target
    return node


def parse_endpoints(text: str) -> list[tuple[str, str]]:
    """``"GET /a/{id},POST /b"`` -> ``[("GET", "/a/{id}"), ("POST", "/b")]``."""
    chosen = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        method, _, path = item.partition(" ")
        path = path.strip()
        if method.lower() not in HTTP_METHODS or not path.startswith("/"):
            raise GqlbenchError(f"endpoint {item!r} is not of the form 'METHOD /path', e.g. 'GET /tv/{{tv_id}}'")
        chosen.append((method.upper(), path))
    return chosen


def _operations(doc: dict[str, Any]) -> list[Operation]:
    found = []
    for path, item in doc["paths"].items():
        item = resolve(doc, item)
        if not isinstance(item, dict):
            continue
        shared = item.get("parameters") or []
        for method in HTTP_METHODS:
            if isinstance(item.get(method), dict):
                found.append(Operation(method.upper(), path, item[method], list(shared)))
    return found


def select_operations(doc: dict[str, Any], endpoints: list[tuple[str, str]] | None = None) -> list[Operation]:
    """The chosen operations in the order asked for (default: all, document order)."""
    operations = _operations(doc)
    chosen = operations
    if endpoints is not None:
        by_endpoint = {(op.method, op.path): op for op in operations}
        chosen = []
        for method, path in dict.fromkeys(endpoints):
            op = by_endpoint.get((method, path))
            if op is None:
                near = sorted(p for m, p in by_endpoint if m == method)[:8]
                raise GqlbenchError(f"endpoint '{method} {path}' is not in the document; {method} paths there: {', '.join(near) or 'none'}")
            chosen.append(op)
    seen: dict[str, str] = {}
    for op in chosen:
        if op.name in seen:
            raise GqlbenchError(
                f"'{seen[op.name]}' and '{op.endpoint}' both map to the function name {op.name}; choose one with --endpoints"
            )
        seen[op.name] = op.endpoint
    return chosen


def _truthy(value: Any) -> bool:
    """``required`` as written in the wild: booleans, or the strings "true"/"false"."""
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def json_type(doc: dict[str, Any], schema: Any) -> str:
    """The JSON type name of a schema (``string``, ``integer``, ``array``...).

    3.1 type lists and ``nullable`` drop ``null``; composed schemas take their
    first typed branch; a schema with properties and no type is an object; no
    type at all reads as ``string``, the way a query string arrives. Each
    schema is looked at once, so nested compositions cost their size, not the
    number of paths through them.
    """
    seen: set[object] = set()

    def typed(node: Any) -> str | None:
        key = node["$ref"] if isinstance(node, dict) and isinstance(node.get("$ref"), str) else id(node)
        node = resolve(doc, node) if node is not None else {}
        if not isinstance(node, dict) or key in seen:
            return None
        seen.add(key)
        kind = node.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), None)
        if isinstance(kind, str) and kind != "null":
            return kind
        for key in ("allOf", "oneOf", "anyOf"):
            for branch in node.get(key) or []:
                found = typed(branch)
                if found is not None:
                    return found
        return "object" if "properties" in node else "array" if "items" in node else None

    return typed(schema) or "string"


def _description(*candidates: Any, fallback: str) -> str:
    for text in candidates:
        if isinstance(text, str) and text.strip():
            return text
    return fallback


def _param_description(name: str, param: dict[str, Any], schema: dict[str, Any]) -> str:
    """The schema's description as written; else the parameter's (or its name) plus its enum."""
    if isinstance(schema.get("description"), str) and schema["description"].strip():
        return schema["description"]
    text = _description(param.get("description"), fallback=name.replace("_", " "))
    if isinstance(schema.get("enum"), list):
        text += "\nValid values: " + ",".join("" if v is None else str(v) for v in schema["enum"])
    return text


_MAX_BODY_DEPTH = 32  # compositions nested deeper than this are not read (guards alias cycles)


@dataclass(frozen=True)
class BodyFields:
    """The named fields of a JSON request body: properties in order, which are required, and the envelope key if any."""

    properties: dict[str, Any]
    required: frozenset[str]
    envelope: str | None = None


def _object_fields(doc: dict[str, Any], schema: Any, refs: frozenset[str] = frozenset(), depth: int = 0) -> BodyFields | None:
    """The properties an object schema allows, through ``allOf``/``anyOf``/``oneOf`` at any depth.

    ``allOf`` unites its parts' properties and required names; ``anyOf`` and
    ``oneOf`` unite the properties of their branches, but a name is required
    only when every branch requires it (a branch that is not an object, or
    omits it, may be the one sent). None when the schema describes no object
    with properties (an array, a scalar, a free-form map).
    """
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        if schema["$ref"] in refs:
            return None  # a body that contains itself: its recursion adds no field
        refs = refs | {schema["$ref"]}
    schema = resolve(doc, schema)
    if not isinstance(schema, dict) or depth > _MAX_BODY_DEPTH:
        return None
    properties: dict[str, Any] = {}
    required: set[str] = set()
    found = False
    own = schema.get("properties")
    if isinstance(own, dict) and own:
        found = True
        properties.update({str(k): v for k, v in own.items()})
        if isinstance(schema.get("required"), list):
            required |= {str(r) for r in schema["required"]}
    parts = schema.get("allOf")
    for part in parts if isinstance(parts, list) else []:
        fields = _object_fields(doc, part, refs, depth + 1)
        if fields is not None:
            found = True
            properties.update({k: v for k, v in fields.properties.items() if k not in properties})
            required |= fields.required
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if not isinstance(branches, list) or not branches:
            continue
        read = [_object_fields(doc, branch, refs, depth + 1) for branch in branches]
        if all(fields is None for fields in read):
            continue
        found = True
        for fields in read:
            if fields is not None:
                properties.update({k: v for k, v in fields.properties.items() if k not in properties})
        in_every = set.intersection(*(set(f.required) if f is not None else set() for f in read))
        required |= in_every
    if not found:
        return None
    return BodyFields(properties, frozenset(r for r in required if r in properties))


def body_fields(doc: dict[str, Any], op: Operation) -> BodyFields | None:
    """The fields of an operation's JSON request body, or None when it has no object body.

    A body that is one object under a single key (Asana's ``{"data": {...}}``,
    Rails' ``{"order": {...}}``) is read as that object's fields, with the key
    kept as :attr:`BodyFields.envelope`: the call passes the fields, the
    request wraps them.
    """
    body = resolve(doc, op.spec.get("requestBody"))
    if not isinstance(body, dict):
        return None
    content = body.get("content") or {}
    if not isinstance(content, dict):
        return None
    media = next((m for m in content if m == "application/json" or (isinstance(m, str) and m.endswith("+json"))), None)
    if media is None:
        return None
    fields = _object_fields(doc, (content[media] or {}).get("schema"))
    if fields is None or len(fields.properties) != 1:
        return fields
    [(key, inner_schema)] = fields.properties.items()
    inner = _object_fields(doc, inner_schema)
    if inner is None:
        return fields
    return BodyFields(inner.properties, inner.required, envelope=key)


@dataclass(frozen=True)
class Parameter:
    """A path, query or JSON-body parameter of an operation, refs resolved."""

    name: str  # as generated code passes it (see parameter_name)
    location: str  # "path", "query" or "body"
    schema: dict[str, Any]
    required: bool
    description: str
    request_name: str  # as the request sends it


def _python_names(found: list[Parameter]) -> list[Parameter]:
    """``found`` with keyword and dunder names renamed; a rename that meets a taken name gains ``_`` until free."""
    taken = {p.name for p in found}
    renamed = []
    for p in found:
        name = parameter_name(p.name)
        if name != p.name:
            while name in taken:
                name += "_"
            taken.add(name)
        renamed.append(Parameter(name, p.location, p.schema, p.required, p.description, p.request_name))
    return renamed


def operation_parameters(doc: dict[str, Any], op: Operation) -> list[Parameter]:
    """Path and query parameters (path-level first), then JSON-body properties.

    An operation-level parameter replaces a path-level one of the same name
    and location; a body property named like a query parameter is dropped
    (the query parameter wins, as in the dataset's ``PUT_me_following``), and
    so is one marked ``readOnly`` (the server sets it; it is never sent).
    Keyword and dunder names are renamed (the request name is kept beside).
    """
    return _parameters(doc, op, body_fields(doc, op))


def _parameters(doc: dict[str, Any], op: Operation, body: BodyFields | None) -> list[Parameter]:
    """:func:`operation_parameters`, given the operation's body fields (read once by :func:`function_spec`)."""
    raw_params: dict[tuple[str, str], dict[str, Any]] = {}
    for raw in [*op.path_parameters, *(op.spec.get("parameters") or [])]:
        param = resolve(doc, raw)
        if isinstance(param, dict) and param.get("in") in ("path", "query") and param.get("name"):
            raw_params[(str(param["name"]), param["in"])] = param

    found: list[Parameter] = []
    for (name, where), param in raw_params.items():
        schema = resolve(doc, param.get("schema"))
        schema = schema if isinstance(schema, dict) else {}
        required = where == "path" or _truthy(param.get("required"))
        found.append(Parameter(name, where, schema, required, _param_description(name, param, schema), name))

    if body is not None:
        taken = {p.name for p in found}
        for name, prop in body.properties.items():
            prop = resolve(doc, prop)
            prop = prop if isinstance(prop, dict) else {}
            if name in taken or _truthy(prop.get("readOnly")):
                continue  # a read-only property is what the server sets (an id, a timestamp), never sent
            found.append(Parameter(name, "body", prop, name in body.required, _param_description(name, {}, prop), name))
    return _python_names(found)


def _property(doc: dict[str, Any], param: Parameter) -> dict[str, Any]:
    prop = {"type": json_type(doc, param.schema), "description": param.description}
    if param.request_name != param.name:
        prop["request_name"] = param.request_name
    return prop


def function_spec(doc: dict[str, Any], op: Operation) -> dict[str, Any]:
    """The dataset-format signature of one operation (a plain JSON-able dict)."""
    body = body_fields(doc, op)
    params = _parameters(doc, op, body)
    parameters: dict[str, Any] = {
        "type": "dict",
        "properties": {p.name: _property(doc, p) for p in params},
        "required": [p.name for p in params if p.required],
    }
    body_params = [p.name for p in params if p.location == "body"]
    if body_params:
        parameters["body_params"] = body_params
        if body is not None and body.envelope is not None:
            parameters["body_envelope"] = body.envelope
    description = _description(op.spec.get("description"), op.spec.get("summary"), fallback=op.endpoint)
    return {"name": op.name, "description": description, "parameters": parameters}


def specs_from_openapi(doc: dict[str, Any], endpoints: list[tuple[str, str]] | None = None) -> list[dict[str, Any]]:
    """Signatures of the chosen operations (default: all), in the dataset's format."""
    return [function_spec(doc, op) for op in select_operations(doc, endpoints)]
