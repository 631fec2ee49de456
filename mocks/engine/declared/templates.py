"""Declared values: a fixture's JSON that says how a response or a generated field is built.

A template is JSON evaluated against a world and a set of names (an
endpoint's arguments, the entities it looked up, the fields of the entity a
shape, a view or a computed field renders: :mod:`gqlbench.mocks.engine.declared.views`,
:mod:`gqlbench.mocks.engine.declared.computed`). The one language of a fixture; what it can
say, so a domain's responses need no Python:

* ``"$name"`` / ``"$name.field.0"``: a name's value (``"$$x"`` is the text ``$x``);
  ``"Season {season_number}"``: text with names filled in (``{{`` and ``}}`` are literal braces);
* ``{"$int": [key...], "lo": 1, "hi": 9, "div": 10}`` (or ``"mul"``), ``{"$token": [key...], "length": 27}``,
  ``{"$pick": [key...], "from": "<vocab>"}``, ``{"$date": [key...], "lo": 1980, "hi": 2023}``:
  values derived from the seed and the key, the same on every machine;
* ``{"$shape": "<name>", "kind": "movie", "id": "$movie_id"}``: another template
  (``"shapes"`` of the fixture) rendered for one entity, whose fields become names
  (and ``this`` the record: ``"$this.collection"`` is None when it has none; ``key`` is the id
  it was looked up by, for records that do not hold their key); ``"of": {...}`` renders names instead;
* ``{"$each": list, "do": template}`` (names ``it`` and ``i``), ``{"$let": {...}, "in": template}``,
  ``{"$get": "<kind>", "id": ...}`` (the complete record, or not found), ``{"$vocab": "<vocab>", "key": ...}``,
  ``{"$count": x}``, ``{"$sum": x}``, ``{"$add": [a, b]}`` (numbers, or lists joined), ``{"$mul": [a, b]}``,
  ``{"$flat": lists}``, ``{"$unique": x}``,
  ``{"$if": c, "then": a, "else": b}``, ``{"$case": x, "of": {"album": a, "track": b}, "else": c}``,
  ``{"$filter": list, "if": c}`` (the items ``it`` for which ``c`` holds),
  ``{"$eq": [a, b]}``, ``{"$ne": [a, b]}``, ``{"$gte": [a, b]}``, ``{"$at": list, "index": n}`` (or an object and a field name),
  ``{"$slice": list, "stop": 3}``, ``{"$numbers": n}`` (1..n; what a template makes is bounded:
  :mod:`gqlbench.mocks.engine.declared.bounds`), ``{"$sort": list, "by": "field", "desc": true}``,
  ``{"$lower": x}``, ``{"$alnum": x}`` (lowercase letters and digits),
  ``{"$sub": x, "pattern": "\\s+Collection$", "by": ""}`` (a regular expression replaced), ``{"$join": [parts], "sep": ""}``,
  ``{"$optional": "name"}`` (the name's value, null when the call left it out);
* ``{"$endpoint": "<function>", "args": {...}}``: another endpoint's answer (null when the world has none);
* ``{"$call": "<function>", "args": [...]}``: one of the behaviour's ``functions``, for what
  JSON cannot say; other operations are added with :func:`operation` (views add ``$view`` and
  ``$offset_page``, listing ``$page`` and ``$query``, relations ``$referring`` and ``$sharing``,
  ranges ``$within`` and ``$uri``, make ``$make``, growth ``$once``, writes ``$change``
  and ``$tick``, lists ``$save``). An operation registered with a ``checker`` has its declaration
  checked when the fixture loads.

An object without an operation is rendered field by field; its ``"..."``
field is an object whose fields come first (``{"...": {"$shape": ...}, "genres": ...}``).
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared.bounds import check_value, over_made
from gqlbench.mocks.engine.world import World

__all__ = ["CHECKERS", "Scope", "check", "derived_date", "evaluate", "fill", "operation", "OPERATIONS"]

_NAME = re.compile(r"\{\{|\}\}|\{([\w.]+)\}")  # {{ and }} are literal braces
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


@dataclass
class Scope:
    """What a template sees: the world, its names, the fixture's shapes and vocabularies, the behaviour's functions."""

    world: World
    names: dict[str, Any]
    shapes: Mapping[str, Any] = field(default_factory=dict)
    vocab: Mapping[str, Any] = field(default_factory=dict)
    functions: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    fixture: Mapping[str, Any] = field(default_factory=dict)  # for "$view" (views and computed fields)
    fields: bool = False  # the names are an entity's fields: one it lacks is None (views, computed fields)

    def having(self, **names: Any) -> Scope:
        return Scope(self.world, {**self.names, **names}, self.shapes, self.vocab, self.functions, self.fixture, self.fields)

    def lookup(self, path: str) -> Any:
        """A name's value, following ``.field`` and ``.0`` steps."""
        head, *steps = path.split(".")
        if head not in self.names and self.fields:
            return None
        if head not in self.names:
            raise GqlbenchError(f"world template: unknown name {head!r}; known here: {', '.join(sorted(self.names))}")
        value = self.names[head]
        for step in steps:
            value = value[int(step)] if isinstance(value, (list, tuple)) else value.get(step)  # a field a record lacks is None
        return value


