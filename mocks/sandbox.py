"""Run untrusted generated programs in a pool of limited worker processes.

Model-generated code is only ever executed here. Three walls stand between a
program and the machine, each enough for the common cases and together meant
to hold against deliberate attempts (see ``tests/mocks/test_mocks_hostile.py``):

1. **The static check** (:func:`gqlbench.mocks.policy.check_program`) refuses
   every construct a call chain does not need, with the line and the reason.
2. **A bare interpreter**: the program runs with only the safe builtins
   (``range`` bounded, ``print`` captured) and the domain's API functions in its
   globals, so ``open``, ``__import__``, ``eval`` and friends are not reachable
   by name; an audit hook (which cannot be removed) vetoes opening files,
   importing new modules, sockets, subprocesses, signals to other processes and
   other interpreter back doors while the program runs.
3. **A limited process**: each worker has CPU-time and address-space limits
   set per job, may not write files (``RLIMIT_FSIZE=0``) or hold many of them,
   and is killed by the parent when a job overruns its wall-clock budget; a
   fresh worker replaces any worker that died, overran or hit a resource limit,
   so one sample's failure never affects another.

Workers are plain ``python`` subprocesses speaking one JSON line per message
over their stdin/stdout (no pickle: a compromised worker cannot attack the
parent through the protocol, and the parent's ``__main__`` is never
re-imported, which multiprocessing's spawn and forkserver modes would do).
They are started once and reused, which is what makes execution fast: a job
costs a round trip and the program's own work, not an interpreter start.

With ``Job.observe_last`` the worker also reports the value of the program's
last statement (the value assigned, or the expression's value) as JSON text
(``Trace.result``): converted with :func:`~gqlbench.mocks.responses.unwrap`
inside the worker, still under the job's limits and the audit hook, and cut
at ``max_result_chars`` with a note. ReAct's ``mock`` observations use it.

The runtime a program talks to is named by ``Job.runtime`` ("module:function")
and built per job in the worker as ``factory(domain, seed)``; see
:class:`Runtime`. :func:`echo_runtime` is a stand-in that answers every call
with a placeholder, for testing the sandbox and measuring its overhead.
A runtime must do its imports and file reads when the factory is called (the
audit hook vetoes both while the program runs), return responses that are
copies of the world rather than live parts of it (programs may call
``.append`` on what they get) and expose no public attribute that is not data.

What the walls do not promise: the audit hook and the limits are defence in
depth behind the static check, not a boundary against code that may use
dunder attributes (CPython cannot be made safe for that from the inside);
``RLIMIT_NPROC`` has no effect when running as root (the audit hook still
vetoes forks and process starts); a computation stuck inside one C call (a
huge ``**``) is stopped by the wall clock, not the CPU limit.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import io
import json
import math
import os
import re
import resource
import select
import signal
import subprocess
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from types import CodeType, TracebackType
from typing import Any, Protocol

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.policy import SAFE_BUILTINS, check_program
from gqlbench.records import ExecError, Trace, TraceCall

__all__ = [
    "DEFAULT_RUNTIME",
    "Job",
    "Runtime",
    "SandboxPool",
    "run_program",
    "echo_runtime",
    "MAX_RANGE",
]

DEFAULT_RUNTIME = "gqlbench.mocks.endpoints:make_runtime"
MAX_RANGE = 1_000_000  # longest range() a program may ask for: a clear error beats a CPU timeout

_PROGRAM_FILE = "<program>"
_API_NAME = re.compile(r"^(GET|POST|PUT|DELETE|PATCH)_")
_WORKER_ENTRY = "from gqlbench.mocks.sandbox import _serve; _serve()"
_STARTUP_SECONDS = 60.0  # a worker imports the runtime before it is ready; generous for slow disks
_MAX_REPLY_BYTES = 64 * 1024 * 1024
_MAX_MESSAGE_CHARS = 2_000
_RESULT_NAME = "__observed__"  # where the last statement's value goes; programs cannot name it (no dunders)
_CUT_NOTE = " ... (cut at {limit} characters)"


@dataclass(frozen=True)
class Job:
    """One program to run against a fresh runtime of ``domain`` built from ``seed``."""

    code: str
    domain: str
    seed: int = 0
    sample_id: str | None = None
    runtime: str = DEFAULT_RUNTIME  # "module:function", imported in the worker
    observe_last: bool = False  # also report the last statement's value as JSON text (Trace.result)


class Runtime(Protocol):
    """What a runtime factory returns: the program's API and a record of its use."""

    namespace: Mapping[str, Callable[..., Any]]  # the endpoint functions, by name

    def calls(self) -> Sequence[TraceCall | Mapping[str, Any]]:
        """The calls made so far, in order."""
        ...

    def world_digest(self) -> str | None:
        """A digest of the world's state (None if the runtime keeps none)."""
        ...


