"""Run untrusted generated programs in a pool of limited worker processes.

Model-generated code is only ever executed here. Three walls stand between a
program and the machine, each enough for the common cases and together meant
to hold against deliberate attempts (see ``tests/mocks/test_mocks_sandbox_pool_hostile.py``):

1. **The static check** (:func:`gqlbench.mocks.sandbox.policy.check_program`) refuses
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

Workers are plain ``python -I -B`` subprocesses with an allow-listed
environment (:mod:`~gqlbench.mocks.sandbox.process`) speaking one JSON line per message
over their stdin/stdout (no pickle: a compromised worker cannot attack the
parent through the protocol, and the parent's ``__main__`` is never
re-imported, which multiprocessing's spawn and forkserver modes would do).
They are started once and reused, which is what makes execution fast: a job
costs a round trip and the program's own work, not an interpreter start. A
job's wall clock starts when its runtime is set up (the worker says
``{"running": true}``), so building a domain's schema the first time is not
counted against the program.

With ``Job.observe_last`` the worker also reports the value of the program's
last statement (the value assigned, or the expression's value) as JSON text
(``Trace.result``): converted with :func:`~gqlbench.mocks.engine.responses.unwrap`
inside the worker, still under the job's limits and the audit hook, and cut
at ``max_result_chars`` with a note. ReAct's ``mock`` observations use it.

With ``Job.steps`` a job runs several statements in one world and reports
each one: ``Job.code`` first (unreported: a tool-calling sample's earlier
calls, replayed once), then each step in the same globals, each step's value
(as ``observe_last`` reports a program's last value) or error given on its own
(:class:`StepResult`, :meth:`SandboxPool.run_steps`). A tool-calling turn of N calls
is then one job that runs N statements after the replay, where N jobs each
replayed the earlier calls (the work grew with the square of the calls). The
job keeps one job's limits and wall clock for all its steps (as one program
of those lines would), so the limits per job hold; a step's ordinary error
(an API error, a missing field) is its outcome and the next step runs, as in
a live session where its variable was never assigned; an error of a limit or
a veto, or any error of the replay, ends the job. The worker sends each
step's outcome as soon as it is known, so a job stopped by the wall clock or
killed keeps the steps it finished; the others are not ``finished`` and carry
the job's error. The replay and the steps are checked as one program and
compiled from that same text (:func:`~gqlbench.mocks.sandbox.worker._admit_steps`);
a step that does not parse or is refused is reported so and not run.

Everything a worker writes from the program's objects (the calls with their
arguments, the error message, the last value, the final world's digest) is
written before the job's limits are lifted and bounded as it is written
(:mod:`~gqlbench.mocks.sandbox.record`): an argument at
``SandboxLimits.max_argument_chars`` of JSON (the call lists it in ``truncated``),
a trace's calls at ``SandboxLimits.max_trace_chars`` (the rest are counted in
``Trace.calls_left_out``), an error message at 2,000 characters. A program
whose values are cheap to make and huge to write (``[s] * 300``, an integer
of 20,000 digits) therefore costs its job's memory, not a multiple of it, and
keeps the calls it made.

The runtime a program talks to is named by ``Job.runtime`` ("module:function"
or "path/to/file.py:function") and built per job in the worker as
``factory(domain, seed)``; see :class:`RuntimeProtocol`. Its callables reach the
program sealed (:mod:`~gqlbench.mocks.sandbox.sealed`).
A runtime must do its imports and file reads when the factory is called (the
audit hook vetoes both while the program runs), return responses that are
copies of the world rather than live parts of it (programs may call
``.append`` on what they get) and expose no public attribute that is not data.
The factory runs under the hook's set-up veto (imports and reads allowed;
writing files, sockets, processes and signals not), and so does the import of
a world's behaviour, which a catalog's author wrote (docs/add-your-own-api.md).

This module is the parent side (the pool); the worker's side is
:mod:`~gqlbench.mocks.sandbox.worker`, its limits and audit hook
:mod:`~gqlbench.mocks.sandbox.limits`.

What the walls do not promise: the audit hook and the limits are defence in
depth behind the static check, not a boundary against code that may use
dunder attributes (CPython cannot be made safe for that from the inside);
``RLIMIT_NPROC`` has no effect when running as root (the audit hook still
vetoes forks and process starts); a computation stuck inside one C call (a
huge ``**``) is stopped by the wall clock, not the CPU limit.
"""

from __future__ import annotations

import select
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.sandbox.limits import SandboxLimits, cut, cut_length
from gqlbench.mocks.sandbox.process import SETUP_SECONDS_ENV, WorkerProcess, death_error, setup_seconds
from gqlbench.mocks.sandbox.sealed import MAX_RANGE
from gqlbench.records import ExecError, Trace, TraceCall

__all__ = [
    "DEFAULT_RUNTIME",
    "Job",
    "StepResult",
    "RuntimeProtocol",
    "SandboxPool",
    "run_program",
    "MAX_RANGE",
]

DEFAULT_RUNTIME = "gqlbench.mocks.endpoints:make_runtime"
_RAISE_BUDGET = f"raise the budget with {SETUP_SECONDS_ENV}=SECONDS (a loaded machine)"


