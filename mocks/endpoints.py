"""Endpoints as Python functions, and the runtime a sandbox worker runs programs with.

``make_runtime(domain, seed)`` gives a :class:`Runtime`: a fresh world, one
callable per function of the domain's specs (``runtime.namespace``) and the
record of every call made. A call

1. checks its arguments against the signature (unknown parameter, missing
   required parameter, wrong JSON type: three distinct :class:`BadArguments`
   messages; positional arguments bind in signature order, as in Python);
2. runs a GraphQL query for the endpoint's whole response type (bounded
   depth) on the executable schema of :mod:`gqlbench.mocks.server.resolvers`, with
   the world and the checked arguments in the context;
3. returns the data as a :class:`~gqlbench.mocks.engine.responses.Response`.

An endpoint without a response schema is still called on the world and
returns an acknowledgement (``ok``, ``status_code``). Errors are
:class:`~gqlbench.mocks.errors.MockError` subclasses whose ``kind`` the
sandbox reports.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from graphql import (
    DocumentNode,
    GraphQLBoolean,
    GraphQLField,
    GraphQLInputType,
    GraphQLInt,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    execute_sync,
    get_named_type,
    parse,
    validate,
)

from gqlbench.errors import closest
from gqlbench.mocks.engine.kinds import KEY_WORDS
from gqlbench.mocks.engine.responses import unwrap, wrap
from gqlbench.mocks.engine.world import World
from gqlbench.mocks.errors import BadArguments, MockError, UnknownFunction
from gqlbench.mocks.sandbox.record import MAX_MESSAGE_CHARS, short_repr
from gqlbench.mocks.server.resolvers import make_mock_schema
from gqlbench.records import FunctionSpec, TraceCall

__all__ = [
    "SELECTION_DEPTH",
    "ACKNOWLEDGEMENT",
    "EndpointTable",
    "Runtime",
    "endpoint_table",
    "make_runtime",
    "check_arguments",
    "selection_set",
    "response_ids",
]

SELECTION_DEPTH = 10
"""How deep the query for a response goes (StepZen's types nest at most ~7 levels)."""

ACKNOWLEDGEMENT = GraphQLObjectType(
    "Acknowledgement",
    {"ok": GraphQLField(GraphQLBoolean), "status_code": GraphQLField(GraphQLInt)},
    description="What an endpoint without a response schema returns.",
)

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
}


