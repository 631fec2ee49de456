"""Bounds on what a world file may make, checked when it loads.

A world file from someone else is data, and ``gqlbench mock serve`` runs it
outside the sandbox: ``{"$numbers": 30000000}`` took one request to 1.2 GB,
a 400-deep ``$case`` or a ``make`` recipe that makes its own kind ended the
server in a ``RecursionError``. :func:`check_bounds` refuses such a file when
it loads, with one line naming the file and the field:

* nesting deeper than :data:`MAX_DEPTH` (the bundled worlds use 15);
* a literal ``$numbers`` count, ``$token`` length or ``$mul`` that repeats a
  list or text more than :data:`MAX_MADE` times;
* a ``grow`` step filling a list ``to`` more than :data:`MAX_GROW` entries;
* a ``make`` recipe that makes its own kind, directly or through others
  (its ``id``, ``key``, ``defaults``, refs and children; ``invent`` runs on a
  search, not while making), and a shape that renders itself.

A value a template computes is bounded when it is made
(:mod:`gqlbench.mocks.engine.declared.templates`): the counts above, and each
value a template joins or fills in (:data:`MAX_VALUE`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.errors import BadArguments

__all__ = ["MAX_DEPTH", "MAX_GROW", "MAX_MADE", "MAX_VALUE", "check_bounds", "check_value", "over_made"]

MAX_DEPTH = 64
"""Deepest nesting of a world file's JSON (as the mock server's request bodies)."""

MAX_MADE = 10_000
"""Most numbers a ``$numbers`` lists, characters a ``$token`` has, and items or characters a ``$mul`` repeats."""

MAX_GROW = 1_000
"""Most entries a ``grow`` step fills a record's list to."""


MAX_VALUE = 1_000_000
"""Most items or characters one value a template joins or fills in may have (``$add``, ``$join``, text
with names filled in): names that refer to each other (``"b": {"$add": ["$a", "$a"]}``) double a value at each step."""


def check_value(value: Any, what: str, *, from_arguments: bool = False) -> Any:
    """``value``, or a one-line error naming ``what`` when it is a list or text over :data:`MAX_VALUE` (or a number of
    more than 1,000 digits).

    ``from_arguments``: the value was filled in from the call's arguments (a
    text with ``{name}``), so its size is the program's doing: the call's
    :class:`BadArguments`, recorded in its trace, not a mistake of the world file.
    """
    size = len(value) if isinstance(value, (str, list)) else 0
    if size > MAX_VALUE and from_arguments:
        raise BadArguments(f"{what}: {size:,} characters, over the mock's limit of {MAX_VALUE:,} for one value; pass shorter arguments")
    if size > MAX_VALUE:
        raise GqlbenchError(f"{what}: {size:,} items or characters, over the limit of {MAX_VALUE:,} for one value of a world template")
    if isinstance(value, int) and value.bit_length() > 3322:
        raise GqlbenchError(f"{what}: a number of more than 1,000 digits, over the limit of a world template")
    return value


def over_made(size: int, what: str) -> GqlbenchError | None:
    """The error for a template that would make ``size`` of ``what``, over :data:`MAX_MADE`; None within it."""
    if size <= MAX_MADE:
        return None
    return GqlbenchError(f"{what}: {size:,} is over the limit of {MAX_MADE:,} a world template may make")