@dataclass(frozen=True)
class Job:
    """One program to run against a fresh runtime of ``domain`` built from ``seed``."""

    code: str
    domain: str
    seed: int = 0
    sample_id: str | None = None
    runtime: str = DEFAULT_RUNTIME  # "module:function" or "path/to/file.py:function", imported in the worker
    observe_last: bool = False  # also report the last statement's value as JSON text (Trace.result)
    request: str = ""  # the user's request: a key written in it exists in the world (gqlbench.mocks.engine.generic)
    steps: tuple[str, ...] = ()  # statements run after ``code`` in the same world, each reported (SandboxPool.run_steps)


@dataclass(frozen=True)
class StepResult:
    """What one of a job's ``steps`` gave: its value as JSON text, or its error.

    ``finished`` is false when the job stopped (its wall clock, a limit, a
    failed replay, a dead worker) before this step reported: ``error`` is
    then the job's.
    """

    result: str | None = None
    error: ExecError | None = None
    finished: bool = True


class RuntimeProtocol(Protocol):
    """What a runtime factory returns: the program's API and a record of its use."""

    namespace: Mapping[str, Callable[..., Any]]  # the endpoint functions, by name

    def calls(self) -> Sequence[TraceCall | Mapping[str, Any]]:
        """The calls made so far, in order."""
        ...

    def world_digest(self) -> str | None:
        """A digest of the world's state (None if the runtime keeps none)."""
        ...


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
        setup_seconds()  # a wrong GQLBENCH_SETUP_SECONDS is said before any worker starts
        self._limits = SandboxLimits(
            cpu_seconds, memory_mb, max_output_chars, check_policy=not _unsafe_skip_policy, max_result_chars=max_result_chars
        )
        self._wall_seconds = wall_seconds
        self._max_jobs = max_jobs_per_worker
        self._workers = [WorkerProcess(self._limits) for _ in range(workers)]

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
        return [trace for trace, _ in self.run_steps(jobs)]

    def run_steps(self, jobs: Sequence[Job]) -> list[tuple[Trace, list[StepResult]]]:
        """Run jobs as :meth:`run_many` does; with each trace, one :class:`StepResult` per statement of its job's ``steps``."""
        if not self._workers:
            raise GqlbenchError("this sandbox pool is closed; create a new SandboxPool")
        traces: list[tuple[Trace, list[StepResult]] | None] = [None] * len(jobs)
        queue = deque(range(len(jobs)))
        try:
            while queue or any(worker.busy for worker in self._workers):
                for slot, worker in enumerate(self._workers):
                    if not worker.busy and queue:
                        if not worker.alive() or worker.jobs_done >= self._max_jobs:
                            worker = self._replace(slot)
                        index = queue.popleft()
                        worker.assign(index, _request(jobs[index]))
                for index, trace, said in self._collect(jobs):
                    traces[index] = trace, _steps(jobs[index], trace, said, self._limits.max_result_chars)
        except BaseException:  # a setup error or Ctrl-C: no worker may keep a job it was given
            for slot, worker in enumerate(self._workers):
                if worker.busy:
                    self._replace(slot)
            raise
        return [trace for trace in traces if trace is not None]

    # -- internals -----------------------------------------------------------------------------

    def _replace(self, slot: int) -> WorkerProcess:
        self._workers[slot].stop()
        self._workers[slot] = WorkerProcess(self._limits)
        return self._workers[slot]

    def _collect(self, jobs: Sequence[Job]) -> Iterable[tuple[int, Trace, list[Any]]]:
        """Wait for the next event (a reply, a death, a deadline) and yield finished traces, with what their steps gave."""
        busy = [w for w in self._workers if w.busy]
        next_deadline = min(w.deadline for w in busy)
        readable, _, _ = select.select(busy, [], [], max(0.0, next_deadline - time.monotonic()))
        for worker in readable:
            slot = self._workers.index(worker)
            for message in worker.receive():
                if not worker.ready and "ready" in message:
                    if not message["ready"]:
                        raise GqlbenchError(f"a sandbox worker could not start: {message.get('error')}")
                    worker.mark_ready()
                elif worker.ready and worker.busy and not worker.running and "running" in message:
                    worker.started(self._wall_seconds)  # once per job: a second one is a protocol break
                elif worker.ready and worker.busy and not worker.running and "setup_error" in message:
                    job = jobs[worker.finish()[0]]  # the worker is fine; the job cannot run anywhere
                    if message.get("user_error") is True:  # the user's files (a world file's mistakes), a line each
                        raise GqlbenchError(str(message["setup_error"]))
                    raise GqlbenchError(
                        f"runtime {job.runtime!r} failed for domain {job.domain!r} (sample {job.sample_id}): "
                        f"{message['setup_error']}; check the domain name and the runtime"
                    )
                elif worker.ready and worker.running and "step" in message and len(worker.steps) < _expected_steps(jobs, worker):
                    worker.steps.append(message["step"])  # one per step, no more: read when the job ends
                elif worker.ready and worker.busy and worker.running and "calls" in message:
                    index, elapsed = worker.finish()
                    yield index, _trace_from_reply(jobs[index], message, elapsed, self._limits.max_result_chars), worker.steps
                    if message.get("recycle"):
                        self._replace(slot)
                        break
                else:  # only a subverted worker says anything else
                    worker.fail(ExecError(kind="other", message="the sandbox worker broke its protocol"))
                    break
            if worker.closed and self._workers[slot] is worker:
                if worker.busy and not worker.ready and worker.failure is None:
                    status = worker.stop()
                    said = worker.stderr_line() or f"exit status {status}"
                    raise GqlbenchError(f"a sandbox worker could not start: {said}; check that gqlbench is installed in {sys.executable}")
                if worker.busy:
                    index, elapsed = worker.finish()
                    error = worker.failure or death_error(worker.stop(), worker.stderr_line())
                    yield index, _trace(jobs[index], error, elapsed), worker.steps
                self._replace(slot)
        now = time.monotonic()
        for slot, worker in enumerate(list(self._workers)):
            if worker.busy and now >= worker.deadline:
                if not worker.ready:
                    raise GqlbenchError(f"a sandbox worker did not start within {setup_seconds():g} s; {_RAISE_BUDGET}")
                if not worker.running:
                    job = jobs[worker.index]  # type: ignore[index]
                    raise GqlbenchError(
                        f"runtime {job.runtime!r} did not set up domain {job.domain!r} within {setup_seconds():g} s "
                        f"(sample {job.sample_id}); import a subset of its endpoints "
                        f'(gqlbench domains import-openapi FILE --name {job.domain} --endpoints "GET /a,...") or {_RAISE_BUDGET}'
                    )
                index, elapsed = worker.finish()
                stopped = f"the program ran longer than {self._wall_seconds:g} s (wall clock) and was stopped"
                yield index, _trace(jobs[index], ExecError(kind="timeout", message=stopped), elapsed), worker.steps
                self._replace(slot)


