"""A coherence self-test of a domain's mock world, derived from its catalog alone.

Chained calls are what the benchmark executes, so a world is useful only if
what one endpoint returns works in the next call. :func:`probe_domain` pairs
endpoints from the catalog (paths, signatures, response SDL; never the
world's own guesses) and runs each pair on a fresh world through the same
:class:`~gqlbench.mocks.endpoints.Runtime` programs use; ``gqlbench domains
check`` runs them in a sandbox worker (:func:`probe_in_sandbox`), so a
catalog's world behaviour, Python from someone else, runs only there:

* ``list→get`` and ``search→get``: an item a list (a search) shows, looked up
  by its key, is the same entity (same key, same values);
* ``nested→get``: an object nested in a response, shaped like what a lookup
  returns, is found by that lookup with the same key;
* ``create→get``: what a ``POST`` makes is found by the lookup (with the values
  it was given) and shown by the list at the same path;
* ``unknown→not_found``: a key nobody gave is ``not_found``;
* ``limit``: a list asked for one item shows at most one.

Two response objects are "the same component" when their field names mostly
agree (an importer writes one type per endpoint, with the component's
fields). The key a lookup takes is the field its path parameter names
(``issue_number`` -> ``number``, ``shipSymbol`` -> ``symbol``,
``username`` -> ``login``). Values the probes invent for other parameters are
written into the user's request, as a user would give them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from functools import cached_property, partial
from typing import Any

from graphql import GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLOutputType, GraphQLSchema

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.endpoints import Runtime
from gqlbench.mocks.engine.generic import LIMIT_PARAMS
from gqlbench.mocks.engine.kinds import envelope_of, first_choice, list_object_of, object_of, singular
from gqlbench.mocks.engine.responses import unwrap
from gqlbench.mocks.engine.rules import TEXT_PARAMS, endpoint_path
from gqlbench.mocks.errors import MockError, NotFound
from gqlbench.records import FunctionSpec

__all__ = ["PROBES", "PROBE_RUNTIME", "Pair", "probe_domain", "probe_in_sandbox", "probe_runtime"]

PROBES = ("list→get", "search→get", "nested→get", "create→get", "unknown→not_found", "limit")
_NAME_KEYS = ("login", "name", "slug", "symbol", "username", "key", "gid", "uuid", "number", "num", "id")
_UNKNOWN_TEXT, _UNKNOWN_INT = "zq-nobody-gave-this", 987_654_321


@dataclass(frozen=True)
class Pair:
    """One probe of two endpoints (the second is empty for single-endpoint probes)."""

    probe: str
    first: str
    then: str
    passed: bool
    reason: str  # one line: what was seen
    fix: str | None = None  # the fixture declaration that would fix a failure

    @property
    def label(self) -> str:
        return f"{self.probe} {self.first}" + (f" → {self.then}" if self.then else "")


@dataclass(frozen=True)
class _Endpoint:
    """One endpoint as the probes see it; its views are computed once, as every lookup is matched against every endpoint's objects."""

    name: str
    method: str
    segments: tuple[str, ...]
    spec: FunctionSpec
    response: GraphQLOutputType | None

    @cached_property
    def path_params(self) -> list[str]:
        return [s[1:-1] for s in self.segments if s.startswith("{")]

    @cached_property
    def ends_in_param(self) -> bool:
        return bool(self.segments) and self.segments[-1].startswith("{")

    @cached_property
    def payload(self) -> GraphQLObjectType | None:
        """The object answered (inside a ``{"data": ...}`` envelope)."""
        root = object_of(self.response) if self.response is not None else None
        wrapper = envelope_of(root) if root is not None else None
        if root is not None and wrapper is not None and object_of(root.fields[wrapper].type) is not None:
            return object_of(root.fields[wrapper].type)
        noun = self.noun
        if root is not None and noun is not None and noun in root.fields and object_of(root.fields[noun].type) is not None:
            return object_of(root.fields[noun].type)  # {"server": {...}, "action": ...}: the entity under its kind's name
        return root

    @cached_property
    def noun(self) -> str | None:
        """The kind the path names: the singular of its last literal (``servers/{id}``: ``server``; ``.../{repo_slug}/issues``: ``issue``).

        Not the parent's: Bitbucket's ``POST /repositories/{workspace}/{repo_slug}/issues``
        answers an issue that shows its ``repository``.
        """
        params = [i for i, s in enumerate(self.segments) if s.startswith("{")]
        literal = [s for s in self.segments if not s.startswith("{")]
        return singular(literal[-1]).replace("-", "_") if params and literal else None

    @cached_property
    def items(self) -> tuple[str | None, GraphQLObjectType] | None:
        """``(field, element type)`` of the listed objects; field None when the answer is the list."""
        if self.response is not None and (element := list_object_of(self.response)) is not None:
            return None, element
        root = object_of(self.response) if self.response is not None else None
        wrapper = envelope_of(root) if root is not None else None
        if root is not None and wrapper is not None and (element := list_object_of(root.fields[wrapper].type)) is not None:
            return wrapper, element
        payload = self.payload
        for name, found in payload.fields.items() if payload is not None else ():
            element = list_object_of(found.type)
            if element is not None and name not in ("errors", "links", "warnings"):
                return name, element
        return None

    @cached_property
    def lists(self) -> bool:
        """Whether the endpoint answers a list (a bare or wrapped list, a plural path tail, or a search)."""
        if self.method != "GET" or self.items is None:
            return False
        if self.items[0] is None or self.text_param is not None or self.payload is None:
            return True
        tail = next((s for s in reversed(self.segments) if not s.startswith("{")), "")
        return not self.ends_in_param and singular(tail) != tail.lower()

    @cached_property
    def text_param(self) -> str | None:
        props = self.spec.parameters.properties
        return next((p for p in TEXT_PARAMS if p in props and p not in self.path_params and props[p].type in ("string", "str")), None)


