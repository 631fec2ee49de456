"""The sandbox worker process: check and run one program per request, reply with its trace.

Everything here runs inside a worker (started by
:mod:`gqlbench.mocks.sandbox.process` as ``python -I -B -c ...``), never in the
parent. The protocol is one JSON line per message: the worker says
``{"ready": ...}`` once, then answers each job line with its calls, error,
output and world digest; a job of steps (``Job.steps``) first sends one
``{"step": ...}`` line per step as it finishes.
"""

from __future__ import annotations

import ast
import bisect
import io
import json
import os
import sys
import traceback
from collections.abc import Callable, Mapping
from functools import cache
from types import CodeType, TracebackType
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.sandbox.limits import (
    GUARD,
    ResourceLimit,
    SandboxLimits,
    cut,
    job_limits,
    lift_job_limits,
    lock_down,
    report_limits,
)
from gqlbench.mocks.sandbox.policy import Violation, check_program
from gqlbench.mocks.sandbox.record import MAX_MESSAGE_CHARS, message_text, record_calls
from gqlbench.mocks.sandbox.sealed import CappedOutput, program_builtins, seal_namespace
from gqlbench.plugins import load_object
from gqlbench.specs.names import looks_like_endpoint_name

__all__ = ["serve", "load_factory", "PROGRAM_FILE", "RESULT_NAME"]

PROGRAM_FILE = "<program>"
RESULT_NAME = "__observed__"  # where the last statement's value goes; programs cannot name it (no dunders)


@cache
def load_factory(name: str) -> Callable[[str, int], Any]:
    """The runtime factory named ``module:function`` or ``path/to/file.py:function``."""
    factory: Callable[[str, int], Any] = load_object(name, "runtime", module_prefix="gqlbench_runtime_", what="the runtime function")
    return factory


def serve() -> None:
    """Worker main loop: one JSON job per stdin line, one JSON reply per stdout line."""
    # gqlbench is imported by now, so these folders can add plugins but not replace it
    sys.path.extend(p for p in os.environ.get("GQLBENCH_WORKER_PATH", "").split(os.pathsep) if p)
    limits = SandboxLimits(**json.loads(sys.argv[-1]))
    reply_fd = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # stray writes to fd 1 must not corrupt the protocol
    os.close(devnull)
    sys.stdout = sys.stderr = io.StringIO()

    def send(message: Mapping[str, Any]) -> None:
        data = (json.dumps(message, default=str) + "\n").encode()
        while data:
            data = data[os.write(reply_fd, data) :]

    try:
        lock_down()
    except Exception as exc:  # pragma: no cover - depends on the platform
        send({"ready": False, "error": f"{type(exc).__name__}: {exc}"})
        return
    send({"ready": True})
    for line in sys.stdin.buffer:
        reply = _execute(json.loads(line), limits, send)
        send(reply)
        sys.stdout = sys.stderr = io.StringIO()
        if reply.get("recycle"):
            return


def _takes_request(factory: Callable[..., Any]) -> bool:
    """Whether a runtime factory takes the user's request (an outside one written before it existed may not)."""
    import inspect

    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False
    return "request" in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def _execute(request: Mapping[str, Any], limits: SandboxLimits, send: Callable[[Mapping[str, Any]], None]) -> dict[str, Any]:
    """Check and run one program; every outcome becomes a reply, never an exception.

    Setting up the runtime (a domain's schema, its world) is not the program's
    time: ``{"running": true}`` tells the parent to start the wall clock. It
    runs under the set-up veto of the audit hook (:meth:`GUARD.setup`): the
    runtime's module and a world's behaviour are imported and run there.
    """
    try:
        with GUARD.setup():
            factory = load_factory(request["runtime"])
            given = {"request": request["request"]} if request.get("request") and _takes_request(factory) else {}
            runtime = factory(request["domain"], request["seed"], **given)
            namespace = seal_namespace(runtime.namespace)
    except GqlbenchError as exc:  # the user's files: said as they are (a world file's mistakes, one line each)
        return {"setup_error": cut(str(exc), 10 * MAX_MESSAGE_CHARS), "user_error": True}
    except Exception as exc:
        return {"setup_error": cut(f"{type(exc).__name__}: {exc}", MAX_MESSAGE_CHARS)}
    send({"running": True})
    observe_last = bool(request.get("observe_last"))
    if observe_last:
        from gqlbench.mocks.engine.responses import (
            unwrap,  # imported now: imports are vetoed while the program runs
        )

        observer: Callable[[Any], Any] | None = unwrap
    else:
        observer = None
    output = CappedOutput(limits.max_output_chars)
    if request.get("steps"):
        return _execute_steps(request["code"], request["steps"], runtime, namespace, output, limits, send)
    admitted = _admit(request["code"], namespace, limits, capture_last=observe_last)
    if not isinstance(admitted, CodeType):
        return {**_report(runtime, admitted, limits), "stdout": "", "result": None, "recycle": False}
    reply = _run(admitted, runtime, namespace, output, limits, observer)
    # a program that hit a limit or a veto may have left the worker in a bad state: replace it
    reply["recycle"] = bool(reply["error"] and reply["error"]["kind"] in ("resource_limit", "refused"))
    return reply


