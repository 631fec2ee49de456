"""Function signatures from an OpenAPI 3.0/3.1 document.

GraphQLRestBench made its signatures from RestBench's OpenAPI files; this
module does the same step for any API, in the dataset's format, so a new
domain needs no hand-written specs:

* the name is the method plus the path with ``/``, ``{``, ``}`` and ``-``
  turned into ``_`` (``GET /tv/{tv_id}`` -> ``GET_tv__tv_id_``);
* path and query parameters (path-level first, then the operation's), then the
  properties of a JSON request body, become ``properties`` with a type and a
  description; the body's names are also listed in ``body_params`` so an
  executor knows which arguments travel in the body;
* ``required`` lists required parameters (path parameters always are) and the
  body's required properties.

A parameter's description is its schema's description; otherwise its own
``description`` or, failing that, its name with ``_`` read as a space, followed
by ``Valid values: a,b`` when the schema has an enum (the dataset's rule, except
that the dataset skipped parameter-level descriptions: see
``docs/openapi-fidelity.md``). The function's description is the
operation's ``description``, else its ``summary``.

The document helpers here (:func:`load_openapi`, :func:`resolve`,
:func:`select_operations`) are shared with ``gqlbench.schemas.openapi``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml

from gqlbench.errors import GqlbenchError
from gqlbench.specs.names import HTTP_METHODS

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
    "operation_parameters",
    "function_spec",
    "specs_from_openapi",
]

# The methods a function name may start with (the metrics recognise API calls by these prefixes).
_NAME_CHARS = re.compile(r"[/{}\-]")


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


def load_openapi(path: Path | str) -> dict[str, Any]:
    """Read an OpenAPI 3.0/3.1 document from JSON or YAML, checking the version."""
    path = Path(path)
    if not path.is_file():
        raise GqlbenchError(f"{path}: no such file (expected an OpenAPI 3.0/3.1 document in JSON or YAML)")
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix.lower() == ".json":
            doc = json.loads(text)
        else:
            doc = yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise GqlbenchError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise GqlbenchError(f"{path}{line}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
    if not isinstance(doc, dict):
        raise GqlbenchError(f"{path}: the document must be a JSON/YAML object with 'openapi' and 'paths'")
    version = str(doc.get("openapi", ""))
    if not re.match(r"3\.[01](\.|$)", version):
        found = f"'swagger: {doc['swagger']}'" if "swagger" in doc else f"openapi {version!r}" if version else "no 'openapi' field"
        raise GqlbenchError(f"{path}: found {found}; only OpenAPI 3.0 and 3.1 are supported (convert Swagger 2.0 files first)")
    if not isinstance(doc.get("paths"), dict):
        raise GqlbenchError(f"{path}: no 'paths' object; the document defines no operations")
    return doc


def resolve(doc: dict[str, Any], node: Any, seen: frozenset[str] = frozenset()) -> Any:
    """Follow ``$ref`` (local JSON pointers, possibly chained) to the node it names.

    Sibling keys of a ``$ref`` (allowed in 3.1, e.g. a description) override
    the target's. Raises on external or dangling references and on a chain of
    references that loops back on itself.
    """
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/"):
            raise GqlbenchError(
                f"$ref {ref!r}: only references inside the same document ('#/...') are supported; inline the referenced file"
            )
        if ref in seen:
            raise GqlbenchError(f"$ref {ref!r} refers to itself through a chain of references")
        seen = seen | {ref}
        target: Any = doc
        for part in ref[2:].split("/"):
            # a URI fragment is percent-encoded ('%7BshipSymbol%7D' for '{shipSymbol}'), then JSON-pointer-escaped
            part = unquote(part).replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                raise GqlbenchError(f"$ref {ref!r} points to nothing in the document; fix the reference")
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        node = {**target, **siblings} if siblings and isinstance(target, dict) else target
    return node


def function_name(method: str, path: str) -> str:
    """``("GET", "/tv/{tv_id}")`` -> ``"GET_tv__tv_id_"``, the dataset's naming."""
    return method.upper() + _NAME_CHARS.sub("_", path)


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
    type at all reads as ``string``, the way a query string arrives.
    """
    schema = resolve(doc, schema) if schema is not None else {}
    if not isinstance(schema, dict):
        return "string"
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if isinstance(kind, str) and kind != "null":
        return kind
    for key in ("allOf", "oneOf", "anyOf"):
        for branch in schema.get(key) or []:
            branch_type = json_type(doc, branch)
            if branch_type != "string" or "type" in resolve(doc, branch):
                return branch_type
    if "properties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    return "string"


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


def _json_body_schema(doc: dict[str, Any], op: Operation) -> dict[str, Any] | None:
    body = resolve(doc, op.spec.get("requestBody"))
    if not isinstance(body, dict):
        return None
    content = body.get("content") or {}
    media = next((m for m in content if m == "application/json" or m.endswith("+json")), None)
    if media is None:
        return None
    schema = resolve(doc, (content[media] or {}).get("schema"))
    if isinstance(schema, dict) and "allOf" in schema:  # flatten one level of composition
        merged: dict[str, Any] = {"properties": {}, "required": []}
        for part in (resolve(doc, p) for p in schema["allOf"]):
            merged["properties"].update(part.get("properties") or {})
            merged["required"] += list(part.get("required") or [])
        schema = {**schema, **merged}
    return schema if isinstance(schema, dict) else None


@dataclass(frozen=True)
class Parameter:
    """A path, query or JSON-body parameter of an operation, refs resolved."""

    name: str
    location: str  # "path", "query" or "body"
    schema: dict[str, Any]
    required: bool
    description: str


def operation_parameters(doc: dict[str, Any], op: Operation) -> list[Parameter]:
    """Path and query parameters (path-level first), then JSON-body properties.

    An operation-level parameter replaces a path-level one of the same name
    and location; a body property named like a query parameter is dropped
    (the query parameter wins, as in the dataset's ``PUT_me_following``).
    """
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
        found.append(Parameter(name, where, schema, required, _param_description(name, param, schema)))

    body = _json_body_schema(doc, op)
    if body is not None:
        taken = {p.name for p in found}
        body_required = {str(r) for r in body.get("required") or []} if isinstance(body.get("required"), list) else set()
        for name, prop in (body.get("properties") or {}).items():
            if name in taken:
                continue
            prop = resolve(doc, prop)
            prop = prop if isinstance(prop, dict) else {}
            description = _description(prop.get("description"), fallback=name.replace("_", " "))
            found.append(Parameter(str(name), "body", prop, name in body_required, description))
    return found


def function_spec(doc: dict[str, Any], op: Operation) -> dict[str, Any]:
    """The dataset-format signature of one operation (a plain JSON-able dict)."""
    params = operation_parameters(doc, op)
    parameters: dict[str, Any] = {
        "type": "dict",
        "properties": {p.name: {"type": json_type(doc, p.schema), "description": p.description} for p in params},
        "required": [p.name for p in params if p.required],
    }
    body_params = [p.name for p in params if p.location == "body"]
    if body_params:
        parameters["body_params"] = body_params
    description = _description(op.spec.get("description"), op.spec.get("summary"), fallback=op.endpoint)
    return {"name": op.name, "description": description, "parameters": parameters}


def specs_from_openapi(doc: dict[str, Any], endpoints: list[tuple[str, str]] | None = None) -> list[dict[str, Any]]:
    """Signatures of the chosen operations (default: all), in the dataset's format."""
    return [function_spec(doc, op) for op in select_operations(doc, endpoints)]
