"""Checks of a domain, for ``gqlbench domains check``.

Each check is a small function ``check_x(name) -> list[Problem]`` (empty
when all is well; each :class:`~gqlbench.records.Problem` prints as one
line); :func:`check_domain` runs them all.
The catalog-level checks look at ``specs/<name>.json`` and
``schemas/<name>/*.graphql``; sample-level checks (gold code against the
catalog) take the benchmark folder as well.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from graphql import build_ast_schema, validate_schema

from gqlbench.dataset import Errata, default_data_dir, load_errata, load_samples
from gqlbench.errors import GqlbenchError, closest
from gqlbench.metrics.calls import ApiCall, analyze, is_api_name
from gqlbench.metrics.fields import Catalog, check_fields
from gqlbench.program import one_reading, read_program
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

if TYPE_CHECKING:
    from gqlbench.mocks.coherence import Pair

__all__ = [
    "CATALOG_CHECKS",
    "SAMPLE_CHECKS",
    "check_specs",
    "check_endpoint_sdl",
    "check_world_file",
    "check_domain_merge",
    "check_world_coherence",
    "coherence_problem",
    "check_gold_code",
    "check_gold_executes",
    "gold_code_problems",
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


def check_world_file(name: str) -> list[Problem]:
    """The domain's world loads: each mistake of its file is a problem (its line names the file, line and field).

    The world is made in a sandbox worker, as for a program: a catalog's behaviour is never imported here.
    """
    from gqlbench.mocks.sandbox.pool import Job, run_program

    try:
        run_program(Job(code="", domain=name))
    except GqlbenchError as exc:
        return [Problem(subject=None, where="", message=line) for line in str(exc).splitlines()]
    return []


def coherence_problem(domain: str, pair: Pair) -> Problem:
    """A failed probe as a problem; its subject is the pair (``GET_a → GET_b``), which a benchmark's errata may document."""
    subject = f"{pair.first} → {pair.then}" if pair.then else pair.first
    fix = f"; to fix, {pair.fix}" if pair.fix else ""
    return Problem(subject=subject, where=f"{domain}: world coherence: {pair.label}", message=f"fails: {pair.reason}{fix}")


def check_world_coherence(name: str) -> list[Problem]:
    """The world's self-test: each endpoint pair whose chained calls disagree (:mod:`gqlbench.mocks.coherence`).

    The probes run in a sandbox worker, as programs do: a catalog's world behaviour is never imported here.
    """
    from gqlbench.mocks.coherence import probe_in_sandbox  # the world is needed only for this check

    try:
        if not endpoints_with_sdl(name):
            return []
        pairs = probe_in_sandbox(name)
    except GqlbenchError as exc:
        return [Problem(subject=None, where=name, message=f"the mock world does not load: {exc}")]
    return [coherence_problem(name, pair) for pair in pairs if not pair.passed]


CATALOG_CHECKS: tuple[Callable[[str], list[Problem]], ...] = (
    check_specs,
    check_endpoint_sdl,
    check_domain_merge,
    check_world_file,
    check_world_coherence,
)


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


def _domain_samples(name: str, data_dir: Path | None) -> tuple[list[Sample], Errata]:
    """The samples of domain ``name`` in ``data_dir`` (see :func:`check_domain` for the default)."""
    if data_dir is None and (default_data_dir().parent / name).is_dir():
        data_dir = default_data_dir().parent / name  # a domain that ships its own samples
    return [s for s in load_samples(data_dir) if s.domain == name], load_errata(data_dir)


_GOLD_FIELD_KINDS = ("invalid_field", "no_schema")
"""What the metrics' field walk finds that is certain in a gold program; a read before the
assigning statement is left out (in a loop it may read the previous iteration's response)."""


def _call_problems(call: ApiCall, functions: Mapping[str, FunctionSpec]) -> list[str]:
    """What ``call`` does that its signature forbids (an unknown function, an unknown or missing parameter)."""
    spec = functions.get(call.name)
    if spec is None:
        close = closest(call.name, functions, n=1, cutoff=0.6)
        return [f"calls {call.name}, which the domain does not have" + (f"; did you mean {close[0]}?" if close else "")]
    params = spec.param_names
    found = []
    if call.positional > len(params):
        found.append(f"{call.name} takes {len(params)} parameter(s) but is called with {call.positional} positional argument(s)")
    by_position = {*params[: call.positional], *(f"_{i}" for i in range(len(params), call.positional)), "*", "**"}
    for key in call.args:
        if key not in by_position and key not in spec.parameters.properties:
            close = closest(key, params, n=1, cutoff=0.6)
            found.append(f"{call.name} has no parameter {key!r}" + (f"; did you mean {close[0]!r}?" if close else ""))
    missing = [p for p in spec.parameters.required if p not in call.args]
    if missing and "*" not in call.args and "**" not in call.args:
        found.append(f"{call.name} is called without its required parameter(s) {', '.join(missing)}")
    return found


def gold_code_problems(code: str, catalog: Catalog) -> list[tuple[int | None, str]]:
    """``(line, message)`` for each thing a gold program does that the catalog does not allow, by line.

    Read off the shared reading of the program: its calls from the metrics'
    dataflow (:func:`gqlbench.metrics.calls.analyze`), its response reads from
    the metrics' type walk (:func:`gqlbench.metrics.fields.check_fields`), the
    one that diagnoses predictions. Anything the walk cannot type (string
    methods, ``len(...)``, ``JSON`` values) is not checked, so every problem is certain.
    """
    with one_reading():  # parsed once, for the dataflow and the walk
        program = read_program(code)
        if program.problem is not None:
            return [(program.problem.line, f"gold code does not parse: {program.problem.message}")]
        functions = catalog.functions
        analysis = analyze(code, functions, limits=None)
        found: list[tuple[int | None, str]] = []
        if analysis.parse_error is not None:  # e.g. nested too deeply for the dataflow: the metrics cannot score against it
            found.append((None, f"gold code cannot be analyzed: {analysis.parse_error}"))
        for call in analysis.calls:
            found += [(call.line, message) for message in _call_problems(call, functions)]
        fields = check_fields(program, catalog, lambda name: is_api_name(name, functions))
    found += [(p.line, str(p)) for p in fields if p.kind in _GOLD_FIELD_KINDS]
    return sorted(found, key=lambda problem: problem[0] or 0)


def check_gold_code(name: str, data_dir: Path | None = None) -> list[Problem]:
    """Each sample's gold code parses, calls known functions with known parameters and reads existing fields.

    Samples the benchmark's errata list as invalid gold are skipped (their
    defect is already documented).
    """
    samples, errata = _domain_samples(name, data_dir)
    try:
        catalog = Catalog(load_specs(name), name)
    except GqlbenchError:
        return []  # check_specs reports the missing or unreadable specs
    problems: list[Problem] = []
    for sample in samples:
        if errata.why_invalid(sample.id):
            continue
        where = f"sample {sample.id} ({sample.benchmark})"
        for line, message in gold_code_problems(sample.gold_code, catalog):
            problems.append(Problem(subject=sample.id, where=where if line is None else f"{where}: line {line}", message=message))
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
