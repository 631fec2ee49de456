"""Tool-call arguments whose value is gold's: credited as gold's reference when both programs pass it on the same world.

A tool call carries a value. Where gold computes it (``[d.id for d in
r.devices if d.name == "My PC"][0]``) and the model read it from the field
that holds it (``response_obj.devices[2].id``), the two programs pass the
same device, but the standardized arguments differ, so Arg Match could never
credit the call. Here the scoring layer, which has both programs and runs
them, decides: an argument of the trajectory's program is written as gold's
expression, over the program's own variables, when all of these hold:

1. the trajectory read it from an earlier response: its provenance ``source``
   is a reference, and no string or number of 100 or more in it was typed
   (a literal the model typed, a value the request contains, booleans, null
   and small counts stay literals, exactly as :mod:`gqlbench.generators.tool_program`
   decides; they are never credited);
2. gold's argument, in a gold call of the same function (the one with the
   same token first), reads a response (it is no literal) and its
   standardized text differs from the program's;
3. gold, run in the sandbox on the world of the run's seed, passed a value
   equal to the one the program passed when run the same way (equal as JSON
   values: ``1`` is ``1.0``, as the metrics have it, but not ``True`` nor ``"1"``), each at its call;
4. every response gold's expression reads is one the program fetched before
   the call, by the call with the same token (function and occurrence);
5. the program with gold's expressions in place, analysed, gives each such
   argument gold's standardized text, and run again makes the same calls
   with the same values, ends with the same error (if any) and leaves the
   world in the same state: the credit changes no executed call.

The entry of a credited argument in ``tool_arguments`` then has ``source``
set to the expression written, ``read_from`` the reference the trajectory
found, and ``chosen_because`` :data:`CREDITED_BECAUSE`. Anything else is left
as it is. Lives above ``metrics/`` (which stays pure: it compares the program
it is given) and beside :mod:`gqlbench.scoring.tool_sources`.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gqlbench.generators.tool_program import SMALL_NUMBER
from gqlbench.metrics.calls import ApiCall, analyze
from gqlbench.metrics.traces import call_key
from gqlbench.records import FunctionSpec, Sample, Trace, TraceCall
from gqlbench.scoring.tool_sources import ToolProgram, read_tool_program, spliced

if TYPE_CHECKING:
    from gqlbench.mocks.sandbox.pool import SandboxPool

__all__ = ["CREDITED_BECAUSE", "credit_equal_values"]

CREDITED_BECAUSE = "its value equals gold's argument's on the same world"

_TOKEN = re.compile(r"\b([A-Za-z_]\w*)#(\d+)\b")
_COMPREHENSION_VARIABLE = re.compile(r"\$(\d+)")


def _read_from_responses(entry: Mapping[str, Any], text: str) -> bool:
    """Condition 1: the trajectory read the argument from an earlier response and typed nothing in it."""
    return entry.get("source") not in (None, "literal") and not _typed(text)


def _typed(text: str) -> bool:
    """Whether an argument's text holds a value the model typed: a string or a number of 100 or more (dict keys aside)."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return True
    keys = {id(k) for node in ast.walk(tree) if isinstance(node, ast.Dict) for k in node.keys}
    return any(
        isinstance(node, ast.Constant)
        and id(node) not in keys
        and (
            isinstance(node.value, str)
            or (isinstance(node.value, (int, float)) and not isinstance(node.value, bool) and abs(node.value) >= SMALL_NUMBER)
        )
        for node in ast.walk(tree)
    )


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: ``1`` is ``1.0`` (as the metrics' standardization has it), not ``True`` nor ``"1"``; key order aside."""

    def plain(value: Any) -> Any:
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, list):
            return [plain(v) for v in value]
        return {k: plain(v) for k, v in value.items()} if isinstance(value, dict) else value

    return json.dumps(plain(a), sort_keys=True, default=str) == json.dumps(plain(b), sort_keys=True, default=str)


def _by_token(calls: Sequence[ApiCall], trace: Trace) -> dict[str, TraceCall]:
    """Each call's trace entry (it ran without error), matched by function and occurrence where the counts agree.

    A function called more often than the program names it (a call in a loop) is left out: which run is which is unknown.
    """
    found: dict[str, TraceCall] = {}
    for name in {c.name for c in calls}:
        written = [c for c in calls if c.name == name]
        ran = [t for t in trace.calls if t.function == name]
        if len(written) == len(ran) and not trace.calls_left_out:
            found.update({c.token: t for c, t in zip(written, ran, strict=True) if t.error is None})
    return found


def _variables(lines: Sequence[str]) -> dict[int, str]:
    """Line number (1-based) -> the variable a ``name = call(...)`` line assigns."""
    found = {}
    for number, line in enumerate(lines, start=1):
        try:
            statement = ast.parse(line).body[0]
        except (SyntaxError, IndexError):
            continue
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            found[number] = statement.targets[0].id
    return found


