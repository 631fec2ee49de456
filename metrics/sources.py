"""Where a standardized argument's data comes from: (call token, field path) references.

After :mod:`.calls` standardizes an argument, every response it reads is a
chain rooted at a call token: ``GET_me#1.id``, or, through a comprehension,
``[$0.uri for $0 in GET_search#1.tracks.items[:3]]``. This module lists those
chains as ``("GET_search#1", ".tracks.items[:3][*].uri")``: a comprehension
variable stands for ``[*]`` (any element) of what it iterates over, and a
method call's receiver counts, not the method. The references of an argument
are what ``wrong_source`` compares and what dataflow edges are made of.
"""

from __future__ import annotations

import ast
import re

__all__ = ["Reference", "references", "literal_value"]

Reference = tuple[str, str]  # (producer call token, field path)

_TOKEN = re.compile(r"\b([A-Za-z_]\w*#\d+)")
_COMP_VAR = re.compile(r"\$(\d+)")


def _parse(arg: str) -> tuple[ast.expr, dict[str, str]] | None:
    """The argument as a Python expression, with tokens and ``$n`` renamed to identifiers."""
    roots: dict[str, str] = {}

    def token(match: re.Match[str]) -> str:
        name = f"_ref{len(roots)}_"
        roots[name] = match.group(1)
        return name

    text = _COMP_VAR.sub(r"_cv\1_", _TOKEN.sub(token, arg))
    try:
        return ast.parse(text, mode="eval").body, roots
    except SyntaxError:
        return None


def _chain(node: ast.expr, env: dict[str, Reference]) -> Reference | None:
    parts = []
    while True:
        if isinstance(node, ast.Attribute):
            parts.append(f".{node.attr}")
            node = node.value
        elif isinstance(node, ast.Subscript):
            parts.append(f"[{ast.unparse(node.slice)}]")
            node = node.value
        elif isinstance(node, ast.Name) and node.id in env:
            token, path = env[node.id]
            return token, path + "".join(reversed(parts))
        else:
            return None


def _collect(node: ast.AST, env: dict[str, Reference], out: list[Reference]) -> None:
    if isinstance(node, ast.expr) and (ref := _chain(node, env)) is not None:
        out.append(ref)
        while isinstance(node, (ast.Attribute, ast.Subscript)):  # indices may read responses too
            if isinstance(node, ast.Subscript):
                _collect(node.slice, env, out)
            node = node.value
        return
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        _collect(node.func.value, env, out)
        for child in [*node.args, *node.keywords]:
            _collect(child, env, out)
        return
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        inner = dict(env)
        iterated: list[Reference] = []
        for generator in node.generators:
            source = _chain(generator.iter, inner)
            if source is not None and isinstance(generator.target, ast.Name):
                inner[generator.target.id] = (source[0], source[1] + "[*]")
                iterated.append(source)
            else:
                _collect(generator.iter, inner, out)
            for condition in generator.ifs:
                _collect(condition, inner, out)
        before = len(out)
        for part in (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,):
            _collect(part, inner, out)
        used = out[before:]
        # An iterated response whose elements are not read is itself the data used.
        out.extend(src for src in iterated if not any(u[0] == src[0] and u[1].startswith(src[1] + "[*]") for u in used))
        return
    for child in ast.iter_child_nodes(node):
        _collect(child, env, out)


def references(arg: str) -> tuple[Reference, ...]:
    """The sorted, distinct (token, field path) pairs a standardized argument reads."""
    parsed = _parse(arg)
    if parsed is None:
        return tuple(sorted({(t, "") for t in _TOKEN.findall(arg)}))
    tree, roots = parsed
    out: list[Reference] = []
    _collect(tree, {name: (token, "") for name, token in roots.items()}, out)
    return tuple(sorted(set(out)))


def literal_value(arg: str) -> tuple[bool, object]:
    """``(True, value)`` when the standardized argument is a Python literal, else ``(False, None)``."""
    try:
        return True, ast.literal_eval(arg)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None
