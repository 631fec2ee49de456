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
* ``{"$shape": "<name>", "of": {"owner": "$id"}}``: a named template (``"shapes"`` of the
  fixture) evaluated with the names ``of`` gives (and ``this``, the whole object) besides
  those around it; an entity is shown by a view instead (``{"$view": "card", "of": "$movie_id"}``,
  :mod:`gqlbench.mocks.engine.declared.views`), the one way to render one;
* ``{"$each": list, "do": template}`` (names ``it`` and ``i``), ``{"$let": {...}, "in": template}``,
  ``{"$get": "<kind>", "id": ...}`` (the complete record, or not found), ``{"$vocab": "<vocab>", "key": ...}``,
  ``{"$count": x}``, ``{"$add": [a, b]}`` (numbers, or lists joined), ``{"$mul": [a, b]}``,
  ``{"$unique": x}``, ``{"$if": c, "then": a, "else": b}``,
  ``{"$eq": [a, b]}``, ``{"$ne": [a, b]}``, ``{"$at": list, "index": n}`` (or an object and a field name),
  ``{"$slice": list, "stop": 3}``, ``{"$numbers": n}`` (1..n; what a template makes is bounded:
  :mod:`gqlbench.mocks.engine.declared.bounds`), ``{"$sort": list, "by": "field", "desc": true}``,
  ``{"$join": [parts], "sep": ""}``,
  ``{"$optional": "name"}`` (the name's value, null when the call left it out);
* ``{"$call": "<function>", "args": [...]}``: one of the behaviour's ``functions``
  (``(world, *args) -> value``, :mod:`gqlbench.mocks.world`), for what JSON cannot say.

Other operations are registered with :func:`operation` in the modules that own
them (views add ``$view``, listing ``$page``, relations ``$referring``, ranges
``$within``, make ``$make``, growth ``$once``, writes ``$change`` and ``$tick``,
lists ``$saved`` and ``$state``). The set is frozen: what one world needs once
is a function of its behaviour (``$call``), not an operation
(``docs/world-operations.md`` lists each one and why it stays).
Each declares the keys it takes, so every use is checked when the file loads
(:func:`problems`, :mod:`gqlbench.mocks.engine.worldfile`).

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

from gqlbench.errors import GqlbenchError, closest
from gqlbench.mocks.engine.declared.bounds import check_value, over_made
from gqlbench.mocks.engine.problems import FileProblem, Path, did_you_mean, dotted
from gqlbench.mocks.engine.world import World
from gqlbench.plugins import Registry

__all__ = ["OPERATIONS", "TemplateOperation", "Scope", "check", "derived_date", "evaluate", "fill", "functions_of", "operation", "problems"]

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

    @classmethod
    def of(cls, world: World, names: dict[str, Any], *, fields: bool = False) -> Scope:
        """A scope over the world's own file (its shapes, vocabularies and views) and its behaviour's functions."""
        fixture = world.model.fixture if world.model is not None else {}
        return cls(world, names, fixture.get("shapes", {}), fixture.get("vocab", {}), functions_of(world), fixture, fields)

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


def functions_of(world: World) -> Mapping[str, Callable[..., Any]]:
    """The world's behaviour's ``functions``, for ``{"$call": ...}`` (none without a behaviour)."""
    return getattr(getattr(world.model, "behaviour", None), "functions", None) or {}


Run = Callable[[dict[str, Any], Scope], Any]


@dataclass(frozen=True)
class TemplateOperation:
    """One ``{"$<name>": ...}``: what it does and what it takes, so every use is checked when the fixture loads.

    ``keys`` are the other keys it takes (``required`` among them), ``binds``
    the names a key's template sees besides the scope's (``$each``'s ``do``
    sees ``it`` and ``i``), ``literal`` the keys whose value is data, not a
    template, ``open`` whether its keys see any name (one the call left out
    is null there: ``$change``), and ``shape(template)`` a message when an
    argument has the wrong shape (None when it is right).
    """

    name: str
    run: Run
    keys: frozenset[str] = frozenset()
    required: frozenset[str] = frozenset()
    binds: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    literal: frozenset[str] = frozenset()
    open: bool = False
    shape: Callable[[dict[str, Any]], str | None] | None = None


OPERATIONS: Registry[TemplateOperation] = Registry("template operation", "gqlbench.template_operations", "world template")
"""Every ``$`` operation by name (without the ``$``); each module that defines some registers them on import."""


def operation(
    name: str,
    *keys: str,
    required: tuple[str, ...] = (),
    binds: Mapping[str, tuple[str, ...]] | None = None,
    literal: tuple[str, ...] = (),
    open: bool = False,
    shape: Callable[[dict[str, Any]], str | None] | None = None,
) -> Callable[[Run], Run]:
    """Register ``{"$<name>": ..., <keys>...}`` (the whole object is passed to the function, with the scope)."""

    def add(function: Run) -> Run:
        known = OPERATIONS.find(name)
        again = known is not None and (known.run.__module__, known.run.__qualname__) == (function.__module__, function.__qualname__)
        spec = TemplateOperation(
            name, function, frozenset(keys) | frozenset(required), frozenset(required), binds or {}, frozenset(literal), open, shape
        )
        OPERATIONS.register(name, spec, replace=again)  # a second module defining the name is an error
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
        spec = OPERATIONS.find(ops[0][1:])
        if spec is None:
            raise GqlbenchError(f"world template: unknown operation {ops[0]!r}; use one of {', '.join(OPERATIONS.names())}")
        return spec.run(template, scope)
    out = dict(evaluate(template["..."], scope)) if "..." in template else {}
    out.update({k: evaluate(v, scope) for k, v in template.items() if k != "..."})
    return out


def fill(text: str, lookup: Callable[[str], Any]) -> str:
    """``text`` with each ``{name}`` replaced by ``lookup(name)`` (``paging`` fills an href from the call's arguments)."""
    if "{" not in text and "}" not in text:
        return text
    return check_value(
        _NAME.sub(lambda m: m.group(0)[0] if m.group(1) is None else str(lookup(m.group(1))), text),
        f"text {text[:40]!r}",
        from_arguments=True,
    )


def problems(template: Any, path: Path, names: frozenset[str] | None = None) -> list[FileProblem]:
    """Every mistake in ``template`` written at ``path``: unknown operations, keys and (when ``names`` is known) names.

    ``names`` are the names the template sees (an endpoint's parameters, an
    entity's fields); None when they cannot be known here (a shape, whose
    names are whatever renders it).
    """
    found: list[FileProblem] = []
    if isinstance(template, str):
        _text_problems(template, path, names, found)
    elif isinstance(template, list):
        for n, item in enumerate(template):
            found += problems(item, (*path, n), names)
    elif isinstance(template, dict):
        _object_problems(template, path, names, found)
    return found


def _text_problems(text: str, path: Path, names: frozenset[str] | None, found: list[FileProblem]) -> None:
    if text.startswith("$$"):
        return
    used = [text[1:]] if text.startswith("$") else []
    for match in [] if used else _PLACEHOLDER.finditer(text.replace("{{", "").replace("}}", "")):
        if not re.fullmatch(r"[A-Za-z_]\w*(\.\w+)*", match.group(1)):
            found.append(FileProblem(path, f"{{{match.group(1)}}} is not a name; write {{id}} or {{name}}"))
        else:
            used.append(match.group(1))
    for name in used:
        head = name.split(".")[0]
        if names is not None and head not in names:
            found.append(FileProblem(path, f"unknown name {head!r}{did_you_mean(head, names)}", unknown_name=head))


def _object_problems(template: dict[str, Any], path: Path, names: frozenset[str] | None, found: list[FileProblem]) -> None:
    ops = [k for k in template if k.startswith("$")]
    if len(ops) > 1:
        found.append(FileProblem(path, f"two operations in one object ({' and '.join(ops)}); write one operation per object"))
    if not ops:
        for key, value in template.items():
            found += problems(value, (*path, key), names)
        return
    spec = OPERATIONS.find(ops[0][1:])
    if spec is None:
        found.append(
            FileProblem(path, f"unknown operation {ops[0]!r}{did_you_mean(ops[0], ['$' + n for n in OPERATIONS.names()])}", (*path, ops[0]))
        )
        return
    unknown = [key for key in template if key not in spec.keys and key != ops[0] and not key.startswith("$")]
    meant = set()  # the keys the misspelt ones are near: "than" is said once, not also "$if needs 'then'"
    for key in unknown:
        near = closest(key, spec.keys, n=1)
        meant.update(near)
        hint = did_you_mean(key, spec.keys) if spec.keys else "; it takes no other key"
        found.append(FileProblem(path, f"unknown key {key!r} in {ops[0]}{hint}", (*path, key)))
    for key in sorted(spec.required - set(template) - meant):
        found.append(FileProblem(path, f"{ops[0]} needs {key!r}"))
    message = spec.shape(template) if spec.shape is not None and not unknown and spec.required <= set(template) else None
    if message:
        found.append(FileProblem(path, message))
    if spec.name == "let" and isinstance(template[ops[0]], dict):  # each name sees the ones before it
        for name, value in template[ops[0]].items():
            found += problems(value, (*path, ops[0], name), names)
            names = None if names is None else names | {name}
        found += problems(template.get("in"), (*path, "in"), names)
        return
    for key, value in template.items():
        if key in spec.literal or (key != ops[0] and key not in spec.keys):
            continue
        seen = None if names is None or (spec.open and key != ops[0]) else names | set(spec.binds.get(key, ()))
        found += problems(value, (*path, key), seen)


def check(template: Any, where: str) -> None:
    """Raise a one-line error naming ``where`` for the first mistake in ``template`` (a template made in code)."""
    found = problems(template, ())
    if found:
        raise GqlbenchError(f"{where}{'.' + dotted(found[0].path) if found[0].path else ''}: {found[0].message}")


def _key(template: dict[str, Any], name: str, scope: Scope) -> list[Any]:
    key = evaluate(template[f"${name}"], scope)
    return key if isinstance(key, list) else [key]


@operation("int", "lo", "hi", "div", "mul")
def _int(t: dict[str, Any], scope: Scope) -> Any:
    value = scope.world.int(*_key(t, "int", scope), lo=t.get("lo", 0), hi=t.get("hi", 100))
    return round(value / t["div"], 1) if "div" in t else value * t.get("mul", 1)


def _within(size: Any, what: str) -> Any:
    """``size``, or the one-line error of a template that would make more than a world may (``MAX_MADE``)."""
    error = over_made(size, what) if isinstance(size, int) else None
    if error is not None:
        raise error
    return size


@operation("token", "length", "format", literal=("format",))
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


@operation("pick", required=("from",))
def _pick(t: dict[str, Any], scope: Scope) -> Any:
    return scope.world.pick(_options(t, scope), *_key(t, "pick", scope))


def derived_date(world: World, *key: Any, lo: int = 1980, hi: int = 2023) -> str:
    """An ISO date with a year in ``[lo, hi]``, derived from the seed and ``key`` (``{"$date": [key...]}``)."""
    return f"{world.int(*key, 'year', lo=lo, hi=hi)}-{world.int(*key, 'month', lo=1, hi=12):02d}-{world.int(*key, 'day', lo=1, hi=28):02d}"


@operation("date", "lo", "hi")
def _date(t: dict[str, Any], scope: Scope) -> str:
    return derived_date(scope.world, *_key(t, "date", scope), lo=evaluate(t.get("lo", 1980), scope), hi=evaluate(t.get("hi", 2023), scope))


@operation("get", "label", required=("id",), literal=("label",))
def _get(t: dict[str, Any], scope: Scope) -> dict[str, Any]:
    return scope.world.get(evaluate(t["$get"], scope), evaluate(t["id"], scope), label=t.get("label"))


def _shape_arguments(t: dict[str, Any]) -> str | None:
    if {"kind", "id", "label"} & set(t):
        return 'an entity is shown by a view, {"$view": "<view>", "of": "<its id>"}; a shape takes names ("of")'
    return None if "of" in t else '$shape needs "of" (the names the shape sees)'


@operation("shape", "of", "kind", "id", "label", shape=_shape_arguments)
def _shape(t: dict[str, Any], scope: Scope) -> Any:
    name = evaluate(t["$shape"], scope)
    if name not in scope.shapes:
        raise GqlbenchError(f'world template: no shape {name!r} in the fixture\'s "shapes" ({", ".join(sorted(scope.shapes))})')
    names = evaluate(t["of"], scope)
    return evaluate(scope.shapes[name], scope.having(**{**names, "this": names}))


@operation("each", required=("do",), binds={"do": ("it", "i")})
def _each(t: dict[str, Any], scope: Scope) -> list[Any]:
    return [evaluate(t["do"], scope.having(it=item, i=n)) for n, item in enumerate(evaluate(t["$each"], scope) or [])]


@operation("let", required=("in",), shape=lambda t: None if isinstance(t["$let"], dict) else '$let names values: {"name": template, ...}')
def _let(t: dict[str, Any], scope: Scope) -> Any:
    for name, value in t["$let"].items():  # in order: a later name may use an earlier one
        scope = scope.having(**{name: evaluate(value, scope)})
    return evaluate(t["in"], scope)


@operation("vocab", "default", required=("key",), literal=("$vocab",))
def _vocab(t: dict[str, Any], scope: Scope) -> Any:
    return scope.vocab[t["$vocab"]].get(evaluate(t["key"], scope), t.get("default"))


@operation("call", "args", literal=("$call",))
def _call(t: dict[str, Any], scope: Scope) -> Any:
    name = t["$call"]
    if name not in scope.functions:
        raise GqlbenchError(f"world template: no function {name!r}; the behaviour's functions are {', '.join(sorted(scope.functions))}")
    return scope.functions[name](scope.world, *evaluate(t.get("args", []), scope))


@operation("sort", "desc", required=("by",), literal=("desc",))
def _sort(t: dict[str, Any], scope: Scope) -> list[Any]:
    """``{"$sort": list, "by": "release_date", "desc": true}``: a stable sort by one field of the items."""
    by = evaluate(t["by"], scope)
    return sorted(evaluate(t["$sort"], scope), key=lambda item: item[by], reverse=bool(t.get("desc")))


_ONE = {  # operations of one argument, the $ key's value
    "count": lambda t, scope: len(evaluate(t["$count"], scope) or ()),  # a missing list counts 0
    "add": lambda t, scope: check_value(functools.reduce(operator.add, evaluate(t["$add"], scope)), "world template: $add"),
    "mul": _mul,
    "optional": lambda t, scope: scope.names.get(evaluate(t["$optional"], scope)),
    "eq": lambda t, scope: operator.eq(*evaluate(t["$eq"], scope)),
    "ne": lambda t, scope: operator.ne(*evaluate(t["$ne"], scope)),
    "numbers": lambda t, scope: list(range(1, _within(evaluate(t["$numbers"], scope), "world template: $numbers") + 1)),
    "unique": lambda t, scope: list(dict.fromkeys(evaluate(t["$unique"], scope))),
}
for _name, _run in _ONE.items():
    operation(_name)(_run)
operation("at", required=("index",))(lambda t, scope: evaluate(t["$at"], scope)[evaluate(t["index"], scope)])
operation("slice", "start", "stop", literal=("start", "stop"))(
    lambda t, scope: evaluate(t["$slice"], scope)[t.get("start", 0) : t.get("stop")]
)
operation("join", "sep", literal=("sep",))(
    lambda t, scope: check_value(str(t.get("sep", "")).join(map(str, evaluate(t["$join"], scope))), "world template: $join")
)
operation("if", "else", required=("then",))(lambda t, scope: evaluate(t["then"] if evaluate(t["$if"], scope) else t.get("else"), scope))