def _execute_steps(
    code: str,
    steps: list[str],
    runtime: Any,
    namespace: Mapping[str, Any],
    output: CappedOutput,
    limits: SandboxLimits,
    send: Callable[[Mapping[str, Any]], None],
) -> dict[str, Any]:
    """Admit and run a job of steps (``Job.steps``, see :mod:`~gqlbench.mocks.sandbox.pool`): its reply, never an exception."""
    from gqlbench.mocks.engine.responses import unwrap  # imported now: imports are vetoed while the program runs

    admitted = _admit_steps(code, [str(step) for step in steps], namespace, limits)
    if not isinstance(admitted, tuple):
        return {**_report(runtime, admitted, limits), "stdout": "", "result": None, "recycle": False}
    replay, programs = admitted
    reply = _run_steps(replay, programs, runtime, namespace, output, limits, unwrap, send)
    reply["recycle"] = bool(reply["error"] and reply["error"]["kind"] in ("resource_limit", "refused"))
    return reply


def _admit_steps(
    code: str, steps: list[str], namespace: Mapping[str, Any], limits: SandboxLimits
) -> tuple[CodeType, list[CodeType | dict[str, Any]]] | dict[str, Any]:
    """The replay's code and each step's (or the error that keeps that step from running), or the error that stops the job.

    What is checked is what runs: the replay and the steps that parse on their
    own are joined into one text (newlines as the compiler reads them), which
    the static check reads once, as one program (a name one step assigns is
    known to the next), and which is compiled statement by statement, each
    step's statements with its last value captured (:func:`_capture_last`).
    Lines are the joined text's.
    """
    parts = [_newlines(code), *map(_newlines, steps)]
    starts = [1]  # the first line of each part in the joined text
    for part in parts[:-1]:
        starts.append(starts[-1] + part.count("\n") + 1)
    errors: dict[int, dict[str, Any]] = {}
    for number, step in enumerate(parts[1:]):
        try:
            ast.parse(step, PROGRAM_FILE)
        except SyntaxError as exc:
            errors[number] = _error("parse_error", f"{exc.msg}", starts[number + 1] + (exc.lineno or 1) - 1)
        except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
            errors[number] = _error("parse_error", f"the program cannot be compiled: {type(exc).__name__}: {exc}")
        if number in errors:
            parts[number + 1] = "\n" * step.count("\n")  # left out, its lines kept blank so that lines stay the same
    joined = "\n".join(parts)
    try:
        tree = ast.parse(joined, PROGRAM_FILE)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:  # steps that parse alone but not together
        return _error("parse_error", f"the statements cannot be compiled together: {type(exc).__name__}: {exc}")
    if limits.check_policy:
        violations = _checked(joined, namespace)
        if isinstance(violations, dict):
            return violations
        refused: dict[int, list[Violation]] = {}
        for violation in violations:
            refused.setdefault(bisect.bisect_right(starts, violation.line) - 1, []).append(violation)
        if 0 in refused:  # in the replay: the job cannot run
            return _error("refused", "; ".join(map(str, refused[0])), refused[0][0].line)
        for owner, found in refused.items():
            errors[owner - 1] = _error("refused", "; ".join(map(str, found)), found[0].line)

    statements: list[list[ast.stmt]] = [[] for _ in parts]
    for statement in tree.body:
        statements[bisect.bisect_right(starts, statement.lineno) - 1].append(statement)

    def compiled(part: int, capture: bool) -> CodeType:
        body = ast.Module(statements[part], type_ignores=[])
        return compile(_capture_last(body) if capture else body, PROGRAM_FILE, "exec", dont_inherit=True)

    try:
        replay = compiled(0, capture=False)
        programs = [errors.get(number) or compiled(number + 1, capture=True) for number in range(len(steps))]
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return _error("parse_error", f"the statements cannot be compiled: {type(exc).__name__}: {exc}")
    return replay, programs