def _over_variables(gold_text: str, variables: Mapping[str, str]) -> str | None:
    """Gold's standardized argument as Python over the program's variables (``token -> variable``); None when it reads
    a response the program has no variable for (condition 4)."""
    missing = False

    def variable(match: re.Match[str]) -> str:
        nonlocal missing
        name = variables.get(match.group(0))
        missing = missing or name is None
        return name or match.group(0)

    text = _COMPREHENSION_VARIABLE.sub(r"x\1", _TOKEN.sub(variable, gold_text))
    if missing:
        return None
    try:
        ast.parse(text, mode="eval")
    except SyntaxError:
        return None
    return text


def _same_run(before: Trace, after: Trace) -> bool:
    """The same calls with the same values, the same error and the same final world (condition 5)."""

    def error(trace: Trace) -> tuple[str, int | None] | None:
        return None if trace.error is None else (trace.error.kind, trace.error.line)

    return (
        [call_key(c) for c in before.calls] == [call_key(c) for c in after.calls]
        and before.calls_left_out == after.calls_left_out == 0
        and error(before) == error(after)
        and before.world_digest == after.world_digest
    )


_Wanted = dict[int, tuple[ApiCall, str, list[ApiCall]]]  # entry -> (its call, argument, gold calls to try, the same token first)


def _to_try(program: ToolProgram) -> _Wanted:
    """Condition 2: the gold calls of the argument's function whose argument reads a response and differs from it."""
    wanted: _Wanted = {}
    for i, line, name, _, _ in program.slots:
        call = program.call_on(line)
        if call is None or name not in call.args:
            continue
        token = call.token
        golds = [g for g in program.gold.calls if g.name == call.name and name in g.args and g.argument(name).references]
        golds = sorted((g for g in golds if g.args[name] != call.args[name]), key=lambda g: g.token != token)
        if golds:
            wanted[i] = (call, name, golds)
    return wanted


def _proposed(program: ToolProgram, wanted: _Wanted, gold_trace: Trace, trace: Trace) -> dict[int, tuple[ApiCall, str]]:
    """Conditions 3 and 4: entry -> (the gold call whose value it passed, gold's expression over the program's variables)."""
    theirs, mine = _by_token(program.gold.calls, gold_trace), _by_token(program.predicted.calls, trace)
    variables = _variables(program.lines)
    proposed: dict[int, tuple[ApiCall, str]] = {}
    for i, (call, name, golds) in wanted.items():
        passed = mine.get(call.token)
        if passed is None or name not in passed.arguments or name in passed.truncated:
            continue
        before = {c.token: variables[c.line] for c in program.predicted.calls if c.line < call.line and c.line in variables}
        for g in golds:
            gold_passed = theirs.get(g.token)
            if gold_passed is None or name not in gold_passed.arguments or name in gold_passed.truncated:
                continue
            if _same(passed.arguments[name], gold_passed.arguments[name]) and (text := _over_variables(g.args[name], before)):
                proposed[i] = (g, text)
                break
    return proposed


def credit_equal_values(
    sample: Sample,
    code: str,
    provenance: Sequence[Mapping[str, Any]],
    *,
    pool: Callable[[], SandboxPool],
    seed: int = 0,
    functions: Mapping[str, FunctionSpec] | None = None,
) -> tuple[str, list[dict[str, Any]]]:
    """``code`` with each argument whose value is gold's written as gold's expression, and the updated provenance.

    ``provenance`` is the completion's ``tool_arguments`` (one entry per
    keyword of each program line, ``call`` 1-based). Nothing runs unless some
    argument passes conditions 1 and 2; then gold and the program run once
    each in ``pool()`` (the run's sandbox pool, started on first use), and the
    program with the credits once more.
    """
    from gqlbench.mocks.sandbox.pool import Job

    entries = [dict(e) for e in provenance]
    program = read_tool_program(sample, code, entries, _read_from_responses, functions)  # condition 1
    if program is None:
        return code, entries
    wanted = _to_try(program)
    if not wanted:
        return code, entries

    def job(text: str) -> Job:
        return Job(code=text, domain=sample.domain, seed=seed, sample_id=sample.id, request=sample.utterance)

    gold_trace, trace = pool().run_many([job(sample.gold_code), job(code)])
    proposed = _proposed(program, wanted, gold_trace, trace)
    if not proposed:
        return code, entries
    lines, slots, functions = program.lines, program.slots, program.functions
    trial = analyze("\n".join(spliced(lines, slots, {i: text for i, (_, text) in proposed.items()})), functions)
    calls = {c.line: c for c in trial.calls}
    confirmed = {
        i: text
        for i, (g, text) in proposed.items()
        if (c := calls.get(wanted[i][0].line)) is not None and c.args.get(wanted[i][1]) == g.args[wanted[i][1]]
    }
    if not confirmed:
        return code, entries
    credited = "\n".join(spliced(lines, slots, confirmed))
    if not _same_run(trace, pool().run_many([job(credited)])[0]):
        return code, entries
    for i, text in confirmed.items():
        entries[i] |= {"source": text, "read_from": entries[i]["source"], "chosen_because": CREDITED_BECAUSE}
    return credited, entries