@dataclass(frozen=True)
class _Limits:
    cpu_seconds: float
    memory_mb: int
    max_output_chars: int
    check_policy: bool = True
    max_result_chars: int = 100_000


# ================================================================== parent side


class SandboxPool:
    """A pool of reusable sandbox workers; use it as a context manager.

    ``cpu_seconds`` and ``memory_mb`` bound each job inside its worker (memory is
    the address space a job may add on top of the worker's own), ``wall_seconds``
    is enforced by the parent, ``max_output_chars`` caps what ``print`` may
    produce and ``max_result_chars`` the JSON text of an observed value
    (``Job.observe_last``). A pool is not thread-safe: give each thread its own.
    """

    def __init__(
        self,
        workers: int = 2,
        cpu_seconds: float = 2.0,
        memory_mb: int = 512,
        wall_seconds: float = 5.0,
        max_output_chars: int = 10_000,
        *,
        max_jobs_per_worker: int = 1_000,
        max_result_chars: int = 100_000,
        _unsafe_skip_policy: bool = False,  # tests only: proves the run-time walls hold on their own
    ) -> None:
        if workers < 1:
            raise GqlbenchError(f"a sandbox pool needs at least one worker, got workers={workers}")
        self._limits = _Limits(
            cpu_seconds, memory_mb, max_output_chars, check_policy=not _unsafe_skip_policy, max_result_chars=max_result_chars
        )
        self._wall_seconds = wall_seconds
        self._max_jobs = max_jobs_per_worker
        self._workers = [_Worker(self._limits) for _ in range(workers)]

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop every worker (they also exit on their own when the parent goes away)."""
        for worker in self._workers:
            worker.stop()
        self._workers = []

    def run(self, job: Job) -> Trace:
        """Run one program and return its trace."""
        return self.run_many([job])[0]

    def run_many(self, jobs: Sequence[Job]) -> list[Trace]:
        """Run programs in parallel over the workers; traces come back in job order."""
        if not self._workers:
            raise GqlbenchError("this sandbox pool is closed; create a new SandboxPool")
        traces: list[Trace | None] = [None] * len(jobs)
        queue = deque(range(len(jobs)))
        try:
            while queue or any(worker.busy for worker in self._workers):
                for slot, worker in enumerate(self._workers):
                    if not worker.busy and queue:
                        if not worker.alive() or worker.jobs_done >= self._max_jobs:
                            worker = self._replace(slot)
                        index = queue.popleft()
                        worker.assign(index, jobs[index], self._wall_seconds)
                for index, trace in self._collect(jobs):
                    traces[index] = trace
        except BaseException:  # a setup error or Ctrl-C: no worker may keep a job it was given
            for slot, worker in enumerate(self._workers):
                if worker.busy:
                    self._replace(slot)
            raise
        return [trace for trace in traces if trace is not None]

    # -- internals -----------------------------------------------------------------------------

    def _replace(self, slot: int) -> _Worker:
        self._workers[slot].stop()
        self._workers[slot] = _Worker(self._limits)
        return self._workers[slot]

    def _collect(self, jobs: Sequence[Job]) -> Iterable[tuple[int, Trace]]:
        """Wait for the next event (a reply, a death, a deadline) and yield finished traces."""
        busy = [w for w in self._workers if w.busy]
        next_deadline = min(w.deadline for w in busy)
        readable, _, _ = select.select(busy, [], [], max(0.0, next_deadline - time.monotonic()))
        for worker in readable:
            slot = self._workers.index(worker)
            for message in worker.receive():
                if not worker.ready and "ready" in message:
                    if not message["ready"]:
                        raise GqlbenchError(f"a sandbox worker could not start: {message.get('error')}")
                    worker.started(self._wall_seconds)
                elif worker.ready and worker.busy and "setup_error" in message:
                    job = jobs[worker.finish()[0]]  # the worker is fine; the job cannot run anywhere
                    raise GqlbenchError(
                        f"runtime {job.runtime!r} failed for domain {job.domain!r} (sample {job.sample_id}): "
                        f"{message['setup_error']}; check the domain name and the runtime"
                    )
                elif worker.ready and worker.busy and "calls" in message:
                    index, elapsed = worker.finish()
                    yield index, _trace_from_reply(jobs[index], message, elapsed, self._limits.max_result_chars)
                    if message.get("recycle"):
                        self._replace(slot)
                        break
                else:  # only a subverted worker says anything else
                    worker.fail(ExecError(kind="other", message="the sandbox worker broke its protocol"))
                    break
            if worker.closed and self._workers[slot] is worker:
                if worker.busy:
                    index, elapsed = worker.finish()
                    error = worker.failure or _death_error(worker.stop())
                    yield index, _trace(jobs[index], error, elapsed)
                self._replace(slot)
        now = time.monotonic()
        for slot, worker in enumerate(list(self._workers)):
            if worker.busy and now >= worker.deadline:
                if not worker.ready:
                    raise GqlbenchError(f"a sandbox worker did not start within {_STARTUP_SECONDS:.0f} s")
                index, elapsed = worker.finish()
                message = f"the program ran longer than {self._wall_seconds:g} s (wall clock) and was stopped"
                yield index, _trace(jobs[index], ExecError(kind="timeout", message=message), elapsed)
                self._replace(slot)


def run_program(job: Job, **limits: Any) -> Trace:
    """Run one program in a one-off pool (convenient, but pays a worker start-up)."""
    with SandboxPool(workers=1, **limits) as pool:
        return pool.run(job)


class _Worker:
    """One worker subprocess and the job it is running, seen from the parent."""

    def __init__(self, limits: _Limits) -> None:
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        self.process = subprocess.Popen(
            [sys.executable, "-c", _WORKER_ENTRY, json.dumps(asdict(limits))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # Ctrl-C stops the parent; workers then see EOF and exit
        )
        assert self.process.stdout is not None and self.process.stdin is not None
        self._out = self.process.stdout.fileno()
        os.set_blocking(self._out, False)
        self._buffer = bytearray()
        self.closed = False  # the worker's stdout reached EOF, or the parent gave up on it
        self.failure: ExecError | None = None
        self.ready = False
        self.index: int | None = None
        self.started_at = 0.0
        self.deadline = 0.0
        self.jobs_done = 0

    @property
    def busy(self) -> bool:
        return self.index is not None

    def fileno(self) -> int:
        return self._out

    def alive(self) -> bool:
        return not self.closed and self.process.poll() is None

    def assign(self, index: int, job: Job, wall_seconds: float) -> None:
        request = {"code": job.code, "domain": job.domain, "seed": job.seed, "runtime": job.runtime, "observe_last": job.observe_last}
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            self.closed = True  # reported as a death by the next _collect
        self.index = index
        if self.ready:
            self.started(wall_seconds)
        else:
            self.started_at = time.monotonic()
            self.deadline = self.started_at + _STARTUP_SECONDS

    def started(self, wall_seconds: float) -> None:
        """The worker is (now) ready: the job's wall-clock budget starts."""
        self.ready = True
        self.started_at = time.monotonic()
        self.deadline = self.started_at + wall_seconds

    def finish(self) -> tuple[int, float]:
        assert self.index is not None
        index, self.index = self.index, None
        self.jobs_done += 1
        return index, time.monotonic() - self.started_at

    def receive(self) -> list[dict[str, Any]]:
        """Read what is available; return the complete messages (none if the line is partial)."""
        while True:
            try:
                chunk = os.read(self._out, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                self.closed = True
                break
            self._buffer.extend(chunk)
            if len(self._buffer) > _MAX_REPLY_BYTES:
                limit = f"the program's trace is larger than {_MAX_REPLY_BYTES // 2**20} MB"
                self.fail(ExecError(kind="resource_limit", message=limit))
                return []
        end = self._buffer.rfind(b"\n") + 1
        lines = bytes(self._buffer[:end]).split(b"\n")[:-1]
        del self._buffer[:end]
        messages = []
        for line in lines:
            try:
                message = json.loads(line)
            except (ValueError, RecursionError):
                message = None
            if not isinstance(message, dict):
                self.fail(ExecError(kind="other", message="the sandbox worker broke its protocol"))
                break
            messages.append(message)
        return messages

    def fail(self, error: ExecError) -> None:
        """Give up on this worker; its current job ends with ``error``."""
        self.failure = error
        self.process.kill()
        self.closed = True

    def stop(self) -> int | None:
        """Kill the worker if it is still running; return its exit status."""
        if self.process.poll() is None:
            self.process.kill()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        return self.process.wait()


def _death_error(status: int | None) -> ExecError:
    """Explain why a worker died mid-job from its exit status."""
    causes = {
        signal.SIGXCPU: "the program exceeded its CPU time limit",
        signal.SIGKILL: "the worker was killed (memory exhausted?)",
        signal.SIGSEGV: "the worker crashed (C stack exhausted, probably by deep nesting)",
    }
    if status is not None and status < 0 and -status in causes:
        return ExecError(kind="resource_limit", message=causes[signal.Signals(-status)])
    return ExecError(kind="other", message=f"the sandbox worker died unexpectedly (exit status {status})")


def _trace(job: Job, error: ExecError | None, elapsed: float, **fields: Any) -> Trace:
    return Trace(sample_id=job.sample_id, domain=job.domain, seed=job.seed, error=error, elapsed_s=elapsed, **fields)


def _cut(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its start and a note saying it was cut."""
    return text if len(text) <= limit else text[:limit] + _CUT_NOTE.format(limit=limit)


def _trace_from_reply(job: Job, reply: Mapping[str, Any], elapsed: float, max_result_chars: int) -> Trace:
    """Build the trace from a worker's reply, trusting nothing but its shape."""
    result = reply.get("result") if job.observe_last else None
    if result is not None and not isinstance(result, str):
        return _trace(job, ExecError(kind="other", message="the sandbox worker sent an invalid result"), elapsed)
    if result is not None and len(result) > max_result_chars + len(_CUT_NOTE.format(limit=max_result_chars)):
        result = _cut(result, max_result_chars)  # a well-behaved worker already cut it
    try:
        return _trace(
            job,
            ExecError.model_validate(reply["error"]) if reply.get("error") else None,
            elapsed,
            calls=[TraceCall.model_validate(call) for call in reply.get("calls", [])],
            world_digest=reply.get("world_digest"),
            stdout=str(reply.get("stdout", "")),
            result=result,
        )
    except (ValueError, TypeError, KeyError) as exc:
        return _trace(job, ExecError(kind="other", message=f"the sandbox worker sent an invalid reply: {exc}"), elapsed)


# ================================================================== worker side
#
# Everything below runs inside a worker process (``_serve``), never in the parent.


class _SandboxViolation(PermissionError):
    kind = "refused"


class _ResourceLimit(Exception):
    kind = "resource_limit"


class _AuditGuard:
    """Veto interpreter events that reach outside the process while a program runs.

    Armed only around the program's execution: runtime set-up may import
    modules and read fixture files; the program may not.
    """

    # fmt: off
    _VETOED_PREFIXES = (
        "open", "import", "exec", "compile", "os.", "subprocess.", "socket.", "ctypes.", "shutil.", "pty.",
        "resource.", "signal.", "marshal.", "pickle.", "urllib.", "http.", "ftplib.", "smtplib.", "webbrowser.",
        "sqlite3.", "mmap.", "gc.get_", "sys.settrace", "sys.setprofile", "sys.addaudithook", "sys._current_frames",
        "code.__new__", "function.__new__", "object.__getattr__", "builtins.input", "builtins.breakpoint", "glob.",
        "tempfile.", "fcntl.", "cpython.", "_posixsubprocess.",
    )
    # fmt: on

    def __init__(self) -> None:
        self.program: CodeType | None = None

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if self.program is None:
            return
        if event == "exec" and args and args[0] is self.program:
            return
        if event.startswith(self._VETOED_PREFIXES):
            raise _SandboxViolation(f"the sandbox does not allow this operation ({event})")


_GUARD = _AuditGuard()


class _CappedOutput(io.TextIOBase):
    """Where ``print`` writes during a job: keeps the first ``limit`` characters."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self._limit = limit
        self._parts: list[str] = []
        self._size = 0

    def write(self, text: str) -> int:
        room = self._limit - self._size
        self._parts.append(text[: max(room, 0)])
        self._size += len(text)
        if self._size > self._limit:
            raise _ResourceLimit(f"the program printed more than {self._limit} characters")
        return len(text)

    def getvalue(self) -> str:
        return "".join(self._parts)


def _bounded_range(*args: int) -> range:
    numbers = range(*args)
    try:
        too_long = len(numbers) > MAX_RANGE
    except OverflowError:
        too_long = True
    if too_long:
        raise _ResourceLimit(f"range() longer than {MAX_RANGE} items is not allowed")
    return numbers


def _program_builtins() -> dict[str, Any]:
    import builtins

    names = {name: getattr(builtins, name) for name in SAFE_BUILTINS}
    names["range"] = _bounded_range
    return names


def _on_cpu_limit(signum: int, frame: object) -> None:
    if _GUARD.program is not None:  # a late signal outside a job is ignored
        raise _ResourceLimit("the program exceeded its CPU time limit")


def _lock_down() -> None:
    """Process-wide limits that hold for the worker's whole life."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writing a file fails with an error instead of killing us
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    highest_fd = max(int(fd) for fd in os.listdir("/proc/self/fd"))
    resource.setrlimit(resource.RLIMIT_NOFILE, (highest_fd + 16, highest_fd + 16))
    try:
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))  # no effect for root; the audit hook covers forks
    except (ValueError, OSError):
        pass
    signal.signal(signal.SIGXCPU, _on_cpu_limit)
    # _posixsubprocess.fork_exec raises no audit event: take it away (new imports are vetoed)
    for module, attribute in (("_posixsubprocess", "fork_exec"), ("subprocess", "_fork_exec")):
        if module in sys.modules:
            setattr(sys.modules[module], attribute, _vetoed_fork_exec)
    sys.addaudithook(_GUARD)