def _json_name(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    for name, types in _JSON_TYPES.items():
        if name not in ("number", "boolean") and isinstance(value, types):
            return name
    return "number" if isinstance(value, float) else type(value).__name__


def _is_json(value: Any) -> bool:
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(_is_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    return False


def check_arguments(spec: FunctionSpec, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The call's arguments by name, checked against the signature.

    ``None`` for an optional parameter means "not given". An ``array``
    parameter also takes a comma-separated string (that is how such query
    parameters travel), recorded as the list it stands for.
    """
    name = spec.name
    properties = spec.parameters.properties
    params = list(properties)
    if len(args) > len(params):
        raise BadArguments(
            f"{name}() takes {len(params)} parameter(s) ({', '.join(params) or 'none'}) but got {len(args)} positional arguments"
        )
    bound: dict[str, Any] = dict(zip(params, args, strict=False))
    for key, value in kwargs.items():
        if key in bound:
            raise BadArguments(f"{name}() got two values for parameter {key!r} (positional and keyword)")
        if key not in properties:
            near = closest(key, params)
            hint = f"did you mean {', '.join(near)}?" if near else f"its parameters are {', '.join(params) or 'none'}"
            raise BadArguments(f"{name}() has no parameter {key!r}; {hint}")
        bound[key] = value
    arguments: dict[str, Any] = {}
    for key, value in bound.items():
        value = unwrap(value)
        if value is None:
            continue
        if not _is_json(value):
            raise BadArguments(f"{name}(): {key}={type(value).__name__} is not a JSON value; pass a string, number, boolean, list or dict")
        expected = properties[key].type
        accepted = _JSON_TYPES.get(expected)
        if expected == "array" and isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        elif accepted is not None and (not isinstance(value, accepted) or (isinstance(value, bool) and bool not in accepted)):
            raise BadArguments(f"{name}(): {key} must be a JSON {expected}, got {_json_name(value)} {short_repr(value, 60)}")
        arguments[key] = list(value) if isinstance(value, tuple) else value
    missing = [p for p in spec.parameters.required if p not in arguments]
    if missing:
        raise BadArguments(f"{name}() is missing required parameter(s) {', '.join(missing)}")
    return arguments


def selection_set(graphql_type: Any, depth: int = SELECTION_DEPTH) -> str:
    """``{ a b { c } }`` selecting every field of the type, down to ``depth`` levels."""
    named = get_named_type(graphql_type)
    if not isinstance(named, GraphQLObjectType):
        return ""
    parts = []
    for field_name, field in named.fields.items():
        inner = get_named_type(field.type)
        if isinstance(inner, GraphQLObjectType):
            if depth > 1:
                parts.append(f"{field_name} {selection_set(inner, depth - 1)}")
        else:
            parts.append(field_name)
    return "{ " + " ".join(parts) + " }"


def _placeholder(arg_type: GraphQLInputType) -> str:
    """A literal for a required GraphQL argument (the real arguments travel in the context)."""
    inner = arg_type.of_type if isinstance(arg_type, GraphQLNonNull) else arg_type
    if isinstance(inner, GraphQLList):
        return "[]"
    return {"Int": "0", "Float": "0", "Boolean": "false"}.get(get_named_type(inner).name, '"mock"')


@dataclass(frozen=True)
class _Endpoint:
    """What calling one function needs that does not change between calls."""

    spec: FunctionSpec
    field: GraphQLField | None
    document: DocumentNode | None


class EndpointTable:
    """A domain's executable schema and signatures; each function's query is prepared on its first call.

    Preparing a query (its selection of the whole response type, parsed and
    validated) takes milliseconds, so preparing all of them up front cost a
    large domain seconds (GitHub: 845 functions) that a program calling three
    never needed. One table serves every runtime of the domain in a process.
    """

    def __init__(self, domain: str, schema: GraphQLSchema, specs: Mapping[str, FunctionSpec]) -> None:
        self.domain = domain
        self.schema = schema
        self.specs = dict(specs)
        self.prepared: dict[str, _Endpoint] = {}

    def get(self, function: str) -> _Endpoint | None:
        """The prepared endpoint (prepared now if this is its first call), None for a name the domain lacks."""
        found = self.prepared.get(function)
        if found is not None or function not in self.specs:
            return found
        field = self.schema.query_type.fields.get(function) if self.schema.query_type else None
        document = None
        if field is not None:
            required = [f"{a}: {_placeholder(t.type)}" for a, t in field.args.items() if isinstance(t.type, GraphQLNonNull)]
            call = f"{function}({', '.join(required)})" if required else function
            document = parse(f"query {{ {call} {selection_set(field.type)} }}")
            errors = validate(self.schema, document)
            assert not errors, f"mock query for {self.domain}.{function} is invalid: {errors[0].message}"
        self.prepared[function] = found = _Endpoint(self.specs[function], field, document)
        return found


def endpoint_table(domain: str) -> EndpointTable:
    """The domain's :class:`EndpointTable` (built once per process and catalog path)."""
    from gqlbench.specs import CATALOG_ENV

    return _table_in(domain, os.environ.get(CATALOG_ENV, ""))


@cache
def _table_in(domain: str, catalog: str) -> EndpointTable:
    """:func:`endpoint_table` for the catalog path in force (a process that probes worlds in several catalogs: tests, the self-test)."""
    from gqlbench.specs import load_specs

    return EndpointTable(domain, make_mock_schema(domain), load_specs(domain))


def response_ids(data: Any, limit: int = 20) -> list[str]:
    """The ids in a response, outermost first (deduplicated, at most ``limit``).

    ``id`` fields; for a schema without them (``book_id``, ...), ``*_id`` fields;
    then keys not called id (``symbol``, ``slug``, ``login``...).
    """

    def collect(is_id: Callable[[str], bool]) -> list[str]:
        found: list[str] = []
        level = [data]
        while level and len(found) < limit:
            deeper: list[Any] = []
            for value in level:
                if isinstance(value, dict):
                    for key, inner in value.items():
                        if is_id(key) and isinstance(inner, (str, int)) and str(inner) not in found:
                            found.append(str(inner))
                        deeper.append(inner)
                elif isinstance(value, list):
                    deeper.extend(value)
            level = deeper
        return found[:limit]

    return (
        collect(lambda key: key == "id") or collect(lambda key: key.endswith("_id")) or collect(lambda key: key in KEY_WORDS[1:])
    )  # keys not called id: a ship's symbol


class Runtime:
    """One program's view of a mock API: its functions, its world, its calls."""

    def __init__(self, domain: str, seed: int = 0, world: World | None = None, request: str = "") -> None:
        self.domain = domain
        self.seed = seed
        self.world = world if world is not None else World.create(domain, seed)
        if request:
            self.world.request = request
        self._table = endpoint_table(domain)
        self.schema = self._table.schema
        self._calls: list[TraceCall] = []
        self.namespace: dict[str, Callable[..., Any]] = {name: self._callable(name) for name in self._table.specs}

    def _callable(self, function: str) -> Callable[..., Any]:
        def endpoint(*args: Any, **kwargs: Any) -> Any:
            return self.call(function, *args, **kwargs)

        endpoint.__name__ = endpoint.__qualname__ = function
        endpoint.__doc__ = self._table.specs[function].description
        return endpoint

    def call(self, function: str, *args: Any, **kwargs: Any) -> Any:
        """Call one endpoint; records the call (and its error) in the trace."""
        endpoint = self._table.get(function)
        if endpoint is None:
            near = closest(function, list(self._table.specs))
            hint = f"did you mean {', '.join(near)}?" if near else "use a function from the specs"
            raise UnknownFunction(f"{self.domain} has no function {function!r}; {hint}")
        try:
            arguments = check_arguments(endpoint.spec, args, kwargs)
        except BadArguments as exc:
            self._calls.append(TraceCall(function=function, arguments=_recordable(args, kwargs, endpoint.spec), error=str(exc)))
            raise
        try:
            data = self._run(function, endpoint, arguments)
        except MockError as exc:
            self._calls.append(TraceCall(function=function, arguments=arguments, error=f"{exc.kind}: {exc}"))
            raise
        self._calls.append(TraceCall(function=function, arguments=arguments, response_ids=response_ids(data)))
        if endpoint.field is None:
            return wrap(data, ACKNOWLEDGEMENT, f"{function}(...)")
        return wrap(data, endpoint.field.type, f"{function}(...)")

    def _run(self, function: str, endpoint: _Endpoint, arguments: dict[str, Any]) -> Any:
        if endpoint.document is None:
            handler = self.world.handler(function)
            if handler is not None:
                handler(self.world, arguments)
            return {"ok": True, "status_code": 200}
        result = execute_sync(self.schema, endpoint.document, context_value={"world": self.world, "arguments": arguments})
        if result.errors:
            error = result.errors[0]
            if isinstance(error.original_error, MockError):
                raise error.original_error
            raise MockError(f"{function}: the mock failed to answer: {error.message}")
        return (result.data or {}).get(function)

    def calls(self) -> list[TraceCall]:
        """Every call so far, in order, with concrete arguments (and the error if it failed)."""
        return list(self._calls)

    def world_digest(self) -> str | None:
        """SHA-256 of the world's state now (compare two runs' final states)."""
        return self.world.digest()


def _recordable(args: tuple[Any, ...], kwargs: Mapping[str, Any], spec: FunctionSpec) -> dict[str, Any]:
    """The arguments of a rejected call, as JSON-safe as they can be made."""
    params = spec.param_names
    named = {(params[i] if i < len(params) else f"#{i}"): v for i, v in enumerate(args)} | dict(kwargs)
    return {k: (unwrap(v) if _is_json(unwrap(v)) else short_repr(v, MAX_MESSAGE_CHARS)) for k, v in named.items()}


def make_runtime(domain: str, seed: int = 0, request: str = "") -> Runtime:
    """A runtime on a fresh world (the sandbox worker's entry point); ``request`` is the user's request."""
    return Runtime(domain, seed, request=request)