def _newlines(text: str) -> str:
    """``text`` with its line ends as the compiler reads them, so lines are counted as it counts them."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _report(runtime: Any, error: dict[str, Any] | None, limits: SandboxLimits) -> dict[str, Any]:
    """The runtime's record of the job: its calls (bounded, :mod:`~gqlbench.mocks.sandbox.record`) and world digest."""
    try:
        calls, left_out = record_calls(runtime.calls(), limits)
    except BaseException as exc:  # the report's own allowance ran out, or the runtime failed
        calls, left_out = [], 0
        error = error or _error("other", f"the runtime failed to report the calls: {message_text(exc, with_type=True)}")
    try:
        digest = runtime.world_digest()
        digest = None if digest is None else cut(str(digest), 200)
    except BaseException as exc:
        digest = None
        error = error or _error("resource_limit", f"the final world could not be digested: {message_text(exc, with_type=True)}")
    return {"calls": calls, "calls_left_out": left_out, "error": error, "world_digest": digest}


def _capture_last(tree: ast.Module) -> ast.Module:
    """Make the last statement also store its value under ``RESULT_NAME``.

    ``a = f()`` becomes ``__observed__ = a = f()`` (targets are assigned left to
    right, the value once), an expression ``f()`` becomes ``__observed__ = f()``,
    ``a += 1`` is followed by ``__observed__ = a``. Any other statement has no value.
    """
    last = tree.body[-1] if tree.body else None
    store = ast.Name(RESULT_NAME, ast.Store())
    if isinstance(last, ast.Assign):
        last.targets.insert(0, store)
    elif isinstance(last, ast.Expr):
        tree.body[-1] = ast.copy_location(ast.Assign(targets=[store], value=last.value), last)
    elif isinstance(last, (ast.AugAssign, ast.AnnAssign)) and isinstance(last.target, ast.Name):
        tree.body.append(ast.copy_location(ast.Assign(targets=[store], value=ast.Name(last.target.id, ast.Load())), last))
    return ast.fix_missing_locations(tree)