Operation = Callable[[dict[str, Any], Scope], Any]
OPERATIONS: dict[str, Operation] = {}
CHECKERS: dict[str, Callable[[dict[str, Any], str], None]] = {}


def operation(name: str, checker: Callable[[dict[str, Any], str], None] | None = None) -> Callable[[Operation], Operation]:
    """Register ``{"$<name>": ...}`` (the whole object is passed, with the scope).

    ``checker(template, where)`` raises a one-line error for a bad declaration when the fixture loads.
    """

    def add(function: Operation) -> Operation:
        known = OPERATIONS.get(name)
        if known is not None and (known.__module__, known.__qualname__) != (function.__module__, function.__qualname__):
            raise RuntimeError(f"template operation ${name} is defined twice ({known.__module__} and {function.__module__})")
        OPERATIONS[name] = function
        if checker is not None:
            CHECKERS[name] = checker
        return function

    return add


def evaluate(template: Any, scope: Scope) -> Any:
    """The value ``template`` stands for in ``scope`` (see the module docstring)."""
    if isinstance(template, str):
        if template.startswith("$$"):
            return template[1:]
        if template.startswith("$"):
            return scope.lookup(template[1:])
        return fill(template, scope.lookup)
    if isinstance(template, list):
        return [evaluate(item, scope) for item in template]
    if not isinstance(template, dict):
        return template
    ops = [k for k in template if k.startswith("$")]
    if ops:
        if ops[0][1:] not in OPERATIONS:
            raise GqlbenchError(f"world template: unknown operation {ops[0]!r}; use one of {', '.join(sorted(OPERATIONS))}")
        return OPERATIONS[ops[0][1:]](template, scope)
    out = dict(evaluate(template["..."], scope)) if "..." in template else {}
    out.update({k: evaluate(v, scope) for k, v in template.items() if k != "..."})
    return out


def fill(text: str, lookup: Callable[[str], Any]) -> str:
    """``text`` with each ``{name}`` replaced by ``lookup(name)`` (``paging`` fills an href from the call's arguments)."""
    if "{" not in text and "}" not in text:
        return text
    return check_value(_NAME.sub(lambda m: m.group(0)[0] if m.group(1) is None else str(lookup(m.group(1))), text), f"text {text[:40]!r}")


def check(template: Any, where: str) -> None:
    """Raise a one-line error naming ``where`` for an operation no module defines (found when the fixture loads)."""
    if isinstance(template, str) and not template.startswith("$"):
        for match in _PLACEHOLDER.finditer(template.replace("{{", "").replace("}}", "")):
            if match.group(1) and not re.fullmatch(r"[A-Za-z_]\w*(\.\w+)*", match.group(1)):
                raise GqlbenchError(f"{where}: {{{match.group(1)}}} is not a name; write {{id}} or {{name}}")
    if isinstance(template, list):
        for n, item in enumerate(template):
            check(item, f"{where}[{n}]")
    elif isinstance(template, dict):
        unknown = [k for k in template if k.startswith("$") and k[1:] not in OPERATIONS]
        if unknown:
            raise GqlbenchError(f"{where}: unknown operation {unknown[0]!r}; use one of {', '.join(sorted(OPERATIONS))}")
        for key in template:
            if key.startswith("$") and key[1:] in CHECKERS:
                CHECKERS[key[1:]](template, where)
        for name, value in template.items():
            check(value, f"{where}.{name}")