def _fields(graphql_type: GraphQLObjectType) -> set[str]:
    return set(graphql_type.fields)


def _scalar(graphql_type: GraphQLObjectType, name: str) -> bool:
    found = graphql_type.fields.get(name)
    return found is not None and object_of(found.type) is None and list_object_of(found.type) is None


def alike(part: GraphQLObjectType, whole: GraphQLObjectType) -> float | None:
    """How much ``part`` looks like the component ``whole`` (shared over all field names), None when not enough.

    Enough: ``part`` has more than one field, at least 80% of them are
    ``whole``'s, and they are at least two thirds of ``whole``'s fields.
    """
    mine, theirs = _fields(part), _fields(whole)
    shared = len(mine & theirs)
    if len(mine) < 2 or shared < 0.8 * len(mine) or 3 * shared < 2 * len(theirs):
        return None
    return shared / len(mine | theirs)


def key_field(param: str, *types: GraphQLObjectType) -> str | None:
    """The field a lookup's path parameter names, present as a scalar in every one of ``types``.

    ``issue_number`` -> ``number``, ``shipSymbol`` -> ``symbol``, ``movie_id`` -> ``id``,
    ``username`` -> ``login``; a name-like key before ``id`` unless the parameter says id;
    a parameter that takes either of two keys names the first (``league_id_or_slug``: ``id``).
    """
    tail = re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", first_choice(param))[-1]
    tail = tail[:1].lower() + tail[1:]
    says_id = tail.lower() == "id"
    order = [param, tail, *(["id"] if says_id else []), *_NAME_KEYS]
    return next((name for name in order if all(_scalar(t, name) for t in types)), None)


def _segments(segments: list[str]) -> list[str]:
    """Path segments with each parameter as ``{name}`` (``{provider}.json`` too) and no file-like tail (``info.0.json``).

    A literal with a dot names a format, not a part: ``services.json`` is ``services``
    and a singular one (``/{comicId}/info.0.json``) is the entity itself.
    """
    out = []
    for segment in segments:
        param = re.search(r"\{(\w+)\}", segment)
        if param is not None:
            out.append("{" + param[1] + "}")
        elif "." in segment:
            stem = segment.split(".")[0]
            if singular(stem) != stem.lower() or not out:
                out.append(stem)
        else:
            out.append(segment)
    return out


def _catalog(domain: str) -> tuple[GraphQLSchema | None, dict[str, _Endpoint]]:
    from gqlbench.mocks.engine.generic import domain_schema
    from gqlbench.specs import load_specs

    schema = domain_schema(domain)
    query = schema.query_type.fields if schema is not None and schema.query_type else {}
    out = {}
    for name, spec in load_specs(domain).items():
        found = query.get(name)
        segments = _segments(endpoint_path(name, found, list(spec.parameters.properties)))
        out[name] = _Endpoint(name, name.split("_", 1)[0].upper(), tuple(segments), spec, found.type if found else None)
    return schema, out


