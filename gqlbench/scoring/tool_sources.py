"""Ambiguous tool-call arguments: a value found at several paths matches gold when gold's source is among them.

A native tool call carries a value, not a reference; when the value occurs
at several fields of earlier responses, :mod:`gqlbench.generators.tool_program`
keeps every path as a candidate and writes the first into the program. The
model cannot have meant one path more than another, so scoring gives it the
benefit of the doubt: where gold's source for that argument (the same
function's argument in gold, the gold call with the same token first) is the
standardized value of one of the candidates, the program uses that
candidate. The choice is recorded per argument as ``chosen_because``; a
candidate is never invented, and an argument with no candidate equal to
gold's keeps the first. Lives above ``metrics/`` and ``generators/``: it reads
gold, which the generation side never sees.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gqlbench.metrics.calls import ApiCall, ProgramAnalysis, analyze
from gqlbench.metrics.scores import functions_for
from gqlbench.metrics.sources import Argument
from gqlbench.records import FunctionSpec, Sample

__all__ = [
    "CHOSEN_BECAUSE",
    "Slot",
    "ToolProgram",
    "choose_gold_candidates",
    "keyword_span",
    "argument_slots",
    "spliced",
    "read_tool_program",
]

CHOSEN_BECAUSE = "gold's source is among the candidates"


def keyword_span(line: str, position: int) -> tuple[str, int, int] | None:
    """The name and the character span of the value of the ``position``-th keyword of the line's call."""
    try:
        statement = ast.parse(line).body[0]
    except (SyntaxError, IndexError):
        return None
    call = statement.value if isinstance(statement, (ast.Assign, ast.Expr)) else None
    if not isinstance(call, ast.Call) or position >= len(call.keywords):
        return None
    keyword = call.keywords[position]
    value = keyword.value
    if keyword.arg is None or value.end_col_offset is None or value.lineno != 1 or value.end_lineno != 1:
        return None
    data = line.encode()
    start = len(data[: value.col_offset].decode(errors="replace"))  # ast offsets count UTF-8 bytes
    end = len(data[: value.end_col_offset].decode(errors="replace"))
    return keyword.arg, start, end


def _path(candidate: str) -> str:
    """``response_obj1.items[0].id`` -> ``.items[0].id`` (the field path after the variable)."""
    cut = min((i for i in (candidate.find("."), candidate.find("[")) if i >= 0), default=len(candidate))
    return candidate[cut:]


def _gold_values(gold: Sequence[ApiCall], call: ApiCall, argument: str) -> list[Argument]:
    """Gold's standardized values of ``argument`` in calls of the same function, the same-token call first."""
    same = [g for g in gold if g.name == call.name and argument in g.args]
    same.sort(key=lambda g: g.token != call.token)
    return [g.argument(argument) for g in same]


Slot = tuple[int, int, str, int, int]  # (provenance entry, line index, keyword name, start, end of its value in the line)


def argument_slots(entries: Sequence[Mapping[str, Any]], lines: Sequence[str]) -> list[Slot]:
    """Where in the program the argument of each provenance entry is written.

    The entries are one per keyword of each program line (``call`` 1-based, in keyword order).
    """
    positions: dict[int, int] = {}
    slots: list[Slot] = []
    for i, entry in enumerate(entries):
        call = entry.get("call")
        if not isinstance(call, int):
            continue
        position = positions[call] = positions.get(call, -1) + 1
        if not 0 < call <= len(lines):
            continue
        found = keyword_span(lines[call - 1], position)
        if found is not None:
            slots.append((i, call - 1, *found))
    return slots


def spliced(lines: Sequence[str], slots: Sequence[Slot], texts: Mapping[int, str]) -> list[str]:
    """``lines`` with the argument of each slot whose entry is in ``texts`` replaced (right to left: earlier spans stay valid)."""
    out = list(lines)
    for i, line, _, start, end in sorted((s for s in slots if s[0] in texts), key=lambda s: -s[3]):
        out[line] = out[line][:start] + texts[i] + out[line][end:]
    return out