def _key(template: dict[str, Any], name: str, scope: Scope) -> list[Any]:
    key = evaluate(template[f"${name}"], scope)
    return key if isinstance(key, list) else [key]


@operation("int")
def _int(t: dict[str, Any], scope: Scope) -> Any:
    value = scope.world.int(*_key(t, "int", scope), lo=t.get("lo", 0), hi=t.get("hi", 100))
    return round(value / t["div"], 1) if "div" in t else value * t.get("mul", 1)


def _within(size: Any, what: str) -> Any:
    """``size``, or the one-line error of a template that would make more than a world may (``MAX_MADE``)."""
    error = over_made(size, what) if isinstance(size, int) else None
    if error is not None:
        raise error
    return size


@operation("token")
def _token(t: dict[str, Any], scope: Scope) -> str:
    length = _within(t.get("length", 22), "world template: $token length")
    return str(t.get("format", "{}")).format(scope.world.token(*_key(t, "token", scope), length=length))


def _mul(t: dict[str, Any], scope: Scope) -> Any:
    """``{"$mul": [a, b]}``: numbers multiplied, or a list or text repeated (at most ``MAX_MADE`` items or characters)."""
    operands = evaluate(t["$mul"], scope)
    times = [o for o in operands if isinstance(o, int) and not isinstance(o, bool)]
    if any(isinstance(o, (str, list, tuple)) for o in operands):
        size = max((len(o) for o in operands if isinstance(o, (str, list, tuple))), default=0)
        _within(size * functools.reduce(operator.mul, times, 1), "world template: $mul")
    return check_value(functools.reduce(operator.mul, operands), "world template: $mul")


def _options(t: dict[str, Any], scope: Scope) -> list[Any]:
    options = t["from"]
    return list(scope.vocab[options]) if isinstance(options, str) else list(evaluate(options, scope))


@operation("pick")
def _pick(t: dict[str, Any], scope: Scope) -> Any:
    return scope.world.pick(_options(t, scope), *_key(t, "pick", scope))


def derived_date(world: World, *key: Any, lo: int = 1980, hi: int = 2023) -> str:
    """An ISO date with a year in ``[lo, hi]``, derived from the seed and ``key`` (``{"$date": [key...]}``)."""
    return f"{world.int(*key, 'year', lo=lo, hi=hi)}-{world.int(*key, 'month', lo=1, hi=12):02d}-{world.int(*key, 'day', lo=1, hi=28):02d}"


@operation("date")
def _date(t: dict[str, Any], scope: Scope) -> str:
    return derived_date(scope.world, *_key(t, "date", scope), lo=evaluate(t.get("lo", 1980), scope), hi=evaluate(t.get("hi", 2023), scope))


@operation("get")
def _get(t: dict[str, Any], scope: Scope) -> dict[str, Any]:
    return scope.world.get(evaluate(t["$get"], scope), evaluate(t["id"], scope), label=t.get("label"))


@operation("shape")
def _shape(t: dict[str, Any], scope: Scope) -> Any:
    name = evaluate(t["$shape"], scope)
    if name not in scope.shapes:
        raise GqlbenchError(f'world template: no shape {name!r} in the fixture\'s "shapes" ({", ".join(sorted(scope.shapes))})')
    if "kind" not in t:
        record = evaluate(t.get("of", "$it"), scope)
        return evaluate(scope.shapes[name], scope.having(**{**record, "this": record}))
    key = evaluate(t["id"], scope)
    record = scope.world.get(evaluate(t["kind"], scope), key, label=t.get("label"))
    return evaluate(scope.shapes[name], scope.having(**{"key": key, **record, "this": record}))


@operation("each")
def _each(t: dict[str, Any], scope: Scope) -> list[Any]:
    return [evaluate(t["do"], scope.having(it=item, i=n)) for n, item in enumerate(evaluate(t["$each"], scope) or [])]


@operation("filter")
def _filter(t: dict[str, Any], scope: Scope) -> list[Any]:
    return [item for item in evaluate(t["$filter"], scope) or [] if evaluate(t["if"], scope.having(it=item))]