# -- values ------------------------------------------------------------------------------


@dataclass
class _Session:
    """One probe's runtime, and the values it invented (written into the user's request)."""

    domain: str
    seed: int
    given: list[str] = field(default_factory=list)
    runtime: Runtime | None = None

    def invent(self, name: str, kind: str, n: int = 0) -> Any:
        if kind in ("integer", "int", "number"):
            value: Any = 41 + n + len(self.given)
        else:
            value = f"{re.sub(r'[^a-z0-9]+', '-', name.lower()).strip('-') or 'x'}-{len(self.given) + 1}"
        self.given.append(str(value))
        return value

    def start(self) -> Runtime:
        self.runtime = Runtime(self.domain, self.seed, request="Use " + ", ".join(self.given) + ".")
        return self.runtime

    def existing(self, kind: str | None, param_type: str) -> Any:
        """A key of ``kind`` the fresh world already has (a fixture's entity), else None."""
        runtime = self.runtime or self.start()
        keys = list(runtime.world.tables.get(kind or "", {}))
        if not keys:
            return None
        return int(keys[0]) if param_type in ("integer", "int") and keys[0].lstrip("-").isdigit() else keys[0]

    def call(self, endpoint: _Endpoint, args: Mapping[str, Any]) -> Any:
        runtime = self.runtime or self.start()
        runtime.world.request = "Use " + ", ".join(self.given) + "."  # values invented since the start are given too
        return unwrap(runtime.call(endpoint.name, **args))


def _value_of(spec: Mapping[str, Any]) -> Any:
    """A value the signature itself suggests (enum, default, example), else None."""
    for key in ("enum", "default", "example", "examples"):
        value = spec.get(key)
        if isinstance(value, list) and value and key in ("enum", "examples"):
            return value[0]
        if value is not None and key not in ("enum", "examples"):
            return value
    return None


def _as_declared(value: Any, declared: str | None) -> Any:
    """A value read off a response, as the parameter it is passed to declares it, when nothing is lost.

    A program passes what the signature asks for: GitLab shows an owner's
    ``id`` as a string where ``/users/{id}`` takes an integer, Bitbucket an
    issue's integer ``id`` where ``{issue_id}`` is a string, Hetzner a whole
    ``Float`` id where ``{id}`` is an integer.
    """
    if declared in ("integer", "int") and not isinstance(value, bool):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and re.fullmatch(r"-?\d{1,18}", value):
            return int(value)
    if declared in ("string", "str") and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


def _same(a: Any, b: Any) -> bool:
    """Equal values, or one key shown as a string in one place and a number in another (``"42"``, ``42``, ``42.0``)."""
    if a == b:
        return True
    return not isinstance(a, (dict, list)) and a is not None and str(_as_declared(a, "integer")) == str(_as_declared(b, "integer"))


def _payload_of(endpoint: _Endpoint, data: Any) -> Any:
    """The answer's payload, as :attr:`_Endpoint.payload` types it (inside an envelope, or under the kind's name)."""
    root = object_of(endpoint.response) if endpoint.response is not None else None
    wrapper = envelope_of(root) if root is not None else None
    if wrapper is None and root is not None and endpoint.payload is not root and endpoint.noun in root.fields:
        wrapper = endpoint.noun
    return data.get(wrapper) if wrapper is not None and isinstance(data, dict) and isinstance(data.get(wrapper), dict) else data


def _listed(endpoint: _Endpoint, data: Any) -> list[Any]:
    found = endpoint.items
    if found is None:
        return []
    holder, _ = found
    if holder is None:
        return data if isinstance(data, list) else []
    body = data if isinstance(data, dict) and holder in data else _payload_of(endpoint, data)
    items = body.get(holder) if isinstance(body, dict) else None
    return items if isinstance(items, list) else []


def _name_key(value: Any) -> Any:
    """An object given where a path wants a name (``owner`` of ``/repos/{owner}/{repo}``): its name-like key."""
    if isinstance(value, dict):
        return next((value[k] for k in _NAME_KEYS if isinstance(value.get(k), (str, int)) and k != "id"), value.get("id"))
    return value


