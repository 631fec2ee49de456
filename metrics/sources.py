"""Where a standardized argument's data comes from: (call token, field path) references.

After :mod:`.calls` standardizes an argument, every response it reads is a
chain rooted at a call token: ``GET_me#1.id``, or, through a comprehension,
``[$0.uri for $0 in GET_search#1.tracks.items[:3]]``. This module lists those
chains as ``("GET_search#1", ".tracks.items[:3][*].uri")``: a comprehension
variable stands for ``[*]`` (any element) of what it iterates over, and a
method call's receiver counts, not the method. The references of an argument
are what ``wrong_source`` compares and what dataflow edges are made of.

They are read from the canonical syntax tree when the argument is standardized
(:func:`read_canonical`) and kept on the call (:class:`Argument`), so nothing
parses the argument's text again; :func:`read_argument` reads a text for the
few callers that hold only a string.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["Reference", "Argument", "references", "read_argument", "read_canonical"]


class Reference(NamedTuple):
    """A response an argument reads: the producer call's token and the field path into its response."""

    token: str  # "GET_search#1"
    path: str  # ".tracks.items[:3][*].uri"


@dataclass(frozen=True)
class Argument:
    """A standardized argument: its canonical text, the responses it reads, and its value when it is a literal."""

    text: str
    references: tuple[Reference, ...] = ()  # sorted, distinct
    literal: bool = False  # a plain Python literal (reads no response, no variable)
    value: object = None  # the literal's value


_TOKEN = re.compile(r"\b([A-Za-z_]\w*#\d+)")
_COMP_VAR = re.compile(r"\$(\d+)")


def _is_token(name: str) -> bool:
    """Call tokens (``GET_me#1``) are the only names with a ``#``: the standardization writes them."""
    return "#" in name


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
            return Reference(token, path + "".join(reversed(parts)))
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
                inner[generator.target.id] = Reference(source.token, source.path + "[*]")
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
        out.extend(src for src in iterated if not any(u.token == src.token and u.path.startswith(src.path + "[*]") for u in used))
        return
    for child in ast.iter_child_nodes(node):
        _collect(child, env, out)


def _tokens_first(tree: ast.AST) -> dict[str, Reference]:
    """Every call token of ``tree``, bound to its whole response (before any comprehension rebinds a name)."""
    return {n.id: Reference(n.id, "") for n in ast.walk(tree) if isinstance(n, ast.Name) and _is_token(n.id)}


def _references_in(tree: ast.Expression) -> tuple[Reference, ...]:
    out: list[Reference] = []
    _collect(tree.body, _tokens_first(tree), out)
    return tuple(sorted(set(out)))


def _literal(node: ast.Expression | str) -> tuple[bool, object]:
    try:
        return True, ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def read_canonical(tree: ast.Expression) -> Argument:
    """A standardized argument from its canonical tree (call tokens and ``$n`` as names): text, references, literal value."""
    return Argument(ast.unparse(tree), _references_in(tree), *_literal(tree))


class _Restore(ast.NodeTransformer):
    """Give the identifiers :func:`read_argument` substituted their names back (``_ref0_`` -> token, ``_cv0_`` -> ``$0``)."""

    def __init__(self, roots: dict[str, str]) -> None:
        self.roots = roots

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.roots:
            node.id = self.roots[node.id]
        elif (match := re.fullmatch(r"_cv(\d+)_", node.id)) is not None:
            node.id = f"${match.group(1)}"
        return node


def read_argument(text: str) -> Argument:
    """A standardized argument from its text (a call's ``args``), for calls built without their :class:`Argument` records."""
    roots: dict[str, str] = {}

    def token(match: re.Match[str]) -> str:
        name = f"_ref{len(roots)}_"
        roots[name] = match.group(1)
        return name

    try:
        tree = ast.parse(_COMP_VAR.sub(r"_cv\1_", _TOKEN.sub(token, text)), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return Argument(text, tuple(sorted({Reference(t, "") for t in _TOKEN.findall(text)})), *_literal(text))
    return Argument(text, _references_in(_Restore(roots).visit(tree)), *_literal(text))


def references(arg: str) -> tuple[Reference, ...]:
    """The sorted, distinct (token, field path) pairs a standardized argument's text reads."""
    return read_argument(arg).references
