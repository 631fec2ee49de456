"""Provenance: one package-versions function, used everywhere versions are recorded."""

from __future__ import annotations

import re
from pathlib import Path

from gqlbench.provenance import RUN_PACKAGES, package_versions, run_versions

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