def check_bounds(fixture: Mapping[str, Any], where: str) -> None:
    """Raise a one-line error naming ``where`` and the field when the fixture is over a bound (see the module docstring)."""
    for path, value in _walk(fixture, where):
        if isinstance(value, dict):
            _check_literals(value, path)
    grow = fixture.get("grow")
    fill = grow.get("fill") if isinstance(grow, dict) else None
    for kind, steps in fill.items() if isinstance(fill, dict) else ():
        for n, step in enumerate(steps if isinstance(steps, list) else ()):
            to = step.get("to") if isinstance(step, dict) else None
            if isinstance(to, int) and to > MAX_GROW:
                raise GqlbenchError(f"{where}: grow.fill.{kind}[{n}].to: {to:,} entries, over the limit of {MAX_GROW:,} per record")
    recipes = fixture.get("make")
    if isinstance(recipes, dict):
        _check_cycles({k: _made_by(r) for k, r in recipes.items() if isinstance(r, dict)}, f"{where}: make", "makes its own kind")
    shapes = fixture.get("shapes")
    if isinstance(shapes, dict):
        _check_cycles({k: _named(v, "$shape") for k, v in shapes.items()}, f"{where}: shapes", "renders itself")
    views = fixture.get("views")
    if isinstance(views, dict):
        shown = {k: _named(v.get("fields"), "$view") | _base(v) for k, v in views.items() if isinstance(v, dict)}
        _check_cycles(shown, f"{where}: views", "shows itself")


def _walk(value: Any, where: str) -> Iterator[tuple[str, Any]]:
    """Each value with its path (``where: make.artist.defaults``), without recursion: the depth is checked first."""
    stack: list[tuple[str, Any, int]] = [("", value, 0)]
    while stack:
        path, item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise GqlbenchError(
                f"{where}: {path.lstrip('.')}: nested more than {MAX_DEPTH} levels deep, the limit of a world file; "
                "flatten it, or name its parts as shapes"
            )
        yield f"{where}: {path.lstrip('.')}", item
        if isinstance(item, dict):
            stack.extend((f"{path}.{k}", v, depth + 1) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((f"{path}[{n}]", v, depth + 1) for n, v in enumerate(item))


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _check_literals(template: dict[str, Any], path: str) -> None:
    counts = {"$numbers": _number(template.get("$numbers"))}
    if "$token" in template:
        counts["length"] = _number(template.get("length"))
    operands = template.get("$mul")
    if isinstance(operands, list) and any(isinstance(o, (str, list, dict)) for o in operands):  # a list or text repeated
        times = 1
        for operand in operands:
            times *= max(_number(operand) or 1, 1)
        counts["$mul"] = times
    for name, count in counts.items():
        error = over_made(count or 0, f"{path}.{name}")
        if error is not None:
            raise error


def _base(view: Mapping[str, Any]) -> set[str]:
    """The view a view extends (``base``), if it names one."""
    return {view["base"]} if isinstance(view.get("base"), str) else set()


def _named(template: Any, operation: str) -> set[str]:
    """The literal names ``template`` gives ``operation`` anywhere inside it (``$make``'s kinds, ``$shape``'s shapes)."""
    found: set[str] = set()
    stack = [template]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get(operation), str):
                found.add(item[operation])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _made_by(recipe: Mapping[str, Any]) -> set[str]:
    """The kinds making one of this kind makes."""
    kinds = _named([recipe.get(part) for part in ("id", "key", "defaults")], "$make")
    for ref in (recipe.get("refs") or {}).values() if isinstance(recipe.get("refs"), dict) else ():
        if isinstance(ref, dict):
            kinds |= _named([ref.get("by"), ref.get("as")], "$make")
            if ref.get("create") is True and isinstance(ref.get("kind"), str):
                kinds.add(ref["kind"])
    children = recipe.get("children")
    kinds |= {c for c in children.values() if isinstance(c, str)} if isinstance(children, dict) else set()
    return kinds


def _check_cycles(uses: Mapping[str, set[str]], where: str, saying: str) -> None:
    """Raise naming the first name that reaches itself through ``uses``."""
    done: set[str] = set()
    for start in uses:
        trail = [start]
        stack = [iter(sorted(uses[start]))]
        while stack:
            step = next(stack[-1], None)
            if step is None:
                stack.pop()
                done.add(trail.pop())
                continue
            if step in trail:
                cycle = [*trail[trail.index(step) :], step]
                raise GqlbenchError(f"{where}.{cycle[0]}: {saying} ({' -> '.join(cycle)}); break the cycle")
            if step in uses and step not in done:
                trail.append(step)
                stack.append(iter(sorted(uses[step])))
