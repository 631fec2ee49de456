"""Run the ``gqlbench`` command in a fresh Python process (slow end-to-end tests): what a user's shell would see."""

from __future__ import annotations

import subprocess
import sys

_MAIN = "import sys; from gqlbench.cli import main; sys.exit(main())"


def run_gqlbench(*args: str, timeout_s: float = 600) -> subprocess.CompletedProcess[str]:
    """``gqlbench ARGS`` with this interpreter (the venv's code, whatever ``PATH`` holds); output captured as text."""
    return subprocess.run([sys.executable, "-c", _MAIN, *args], capture_output=True, text=True, timeout=timeout_s)
