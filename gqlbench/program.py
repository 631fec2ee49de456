"""One reading of a program, parsed once and shared by everything that reads programs.

A program (a model's answer or a gold program) is read by the metrics (its
dataflow, its field accesses, whether it abstains), by the domain checks, by
the prompt styles (the worked calls of a shot) and by the dataset (which
functions a gold program calls). :func:`read_program` parses it once and
caches the result per code string, so scoring one prediction parses the
prediction and the gold program once each, whatever number of metrics read them.

Two parsers, each run once: Python's own (:mod:`ast`), whose verdict decides
whether a program parses (it locates errors better than LibCST and rejects
pathologically nested code, which crashes LibCST's native parser, cleanly),
and LibCST, whose tree and positions the dataflow analysis walks
(:mod:`gqlbench.metrics.calls`). The facts every reader needs (plain calls in
source order, top-level calls with their targets and arguments, a raised
exception's name) are read off the tree here, once.

Nothing here bounds the size of untrusted code: a caller that reads a model's
answer checks it against :mod:`gqlbench.metrics.limits` first. Nothing is run.
"""

from __future__ import annotations

import ast
import copy
import hashlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cached_property

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

__all__ = ["CallSite", "TopLevelCall", "SyntaxProblem", "ParsedProgram", "read_program", "one_reading"]


@dataclass(frozen=True)
class CallSite:
    """A call of a plain name (``f(...)``, not ``x.f(...)``), where it starts."""

    name: str
    line: int
    column: int


@dataclass(frozen=True)
class TopLevelCall:
    """A statement of the program that is a call of a plain name, or assigns one (``r = f(...)``)."""

    text: str  # the statement's source lines, as written
    function: str
    target: str | None  # the one variable the response is stored in
    arguments: tuple[tuple[str, str], ...]  # (name, or "#i" for positional, or "**"; source text as written)
    reads: frozenset[str]  # every name the call reads


@dataclass(frozen=True)
class SyntaxProblem:
    """Why a program does not parse; ``line`` when the parser located it."""

    message: str
    line: int | None = None

    def __str__(self) -> str:
        return self.message if self.line is None else f"line {self.line}: {self.message}"