@dataclass(frozen=True)
class ToolProgram:
    """A tools run's program as the choosers read it: its lines, the slots of the arguments asked for, both analyses."""

    lines: list[str]
    slots: list[Slot]
    gold: ProgramAnalysis
    predicted: ProgramAnalysis
    functions: Mapping[str, FunctionSpec]

    def call_on(self, line: int) -> ApiCall | None:
        """The program's call on ``line`` (0-based, as in a slot)."""
        return next((c for c in self.predicted.calls if c.line == line + 1), None)


def read_tool_program(
    sample: Sample,
    code: str,
    entries: Sequence[Mapping[str, Any]],
    keep: Callable[[Mapping[str, Any], str], bool],
    functions: Mapping[str, FunctionSpec] | None = None,
) -> ToolProgram | None:
    """The program with the slots of the entries ``keep(entry, argument text)`` accepts; None when there is none, or
    gold or the program cannot be analysed (then nothing is chosen)."""
    lines = code.split("\n")
    slots = [s for s in argument_slots(entries, lines) if keep(entries[s[0]], lines[s[1]][s[3] : s[4]])]
    if not slots:
        return None
    functions = functions_for(sample) if functions is None else functions
    gold = analyze(sample.gold_code, functions, limits=None)
    predicted = analyze(code, functions)
    if gold.parse_error is not None or predicted.parse_error is not None or predicted.too_large is not None:
        return None
    return ToolProgram(lines, slots, gold, predicted, functions)


def choose_gold_candidates(
    sample: Sample, code: str, provenance: Sequence[Mapping[str, Any]], functions: Mapping[str, FunctionSpec] | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """``code`` with each ambiguous argument set to the candidate equal to gold's source, and the updated provenance.

    ``provenance`` is the ``tool_arguments`` record of the completion (one
    entry per keyword of each program line, ``call`` 1-based, in keyword
    order). Candidates are tried only when their field path is that of a
    reference in gold's value (a cheap filter); the program with the
    candidate put in is analysed to confirm that the standardized values
    are equal, so the choice is the metric's own notion of equality.
    """
    entries = [dict(e) for e in provenance]
    program = read_tool_program(sample, code, entries, lambda e, _: isinstance(e.get("candidates"), list) and len(e["candidates"]) > 1)
    if program is None:
        return code, entries
    lines, slots, functions = program.lines, program.slots, program.functions
    wanted: dict[int, tuple[ApiCall, str, list[Argument]]] = {}  # entry -> (predicted call, real argument name, gold values)
    trials: dict[int, list[str]] = {}  # entry -> candidates worth analysing
    for i, line, name, _, _ in slots:
        call = program.call_on(line)
        if call is None:
            continue
        values = _gold_values(program.gold.calls, call, name)
        paths = {ref.path for value in values for ref in value.references}
        tried = [c for c in entries[i]["candidates"] if isinstance(c, str) and _path(c) in paths]
        if tried:
            wanted[i], trials[i] = (call, name, values), tried
    standard: dict[tuple[int, str], str] = {}  # (entry, candidate) -> its standardized value in the program
    for j in range(max((len(t) for t in trials.values()), default=0)):
        trial = spliced(lines, slots, {i: tried[j] for i, tried in trials.items() if j < len(tried)})
        analysis = analyze("\n".join(trial), functions)
        calls = {c.line: c for c in analysis.calls}
        for i, line, _, _, _ in slots:
            if i in trials and j < len(trials[i]) and (c := calls.get(line + 1)) is not None:
                standard[(i, trials[i][j])] = c.args.get(wanted[i][1], "")
    chosen: dict[int, str] = {}
    for i, (_, _, values) in wanted.items():
        chosen_candidate = next((c for value in values for c in trials[i] if standard.get((i, c)) == value.text), None)
        if chosen_candidate is not None:
            chosen[i] = chosen_candidate
    if not chosen:
        return code, entries
    for i, source in chosen.items():
        entries[i] |= {"source": source, "chosen_because": CHOSEN_BECAUSE}
    return "\n".join(spliced(lines, slots, chosen)), entries
