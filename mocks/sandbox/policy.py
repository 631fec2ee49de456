"""The static check that decides whether a generated program may run at all.

A call-chain program needs very little Python: assignments, calls to the API
functions, attribute and index access on the responses, comprehensions to
filter them, and an ``if`` or ``for`` here and there. :func:`check_program`
admits exactly that subset (an admit-list, not a deny-list: a construct the
list does not name is refused) and reports every refused construct with its
line and a reason a person can act on.

The check is the first of two walls. The sandbox (:mod:`gqlbench.mocks.sandbox.pool`)
runs admitted code in a limited worker process anyway, so this module does not
try to prove termination or bound memory; it removes the ways out of the
interpreter: imports, definitions, dunder and interpreter-internal attributes,
``str.format`` (its field syntax reads attributes), dangerous builtins, and
calls through anything but a plain function name or a listed method.

Decisions worth knowing:

- Undefined names are *not* refused. ``GET_movie_details(...)`` with no such
  function, or a stray ``query``, fails at run time with a ``NameError`` that
  the sandbox classifies (``unknown_function`` for API-looking names), which
  says more than "refused". Python builtins outside :data:`SAFE_BUILTINS`
  (``open``, ``eval``, ``getattr``, ``type``, ...) are refused unless the
  program assigns the name itself. So the gold program ``GET_me_following(type)``
  (errata: ``type`` is an undefined name) is refused; it could not run
  correctly anyway.
- API functions may only be called, never used as values: a function object
  can carry state the program has no business reading.
- Attributes may be read but not assigned: programs change the world only
  through API calls.
- ``**`` needs numeric literals on both sides and a result of at most 4096 bits
  (``10 ** 10 ** 8`` is refused: its exponent is not a literal). ``'a' * 10**10``
  is admitted and left to the sandbox's memory limit.
- f-strings are admitted with their conversions (``!r`` only calls ``repr``)
  and format specs (they are expressions, checked like any other; a format spec
  cannot reach attributes, unlike ``str.format`` field names).
- ``*``/``**`` unpacking in calls and displays is admitted: its only risk is
  size, which the sandbox bounds.
- The walrus operator is refused: the programs never need it and it hides
  assignments inside expressions.

What Python does to the text after this check has read it (re-read for issue
#13, where ``ｆ = str.ｆｏｒｍａｔ`` passed because the check compared names as
written while CPython folds identifiers with NFKC):

- **Identifiers** are the only thing the compiler normalizes. Every rule here
  is applied to :func:`python_name` (the NFKC form), and an identifier not
  written in that form is refused outright (fullwidth letters, mathematical
  bold/italic, ligatures such as ``ﬁ``; the fullwidth low line the compiler
  refuses itself), so what is checked is what runs. Names, attributes, keywords, definitions and import
  aliases are all ``Name`` nodes and all go through the same rule.
- **Coding declarations** (``# -*- coding: utf-7 -*-``, rot13...): the
  sandbox compiles the same ``str`` the check parsed, and CPython ignores a
  cookie in a ``str`` source, so a cookie cannot make the compiler read
  different text (tested with utf-7).
- **String escapes** (``\\N{...}``, ``\\x5f``, implicit concatenation) can build
  any text, but text only becomes a name through ``getattr``/``setattr``/
  ``vars``/``globals``/``__import__``/``eval``, ``operator.attrgetter``,
  ``string.Formatter`` or a format field. The builtins among those are
  refused (everything outside :data:`SAFE_BUILTINS`, including ``help``,
  ``breakpoint``, ``type``, ``format``), modules cannot be imported, and
  ``format``/``format_map`` are refused as attributes in any spelling and
  however they are reached (``"".format``, ``str.format``, a variable).
  ``%``-formatting with a mapping only looks up keys.
- **Dunders and the class hierarchy** (``type.__subclasses__``, ``.mro``,
  frames, generators, tracebacks, code objects) are refused by attribute
  name after normalization.
- Behind the check, at run time (for code that got past it): API functions and
  the bounded ``range`` are sealed objects with no readable attribute, responses
  refuse every ``_`` attribute (so a format field on them cannot walk to
  ``__globals__``), and workers hold no secrets in their environment. C
  builtins still lead to the interpreter for code that may use dunders (e.g.
  ``print.__self__``); that is why the check stays the first wall.
"""

from __future__ import annotations

import builtins
import math
import re
import unicodedata
from collections.abc import Collection, Iterator
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

__all__ = [
    "Violation",
    "check_program",
    "SAFE_BUILTINS",
    "SAFE_METHODS",
    "is_safe_attribute",
    "python_name",
]