def _lookup_args(
    lookup: _Endpoint, item: Mapping[str, Any], item_type: GraphQLObjectType, earlier: Mapping[str, Any]
) -> dict[str, Any] | str:
    """The path arguments that look ``item`` up, or why they cannot be read off it."""
    payload = lookup.payload
    assert payload is not None
    key_param = lookup.path_params[-1]
    key = key_field(key_param, payload, item_type)
    if key is None or item.get(key) is None:
        return f"no field of {item_type.name} matches {lookup.name}'s {{{key_param}}}"
    args = {key_param: item[key]}
    for param in lookup.path_params[:-1]:
        if param in earlier:
            args[param] = earlier[param]
            continue
        own = key_field(param, item_type) if param not in item else param
        value = _name_key(item.get(own)) if own is not None else None
        if value is None:
            return f"{item_type.name} shows no value for {lookup.name}'s {{{param}}}"
        args[param] = value
    return args


def _differences(shown: Mapping[str, Any], got: Mapping[str, Any], where: GraphQLObjectType, other: GraphQLObjectType) -> list[str]:
    """Scalar fields both objects have whose values differ."""
    return [
        f"{name} {shown[name]!r} vs {got[name]!r}"
        for name in sorted(_fields(where) & _fields(other))
        if _scalar(where, name) and _scalar(other, name) and name in shown and name in got and not _same(shown[name], got[name])
    ]


# -- probes -------------------------------------------------------------------------------


