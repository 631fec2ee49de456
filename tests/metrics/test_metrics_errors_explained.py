"""Every score drop is explained: over many mutations of the gold programs, a headline score
below 1 always comes with at least one root-cause error record, and gold has none."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from gqlbench.dataset import load_split
from gqlbench.metrics import functions_for, score_sample
from gqlbench.metrics.errors import root_causes
from gqlbench.records import Sample

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "graphqlrestbench"
HEADLINE = ("arg_match_full", "arg_match_functions", "seq_match_full", "seq_match_conn")


def _statements(code: str) -> list[tuple[int, int]]:
    """(first, last) 0-based line span of each top-level statement."""
    return [(s.lineno - 1, (s.end_lineno or s.lineno) - 1) for s in ast.parse(code).body]


def _api_statements(code: str, names: set[str]) -> list[int]:
    """Indices of the top-level statements that call an API function."""
    tree = ast.parse(code)
    return [
        i
        for i, stmt in enumerate(tree.body)
        if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names for n in ast.walk(stmt))
    ]


def _join(lines: list[str], spans: list[tuple[int, int]], order: list[int]) -> str:
    return "\n".join("\n".join(lines[spans[i][0] : spans[i][1] + 1]) for i in order) + "\n"


def mutations(code: str, names: set[str]) -> Iterator[tuple[str, str]]:
    """(label, mutated program): drop a call, swap adjacent calls, rename a function, break a field, drop an index."""
    lines, spans = code.splitlines(), _statements(code)
    order = list(range(len(spans)))
    calls = _api_statements(code, names)
    for i in calls:
        yield f"drop statement {i}", _join(lines, spans, [j for j in order if j != i])
    for a, b in zip(calls, calls[1:], strict=False):
        swapped = [b if j == a else a if j == b else j for j in order]
        yield f"swap statements {a} and {b}", _join(lines, spans, swapped)
    for name in sorted(names):
        if re.search(rf"\b{name}\(", code):
            yield f"rename {name}", re.sub(rf"\b{name}\(", f"{name}x(", code, count=1)
    tree = ast.parse(code)
    response_vars = {
        t.id
        for s in tree.body
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name) and s.value.func.id in names
        for t in s.targets
        if isinstance(t, ast.Name)
    }
    for var in sorted(response_vars):
        for match in list(re.finditer(rf"\b{var}((?:\.\w+|\[\d+\])+)", code))[:2]:
            path = match.group(1)
            field = re.search(r"\.(\w+)$", path)
            if field:
                yield f"field {var}{path}", code[: match.end()] + "d" + code[match.end() :]
            if "[0]" in path:
                start = match.start(1) + path.index("[0]")
                yield f"unindex {var}{path}", code[:start] + code[start + 3 :]


def _samples() -> list[Sample]:
    return [s for split in ("test", "valid") for s in load_split(split, DATA)]


@pytest.mark.parametrize("sample", _samples(), ids=lambda s: s.id)
def test_every_headline_drop_has_a_root_cause_and_gold_has_no_error(sample: Sample) -> None:
    functions = functions_for(sample)
    gold = score_sample(sample, sample.gold_code, functions)
    if gold.skipped is not None:
        pytest.skip("gold does not parse")
    assert gold.explanation.errors == []
    names = {f for f in functions if f in sample.gold_code}
    checked = 0
    for label, code in mutations(sample.gold_code, names):
        try:
            ast.parse(code)
        except SyntaxError:
            continue
        result = score_sample(sample, code, functions)
        scores = result.scores.model_dump()
        below = [m for m in HEADLINE if isinstance(scores.get(m), (int, float)) and scores[m] < 1]
        if below:
            checked += 1
            assert root_causes(result.explanation.errors), (label, below, result.explanation.errors)
    assert checked > 0
