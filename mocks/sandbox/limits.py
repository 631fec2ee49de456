"""The sandbox worker's run-time walls: process limits and the audit hook.

Runs inside a worker process only (see :mod:`gqlbench.mocks.sandbox.worker`).
:func:`lock_down` sets the limits that hold for the worker's whole life;
:func:`job_limits` and :func:`lift_job_limits` bracket one program;
:data:`GUARD` vetoes interpreter events that reach outside the process while
a program runs. Errors a program can cause here carry the ``kind`` the
sandbox reports.
"""

from __future__ import annotations

import math
import os
import resource
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import CodeType
from typing import Any

__all__ = [
    "SandboxLimits",
    "SandboxViolation",
    "ResourceLimit",
    "GUARD",
    "lock_down",
    "job_limits",
    "report_limits",
    "lift_job_limits",
    "cut",
    "cut_length",
]

_CUT_NOTE = " ... (cut at {limit} characters)"


@dataclass(frozen=True)
class SandboxLimits:
    """What one job may use; sent to the worker as JSON on its command line."""

    cpu_seconds: float
    memory_mb: int
    max_output_chars: int
    check_policy: bool = True
    max_result_chars: int = 100_000
    max_argument_chars: int = 10_000  # one argument's JSON text in a trace (the bundled gold's longest: ~200)
    max_trace_chars: int = 100_000  # the JSON text of a trace's calls (the bundled gold's longest: ~1,000)


class SandboxViolation(PermissionError):
    """The program tried something the sandbox vetoes."""

    kind = "refused"


class ResourceLimit(Exception):
    """The program hit a CPU, memory, size or output limit."""

    kind = "resource_limit"


def cut(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its start and a note saying it was cut."""
    return text if len(text) <= limit else text[:limit] + _CUT_NOTE.format(limit=limit)


def cut_length(limit: int) -> int:
    """The longest text :func:`cut` can return for ``limit``."""
    return limit + len(_CUT_NOTE.format(limit=limit))


class _AuditGuard:
    """Veto interpreter events that reach outside the process, in two strengths.

    While a program runs (``program`` set): everything a call chain does not
    need, imports and file reads included. While a runtime is set up
    (``setting_up``, see :meth:`setup`): the runtime's module and a world's
    ``"behaviour"`` are plugin code that may import modules and read files
    (its fixtures), but may not write or delete files, open sockets, start
    processes, send signals or change the process's limits.
    """

    # fmt: off
    _VETOED_PREFIXES = (
        "open", "import", "exec", "compile", "os.", "subprocess.", "socket.", "ctypes.", "shutil.", "pty.",
        "resource.", "signal.", "marshal.", "pickle.", "urllib.", "http.", "ftplib.", "smtplib.", "webbrowser.",
        "sqlite3.", "mmap.", "gc.get_", "sys.settrace", "sys.setprofile", "sys.addaudithook", "sys._current_frames",
        "code.__new__", "function.__new__", "object.__getattr__", "builtins.input", "builtins.breakpoint", "glob.",
        "tempfile.", "fcntl.", "cpython.", "_posixsubprocess.",
    )
    _SETUP_VETOED_PREFIXES = (
        "os.", "subprocess.", "socket.", "ctypes.", "shutil.", "pty.", "resource.", "signal.", "urllib.", "http.",
        "ftplib.", "smtplib.", "webbrowser.", "sqlite3.", "mmap.", "tempfile.", "fcntl.", "cpython.",
        "_posixsubprocess.", "builtins.input", "builtins.breakpoint",
    )
    _SETUP_ALLOWED = frozenset({"os.listdir", "os.scandir", "os.walk", "os.fwalk", "os.getxattr", "os.listxattr"})
    # fmt: on
    _WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

    def __init__(self) -> None:
        self.program: CodeType | None = None
        self.setting_up = False

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if self.program is not None:
            if event == "exec" and args and args[0] is self.program:
                return
            if event.startswith(self._VETOED_PREFIXES):
                raise SandboxViolation(f"the sandbox does not allow this operation ({event})")
        elif self.setting_up:
            writes = event == "open" and len(args) >= 3 and _opens_for_writing(args[1], args[2])
            if writes or (event.startswith(self._SETUP_VETOED_PREFIXES) and event not in self._SETUP_ALLOWED):
                what = f"writing {args[0]!r:.200}" if writes else event
                raise SandboxViolation(f"a runtime or world behaviour may not do this in the sandbox ({what})")

    @contextmanager
    def setup(self) -> Iterator[None]:
        """Arm the set-up veto around building a job's runtime (imports and reads allowed, see above)."""
        self.setting_up = True
        try:
            yield
        finally:
            self.setting_up = False


def _opens_for_writing(mode: object, flags: object) -> bool:
    """Whether an ``open`` audit event's ``mode`` (``open()``) or ``flags`` (``os.open``) can change a file."""
    if isinstance(mode, str):
        return any(letter in mode for letter in "wax+")
    return isinstance(flags, int) and bool(flags & _AuditGuard._WRITE_FLAGS)


GUARD = _AuditGuard()


def _on_cpu_limit(signum: int, frame: object) -> None:
    if GUARD.program is not None:  # a late signal outside a job is ignored
        raise ResourceLimit("the program exceeded its CPU time limit")


def _vetoed_fork_exec(*args: object) -> None:
    raise SandboxViolation("the sandbox does not allow starting processes")


def lock_down() -> None:
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
    sys.addaudithook(GUARD)


def job_limits(limits: SandboxLimits) -> None:
    """Per-job soft limits, relative to what the worker already uses (hard limits stay open)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_used = usage.ru_utime + usage.ru_stime
    resource.setrlimit(resource.RLIMIT_CPU, (math.ceil(cpu_used + limits.cpu_seconds), resource.RLIM_INFINITY))
    resource.setrlimit(resource.RLIMIT_AS, (_address_space() + limits.memory_mb * 2**20, resource.RLIM_INFINITY))


REPORT_CPU_SECONDS = 1
REPORT_MEMORY_MB = 32


def report_limits() -> None:
    """Once the program has stopped: a small fresh allowance for writing what it did (its trace, its error).

    The report is built from the program's objects, so it stays limited; the
    allowance (:data:`REPORT_CPU_SECONDS`, :data:`REPORT_MEMORY_MB` on top of
    what is in use now) lets a program that stopped at its own limit still be
    reported. A job therefore uses at most its ``memory_mb`` plus this.
    """
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_used = usage.ru_utime + usage.ru_stime
    resource.setrlimit(resource.RLIMIT_CPU, (math.ceil(cpu_used + REPORT_CPU_SECONDS), resource.RLIM_INFINITY))
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    used = _address_space()
    if soft != resource.RLIM_INFINITY and soft < used + REPORT_MEMORY_MB * 2**20:
        resource.setrlimit(resource.RLIMIT_AS, (used + REPORT_MEMORY_MB * 2**20, resource.RLIM_INFINITY))


def _address_space() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


def lift_job_limits() -> None:
    """Undo :func:`job_limits` once the program has stopped."""
    resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