@dataclass
class _Prober:
    domain: str
    seed: int
    endpoints: dict[str, _Endpoint]
    rules: Mapping[str, Any]  # the world's rules (for a declared check's allowed values, and keys the fixture has)
    fixture: str
    declared: Mapping[str, Any] = field(default_factory=dict)  # the fixture's "endpoints" section
    _matches: dict[str, _Endpoint | None] = field(default_factory=dict, repr=False)  # type name -> best_match among all lookups

    def kind_of(self, function: str) -> str:
        rule = self.rules.get(function)
        return rule.kind if rule is not None and rule.kind else "<kind>"

    def arguments(self, session: _Session, endpoint: _Endpoint, fixed: Mapping[str, Any]) -> dict[str, Any]:
        """The required arguments: ``fixed``, else a value the world declares or has, the signature suggests, or invented."""
        props = endpoint.spec.parameters.properties
        args = {name: _as_declared(value, getattr(props.get(name), "type", None)) for name, value in fixed.items()}
        rule = self.rules.get(endpoint.name)
        for n, name in enumerate(endpoint.spec.parameters.required):
            if name in args:
                continue
            prop = endpoint.spec.parameters.properties.get(name)
            spec = prop.model_dump() if prop is not None else {}
            kind = spec.get("type", "string")
            allowed = ((getattr(rule, "checks", None) or {}).get(name) or {}).get("one_of")
            value = allowed[0] if allowed else _value_of(spec)
            if value is None and rule is not None and name == rule.id_param and name in endpoint.path_params:
                value = session.existing(rule.parent or rule.kind, kind)
            if value is None:
                value = (
                    [session.invent(name, "string", n)]
                    if kind in ("array", "list")
                    else {}
                    if kind in ("object", "dict")
                    else True
                    if kind in ("boolean", "bool")
                    else session.invent(name, kind, n)
                )
            args[name] = value
        return args

    def session(self) -> _Session:
        return _Session(self.domain, self.seed)

    def hint(self, lookup: _Endpoint, key: str | None, source: _Endpoint | None = None) -> str:
        """The ``kinds`` declaration that makes ``lookup`` find what ``source`` showed: its key, and one kind for both."""
        kind, other = self.kind_of(lookup.name), self.kind_of(source.name) if source is not None else "<kind>"
        same = f', "same": ["{other}"]' if other not in ("<kind>", kind) else ""
        return f'declare in {self.fixture}: "kinds": {{"{kind}": {{"key": "{key or "<field>"}"{same}}}}}'

    @cached_property
    def lookups(self) -> list[_Endpoint]:
        """The endpoints that look an entity up by its key (see :meth:`_is_lookup`)."""
        return [e for e in self.endpoints.values() if self._is_lookup(e)]

    @staticmethod
    def _is_lookup(e: _Endpoint) -> bool:
        """A GET ending in a path parameter whose answer shows the field that parameter names (an entity by its key)."""
        if e.method != "GET" or not e.ends_in_param or e.payload is None or len(_fields(e.payload)) < 2:
            return False
        return key_field(e.path_params[-1], e.payload) is not None

    def best_lookup(self, source: _Endpoint, element: GraphQLObjectType) -> _Endpoint | None:
        """The lookup at ``<source path>/{key}``, else of the kind the source's tail names, else the one most like ``element``.

        A tail names a kind by its singular's ending (Asana's
        ``/goals/{goal_gid}/parentGoals`` and ``/tasks/{task_gid}/subtasks``
        list goals and tasks); its items need only
        show the lookup's key and mostly its fields (a compact goal is a goal),
        where a lookup of another name must match the whole shape.
        """
        candidates = [e for e in self.lookups if e.name != source.name]
        for e in candidates:
            if e.segments[:-1] == source.segments:
                return e
        tail = singular(next((s for s in reversed(source.segments) if not s.startswith("{")), "")).replace("-", "_")
        mine = _fields(element)
        named = [
            e
            for e in candidates
            if e.noun is not None
            and len(e.noun) >= 3
            and tail.endswith(e.noun)
            and key_field(e.path_params[-1], element, e.payload) is not None  # type: ignore[arg-type]
            and len(mine & _fields(e.payload)) >= 0.8 * len(mine)  # type: ignore[arg-type]
        ]
        if named:  # the longest name the tail ends with: project_membership before membership
            return max(named, key=lambda e: (len(e.noun or ""), len(mine & _fields(e.payload)), e.name))  # type: ignore[arg-type]
        return self.best_match(element, candidates)

    def run(self) -> Iterator[Pair]:
        for source in self.endpoints.values():
            if not source.lists:
                continue
            probe = "search→get" if source.text_param else "list→get"
            lookup = self.best_lookup(source, source.items[1])  # type: ignore[index]  # lists: it has items
            if lookup is not None:
                yield self.guard(probe, source, lookup, partial(self.item_then_get, probe, source, lookup))
            limit = next((p for p in LIMIT_PARAMS if p in source.spec.parameters.properties), None)
            if limit is not None:
                yield self.guard("limit", source, None, partial(self.limit, source, limit))
        for lookup in self.endpoints.values():
            if not self._is_lookup(lookup):
                continue
            yield self.guard("unknown→not_found", lookup, None, partial(self.unknown, lookup))
            nested = self.nested_source(lookup)
            if nested is not None:
                source, path = nested
                yield self.guard("nested→get", source, lookup, partial(self.nested, source, lookup, path))
        for create in self.endpoints.values():
            if create.method == "POST" and not create.ends_in_param and create.payload is not None:
                lookup = next((e for e in self.lookups if e.segments[:-1] == create.segments), None)
                if lookup is not None:
                    yield self.guard("create→get", create, lookup, partial(self.create, create, lookup))

    def guard(self, probe: str, first: _Endpoint, then: _Endpoint | None, run: Callable[[], tuple[bool, str, str | None]]) -> Pair:
        try:
            passed, reason, fix = run()
        except MockError as exc:
            passed, reason, fix = False, f"{exc.kind}: {exc}", None
        except Exception as exc:  # the world must never crash; report it as this pair's failure
            passed, reason, fix = False, f"the mock crashed: {type(exc).__name__}: {exc}", None
        return Pair(probe, first.name, then.name if then else "", passed, " ".join(reason.split())[:300], fix)

    def item_then_get(self, probe: str, source: _Endpoint, lookup: _Endpoint) -> tuple[bool, str, str | None]:
        session = self.session()
        fixed = {source.text_param: "probe"} if source.text_param else {}
        args = self.arguments(session, source, fixed)
        items = _listed(source, session.call(source, args))
        if not items:
            return False, f"{source.name} listed nothing", None
        _, element = source.items  # type: ignore[misc]
        return self.then_get(session, items[0], element, lookup, args, source)

    def then_get(
        self, session: _Session, item: Any, element: GraphQLObjectType, lookup: _Endpoint, earlier: Mapping[str, Any], source: _Endpoint
    ) -> tuple[bool, str, str | None]:
        if not isinstance(item, dict):
            return False, f"the item is not an object: {item!r}", None
        path = _lookup_args(lookup, item, element, earlier)
        key = key_field(lookup.path_params[-1], lookup.payload, element)  # type: ignore[arg-type]
        if isinstance(path, str):
            return False, path, self.hint(lookup, key, source)
        try:
            got = _payload_of(lookup, session.call(lookup, self.arguments(session, lookup, path)))
        except NotFound as exc:
            return False, f"a value the world showed is not found: {exc}", self.hint(lookup, key, source)
        if not isinstance(got, dict) or key is None or not _same(got.get(key), item.get(key)):
            shown = got.get(key) if isinstance(got, dict) and key else got
            return False, f"looked up {key} {item.get(key or '')!r}, got {key} {shown!r}", self.hint(lookup, key, source)
        diff = _differences(item, got, element, lookup.payload)  # type: ignore[arg-type]
        if diff:
            same = self.kind_of(source.name) == self.kind_of(lookup.name)
            return False, f"the same {key} shows other values: {'; '.join(diff[:3])}", None if same else self.hint(lookup, key, source)
        return True, f"{key} {item.get(key)!r} found with the same values", None

    def limit(self, source: _Endpoint, param: str) -> tuple[bool, str, str | None]:
        session = self.session()
        fixed: dict[str, Any] = {param: 1, **({source.text_param: "probe"} if source.text_param else {})}
        items = _listed(source, session.call(source, self.arguments(session, source, fixed)))
        if len(items) <= 1:
            return True, f"{param}=1 showed {len(items)} item(s)", None
        rule = self.rules.get(source.name)
        if rule is not None and rule.action not in ("list", "children", "search"):  # the world does not read it as a list at all
            tail = next((s for s in reversed(source.segments) if not s.startswith("{")), "item")
            listing: dict[str, Any] = {"action": "children" if source.path_params else "list", "kind": singular(tail)}
            if source.path_params:
                listing.update(id_param=source.path_params[-1], parent=rule.kind)
            if source.items is not None and source.items[0] is not None:
                listing["list_field"] = source.items[0]
            declared = json.dumps({"endpoints": {source.name: listing}})[1:-1]
            reason = f"{param}=1 showed {len(items)} items: the world reads {source.name} as a {rule.action} of a {rule.kind}, not a list"
            return False, reason, f"declare in {self.fixture}: {declared}"
        paging = f'"endpoints": {{"{source.name}": {{"paging": {{"limit": 20}}}}}}'
        return False, f"{param}=1 showed {len(items)} items", f"declare in {self.fixture}: {paging}"

    def unknown(self, lookup: _Endpoint) -> tuple[bool, str, str | None]:
        session = self.session()
        key_param = lookup.path_params[-1]
        prop = lookup.spec.parameters.properties.get(key_param)
        checks = getattr(self.rules.get(lookup.name), "checks", None) or {}
        if (prop is not None and getattr(prop, "enum", None)) or key_param in checks:
            return True, f"{key_param} takes a fixed set of values, not a key", None
        if "open" in self.declared.get(lookup.name, {}):
            return True, f"{self.fixture} declares that any {key_param} exists (open)", None
        unknown: Any = _UNKNOWN_INT if prop is not None and prop.type in ("integer", "int", "number") else _UNKNOWN_TEXT
        args = self.arguments(session, lookup, {key_param: unknown})
        try:
            got = _payload_of(lookup, session.call(lookup, args))
        except NotFound:
            return True, f"{key_param}={unknown!r} is not_found", None
        shown = got.get(key_field(key_param, lookup.payload) or "") if isinstance(got, dict) else got  # type: ignore[arg-type]
        return False, f"{key_param}={unknown!r}, which nobody gave, returned an entity ({shown!r})", None

    def nested_source(self, lookup: _Endpoint) -> tuple[_Endpoint, tuple[str, ...]] | None:
        """An endpoint whose answer nests an object shaped most like ``lookup``'s answer (not at its top), and the path to it."""
        for source in self.endpoints.values():
            if source.method != "GET" or source.name == lookup.name or source.payload is None:
                continue
            for path, nested in _nested_objects(source.payload):
                if self.best_match(nested) is lookup:
                    return source, path
        return None

    def best_match(self, part: GraphQLObjectType, candidates: list[_Endpoint] | None = None) -> _Endpoint | None:
        """The lookup whose answer ``part`` is most like (see :func:`alike`) and shows the lookup's key, if any."""
        if candidates is None:  # among all lookups: asked again for each lookup's nested source, so kept
            if part.name not in self._matches:
                self._matches[part.name] = self.best_match(part, self.lookups)
            return self._matches[part.name]
        scored = []
        for e in candidates:
            score = alike(part, e.payload) if e.payload is not None else None
            if score is not None and key_field(e.path_params[-1], part, e.payload) is not None:  # type: ignore[arg-type]
                scored.append((score, e.name, e))
        return max(scored)[2] if scored else None

    def nested(self, source: _Endpoint, lookup: _Endpoint, path: tuple[str, ...]) -> tuple[bool, str, str | None]:
        session = self.session()
        fixed = {source.text_param: "probe"} if source.text_param else {}
        value: Any = _payload_of(source, session.call(source, self.arguments(session, source, fixed)))
        holder = source.payload
        for name in path:
            while isinstance(value, list):
                if not value:
                    return False, f"{source.name} showed an empty {name!r} list", None
                value = value[0]
            value = value.get(name) if isinstance(value, dict) else None
            holder = object_of(holder.fields[name].type) or list_object_of(holder.fields[name].type)  # type: ignore[union-attr]
        while isinstance(value, list) and value:
            value = value[0]
        if not isinstance(value, dict):
            return False, f"{source.name} showed no {'.'.join(path)}", None
        passed, reason, fix = self.then_get(session, value, holder, lookup, {}, source)  # type: ignore[arg-type]
        return passed, f"{'.'.join(path)}: {reason}", fix

    def create(self, create: _Endpoint, lookup: _Endpoint) -> tuple[bool, str, str | None]:
        session = self.session()
        body = [name for name in create.spec.parameters.properties if name not in create.path_params]
        given = {name: f"probe-{name.lower()}-7" for name in body if create.spec.parameters.properties[name].type in ("string", "str")}
        session.given += list(given.values())
        props = create.spec.parameters.properties
        invented = {p: session.invent(p, getattr(props.get(p), "type", None) or "string") for p in create.path_params}
        args = self.arguments(session, create, {**given, **invented})
        made = _payload_of(create, session.call(create, args))
        if not isinstance(made, dict):
            return False, f"{create.name} answered {made!r}", None
        holder = create.payload
        noun = singular(create.segments[-1]) if create.segments else ""
        if key_field(lookup.path_params[-1], lookup.payload, holder) is None and noun in holder.fields:  # type: ignore[arg-type, union-attr]
            holder, made = object_of(holder.fields[noun].type), made.get(noun)  # type: ignore[union-attr]  # {"ship": {...}, "agent": ...}
            if holder is None or not isinstance(made, dict):
                return False, f"{create.name}'s {noun!r} is not an object", None
        key = key_field(lookup.path_params[-1], lookup.payload, holder)  # type: ignore[arg-type]
        if key is None or made.get(key) is None:
            return False, f"{create.name}'s answer has no key for {lookup.name}", self.hint(lookup, key, create)
        path = {p: args[p] for p in lookup.path_params[:-1] if p in args} | {lookup.path_params[-1]: made[key]}
        try:
            got = _payload_of(lookup, session.call(lookup, self.arguments(session, lookup, path)))
        except NotFound as exc:
            return False, f"what {create.name} made is not found: {exc}", self.hint(lookup, key, create)
        kept = [n for n in given if isinstance(got, dict) and n in got and not isinstance(got[n], (dict, list))]
        lost = [f"{n} {got[n]!r} (sent {given[n]!r})" for n in kept if got[n] != given[n]]
        if lost:
            return False, f"the created entity does not carry the given values: {'; '.join(lost[:3])}", None
        listing = next((e for e in self.endpoints.values() if e.method == "GET" and e.segments == create.segments and e.items), None)
        if listing is not None:
            items = _listed(listing, session.call(listing, self.arguments(session, listing, {p: args[p] for p in listing.path_params})))
            if not any(isinstance(i, dict) and i.get(key) == made[key] for i in items):
                return False, f"{listing.name} does not list the created {key} {made[key]!r}", None
        return True, f"created {key} {made[key]!r} is found with its {len(kept)} given value(s)", None


