"""Provenance: one package-versions function, used everywhere versions are recorded."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gqlbench.provenance import RUN_PACKAGES, package_versions, redact_url, redact_urls, run_versions

ROOT = Path(__file__).resolve().parents[1]


def test_versions_of_installed_packages_only_in_the_asked_order() -> None:
    found = package_versions("pydantic", "no-such-distribution-xyz", "click")
    assert list(found) == ["pydantic", "click"] and all(re.match(r"\d", v) for v in found.values())
    versions = run_versions()
    assert next(iter(versions)) == "python" and set(versions) - {"python"} <= set(RUN_PACKAGES)


def test_no_other_module_collects_versions() -> None:
    """Backends, runs and benchmarks record versions only through gqlbench.provenance."""
    allowed = {ROOT / "gqlbench" / "provenance.py", ROOT / "gqlbench" / "__init__.py"}  # __init__: gqlbench's own __version__
    folders = ["gqlbench", "generators", "metrics", "mocks", "schemas", "specs", "bench", "scripts"]
    offenders = [
        str(path.relative_to(ROOT))
        for folder in folders
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path not in allowed and re.search(r"\bmetadata\.version\(|\bfrom importlib\.metadata import [^\n]*\bversion\b", path.read_text())
    ]
    assert offenders == []


@pytest.mark.parametrize(
    ("url", "recorded"),
    [
        ("http://user:hunter2@host/v1", "http://***@host/v1"),
        ("https://token@host:8443/v1", "https://***@host:8443/v1"),
        ("https://host/v1?api_key=k1&x=1&sig=s2&Access-Token=t3", "https://host/v1?api_key=***&x=1&sig=***&Access-Token=***"),
        ("http://localhost:8000/v1", "http://localhost:8000/v1"),
    ],
)
def test_recorded_urls_lose_their_credentials(url: str, recorded: str) -> None:
    assert redact_url(url) == recorded
    assert redact_urls(f"gqlbench run --base-url={url} --model m") == f"gqlbench run --base-url={recorded} --model m"
