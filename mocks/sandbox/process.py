"""One sandbox worker subprocess as the parent sees it: start, send a job, read replies, stop.

A worker is started isolated from where the user stands and from what the
user's shell holds: ``python -I -B`` (no current folder on ``sys.path``, so a
checkout's ``gqlbench/`` folder cannot shadow the installed package; no
``PYTHON*`` variables, no user site, no bytecode written) with an environment
built from an allow-list, so an API key exported for a model backend is never
in a process that runs generated code. The user's ``PYTHONPATH`` reaches a
worker only as :data:`WORKER_PATH_ENV`, whose folders the worker appends to
``sys.path`` after gqlbench itself is imported: a plugin (say a world
behaviour found by entry point) on ``PYTHONPATH`` still loads, and a
``gqlbench/`` folder there still cannot shadow the installed package. Its stderr is kept in a pipe: a worker
that dies says why in one line instead of "exit status 1".
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.sandbox.limits import SandboxLimits
from gqlbench.records import ExecError
from gqlbench.specs.catalog import CATALOG_ENV

__all__ = ["WorkerProcess", "STARTUP_SECONDS", "SETUP_SECONDS_ENV", "setup_seconds", "WORKER_PATH_ENV", "worker_environment", "death_error"]

STARTUP_SECONDS = 60.0  # a worker imports the runtime before it is ready; generous for slow disks
SETUP_SECONDS_ENV = "GQLBENCH_SETUP_SECONDS"  # raises STARTUP_SECONDS (a very large domain on a loaded machine)


def setup_seconds() -> float:
    """The budget for starting a worker and for setting up a job's runtime: ``$GQLBENCH_SETUP_SECONDS``, else 60 s."""
    given = os.environ.get(SETUP_SECONDS_ENV, "").strip()
    if not given:
        return STARTUP_SECONDS
    try:
        seconds = float(given)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise GqlbenchError(f"{SETUP_SECONDS_ENV}={given!r} is not a number of seconds above 0; unset it for {STARTUP_SECONDS:g} s")
    return seconds


_MAX_REPLY_BYTES = 64 * 1024 * 1024
_MAX_STDERR_BYTES = 64 * 1024
_WORKER_ENTRY = "from gqlbench.mocks.sandbox.worker import serve; serve()"
# What a worker inherits: locale, paths and the catalog location. Nothing else (no *_API_KEY, no tokens).
WORKER_PATH_ENV = "GQLBENCH_WORKER_PATH"  # the parent's PYTHONPATH, appended by the worker (see above)
_PASSED_VARIABLES = frozenset({"PATH", "HOME", "TMPDIR", "TZ", "LANG", "LANGUAGE", "PYTHONHASHSEED", CATALOG_ENV})


def worker_environment(parent: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a worker starts with: only allow-listed variables of ``parent`` (default: ours)."""
    source = os.environ if parent is None else parent
    env = {k: v for k, v in source.items() if k in _PASSED_VARIABLES or k.startswith("LC_")}
    if source.get("PYTHONPATH"):
        env[WORKER_PATH_ENV] = source["PYTHONPATH"]
    return env


class WorkerProcess:
    """One worker subprocess and the job it is running, seen from the parent."""

    def __init__(self, limits: SandboxLimits) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-B", "-c", _WORKER_ENTRY, json.dumps(asdict(limits))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=worker_environment(),
            start_new_session=True,  # Ctrl-C stops the parent; workers then see EOF and exit
        )
        assert self.process.stdout is not None and self.process.stdin is not None and self.process.stderr is not None
        self._out = self.process.stdout.fileno()
        os.set_blocking(self._out, False)
        os.set_blocking(self.process.stderr.fileno(), False)
        self._buffer = bytearray()
        self._stderr: str | None = None  # read once, when the worker has stopped
        self.closed = False  # the worker's stdout reached EOF, or the parent gave up on it
        self.failure: ExecError | None = None
        self.ready = False
        self.running = False  # the current job's program has started (its runtime is set up)
        self.index: int | None = None
        self.steps: list[Any] = []  # what the current job's steps gave so far, as the worker said it (Job.steps)
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

    def assign(self, index: int, request: dict[str, Any]) -> None:
        """Send one job. Until the worker says the job's runtime is set up, the start-up budget applies."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            self.closed = True  # reported as a death by the next collect
        self.index = index
        self.steps = []
        self.running = False
        self.started_at = time.monotonic()
        self.deadline = self.started_at + setup_seconds()

    def mark_ready(self) -> None:
        """The worker has started; the job's runtime is set up next, on the start-up budget."""
        self.ready = True
        self.deadline = time.monotonic() + setup_seconds()

    def started(self, wall_seconds: float) -> None:
        """The runtime is set up and the program starts: the job's wall-clock budget starts now."""
        self.running = True
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
        status = self.process.wait()
        self.stderr_line()  # read it now, before the pipe is dropped with the process
        return status

    def stderr_line(self) -> str:
        """The line of the worker's stderr that says why it died ('' if it said nothing).

        A Python traceback's cause is its last line; any other message's is its first.
        """
        if self._stderr is None:
            self._stderr = self._read_stderr()
        lines = [line.strip() for line in self._stderr.splitlines() if line.strip()]
        if not lines:
            return ""
        return lines[-1] if lines[0].startswith("Traceback") else lines[0]

    def _read_stderr(self) -> str:
        stream = self.process.stderr
        if stream is None or stream.closed:
            return ""
        try:
            data = os.read(stream.fileno(), _MAX_STDERR_BYTES)
        except OSError:  # BlockingIOError: nothing was written
            data = b""
        stream.close()
        return data.decode("utf-8", "replace")


def death_error(status: int | None, stderr_line: str = "") -> ExecError:
    """Explain why a worker died mid-job from its exit status (and what it last said)."""
    causes = {
        signal.SIGXCPU: "the program exceeded its CPU time limit",
        signal.SIGKILL: "the worker was killed (memory exhausted?)",
        signal.SIGSEGV: "the worker crashed (C stack exhausted, probably by deep nesting)",
    }
    if status is not None and status < 0 and -status in causes:
        return ExecError(kind="resource_limit", message=causes[signal.Signals(-status)])
    said = f": {stderr_line[:500]}" if stderr_line else ""
    return ExecError(kind="other", message=f"the sandbox worker died unexpectedly (exit status {status}){said}")