def _nested_objects(holder: GraphQLObjectType) -> Iterator[tuple[tuple[str, ...], GraphQLObjectType]]:
    """``(field path, object type)`` of each object below ``holder``'s top level (breadth-first, 3 levels; lists see through)."""
    level: list[tuple[GraphQLObjectType, tuple[str, ...]]] = [(holder, ())]
    for _ in range(3):
        deeper = []
        for graphql_type, at in level:
            for name, found in graphql_type.fields.items():
                inner = found.type.of_type if isinstance(found.type, GraphQLNonNull) else found.type
                nested = object_of(inner) or (list_object_of(inner) if isinstance(inner, GraphQLList) else None)
                if nested is None or nested is graphql_type:
                    continue
                if at:
                    yield (*at, name), nested
                deeper.append((nested, (*at, name)))
        level = deeper


def _prober(domain: str, seed: int) -> _Prober | None:
    """The probes of ``domain``'s world, ready to run (None when it has no response schema): this builds the world model."""
    from gqlbench.mocks.engine.fixtures import fixture_file
    from gqlbench.mocks.engine.world import world_model

    schema, endpoints = _catalog(domain)
    if schema is None:
        return None
    model = world_model(domain)
    rules = getattr(getattr(model, "generic", None), "rules", {})
    declared = (getattr(model, "fixture", None) or {}).get("endpoints") or {}
    return _Prober(domain, seed, endpoints, rules, str(fixture_file(domain)), declared)


