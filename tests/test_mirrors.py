"""Tests mirror the package: each module of a checked folder has its test file (``tests/<folder>/test_<folder>_<module>.py``).

A module in a sub-package names it too (``mocks/server/limits.py``:
``test_mocks_server_limits.py``), except the sub-packages a folder leaves out
of its names (``mocks/engine`` is the mock worlds' engine, so
``mocks/engine/declared/paging.py``: ``test_mocks_declared_paging.py``). A test
file may add a word for an aspect (``test_mocks_sandbox_pool_hostile.py``), and
tests of several modules together (the gold traces) keep names of their own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKED = {"mocks": ("engine",)}
"""Folder -> the sub-packages its test names leave out. A folder joins when every module it has is mirrored."""


def mirror_name(folder: str, module: Path, left_out: tuple[str, ...]) -> str:
    """``mocks/engine/declared/paging.py`` -> ``test_mocks_declared_paging``."""
    parts = [p for i, p in enumerate(module.with_suffix("").parts) if not (i == 0 and p in left_out)]
    return "_".join(["test", folder, *parts])


def unmirrored(package: Path, tests: Path, left_out: tuple[str, ...] = ()) -> list[str]:
    """The modules of ``package`` (``__init__`` aside) with no test file in ``tests`` named after them."""
    names = {path.stem for path in tests.glob("test_*.py")}
    missing = []
    for module in sorted(package.rglob("*.py")):
        relative = module.relative_to(package)
        if module.name == "__init__.py":
            continue
        stem = mirror_name(package.name, relative, left_out)
        if not any(name == stem or name.startswith(stem + "_") for name in names):
            missing.append(f"{package.name}/{relative.as_posix()}: write tests/{package.name}/{stem}.py")
    return missing


@pytest.mark.parametrize("folder", sorted(CHECKED))
def test_every_module_has_its_mirrored_test_file(folder: str) -> None:
    assert unmirrored(ROOT / folder, ROOT / "tests" / folder, CHECKED[folder]) == []


def test_the_check_names_a_module_without_its_test_file(tmp_path: Path) -> None:
    package, tests = tmp_path / "mocks", tmp_path / "tests"
    for module in ("__init__.py", "engine/kinds.py", "engine/declared/paging.py", "server/limits.py", "server/server.py"):
        (package / module).parent.mkdir(parents=True, exist_ok=True)
        (package / module).write_text("")
    tests.mkdir()
    for name in ("test_mocks_kinds_plural.py", "test_mocks_declared_paging.py", "test_mocks_server.py", "test_mocks_limits.py"):
        (tests / name).write_text("")
    assert unmirrored(package, tests, ("engine",)) == [
        "mocks/server/limits.py: write tests/mocks/test_mocks_server_limits.py",
        "mocks/server/server.py: write tests/mocks/test_mocks_server_server.py",
    ]