@dataclass(frozen=True, eq=False)
class ParsedProgram:
    """A program and its two syntax trees (both None when it does not parse)."""

    code: str
    problem: SyntaxProblem | None = None
    tree: ast.Module | None = None  # Python's reading; kept when only LibCST refuses the program
    module: cst.Module | None = None  # LibCST's reading, for the dataflow

    @property
    def syntax_error(self) -> str | None:
        """Why the program does not parse (Python's verdict first, then LibCST's); None when it parses."""
        return str(self.problem) if self.problem is not None else None

    @cached_property
    def positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        """Where each node of :attr:`module` is, resolved once."""
        if self.module is None:
            return {}
        return MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)

    @cached_property
    def identifiers(self) -> frozenset[str]:
        """Every identifier of the LibCST tree (names, attributes, keywords)."""
        names: set[str] = set()

        class Names(cst.CSTVisitor):
            def visit_Name(self, node: cst.Name) -> None:
                names.add(node.value)

        if self.module is not None:
            self.module.visit(Names())
        return frozenset(names)

    @cached_property
    def calls(self) -> tuple[CallSite, ...]:
        """Calls of plain names in source order (by where each starts); none when Python cannot parse the program."""
        if self.tree is None:
            return ()
        found = [
            CallSite(n.func.id, n.lineno, n.col_offset)
            for n in ast.walk(self.tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        ]
        return tuple(sorted(found, key=lambda c: (c.line, c.column)))

    def raises(self, name: str) -> bool:
        """Whether some statement raises the exception ``name`` (``raise name`` or ``raise name(...)``)."""
        if self.tree is None:
            return False
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Raise) and node.exc is not None:
                target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(target, ast.Name) and target.id == name:
                    return True
        return False

    @cached_property
    def top_level_calls(self) -> tuple[TopLevelCall, ...]:
        """The top-level statements that call a plain name (``f(...)`` or ``r = f(...)``), in order."""
        if self.tree is None:
            return ()
        lines = self.code.splitlines()
        found = []
        for stmt in self.tree.body:
            value = stmt.value if isinstance(stmt, (ast.Assign, ast.Expr)) else None
            if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
                continue
            target = None
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                target = stmt.targets[0].id
            arguments = [(f"#{i}", self._source(a)) for i, a in enumerate(value.args)]
            arguments += [(kw.arg or "**", self._source(kw.value)) for kw in value.keywords]
            text = "\n".join(lines[stmt.lineno - 1 : (stmt.end_lineno or stmt.lineno)]).strip()
            reads = frozenset(n.id for n in ast.walk(value) if isinstance(n, ast.Name))
            found.append(TopLevelCall(text, value.func.id, target, tuple(arguments), reads))
        return tuple(found)

    @cached_property
    def skeleton(self) -> str | None:
        """The program with every literal masked (``_``) and its variables renamed ``v0, v1, ...`` in order of binding.

        Two gold programs with the same skeleton are the same request with other
        names and numbers: the unit a set's diversity is counted in, and the
        cluster its samples' scores are resampled by. Functions, fields and
        keywords are kept. None when the program does not parse.
        """
        if self.tree is None:
            return None
        tree = copy.deepcopy(self.tree)
        bound: dict[str, str] = {}
        for node in ast.walk(tree):  # breadth first: top-level bindings before comprehension variables
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound.setdefault(node.id, f"v{len(bound)}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in bound:
                node.id = bound[node.id]
            elif isinstance(node, ast.Constant):
                node.value = "_"
        return ast.unparse(tree).replace("'_'", "_")

    @cached_property
    def skeleton_key(self) -> str | None:
        """A short stable name of :attr:`skeleton` (12 hex digits of its SHA-256), as ``samples.jsonl`` records it."""
        return None if self.skeleton is None else hashlib.sha256(self.skeleton.encode()).hexdigest()[:12]

    def _source(self, node: ast.AST) -> str:
        """An expression as the program spells it (quotes, spacing), not as ``ast.unparse`` would."""
        return ast.get_source_segment(self.code, node) or ast.unparse(node)


def _python_tree(code: str) -> ast.Module | SyntaxProblem:
    try:
        return ast.parse(code)
    except SyntaxError as exc:
        return SyntaxProblem(exc.msg, exc.lineno)
    except (RecursionError, MemoryError):
        return SyntaxProblem("too deeply nested to parse")
    except ValueError as exc:  # e.g. null bytes
        return SyntaxProblem(str(exc))


_READ: ContextVar[dict[str, ParsedProgram] | None] = ContextVar("gqlbench_programs_read", default=None)


@contextmanager
def one_reading() -> Iterator[None]:
    """Within this block (and this thread), each code string is parsed once; nested blocks share the outer one."""
    if _READ.get() is not None:
        yield
        return
    token = _READ.set({})
    try:
        yield
    finally:
        _READ.reset(token)


def read_program(code: str) -> ParsedProgram:
    """``code`` parsed by Python and by LibCST (once per :func:`one_reading` block); a syntax error is recorded, never raised.

    A program parses when both accept it.
    """
    read = _READ.get()
    if read is None:
        return _parse(code)
    found = read.get(code)
    if found is None:
        found = read[code] = _parse(code)
    return found


def _parse(code: str) -> ParsedProgram:
    tree = _python_tree(code)
    if isinstance(tree, SyntaxProblem):
        return ParsedProgram(code, problem=tree)
    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError as exc:
        return ParsedProgram(code, problem=SyntaxProblem(exc.message), tree=tree)
    except RecursionError:
        return ParsedProgram(code, problem=SyntaxProblem("too deeply nested to analyze"), tree=tree)
    return ParsedProgram(code, tree=tree, module=module)