# Callable by name. Chosen for what call-chain programs do (count, convert,
# pick, sort, join) and because none of them can reach code, files or
# attributes: no getattr/vars/type/format/open/eval/exec/compile/__import__.
# In the sandbox ``range`` is bounded and ``print`` writes to a capped buffer.
SAFE_BUILTINS: frozenset[str] = frozenset(
    "abs all any bool dict enumerate float int isinstance len list max min print range reversed round set sorted str sum tuple zip".split()
)

# Callable as methods, on whatever object has them: string, list and dict
# helpers that return data. ``format``/``format_map`` are absent on purpose:
# ``"{0.__class__}".format(x)`` reads attributes from inside a string.
SAFE_METHODS: frozenset[str] = frozenset(
    "append capitalize casefold copy count endswith extend find get index insert isalnum isalpha isdigit items join "
    "keys lower lstrip pop remove replace rsplit rstrip setdefault sort split splitlines startswith strip title "
    "update upper values".split()
)

# Attributes that lead from ordinary objects into the interpreter: frames,
# code objects, generator and traceback internals (``g.gi_frame.f_back.f_globals``
# walks up to the host's globals without a single underscore), the class
# hierarchy, and string formatting.
_INTERNAL_ATTRIBUTE = re.compile(r"^(_|(f|gi|cr|ag|tb|co)_)")
_REFUSED_ATTRIBUTES = frozenset({"format", "format_map", "mro"})

_UNSAFE_BUILTINS = frozenset(dir(builtins)) - SAFE_BUILTINS - {"True", "False", "None", "Ellipsis"}

# fmt: off
_ADMITTED_STATEMENTS: tuple[type[cst.CSTNode], ...] = (
    cst.Expr, cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Pass, cst.Break, cst.Continue, cst.If, cst.For,
)
_ADMITTED_EXPRESSIONS: tuple[type[cst.CSTNode], ...] = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript,
    cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
    cst.Comparison, cst.BooleanOperation, cst.UnaryOperation, cst.BinaryOperation, cst.IfExp,
    cst.List, cst.Tuple, cst.Set, cst.Dict, cst.StarredElement,
    cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Ellipsis,
)
# fmt: on
_NUMBER = (cst.Integer, cst.Float)
_MAX_POWER_BITS = 4096  # literal powers beyond this are never data, only a way to burn CPU

_REASONS: dict[type[cst.CSTNode], str] = {
    cst.Import: "import is not allowed: every function the program needs is already defined",
    cst.ImportFrom: "import is not allowed: every function the program needs is already defined",
    cst.FunctionDef: "def is not allowed: call the API functions directly",
    cst.ClassDef: "class is not allowed",
    cst.Lambda: "lambda is not allowed",
    cst.While: "while is not allowed: loop with for over finite data",
    cst.With: "with is not allowed",
    cst.Try: "try is not allowed: errors are reported by the sandbox",
    cst.TryStar: "try is not allowed: errors are reported by the sandbox",
    cst.Global: "global is not allowed",
    cst.Nonlocal: "nonlocal is not allowed",
    cst.Del: "del is not allowed",
    cst.Raise: "raise is not allowed",
    cst.Assert: "assert is not allowed",
    cst.Return: "return is not allowed outside a function",
    cst.Await: "await is not allowed",
    cst.Yield: "yield is not allowed",
    cst.NamedExpr: "the walrus operator := is not allowed: use an assignment statement",
    cst.Match: "match is not allowed: use if",
}


@dataclass(frozen=True, order=True)
class Violation:
    """One refused construct: the 1-based line it starts on and why."""

    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


def check_program(code: str, allowed_functions: Collection[str]) -> list[Violation]:
    """Return the constructs of ``code`` the sandbox refuses (empty: admitted).

    ``allowed_functions`` are the API functions the program may call. Raises
    :class:`SyntaxError` if ``code`` is not valid Python (callers that need
    CPython's exact verdict compile the code first).
    """
    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError as error:
        raise SyntaxError(f"line {error.raw_line}: {error.message}") from None
    checker = _Checker(frozenset(allowed_functions))
    try:
        MetadataWrapper(module, unsafe_skip_copy=True).visit(checker)
    except RecursionError:  # the visitor recurses per nesting level; call chains are shallow
        return [Violation(1, "the program is nested too deeply to check")]
    return sorted(set(checker.finish()))


def is_safe_attribute(name: str) -> bool:
    """Whether a program may read attribute ``name`` (no underscores, no internals), as Python will read it."""
    name = python_name(name)
    return not _INTERNAL_ATTRIBUTE.match(name) and name not in _REFUSED_ATTRIBUTES


