"""Every valid gold program of every split runs on a fresh mock world, in the sandbox.

The exceptions are listed, with their reason and error kind, under
``non_executable_gold`` in the benchmark's errata; they must fail with exactly
that kind (so the list stays honest both ways).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import pytest

from gqlbench.dataset import load_errata, load_samples
from gqlbench.metrics.traces import trace_scores
from gqlbench.mocks.execution import execute_samples
from gqlbench.mocks.sandbox.pool import Job, SandboxPool
from gqlbench.records import Sample, Trace
from gqlbench.specs import load_specs

ERRATA = load_errata()
NON_EXECUTABLE = ERRATA.other.get("non_executable_gold", {})
VALID = [s for s in load_samples() if ERRATA.why_invalid(s.id) is None]


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    with SandboxPool(workers=2) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def gold_traces(pool: SandboxPool) -> dict[str, Trace]:
    traces = pool.run_many([Job(code=s.gold_code, domain=s.domain, seed=0, sample_id=s.id) for s in VALID])
    return {s.id: t for s, t in zip(VALID, traces, strict=True)}


def _call_sites(sample: Sample) -> int:
    """How many endpoint calls the gold code writes (gold programs have no loops)."""
    known = set(load_specs(sample.domain))
    tree = ast.parse(sample.gold_code)
    return sum(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in known for n in ast.walk(tree))


def test_the_errata_list_only_valid_gold_with_a_kind() -> None:
    valid_ids = {s.id for s in VALID}
    for sample_id, reason in NON_EXECUTABLE.items():
        assert sample_id in valid_ids, f"{sample_id} is not a valid gold program"
        kind, sep, why = reason.partition(": ")
        assert sep and kind.isidentifier() and why, f"{sample_id}: write '<kind>: <reason>'"


@pytest.mark.parametrize("sample", [s for s in VALID if s.id not in NON_EXECUTABLE], ids=lambda s: s.id)
def test_gold_program_executes_all_its_calls(sample: Sample, gold_traces: dict[str, Trace]) -> None:
    trace = gold_traces[sample.id]
    assert trace.error is None, f"{sample.id}: {trace.error.kind}: {trace.error.message}"
    assert len(trace.calls) == _call_sites(sample)
    assert all(call.error is None for call in trace.calls)


@pytest.mark.parametrize("sample_id", sorted(NON_EXECUTABLE))
def test_non_executable_gold_fails_with_the_stated_kind(sample_id: str, gold_traces: dict[str, Trace]) -> None:
    trace = gold_traces[sample_id]
    assert trace.error is not None, f"{sample_id} runs now: remove it from non_executable_gold"
    assert trace.error.kind == NON_EXECUTABLE[sample_id].partition(": ")[0]


def test_the_list_is_a_small_minority() -> None:
    assert len(NON_EXECUTABLE) <= len(VALID) // 10


def test_gold_against_itself_is_an_exec_match(pool: SandboxPool) -> None:
    pairs = execute_samples(VALID, {s.id: s.gold_code for s in VALID}, seed=0, pool=pool)
    for sample in VALID:
        scores, details = trace_scores(*pairs[sample.id])
        if sample.id in NON_EXECUTABLE:
            assert scores["exec_match"] is None
        else:
            assert (scores["exec_success"], scores["exec_match"]) == (1, 1), sample.id
            assert details["divergence"] is None