def probe_domain(domain: str, seed: int = 0) -> list[Pair]:
    """Every probe of ``domain``'s world (see the module docstring), passed or failed, run in this process.

    This imports the domain's world behaviour, if it has one: for a catalog
    from someone else use :func:`probe_in_sandbox`, as ``gqlbench domains check`` does.
    """
    prober = _prober(domain, seed)
    return list(prober.run()) if prober is not None else []


# -- in the sandbox ---------------------------------------------------------------------

PROBE_RUNTIME = "gqlbench.mocks.coherence:probe_runtime"
PROBE_SECONDS = 600.0
"""CPU budget of a whole self-test in its worker (GitHub's 496 pairs: about 200 CPU seconds); the wall clock gets three times it."""
_PAIR_FIELDS = {"probe": str, "first": str, "then": str, "passed": bool, "reason": str}


class _ProbeRuntime:
    """A sandbox runtime whose one function, ``probe()``, runs the self-test and answers the pairs as plain data.

    Built in the worker under the set-up veto (the catalog, the world model and
    a catalog's behaviour are read and imported there); ``probe()`` runs as
    the job's program, under its limits and the audit hook.
    """

    def __init__(self, domain: str, seed: int) -> None:
        self._prober = _prober(domain, seed)
        if self._prober is not None:
            Runtime(domain, seed)  # its schema and endpoint table now, while set-up may import and read
        self.namespace = {"probe": self.probe}

    def probe(self) -> list[dict[str, Any]]:
        return [asdict(pair) for pair in self._prober.run()] if self._prober is not None else []

    def calls(self) -> list[Any]:
        return []

    def world_digest(self) -> None:
        return None


