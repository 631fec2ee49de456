"""Checks of a domain, for ``gqlbench domains check``.

Each check is a small function ``check_x(name) -> list[Problem]`` (empty
when all is well; each :class:`~gqlbench.records.Problem` prints as one
line); :func:`check_domain` runs them all.
The catalog-level checks look at ``specs/<name>.json`` and
``schemas/<name>/*.graphql``; sample-level checks (gold code against the
catalog) take the benchmark folder as well.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphql import (
    GraphQLList,
    GraphQLObjectType,
    GraphQLSchema,
    build_ast_schema,
    get_nullable_type,
    validate_schema,
)

from gqlbench.dataset import Errata, default_data_dir, load_errata, load_samples
from gqlbench.errors import GqlbenchError, closest
from gqlbench.program import read_program
from gqlbench.records import FunctionSpec, Problem, Sample
from gqlbench.schemas import (
    build_schema,
    endpoints_with_sdl,
    merge_notes,
    parse_sdl,
    query_fields,
)
from gqlbench.schemas.catalog import endpoint_sdl_path
from gqlbench.schemas.merge import PRELUDE
from gqlbench.specs import list_domains, load_specs, spec_problems, specs_path
from gqlbench.specs.catalog import unknown_domain
from gqlbench.specs.names import looks_like_endpoint_name

__all__ = [
    "CATALOG_CHECKS",
    "SAMPLE_CHECKS",
    "check_specs",
    "check_endpoint_sdl",
    "check_domain_merge",
    "check_gold_code",
    "check_gold_executes",
    "check_domain",
    "known_reason",
    "split_known",
]


def check_specs(name: str) -> list[Problem]:
    """Signatures are well-formed; samples that disagreed on one are listed."""
    return spec_problems(name)


def check_endpoint_sdl(name: str) -> list[Problem]:
    """Each endpoint file parses, declares its own Query field only, builds alone and has a signature."""
    problems = []
    try:
        specs = set(load_specs(name)) if specs_path(name) else set()
    except GqlbenchError:
        specs = set()  # check_specs reports the unreadable file
    for function in endpoints_with_sdl(name):
        path = endpoint_sdl_path(name, function)
        assert path is not None
        try:
            text = path.read_text(encoding="utf-8")
            fields = query_fields(parse_sdl(text, str(path)))
            build_ast_schema(parse_sdl(PRELUDE + text, str(path)))
        except (GqlbenchError, TypeError) as exc:
            problems.append(Problem(subject=None, where=str(path), message=f"does not build: {exc}"))
            continue
        if fields != [function]:
            problems.append(
                Problem(
                    subject=None,
                    where=str(path),
                    message=f"declares Query fields {fields}; an endpoint file declares exactly its own, {function!r}",
                )
            )
        if specs and function not in specs:
            problems.append(
                Problem(subject=None, where=str(path), message=f"{function!r} has a response schema but no signature in {specs_path(name)}")
            )
    return problems


def check_domain_merge(name: str) -> list[Problem]:
    """All endpoint files merge into one valid schema; types shared by endpoints must agree.

    Valid as GraphQL validates it when a query runs (``validate_schema``):
    building alone accepts names that every execution then refuses, such as
    an argument ``__class__``.
    """
    paths = [endpoint_sdl_path(name, f) for f in endpoints_with_sdl(name)]
    texts = [p.read_text(encoding="utf-8") for p in paths if p is not None]
    try:
        notes = merge_notes(texts)
        schema = build_schema(name)
    except (GqlbenchError, TypeError) as exc:
        return [Problem(subject=None, where=name, message=f"the endpoint schemas do not merge: {exc}")]
    problems = [Problem(subject=None, where=name, message=f"endpoints define a type differently: {note}") for note in notes]
    return problems + [
        Problem(subject=None, where=name, message=f"the merged schema is not valid GraphQL, so every call would fail: {error.message}")
        for error in validate_schema(schema)
    ]


CATALOG_CHECKS: tuple[Callable[[str], list[Problem]], ...] = (check_specs, check_endpoint_sdl, check_domain_merge)


def check_domain(name: str, data_dir: Path | None = None) -> list[Problem]:
    """Every problem found with domain ``name``.

    ``data_dir`` is the benchmark folder whose samples sample-level checks use
    (None: the domain's bundled samples ``gqlbench.data/<name>/`` if there are
    any, else the bundled benchmark).
    """
    if name not in list_domains():
        raise unknown_domain(name)
    problems = [problem for check in CATALOG_CHECKS for problem in check(name)]
    return problems + [problem for check in SAMPLE_CHECKS for problem in check(name, data_dir)]


def known_reason(problem: Problem, errata: Errata) -> str | None:
    """The errata's reason when ``problem`` is about a sample or function the benchmark documents.

    A problem is matched to the errata by its subject (sample id or function
    name); a problem the errata do not explain stays new.
    """
    return errata.about(problem.subject) if problem.subject is not None else None


def split_known(problems: list[Problem], name: str, data_dir: Path | None = None) -> tuple[list[Problem], list[tuple[Problem, str]]]:
    """``(new problems, (known problem, errata reason) pairs)`` for domain ``name``."""
    _, errata = _domain_samples(name, data_dir)
    new, known = [], []
    for problem in problems:
        reason = known_reason(problem, errata)
        if reason is None:
            new.append(problem)
        else:
            known.append((problem, reason))
    return new, known


# ---------------------------------------------------------------------------
# Sample-level checks: the gold programs of a benchmark folder against the catalog.


class _NoSchema(str):
    """The response of the named endpoint, which has no response schema."""


def _domain_samples(name: str, data_dir: Path | None) -> tuple[list[Sample], Errata]:
    """The samples of domain ``name`` in ``data_dir`` (see :func:`check_domain` for the default)."""
    if data_dir is None and (default_data_dir().parent / name).is_dir():
        data_dir = default_data_dir().parent / name  # a domain that ships its own samples
    return [s for s in load_samples(data_dir) if s.domain == name], load_errata(data_dir)


def _unwrap(kind: Any) -> Any:
    return get_nullable_type(kind) if kind is not None and not isinstance(kind, _NoSchema) else kind


class _GoldWalker:
    """Follows response values through a gold program and reports what does not exist.

    Types flow from a call's response (its ``Query`` field type) into variables,
    loop and comprehension variables, attribute reads and subscripts; each
    attribute read on an object type must name one of its fields. Anything the
    walker cannot type (string methods, ``len(...)``, ``JSON`` values) is not
    checked, so every reported problem is certain.
    """

    def __init__(self, subject: str, where: str, functions: dict[str, FunctionSpec], schema: GraphQLSchema | None) -> None:
        self.subject = subject
        self.where = where
        self.functions = functions
        self.queries = schema.query_type.fields if schema is not None and schema.query_type else {}
        self.env: dict[str, Any] = {}
        self.problems: list[Problem] = []

    def report(self, node: ast.AST, text: str) -> None:
        self.problems.append(Problem(subject=self.subject, where=f"{self.where}: line {getattr(node, 'lineno', '?')}", message=text))

    # statements ---------------------------------------------------------
    def run(self, tree: ast.Module) -> list[Problem]:
        for statement in tree.body:
            self.statement(statement)
        return self.problems

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Assign):
            kind = self.type_of(node.value)
            for target in node.targets:
                self.bind(target, kind)
        elif isinstance(node, ast.For):
            self.bind(node.target, self.element(self.type_of(node.iter)))
            for inner in [*node.body, *node.orelse]:
                self.statement(inner)
        elif isinstance(node, ast.If):
            self.type_of(node.test)
            for inner in [*node.body, *node.orelse]:
                self.statement(inner)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    self.statement(child)
                elif isinstance(child, ast.expr):
                    self.type_of(child)

    def bind(self, target: ast.expr, kind: Any) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = kind
        else:  # tuples, attributes, subscripts: no type to follow, but their reads are checked
            for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
                self.env[name] = None
            if not isinstance(target, (ast.Tuple, ast.List)):
                self.type_of(target)

    # expressions --------------------------------------------------------
    def element(self, kind: Any) -> Any:
        kind = _unwrap(kind)
        return _unwrap(kind.of_type) if isinstance(kind, GraphQLList) else None

    def type_of(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Name):
            return self.env.get(node.id)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Subscript):
            kind = _unwrap(self.type_of(node.value))
            self.type_of(node.slice)
            if isinstance(kind, _NoSchema):
                self.report(node, f"indexes {ast.unparse(node.value)}, but {kind} has no response schema")
            elif isinstance(kind, GraphQLList):
                return kind if isinstance(node.slice, ast.Slice) else _unwrap(kind.of_type)
            return None
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self.comprehension(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.type_of(child)
            elif isinstance(child, ast.comprehension):  # pragma: no cover - handled above
                self.type_of(child.iter)
        return None

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> Any:
        saved = dict(self.env)
        for generator in node.generators:
            self.bind(generator.target, self.element(self.type_of(generator.iter)))
            for condition in generator.ifs:
                self.type_of(condition)
        if isinstance(node, ast.DictComp):
            self.type_of(node.key)
            self.type_of(node.value)
            result = None
        else:
            item = self.type_of(node.elt)
            result = GraphQLList(item) if item is not None and not isinstance(item, _NoSchema) else None
        self.env = saved
        return result

    def attribute(self, node: ast.Attribute) -> Any:
        kind = _unwrap(self.type_of(node.value))
        source = ast.unparse(node.value)
        if isinstance(kind, _NoSchema):
            self.report(node, f"reads .{node.attr} of {source}, but {kind} has no response schema")
        elif isinstance(kind, GraphQLList):
            self.report(node, f"reads .{node.attr} of {source}, which is a list ({kind}); index or loop over it first")
        elif isinstance(kind, GraphQLObjectType):
            field = kind.fields.get(node.attr)
            if field is None:
                close = closest(node.attr, kind.fields)
                hint = f"did you mean {', '.join(close)}?" if close else f"its fields: {', '.join(sorted(kind.fields))}"
                self.report(node, f"{source}.{node.attr}: type {kind.name} has no field {node.attr!r}; {hint}")
                return None
            return _unwrap(field.type)
        return None

    def call(self, node: ast.Call) -> Any:
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            self.type_of(arg)
        if not isinstance(node.func, ast.Name):
            self.type_of(node.func)
            return None
        name = node.func.id
        spec = self.functions.get(name)
        if spec is None:
            if looks_like_endpoint_name(name):
                close = closest(name, self.functions, n=1, cutoff=0.6)
                self.report(node, f"calls {name}, which the domain does not have" + (f"; did you mean {close[0]}?" if close else ""))
            return None
        params = spec.param_names
        given = params[: len(node.args)]
        if len(node.args) > len(params):
            self.report(node, f"{name} takes {len(params)} parameter(s) but is called with {len(node.args)} positional argument(s)")
        for keyword in node.keywords:
            if keyword.arg is None:
                continue  # **mapping: counted in has_star below
            if keyword.arg not in spec.parameters.properties:
                close = closest(keyword.arg, params, n=1, cutoff=0.6)
                self.report(node, f"{name} has no parameter {keyword.arg!r}" + (f"; did you mean {close[0]!r}?" if close else ""))
            given.append(keyword.arg)
        has_star = any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args)
        missing = [p for p in spec.parameters.required if p not in given]
        if missing and not has_star:
            self.report(node, f"{name} is called without its required parameter(s) {', '.join(missing)}")
        query = self.queries.get(name)
        return _unwrap(query.type) if query is not None else _NoSchema(name)


def check_gold_code(name: str, data_dir: Path | None = None) -> list[Problem]:
    """Each sample's gold code parses, calls known functions with known parameters and reads existing fields.

    Samples the benchmark's errata list as invalid gold are skipped (their
    defect is already documented).
    """
    samples, errata = _domain_samples(name, data_dir)
    try:
        functions = load_specs(name)
    except GqlbenchError:
        return []  # check_specs reports the missing or unreadable specs
    problems: list[Problem] = []
    for sample in samples:
        where = f"sample {sample.id} ({sample.benchmark})"
        if errata.why_invalid(sample.id):
            continue
        program = read_program(sample.gold_code)
        if program.tree is None:
            assert program.problem is not None
            line = f": line {program.problem.line}" if program.problem.line is not None else ""
            message = f"gold code does not parse: {program.problem.message}"
            problems.append(Problem(subject=sample.id, where=f"{where}{line}", message=message))
            continue
        try:
            schema = build_schema(name, [c.name for c in program.calls if c.name in functions])
        except GqlbenchError as exc:
            problems.append(Problem(subject=sample.id, where=where, message=f"the schema of its endpoints does not build: {exc}"))
            schema = None
        problems += _GoldWalker(sample.id, where, functions, schema).run(program.tree)
    return problems


def check_gold_executes(name: str, data_dir: Path | None = None, seed: int = 0) -> list[Problem]:
    """Each sample's gold code runs to the end on the domain's mocks, in the sandbox.

    Skipped, because their failure is already documented in the errata:
    invalid gold, and gold that passes an undefined name positionally.
    """
    from gqlbench.mocks.sandbox.pool import (  # mocks are needed only for this check
        Job,
        SandboxPool,
    )

    samples, errata = _domain_samples(name, data_dir)
    runnable = [s for s in samples if not errata.why_invalid(s.id) and s.id not in errata.positional_gold_args]
    if not runnable:
        return []
    with SandboxPool() as pool:
        traces = pool.run_many([Job(code=s.gold_code, domain=name, seed=seed, sample_id=s.id, request=s.utterance) for s in runnable])
    problems = []
    for sample, trace in zip(runnable, traces, strict=True):
        if trace.error is not None:
            line = f": line {trace.error.line}" if trace.error.line else ""
            problems.append(
                Problem(
                    subject=sample.id,
                    where=f"sample {sample.id} ({sample.benchmark}){line}",
                    message=f"gold code fails on the mocks (seed {seed}) with {trace.error.kind}: {trace.error.message}",
                )
            )
    return problems


SAMPLE_CHECKS: tuple[Callable[[str, Path | None], list[Problem]], ...] = (check_gold_code, check_gold_executes)
