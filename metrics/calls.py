"""Dataflow of a generated program: its API calls, standardized, with their dependencies.

The program is parsed once (:func:`gqlbench.program.read_program`: Python's
verdict, then LibCST's tree and positions) and its LibCST tree walked once,
top to bottom, by :class:`DataflowVisitor`. Every API call gets a token naming it by function and
occurrence (``GET_search#1``), and every argument is *standardized* so that
two programs that do the same thing compare equal even when written
differently:

- a variable assigned from an expression (``r = GET_search(...)``,
  ``ids = [t.id for t in r.items]``) is inlined into its uses, so a response
  variable becomes its call's token and a plain local its standardized value;
- an API call nested in an argument is replaced by its token;
- comprehension variables are renamed by position (``$0``, ``$1``...);
- loop variables and any other name stay as written.

The standardized argument is rendered canonically (through :mod:`ast`, so
formatting, redundant parentheses and quote style disappear, and an integral
float is written as an int). Two arguments are equal when their renderings are.
The canonical tree is read once more, there and then, for what the errors and
F1s need: the responses the argument reads and its literal value
(:class:`~.sources.Argument`).

Inlining can make an argument exponentially larger than the program, so the
walk counts what it renders and stops at the bounds of :mod:`.limits`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange

from gqlbench.metrics.limits import DEFAULT_LIMITS, Limits, source_too_large
from gqlbench.metrics.sources import Argument, read_argument, read_canonical
from gqlbench.program import one_reading, read_program
from gqlbench.records import FunctionSpec
from gqlbench.specs.names import ENDPOINT_NAME, looks_like_endpoint_name

__all__ = ["Argument", "ApiCall", "ProgramAnalysis", "DataflowVisitor", "TooLarge", "analyze", "is_api_name", "HTTP_VERB_NAME"]

HTTP_VERB_NAME = ENDPOINT_NAME  # the catalog's one rule (gqlbench.specs.names)
"""Names that count as API calls even when the catalog does not know them (hallucinated endpoints)."""


def is_api_name(name: str, functions: Mapping[str, FunctionSpec]) -> bool:
    """Whether a bare callee name is an API call: a known function or an HTTP-verb name."""
    return name in functions or looks_like_endpoint_name(name)


@dataclass(frozen=True)
class ApiCall:
    """One API call of a program, in program order, with standardized arguments."""

    index: int  # position in program order, 0-based
    name: str
    token: str  # "<name>#<occurrence>", 1-based: what references to its response become
    args: Mapping[str, str]  # parameter name -> canonical standardized expression
    depends_on: tuple[int, ...] = ()  # indices of the calls whose responses the arguments use
    line: int = 0
    source: str = ""  # the call as written
    arguments: Mapping[str, Argument] = field(default_factory=dict, compare=False, repr=False)  # args, read structurally
    positional: int = field(default=0, compare=False, repr=False)  # arguments passed by position (``*xs`` not counted)

    def argument(self, key: str) -> Argument:
        """The argument passed as ``key``, with the responses it reads and its literal value (read when it was standardized)."""
        found = self.arguments.get(key)
        return found if found is not None else read_argument(self.args[key])

    def render(self) -> str:
        """``GET_x(a='b', id=GET_search#1.results[0].id)``: the call as it is compared."""
        args = ", ".join(f"{k}={v}" for k, v in self.args.items())
        return f"{self.name}({args})"


@dataclass(frozen=True)
class ProgramAnalysis:
    """What the metrics need to know about one program."""

    code: str
    calls: tuple[ApiCall, ...] = ()
    parse_error: str | None = None
    too_large: str | None = None  # which bound of Limits the program passed (then it was not analysed)

    @property
    def names(self) -> list[str]:
        """The API call names in program order."""
        return [c.name for c in self.calls]

    @property
    def edges(self) -> list[tuple[int, int]]:
        """(producer, consumer) pairs: the consumer's arguments use the producer's response."""
        return [(dep, c.index) for c in self.calls for dep in c.depends_on]

    def components(self) -> list[tuple[str, ...]]:
        """Weakly connected components of the call graph, each as call names in program order."""
        parent = list(range(len(self.calls)))

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for a, b in self.edges:
            parent[root(a)] = root(b)
        groups: dict[int, list[str]] = {}
        for call in self.calls:  # calls are in program order, so each group is too
            groups.setdefault(root(call.index), []).append(call.name)
        return [tuple(g) for g in groups.values()]


# ---------------------------------------------------------------------------
# Standardization, step 1 (LibCST): substitute variables and nested calls.


@dataclass
class _Binding:
    """What a variable stands for: its standardized value and the calls it depends on."""

    value: cst.BaseExpression
    depends_on: frozenset[int]
    size: int  # syntax nodes of the value with every variable inlined


def _bound_names(target: cst.CSTNode) -> list[str]:
    """Names bound by an assignment or loop target (``a``, ``a, (b, c)``, ``*rest``)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _bound_names(el.value)]
    if isinstance(target, cst.StarredElement):
        return _bound_names(target.value)
    return []  # attributes and subscripts bind no variable


def _comprehension_names(node: cst.BaseComp) -> set[str]:
    names: set[str] = set()
    comp_for: cst.CompFor | None = node.for_in
    while comp_for is not None:
        names.update(_bound_names(comp_for.target))
        comp_for = comp_for.inner_for_in
    return names


def _parenthesize(expr: cst.BaseExpression) -> cst.BaseExpression:
    """Wrap an inlined value in parentheses so the surrounding operators keep their meaning."""
    return expr.with_changes(lpar=[cst.LeftParen(), *expr.lpar], rpar=[*expr.rpar, cst.RightParen()])


class _ComprehensionScopes:
    """Track the names bound by the comprehensions being visited (for visitors and transformers).

    A comprehension's variables hide the program's variables in its element,
    conditions and inner loops, but not in its first iterable, which Python
    evaluates in the enclosing scope.
    """

    def __init__(self, shadowed: Iterable[str] = ()) -> None:
        self._scopes: list[set[str]] = [set(shadowed)]
        self._outermost: set[int] = set()  # ids of each comprehension's first ``for``
        self._lifted: list[set[str]] = []

    def shadowed_names(self) -> set[str]:
        return set().union(*self._scopes)

    def _push(self, node: cst.BaseComp) -> None:
        self._scopes.append(_comprehension_names(node))
        self._outermost.add(id(node.for_in))

    def _pop(self, node: cst.BaseComp) -> None:
        self._scopes.pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _push
    leave_ListComp_for_in = leave_SetComp_for_in = leave_DictComp_for_in = leave_GeneratorExp_for_in = _pop

    def visit_CompFor_iter(self, node: cst.CompFor) -> None:
        if id(node) in self._outermost:
            self._lifted.append(self._scopes.pop())

    def leave_CompFor_iter(self, node: cst.CompFor) -> None:
        if id(node) in self._outermost:
            self._scopes.append(self._lifted.pop())


class _Substitute(_ComprehensionScopes, cst.CSTTransformer):
    """Replace bound variables by their values and recorded API calls by their tokens."""

    def __init__(
        self,
        env: Mapping[str, _Binding],
        call_refs: Mapping[int, tuple[int, str]],
        shadowed: Iterable[str] = (),
    ) -> None:
        cst.CSTTransformer.__init__(self)
        _ComprehensionScopes.__init__(self, shadowed)
        self.env = env
        self.call_refs = call_refs  # id(call node) -> (call index, placeholder name)
        self.depends_on: set[int] = set()
        self.size = 0  # syntax nodes of the result: those visited, plus what inlining adds
        self._lambda_params: list[set[str]] = []
        self._not_variables: set[int] = set()  # ids of Name nodes that are attribute/keyword names

    def _shadowed(self, name: str) -> bool:
        return any(name in scope for scope in (*self._scopes, *self._lambda_params))

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.size += 1
        return super().on_visit(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._not_variables.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._not_variables.add(id(node.keyword))

    def visit_Lambda(self, node: cst.Lambda) -> None:
        params = node.params
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
        self._lambda_params.append({p.name.value for p in every})

    def leave_Lambda(self, original_node: cst.Lambda, updated_node: cst.Lambda) -> cst.BaseExpression:
        self._lambda_params.pop()
        return updated_node

    def visit_Call(self, node: cst.Call) -> bool:
        return id(node) not in self.call_refs  # a recorded call is replaced whole, by its token

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        ref = self.call_refs.get(id(original_node))
        if ref is None:
            return updated_node
        index, placeholder = ref
        self.depends_on.add(index)
        return cst.Name(placeholder, lpar=updated_node.lpar, rpar=updated_node.rpar)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        if id(original_node) in self._not_variables or self._shadowed(original_node.value):
            return updated_node
        binding = self.env.get(original_node.value)
        if binding is None:
            return updated_node
        self.depends_on.update(binding.depends_on)
        self.size += binding.size
        return _parenthesize(binding.value)


# ---------------------------------------------------------------------------
# Standardization, step 2 (ast): rename comprehension variables, render canonically.


class _Canonicalize(ast.NodeTransformer):
    """Rename comprehension variables by position and placeholders to tokens; unify numbers."""

    def __init__(self, tokens: Mapping[str, str]) -> None:
        self.tokens = tokens
        self._scopes: list[dict[str, str]] = []
        self._counter = 0

    def visit_Name(self, node: ast.Name) -> ast.AST:
        for scope in reversed(self._scopes):
            if node.id in scope:
                return ast.copy_location(ast.Name(id=scope[node.id], ctx=node.ctx), node)
        if node.id in self.tokens:
            return ast.copy_location(ast.Name(id=self.tokens[node.id], ctx=node.ctx), node)
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        value = node.value
        if type(value) is float and value.is_integer():
            return ast.copy_location(ast.Constant(value=int(value)), node)
        return node

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> ast.AST:
        # The first iterable is evaluated outside the comprehension's scope.
        node.generators[0].iter = self.visit(node.generators[0].iter)
        scope: dict[str, str] = {}
        for generator in node.generators:
            for name in ast.walk(generator.target):
                if isinstance(name, ast.Name) and name.id not in scope:
                    scope[name.id] = f"${self._counter}"
                    self._counter += 1
        self._scopes.append(scope)
        for i, generator in enumerate(node.generators):
            generator.target = self.visit(generator.target)
            if i:
                generator.iter = self.visit(generator.iter)
            generator.ifs = [self.visit(cond) for cond in generator.ifs]
        if isinstance(node, ast.DictComp):
            node.key, node.value = self.visit(node.key), self.visit(node.value)
        else:
            node.elt = self.visit(node.elt)
        self._scopes.pop()
        return node

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension


_EMPTY_MODULE = cst.Module(body=[])


def _canonical(expr: cst.BaseExpression, tokens: Mapping[str, str]) -> Argument:
    """The canonical form of a standardized expression (equal text means equal syntax tree), read structurally."""
    code = _EMPTY_MODULE.code_for_node(expr)
    try:
        tree = ast.parse(f"(\n{code}\n)", mode="eval")
    except SyntaxError:  # LibCST accepted something ast does not: compare the text, minus spaces
        return Argument(re.sub(r"\s+", "", code))
    return read_canonical(_Canonicalize(tokens).visit(tree))


# ---------------------------------------------------------------------------
# The walk over the program.


def _callee_name(call: cst.Call) -> str | None:
    return call.func.value if isinstance(call.func, cst.Name) else None


class DataflowVisitor(_ComprehensionScopes, cst.CSTVisitor):
    """Collect API calls in program order with standardized arguments and dependencies.

    LibCST visits statements top to bottom and, inside an expression, leaves
    the inner (argument) calls before the outer call, left to right, so
    ``leave_Call`` sees the calls exactly in program order. Assignments are
    recorded when their statement is left, i.e. after the calls in their value.
    """

    def __init__(
        self,
        functions: Mapping[str, FunctionSpec],
        placeholder_prefix: str,
        limits: Limits | None = None,
        positions: Mapping[cst.CSTNode, CodeRange] | None = None,
    ) -> None:
        cst.CSTVisitor.__init__(self)
        _ComprehensionScopes.__init__(self)
        self.functions = functions
        self.prefix = placeholder_prefix
        self.limits = limits
        self.positions = positions or {}  # where each node is (Program.positions); calls get line 0 without
        self.expanded = 0  # syntax nodes of the arguments rendered so far
        self.calls: list[ApiCall] = []
        self.env: dict[str, _Binding] = {}
        self._call_refs: dict[int, tuple[int, str]] = {}  # id(call node) -> (index, placeholder)
        self._tokens: dict[str, str] = {}  # placeholder -> token
        self._occurrences: dict[str, int] = {}
        self._nodes: list[cst.Call] = []  # keep recorded nodes alive so their ids stay unique

    # -- standardization ---------------------------------------------------------

    def standardize(self, expr: cst.BaseExpression) -> _Binding:
        """``expr`` with variables and recorded calls substituted, the calls it uses, and its size."""
        substitute = _Substitute(self.env, self._call_refs, self.shadowed_names())
        value = expr.visit(substitute)
        return _Binding(value, frozenset(substitute.depends_on), substitute.size)  # type: ignore[arg-type]

    def _arguments(self, name: str, node: cst.Call) -> tuple[dict[str, Argument], frozenset[int]]:
        spec = self.functions.get(name)
        params = spec.param_names if spec is not None else []
        args: dict[str, Argument] = {}
        depends: set[int] = set()
        position = 0
        for arg in node.args:
            if arg.keyword is not None:
                key = arg.keyword.value
            elif arg.star:  # *xs / **kw: kept under the star itself
                key = arg.star
            else:
                key = params[position] if position < len(params) else f"_{position}"
                position += 1
            standard = self.standardize(arg.value)
            self.expanded += standard.size
            if self.limits is not None and self.expanded > self.limits.max_expanded:
                raise TooLarge(f"its call arguments grow past {self.limits.max_expanded:,} syntax nodes once variables are inlined")
            args[key] = _canonical(standard.value, self._tokens)
            depends |= standard.depends_on
        return args, frozenset(depends)

    # -- calls -----------------------------------------------------------------

    def leave_Call(self, original_node: cst.Call) -> None:
        name = _callee_name(original_node)
        if name is None or not is_api_name(name, self.functions):
            return
        if self.limits is not None and len(self.calls) == self.limits.max_calls:
            raise TooLarge(f"the program makes more than {self.limits.max_calls:,} API calls")
        args, depends = self._arguments(name, original_node)
        index = len(self.calls)
        occurrence = self._occurrences[name] = self._occurrences.get(name, 0) + 1
        token = f"{name}#{occurrence}"
        placeholder = f"{self.prefix}{index}"
        self._call_refs[id(original_node)] = (index, placeholder)
        self._tokens[placeholder] = token
        self._nodes.append(original_node)
        self.calls.append(
            ApiCall(
                index=index,
                name=name,
                token=token,
                args={key: argument.text for key, argument in args.items()},
                depends_on=tuple(sorted(depends)),
                line=where.start.line if (where := self.positions.get(original_node)) is not None else 0,
                source=_EMPTY_MODULE.code_for_node(original_node),
                arguments=args,
                positional=sum(1 for arg in original_node.args if arg.keyword is None and not arg.star),
            )
        )

    # -- bindings --------------------------------------------------------------

    def _bind(self, targets: Sequence[cst.BaseExpression], value: cst.BaseExpression | None) -> None:
        """``x = value`` binds x to the standardized value; any other target unbinds its names."""
        binding = None
        if value is not None:
            binding = self.standardize(value)
        for target in targets:
            if isinstance(target, cst.Name) and binding is not None:
                self.env[target.value] = binding
            else:
                for name in _bound_names(target):
                    self.env.pop(name, None)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        self._bind([t.target for t in original_node.targets], original_node.value)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        self._bind([original_node.target], original_node.value)

    def leave_NamedExpr(self, original_node: cst.NamedExpr) -> None:
        self._bind([original_node.target], original_node.value)

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        self._bind([original_node.target], None)  # ``x += 1``: x is no longer a known value

    def visit_For_body(self, node: cst.For) -> None:
        self._bind([node.target], None)  # loop variables stay as written

    def visit_With_body(self, node: cst.With) -> None:
        self._bind([item.asname.name for item in node.items if item.asname is not None], None)


def _placeholder_prefix(identifiers: Iterable[str]) -> str:
    """A name prefix no identifier of the program starts with, for call placeholders."""
    prefix = "_call_"
    while any(n.startswith(prefix) for n in identifiers):
        prefix = "_" + prefix
    return prefix


def _python_syntax_error(code: str) -> str | None:
    """Why ``code`` does not parse: Python's verdict, checked first (it locates errors better than LibCST and rejects
    pathologically nested code, which crashes LibCST's native parser, cleanly), then LibCST's."""
    return read_program(code).syntax_error


class TooLarge(Exception):
    """Raised inside the walk when a program passes a bound; :func:`analyze` records it."""


def analyze(code: str, functions: Mapping[str, FunctionSpec], limits: Limits | None = DEFAULT_LIMITS) -> ProgramAnalysis:
    """Extract the API calls of ``code`` (parsed once, :func:`gqlbench.program.read_program`); a syntax error is recorded, never raised.

    A program parses when both Python and LibCST accept it. A program beyond
    ``limits`` (see :mod:`.limits`; ``None``: no bound, for trusted gold
    programs) is recorded as ``too_large`` with no calls, and not parsed further.
    """
    if limits is not None and (reason := source_too_large(code, limits)) is not None:
        return ProgramAnalysis(code=code, too_large=reason)
    with one_reading():
        error = _python_syntax_error(code)
        program = read_program(code)
    if program.module is None:
        return ProgramAnalysis(code=code, parse_error=error)
    try:
        visitor = DataflowVisitor(functions, _placeholder_prefix(program.identifiers), limits, program.positions)
        program.module.visit(visitor)
    except RecursionError:
        return ProgramAnalysis(code=code, parse_error="too deeply nested to analyze")
    except TooLarge as exc:
        return ProgramAnalysis(code=code, too_large=str(exc))
    return ProgramAnalysis(code=code, calls=tuple(visitor.calls))