def _admit(code: str, namespace: Mapping[str, Any], limits: SandboxLimits, capture_last: bool = False) -> CodeType | dict[str, Any]:
    """Compile and check the program: its code object, or the error that stops it.

    The check always reads the program as written; ``capture_last`` only adds
    the store of the last value (:func:`_capture_last`) to what is compiled.
    Both compile the same ``str``, so a coding declaration in the program is
    ignored by the compiler as it is by the check.
    """
    try:
        source: str | ast.Module = _capture_last(ast.parse(code, PROGRAM_FILE)) if capture_last else code
        program = compile(source, PROGRAM_FILE, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return _error("parse_error", f"{exc.msg}", exc.lineno)
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
        return _error("parse_error", f"the program cannot be compiled: {type(exc).__name__}: {exc}")
    if limits.check_policy:
        violations = _checked(code, namespace)
        if isinstance(violations, dict):
            return violations
        if violations:
            return _error("refused", "; ".join(str(v) for v in violations), violations[0].line)
    return program


def _checked(code: str, namespace: Mapping[str, Any]) -> list[Violation] | dict[str, Any]:
    """What the static check refuses in ``code`` (empty: admitted), or the error when it cannot read it."""
    try:
        return check_program(code, namespace.keys())
    except SyntaxError as exc:
        return _error("refused", f"the program could not be analysed: {exc}")


def _run(
    program: CodeType,
    runtime: Any,
    namespace: Mapping[str, Any],
    output: CappedOutput,
    limits: SandboxLimits,
    observer: Callable[[Any], Any] | None = None,
) -> dict[str, Any]:
    """Execute an admitted program and write its reply, all of it under the job's limits.

    Everything written from the program's objects (its error message, its
    calls, the world it changed, with an ``observer`` (``unwrap``) the JSON
    text of its last value) is written here, before the limits are lifted,
    and bounded (:mod:`~gqlbench.mocks.sandbox.record`): the program and its
    last value under the job's own limits and the audit hook, the rest under
    the small allowance of :func:`~gqlbench.mocks.sandbox.limits.report_limits`.
    """
    program_globals = {"__builtins__": program_builtins(), "__name__": "__program__", **namespace}
    job_limits(limits)
    sys.stdout = sys.stderr = output
    GUARD.program = program
    failure: BaseException | None = None
    result: str | None = None
    try:
        try:
            exec(program, program_globals)
            if observer is not None:  # still under the audit hook: unwrap runs the runtime's code on program values
                result = _result_text(program_globals.get(RESULT_NAME), observer, limits.max_result_chars)
        except BaseException as exc:
            failure = exc
        GUARD.program = None  # what follows walks the traceback and reads /proc, which the hook vetoes
        reply = _stopped(runtime, failure, output, limits, result)
    finally:
        GUARD.program = None
        lift_job_limits()
    return reply


def _stopped(
    runtime: Any, failure: BaseException | None, output: CappedOutput, limits: SandboxLimits, result: str | None = None
) -> dict[str, Any]:
    """The reply of a job whose program has stopped (``failure``: why, if it failed), written on the report's allowance."""
    try:
        report_limits()
        error = None if failure is None else _classify(failure)
        return {**_report(runtime, error, limits), "stdout": output.getvalue(), "result": None if error else result}
    except BaseException as exc:  # even the allowance ran out: say so rather than lose the worker
        failed = _error("resource_limit", f"the trace could not be written within the job's limits ({type(exc).__name__})")
        return {"calls": [], "calls_left_out": 0, "error": failed, "world_digest": None, "stdout": "", "result": None}


def _run_steps(
    replay: CodeType,
    steps: list[CodeType | dict[str, Any]],
    runtime: Any,
    namespace: Mapping[str, Any],
    output: CappedOutput,
    limits: SandboxLimits,
    observer: Callable[[Any], Any],
    send: Callable[[Mapping[str, Any]], None],
) -> dict[str, Any]:
    """Run the replay, then each step in the same globals, sending each step's outcome as it is known; then the reply.

    All of it under one job's limits, as :func:`_run` runs one program. A step's
    ordinary error is that step's outcome and the next step runs; an error of a
    limit or a veto (``resource_limit``, ``refused``), or any error of the
    replay, stops the job and is the reply's error (the steps not reported are
    then not finished, :mod:`~gqlbench.mocks.sandbox.pool`).
    """
    program_globals = {"__builtins__": program_builtins(), "__name__": "__program__", **namespace}
    job_limits(limits)
    sys.stdout = sys.stderr = output
    failure: BaseException | None = None
    try:
        try:
            GUARD.program = replay
            exec(replay, program_globals)
            for step in steps:
                if isinstance(step, dict):  # refused or unparsable on its own: not run
                    send({"step": {"result": None, "error": step}})
                    continue
                program_globals.pop(RESULT_NAME, None)
                GUARD.program = step
                outcome: dict[str, Any]
                try:
                    exec(step, program_globals)
                    outcome = {"result": _result_text(program_globals.get(RESULT_NAME), observer, limits.max_result_chars), "error": None}
                except Exception as exc:
                    GUARD.program = None  # classifying walks the traceback, which the hook vetoes
                    outcome = {"result": None, "error": _classify(exc)}
                    if outcome["error"]["kind"] in ("resource_limit", "refused"):  # the worker may be in a bad state
                        failure = exc
                GUARD.program = None
                send({"step": outcome})
                if failure is not None:
                    break
        except BaseException as exc:
            failure = exc
        GUARD.program = None
        reply = _stopped(runtime, failure, output, limits)
    finally:
        GUARD.program = None
        lift_job_limits()
    return reply


def _result_text(value: Any, convert: Callable[[Any], Any], limit: int) -> str:
    """``convert(value)`` as compact JSON, encoded only as far as ``limit`` characters (then cut, with a note).

    Objects JSON does not know are written as ``str(value)``. A value nested
    too deeply (or containing itself) is a resource-limit error, not a crash.
    """
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)
    parts: list[str] = []
    size = 0
    try:
        for chunk in encoder.iterencode(convert(value)):
            parts.append(chunk)
            size += len(chunk)
            if size > limit:
                break
    except (RecursionError, ValueError) as exc:  # ValueError: a list that contains itself
        raise ResourceLimit(
            f"the value of the last statement cannot be shown as JSON ({type(exc).__name__}: nested too deeply or circular)"
        ) from None
    return cut("".join(parts), limit)


def _classify(exc: BaseException) -> dict[str, Any]:
    """Map an exception raised while the program ran to an error kind and program line."""
    line = _program_line(exc.__traceback__)
    kind = getattr(exc, "kind", None)
    if isinstance(kind, str):
        return _error(kind, message_text(exc), line)
    if isinstance(exc, MemoryError):
        return _error("resource_limit", "the program exceeded its memory limit", line)
    if isinstance(exc, RecursionError):
        return _error("resource_limit", "the program nests too deeply (recursion limit)", line)
    if isinstance(exc, (IndexError, KeyError)):
        return _error("index_out_of_range", message_text(exc, with_type=True), line)
    if isinstance(exc, NameError):
        looks_like_api = looks_like_endpoint_name(getattr(exc, "name", None) or "")
        return _error("unknown_function" if looks_like_api else "other", message_text(exc, with_type=True), line)
    return _error("other", message_text(exc, with_type=True), line)


def _program_line(tb: TracebackType | None) -> int | None:
    """The line of the innermost program frame in a traceback."""
    line = None
    for frame, lineno in traceback.walk_tb(tb):
        if frame.f_code.co_filename == PROGRAM_FILE:
            line = lineno
    return line


def _error(kind: str, message: str, line: int | None = None) -> dict[str, Any]:
    return {"kind": kind, "message": message, "line": line}
