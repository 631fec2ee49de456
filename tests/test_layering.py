"""Data flows one way: each package imports only the layers beneath it (checked on the source)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASE = {"gqlbench.errors", "gqlbench.records", "gqlbench.plugins", "gqlbench.provenance", "gqlbench.program"}
# folder -> the gqlbench modules it may import (besides its own package)
ALLOWED = {
    "specs": BASE,
    "schemas": BASE | {"gqlbench.specs"},
    "metrics": BASE | {"gqlbench.dataset", "gqlbench.specs", "gqlbench.schemas"},
    "mocks": BASE | {"gqlbench.dataset", "gqlbench.specs", "gqlbench.schemas"},
    "generators": BASE | {"gqlbench.dataset", "gqlbench.specs", "gqlbench.schemas"},
}
MODEL_LIBRARIES = {"vllm", "torch", "transformers", "openai"}


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at top level or inside functions."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def outside(folder: str, module: str) -> bool:
    if not module.startswith("gqlbench"):
        return False
    own = f"gqlbench.{folder}"
    permitted = ALLOWED[folder] | {own}
    return not any(module == p or module.startswith(p + ".") for p in permitted)


@pytest.mark.parametrize("folder", sorted(ALLOWED))
def test_package_imports_only_lower_layers(folder: str) -> None:
    wrong = {
        f"{path.name}: {module}"
        for path in sorted((ROOT / folder).rglob("*.py"))
        for module in imported_modules(path)
        if outside(folder, module)
    }
    assert not wrong, f"{folder}/ reaches above its layer: {sorted(wrong)}"


@pytest.mark.parametrize("folder", ["specs", "schemas", "metrics", "mocks"])
def test_scoring_and_catalog_never_touch_a_model_library(folder: str) -> None:
    used = {
        f"{path.name}: {module}"
        for path in sorted((ROOT / folder).rglob("*.py"))
        for module in imported_modules(path)
        if module.split(".")[0] in MODEL_LIBRARIES
    }
    assert not used, used


def test_the_check_sees_imports_inside_functions(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from gqlbench.generators import factory\n")
    assert outside("metrics", next(iter(imported_modules(source))))


LIBRARY_FOLDERS = ("gqlbench", "generators", "metrics", "mocks", "schemas", "specs")


def printed(path: Path) -> list[int]:
    """Lines where a file calls ``print`` or writes to ``sys.stdout``/``sys.stderr`` itself."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "print":
            lines.append(node.lineno)
        elif (
            isinstance(func, ast.Attribute)
            and func.attr == "write"
            and isinstance(func.value, ast.Attribute)
            and func.value.attr in ("stdout", "stderr")
            and isinstance(func.value.value, ast.Name)
            and func.value.value.id == "sys"
        ):
            lines.append(node.lineno)
    return lines


def test_only_the_cli_prints() -> None:
    """Library code returns, raises or tells a ``notify`` callback; ``gqlbench/cli`` decides what reaches the terminal."""
    cli = ROOT / "gqlbench" / "cli"
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for folder in LIBRARY_FOLDERS
        for path in sorted((ROOT / folder).rglob("*.py"))
        if cli not in path.parents
        for line in printed(path)
    ]
    assert not found, f"library modules that print (return, raise or notify instead): {found}"


def test_the_print_check_sees_prints_and_stream_writes(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("import sys\ndef f():\n    print('x')\n    sys.stderr.write('y')\n    fh.write('z')\n")
    assert printed(source) == [3, 4]


def test_world_behaviours_import_only_the_public_world_module() -> None:
    """A world's Python uses ``gqlbench.mocks.world`` and nothing else of gqlbench, so the engine may change beneath it."""
    behaviours = sorted((ROOT / "mocks" / "worlds").glob("*.py"))
    assert {path.name for path in behaviours} >= {"spotify.py", "tmdb.py"}
    wrong = {
        f"{path.name}: {module}"
        for path in behaviours
        for module in imported_modules(path)
        if module.startswith("gqlbench") and module != "gqlbench.mocks.world"
    }
    assert not wrong, f"a world behaviour reaches into the engine: {sorted(wrong)}; add what it needs to mocks/world.py"