def run_program(job: Job, **limits: Any) -> Trace:
    """Run one program in a one-off pool (convenient, but pays a worker start-up)."""
    with SandboxPool(workers=1, **limits) as pool:
        return pool.run(job)


def _request(job: Job) -> dict[str, Any]:
    """The JSON line a worker reads for ``job``."""
    request = {
        "code": job.code,
        "domain": job.domain,
        "seed": job.seed,
        "runtime": job.runtime,
        "observe_last": job.observe_last,
        "request": job.request,
    }
    return {**request, "steps": list(job.steps)} if job.steps else request


def _expected_steps(jobs: Sequence[Job], worker: WorkerProcess) -> int:
    return 0 if worker.index is None else len(jobs[worker.index].steps)


def _steps(job: Job, trace: Trace, said: Sequence[Any], max_result_chars: int) -> list[StepResult]:
    """One :class:`StepResult` per statement of ``job.steps`` from what the worker said, trusting nothing but its shape."""
    steps = []
    for outcome in said:
        try:
            result, error = outcome.get("result"), outcome.get("error")
            if result is not None and not isinstance(result, str):
                raise TypeError("the result is not text")
            if result is not None and len(result) > cut_length(max_result_chars):  # a well-behaved worker already cut it
                result = cut(result, max_result_chars)
            steps.append(StepResult(result, ExecError.model_validate(error) if error else None))
        except (AttributeError, ValueError, TypeError) as exc:
            steps.append(StepResult(error=ExecError(kind="other", message=f"the sandbox worker sent an invalid step: {exc}")))
    stopped = trace.error or ExecError(kind="other", message="the sandbox job ended without reporting this statement")
    return steps + [StepResult(error=stopped, finished=False)] * (len(job.steps) - len(steps))


def _trace(job: Job, error: ExecError | None, elapsed: float, **fields: Any) -> Trace:
    return Trace(sample_id=job.sample_id, domain=job.domain, seed=job.seed, error=error, elapsed_s=elapsed, **fields)


def _trace_from_reply(job: Job, reply: Mapping[str, Any], elapsed: float, max_result_chars: int) -> Trace:
    """Build the trace from a worker's reply, trusting nothing but its shape."""
    result = reply.get("result") if job.observe_last else None
    if result is not None and not isinstance(result, str):
        return _trace(job, ExecError(kind="other", message="the sandbox worker sent an invalid result"), elapsed)
    if result is not None and len(result) > cut_length(max_result_chars):
        result = cut(result, max_result_chars)  # a well-behaved worker already cut it
    try:
        return _trace(
            job,
            ExecError.model_validate(reply["error"]) if reply.get("error") else None,
            elapsed,
            calls=[TraceCall.model_validate(call) for call in reply.get("calls", [])],
            calls_left_out=max(int(reply.get("calls_left_out") or 0), 0),
            world_digest=reply.get("world_digest"),
            stdout=str(reply.get("stdout", "")),
            result=result,
        )
    except (ValueError, TypeError, KeyError) as exc:
        return _trace(job, ExecError(kind="other", message=f"the sandbox worker sent an invalid reply: {exc}"), elapsed)