def probe_runtime(domain: str, seed: int = 0, request: str = "") -> _ProbeRuntime:
    """The sandbox runtime factory (:data:`PROBE_RUNTIME`) of the self-test; see :class:`_ProbeRuntime`."""
    return _ProbeRuntime(domain, seed)


def probe_in_sandbox(domain: str, seed: int = 0) -> list[Pair]:
    """:func:`probe_domain` run in a sandbox worker, the way programs run: no world behaviour is imported here.

    The worker answers JSON text; each pair is read back as data (strings and a
    boolean), so nothing the world made runs in this process.
    """
    from gqlbench.mocks.sandbox.pool import Job, SandboxPool

    limits = {"cpu_seconds": PROBE_SECONDS, "wall_seconds": 3 * PROBE_SECONDS, "memory_mb": 4096, "max_result_chars": 50_000_000}
    with SandboxPool(workers=1, **limits) as pool:  # type: ignore[arg-type]
        trace = pool.run(Job(code="probe()", domain=domain, seed=seed, runtime=PROBE_RUNTIME, observe_last=True))
    if trace.error is not None:
        raise GqlbenchError(
            f"the self-test of {domain}'s world stopped in the sandbox: {trace.error.kind}: {trace.error.message}; "
            "check a subset of its endpoints (gqlbench domains import-openapi FILE --endpoints ... into another catalog folder)"
        )
    return _pairs_from_json(trace.result or "[]")


def _pairs_from_json(text: str) -> list[Pair]:
    """The pairs a worker answered, checked field by field (a worker is not trusted to send what it should)."""
    try:
        items = json.loads(text)
    except ValueError:
        items = None
    pairs = []
    for item in items if isinstance(items, list) else [None]:
        fix = item.get("fix") if isinstance(item, dict) else None
        if (
            not isinstance(item, dict)
            or not all(isinstance(item.get(k), t) for k, t in _PAIR_FIELDS.items())
            or not isinstance(fix, (str, type(None)))
        ):
            raise GqlbenchError(f"the sandbox worker sent an invalid self-test result: {text[:200]!r}")
        pairs.append(Pair(**{k: item[k] for k in _PAIR_FIELDS}, fix=fix))
    return pairs