def python_name(written: str) -> str:
    """The identifier Python compiles for ``written``: CPython folds identifiers with NFKC.

    ``ｆｏｒｍａｔ`` (fullwidth), ``𝐟𝐨𝐫𝐦𝐚𝐭`` (mathematical bold) and ``ﬁ`` (a
    ligature) are ``format`` and ``fi`` to the interpreter; every rule here is
    applied to this form, never to the spelling.
    """
    return unicodedata.normalize("NFKC", written)


class _Checker(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, allowed_functions: frozenset[str]) -> None:
        super().__init__()
        self.allowed_functions = allowed_functions
        self.violations: list[Violation] = []
        self.bound: set[str] = set()  # every name the program assigns, anywhere
        self.bindings: set[int] = set()  # ids of Name nodes that are assignment targets
        self.labels: set[int] = set()  # ids of Name nodes that only label: keywords, attribute names
        self.callees: set[int] = set()  # ids of Name nodes called as functions
        self.loads: list[tuple[int, cst.Name]] = []  # names read, judged once all bindings are known

    # -- helpers -------------------------------------------------------------------------------

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def _refuse(self, node: cst.CSTNode, reason: str) -> None:
        self.violations.append(Violation(self._line(node), reason))

    def _bind(self, target: cst.BaseExpression) -> None:
        """Record the names a target binds; refuse targets that would set attributes."""
        if isinstance(target, cst.Name):
            self.bound.add(python_name(target.value))
            self.bindings.add(id(target))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value)
        elif isinstance(target, cst.Attribute):
            self._refuse(target, "assigning to an attribute is not allowed: change the world through API calls")

    def finish(self) -> Iterator[Violation]:
        yield from self.violations
        for line, node in self.loads:
            name = python_name(node.value)
            if name in self.bound:
                if id(node) in self.callees and name not in self.allowed_functions:
                    yield Violation(line, f"calling the variable {name!r} is not allowed: call functions by name")
            elif name in self.allowed_functions:
                if id(node) not in self.callees:
                    yield Violation(line, f"{name} is an API function: call it, do not use it as a value")
            elif name in _UNSAFE_BUILTINS:
                yield Violation(line, f"the builtin {name!r} is not available in the sandbox")

    # -- generic admit-list --------------------------------------------------------------------

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.BaseCompoundStatement, cst.BaseSmallStatement)):
            admitted = isinstance(node, _ADMITTED_STATEMENTS)
        elif isinstance(node, cst.BaseExpression):
            admitted = isinstance(node, _ADMITTED_EXPRESSIONS)
        else:
            admitted = True  # tokens, whitespace, arguments, elements: no behaviour of their own
        if not admitted:
            reason = _REASONS.get(type(node), f"{type(node).__name__} is not allowed")
            self._refuse(node, reason)
            return False  # one reason per construct is enough
        return super().on_visit(node)

    # -- specific rules ------------------------------------------------------------------------

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target)
        if isinstance(node.operator, cst.PowerAssign):
            self._refuse(node, "**= is not allowed: ** needs two numeric literals")

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        if node.asynchronous is not None:
            self._refuse(node, "async for is not allowed")
        self._bind(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        if node.asynchronous is not None:
            self._refuse(node, "async comprehensions are not allowed")
        self._bind(node.target)

    def visit_Name(self, node: cst.Name) -> None:
        name = python_name(node.value)
        if name != node.value:  # every identifier: names, attributes, keywords, definitions, aliases
            self._refuse(node, f"the identifier {node.value!r} is not written as Python reads it ({name!r}): write it in plain form")
        if id(node) in self.labels:
            return
        if name.startswith("__"):
            self._refuse(node, f"the name {name!r} is not allowed: dunder names reach the interpreter")
        elif id(node) not in self.bindings:
            self.loads.append((self._line(node), node))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.labels.add(id(node.keyword))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.labels.add(id(node.attr))
        name = python_name(node.attr.value)
        if not is_safe_attribute(name):
            self._refuse(node, f"the attribute .{name} is not allowed: only data fields and listed methods")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name):
            self.callees.add(id(func))
        elif isinstance(func, cst.Attribute):
            method = python_name(func.attr.value)
            if method not in SAFE_METHODS and is_safe_attribute(method):
                self._refuse(node, f"the method .{method}() is not allowed: only common str, list and dict methods")
        else:
            self._refuse(node, "only functions called by name and listed methods may be called")

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if not isinstance(node.operator, cst.Power):
            return
        base, exponent = node.left, node.right
        if not (isinstance(base, _NUMBER) and isinstance(exponent, _NUMBER)):
            self._refuse(node, "** is only allowed between two numeric literals")
        elif isinstance(base, cst.Integer) and isinstance(exponent, cst.Integer):
            bits = exponent.evaluated_value * math.log2(abs(base.evaluated_value) or 1)
            if bits > _MAX_POWER_BITS:
                self._refuse(node, f"the integer {base.value} ** {exponent.value} is too large")