@operation("let")
def _let(t: dict[str, Any], scope: Scope) -> Any:
    for name, value in t["$let"].items():  # in order: a later name may use an earlier one
        scope = scope.having(**{name: evaluate(value, scope)})
    return evaluate(t["in"], scope)


@operation("vocab")
def _vocab(t: dict[str, Any], scope: Scope) -> Any:
    return scope.vocab[t["$vocab"]].get(evaluate(t["key"], scope), t.get("default"))


@operation("call")
def _call(t: dict[str, Any], scope: Scope) -> Any:
    name = t["$call"]
    if name not in scope.functions:
        raise GqlbenchError(f"world template: no function {name!r}; the behaviour's functions are {', '.join(sorted(scope.functions))}")
    return scope.functions[name](scope, *evaluate(t.get("args", []), scope))


@operation("endpoint")
def _endpoint(t: dict[str, Any], scope: Scope) -> Any:
    """``{"$endpoint": "GET_x", "args": {...}}``: what that endpoint answers (a playlist shows its first page of items)."""
    handler = scope.world.handler(evaluate(t["$endpoint"], scope))
    return handler(scope.world, evaluate(t.get("args", {}), scope)) if handler is not None else None


def _check_sub(t: dict[str, Any], where: str) -> None:
    pattern = t.get("pattern")
    try:
        if not isinstance(pattern, str):
            raise TypeError(f"got {pattern!r}")
        re.compile(pattern)
    except (re.error, TypeError) as exc:
        raise GqlbenchError(f'{where}: $sub needs "pattern", a regular expression ({exc})') from None


@operation("sub", _check_sub)
def _sub(t: dict[str, Any], scope: Scope) -> str:
    """``{"$sub": x, "pattern": "\\s+Collection$", "by": ""}``: a regular expression replaced."""
    return check_value(re.sub(t["pattern"], t.get("by", ""), str(evaluate(t["$sub"], scope))), "world template: $sub")


@operation("sort")
def _sort(t: dict[str, Any], scope: Scope) -> list[Any]:
    """``{"$sort": list, "by": "release_date", "desc": true}``: a stable sort by one field of the items."""
    by = evaluate(t["by"], scope)
    return sorted(evaluate(t["$sort"], scope), key=lambda item: item[by], reverse=bool(t.get("desc")))


OPERATIONS.update(
    {
        "count": lambda t, scope: len(evaluate(t["$count"], scope) or ()),  # a missing list counts 0
        "sum": lambda t, scope: sum(evaluate(t["$sum"], scope)),
        "add": lambda t, scope: check_value(functools.reduce(operator.add, evaluate(t["$add"], scope)), "world template: $add"),
        "mul": _mul,
        "optional": lambda t, scope: scope.names.get(evaluate(t["$optional"], scope)),
        "eq": lambda t, scope: operator.eq(*evaluate(t["$eq"], scope)),
        "ne": lambda t, scope: operator.ne(*evaluate(t["$ne"], scope)),
        "gte": lambda t, scope: operator.ge(*evaluate(t["$gte"], scope)),
        "at": lambda t, scope: evaluate(t["$at"], scope)[evaluate(t["index"], scope)],
        "slice": lambda t, scope: evaluate(t["$slice"], scope)[t.get("start", 0) : t.get("stop")],
        "numbers": lambda t, scope: list(range(1, _within(evaluate(t["$numbers"], scope), "world template: $numbers") + 1)),
        "lower": lambda t, scope: str(evaluate(t["$lower"], scope)).lower(),
        "alnum": lambda t, scope: re.sub(r"[^a-z0-9]", "", str(evaluate(t["$alnum"], scope)).lower()),
        "join": lambda t, scope: check_value(str(t.get("sep", "")).join(map(str, evaluate(t["$join"], scope))), "world template: $join"),
        "unique": lambda t, scope: list(dict.fromkeys(evaluate(t["$unique"], scope))),
        "flat": lambda t, scope: check_value([i for items in evaluate(t["$flat"], scope) for i in items], "world template: $flat"),
        "if": lambda t, scope: evaluate(t["then"] if evaluate(t["$if"], scope) else t.get("else"), scope),
        "case": lambda t, scope: evaluate(t["of"].get(str(evaluate(t["$case"], scope)), t.get("else")), scope),
    }
)