def _vetoed_fork_exec(*args: object) -> None:
    raise _SandboxViolation("the sandbox does not allow starting processes")


def _job_limits(limits: _Limits) -> None:
    """Per-job soft limits, relative to what the worker already uses (hard limits stay open)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_used = usage.ru_utime + usage.ru_stime
    resource.setrlimit(resource.RLIMIT_CPU, (math.ceil(cpu_used + limits.cpu_seconds), resource.RLIM_INFINITY))
    with open("/proc/self/statm") as statm:
        address_space = int(statm.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (address_space + limits.memory_mb * 2**20, resource.RLIM_INFINITY))


def _lift_job_limits() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


@cache
def _factory(name: str) -> Callable[[str, int], Runtime]:
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)


def _serve() -> None:
    """Worker main loop: one JSON job per stdin line, one JSON reply per stdout line."""
    limits = _Limits(**json.loads(sys.argv[-1]))
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
        _lock_down()
    except Exception as exc:  # pragma: no cover - depends on the platform
        send({"ready": False, "error": f"{type(exc).__name__}: {exc}"})
        return
    send({"ready": True})
    for line in sys.stdin.buffer:
        reply = _execute(json.loads(line), limits)
        send(reply)
        sys.stdout = sys.stderr = io.StringIO()
        if reply.get("recycle"):
            return


def _execute(request: Mapping[str, Any], limits: _Limits) -> dict[str, Any]:
    """Check and run one program; every outcome becomes a reply, never an exception."""
    try:
        runtime = _factory(request["runtime"])(request["domain"], request["seed"])
        namespace = dict(runtime.namespace)
    except Exception as exc:
        return {"setup_error": f"{type(exc).__name__}: {exc}"}
    observe_last = bool(request.get("observe_last"))
    if observe_last:
        from gqlbench.mocks.responses import unwrap  # imported now: imports are vetoed while the program runs

        observer: Callable[[Any], Any] | None = unwrap
    else:
        observer = None
    output = _CappedOutput(limits.max_output_chars)
    admitted = _admit(request["code"], namespace, limits, capture_last=observe_last)
    ran = isinstance(admitted, CodeType)
    result: list[str] = []
    error = _run(admitted, namespace, output, limits, observer, result) if isinstance(admitted, CodeType) else admitted
    try:
        calls = [c.model_dump(mode="json") if isinstance(c, TraceCall) else dict(c) for c in runtime.calls()]
        digest = runtime.world_digest()
    except Exception as exc:
        calls, digest = [], None
        error = error or _error("other", f"the runtime failed to report the calls: {exc}")
    return {
        "calls": calls,
        "error": error,
        "world_digest": digest,
        "stdout": output.getvalue(),
        "result": result[0] if result and not error else None,
        # a program that hit a limit or a veto may have left the worker in a bad state: replace it
        "recycle": bool(ran and error and error["kind"] in ("resource_limit", "refused")),
    }


def _capture_last(tree: ast.Module) -> ast.Module:
    """Make the last statement also store its value under ``_RESULT_NAME``.

    ``a = f()`` becomes ``__observed__ = a = f()`` (targets are assigned left to
    right, the value once), an expression ``f()`` becomes ``__observed__ = f()``,
    ``a += 1`` is followed by ``__observed__ = a``. Any other statement has no value.
    """
    last = tree.body[-1] if tree.body else None
    store = ast.Name(_RESULT_NAME, ast.Store())
    if isinstance(last, ast.Assign):
        last.targets.insert(0, store)
    elif isinstance(last, ast.Expr):
        tree.body[-1] = ast.copy_location(ast.Assign(targets=[store], value=last.value), last)
    elif isinstance(last, (ast.AugAssign, ast.AnnAssign)) and isinstance(last.target, ast.Name):
        tree.body.append(ast.copy_location(ast.Assign(targets=[store], value=ast.Name(last.target.id, ast.Load())), last))
    return ast.fix_missing_locations(tree)


def _admit(code: str, namespace: Mapping[str, Any], limits: _Limits, capture_last: bool = False) -> CodeType | dict[str, Any]:
    """Compile and check the program: its code object, or the error that stops it.

    The check always reads the program as written; ``capture_last`` only adds
    the store of the last value (:func:`_capture_last`) to what is compiled.
    """
    try:
        source: str | ast.Module = _capture_last(ast.parse(code, _PROGRAM_FILE)) if capture_last else code
        program = compile(source, _PROGRAM_FILE, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return _error("parse_error", f"{exc.msg}", exc.lineno)
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
        return _error("parse_error", f"the program cannot be compiled: {type(exc).__name__}: {exc}")
    if limits.check_policy:
        try:
            violations = check_program(code, namespace.keys())
        except SyntaxError as exc:
            return _error("refused", f"the program could not be analysed: {exc}")
        if violations:
            return _error("refused", "; ".join(str(v) for v in violations), violations[0].line)
    return program


def _run(
    program: CodeType,
    namespace: Mapping[str, Any],
    output: _CappedOutput,
    limits: _Limits,
    observer: Callable[[Any], Any] | None = None,
    result: list[str] | None = None,
) -> dict[str, Any] | None:
    """Execute an admitted program; with an ``observer`` (``unwrap``), append the JSON text of its last value to ``result``."""
    program_globals = {"__builtins__": _program_builtins(), "__name__": "__program__", **namespace}
    _job_limits(limits)
    sys.stdout = sys.stderr = output
    _GUARD.program = program
    failure: BaseException | None = None
    try:
        exec(program, program_globals)
        if observer is not None and result is not None:  # still under the job's limits and the audit hook
            result.append(_result_text(program_globals.get(_RESULT_NAME), observer, limits.max_result_chars))
    except BaseException as exc:
        failure = exc
    finally:
        _GUARD.program = None
        _lift_job_limits()
    return None if failure is None else _classify(failure)


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
        raise _ResourceLimit(f"the value of the last statement cannot be shown as JSON ({type(exc).__name__}: nested too deeply or circular)") from None
    return _cut("".join(parts), limit)


def _classify(exc: BaseException) -> dict[str, Any]:
    """Map an exception raised while the program ran to an error kind and program line."""
    line = _program_line(exc.__traceback__)
    kind = getattr(exc, "kind", None)
    if isinstance(kind, str):
        return _error(kind, _describe(exc, with_type=False), line)
    if isinstance(exc, MemoryError):
        return _error("resource_limit", "the program exceeded its memory limit", line)
    if isinstance(exc, RecursionError):
        return _error("resource_limit", "the program nests too deeply (recursion limit)", line)
    if isinstance(exc, (IndexError, KeyError)):
        return _error("index_out_of_range", _describe(exc), line)
    if isinstance(exc, NameError):
        looks_like_api = bool(_API_NAME.match(getattr(exc, "name", None) or ""))
        return _error("unknown_function" if looks_like_api else "other", _describe(exc), line)
    return _error("other", _describe(exc), line)


def _program_line(tb: TracebackType | None) -> int | None:
    """The line of the innermost program frame in a traceback."""
    line = None
    for frame, lineno in traceback.walk_tb(tb):
        if frame.f_code.co_filename == _PROGRAM_FILE:
            line = lineno
    return line


def _describe(exc: BaseException, with_type: bool = True) -> str:
    try:
        text = str(exc)
    except Exception:
        text = "(unprintable error)"
    if with_type:
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return text if len(text) <= _MAX_MESSAGE_CHARS else text[:_MAX_MESSAGE_CHARS] + "..."


def _error(kind: str, message: str, line: int | None = None) -> dict[str, Any]:
    return {"kind": kind, "message": message, "line": line}


# ================================================================== a stand-in runtime


class _EchoError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class _Echo:
    """A placeholder response: any field, index or call yields another placeholder."""

    def __init__(self, path: str) -> None:
        self._path = path

    def __getattr__(self, name: str) -> _Echo:
        if name.startswith("_"):
            raise AttributeError(name)
        return _Echo(f"{self._path}.{name}")

    def __getitem__(self, key: object) -> _Echo:
        return _Echo(f"{self._path}[{key}]")

    def __iter__(self) -> Any:
        return iter([self[0], self[1]])

    def __len__(self) -> int:
        return 2

    def __call__(self, *args: object, **kwargs: object) -> _Echo:
        return self

    def __str__(self) -> str:
        return self._path

    def __repr__(self) -> str:
        return f"<echo {self._path}>"

    def __eq__(self, other: object) -> bool:
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(self._path)


@cache
def _domain_signatures(domain: str) -> dict[str, tuple[str, ...]]:
    from gqlbench.dataset import load_samples

    return {
        spec.name: tuple(spec.param_names)
        for sample in load_samples()
        if sample.domain == domain
        for spec in sample.function_specs
    }


def _plain(value: Any) -> Any:
    if isinstance(value, _Echo):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


@dataclass
class _EchoRuntime:
    domain: str
    seed: int
    namespace: dict[str, Callable[..., Any]] = field(default_factory=dict)
    _calls: list[TraceCall] = field(default_factory=list)

    def endpoint(self, name: str, params: tuple[str, ...]) -> Callable[..., _Echo]:
        def call(*args: Any, **kwargs: Any) -> _Echo:
            if len(args) > len(params):
                raise _EchoError("bad_arguments", f"{name}() takes {len(params)} arguments, got {len(args)}")
            unknown = sorted(set(kwargs) - set(params))
            if unknown:
                raise _EchoError("bad_arguments", f"{name}() has no parameter {unknown[0]!r}")
            arguments = {**dict(zip(params, args)), **kwargs}
            self._calls.append(TraceCall(function=name, arguments=_plain(arguments)))
            return _Echo(f"{name}#{len(self._calls)}")

        call.__name__ = name
        return call

    def calls(self) -> list[TraceCall]:
        return list(self._calls)

    def world_digest(self) -> str:
        record = json.dumps([self.seed, [c.model_dump(mode="json") for c in self._calls]], default=str)
        return hashlib.sha256(record.encode()).hexdigest()[:16]


def echo_runtime(domain: str, seed: int) -> _EchoRuntime:
    """A runtime whose endpoints (the dataset's functions of ``domain``) check their
    keyword names, record the call and answer with a placeholder object.

    It models no world: use it to test the sandbox and to measure its overhead
    (``Job(runtime="gqlbench.mocks.sandbox:echo_runtime")``).
    """
    signatures = _domain_signatures(domain)
    if not signatures:
        raise ValueError(f"no functions known for domain {domain!r}")
    runtime = _EchoRuntime(domain, seed)
    runtime.namespace = {name: runtime.endpoint(name, params) for name, params in signatures.items()}
    return runtime
