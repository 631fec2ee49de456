"""Run the ``gqlbench`` command in a fresh Python process: what a user's shell would see.

For what an in-process ``main()`` cannot show: a signal or a kill mid-run and the resume after it, a second
process writing the same folder, output bytes through a real pipe, and the slow end-to-end runs.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

_MAIN = "import sys; from gqlbench.cli import main; sys.exit(main())"


def gqlbench_command(*args: str) -> list[str]:
    """The command line of ``gqlbench ARGS`` with this interpreter (the venv's code, whatever ``PATH`` holds)."""
    return [sys.executable, "-c", _MAIN, *args]


def run_gqlbench(
    *args: str, timeout_s: float = 600, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``gqlbench ARGS`` run to its end; output captured as text."""
    return subprocess.run(gqlbench_command(*args), capture_output=True, text=True, timeout=timeout_s, env=env, cwd=cwd)


def start_gqlbench(*args: str) -> subprocess.Popen[str]:
    """``gqlbench ARGS`` started and left running, to signal, kill or race it; stdout and stderr piped as text."""
    return subprocess.Popen(gqlbench_command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
