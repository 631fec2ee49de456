"""Run mypy on the ``gqlbench`` package as it is installed, from a source checkout.

The design card's folders (``metrics/``, ``mocks/``, ...) are imported as
``gqlbench.metrics``, ``gqlbench.mocks``, ... through setuptools' ``package-dir``
mapping, which mypy cannot follow. This script builds that package tree out
of symbolic links in a temporary folder and runs ``mypy -p gqlbench`` there,
with the settings of ``[tool.mypy]`` in ``pyproject.toml``. Exit status is
mypy's.

    python scripts/typecheck.py [extra mypy arguments]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def package_dirs() -> dict[str, Path]:
    """``gqlbench.<name>`` -> source folder, read from pyproject's ``package-dir``."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping = config["tool"]["setuptools"]["package-dir"]
    return {package: ROOT / folder for package, folder in mapping.items()}


def build_tree(into: Path) -> Path:
    """Link every mapped folder under ``into/gqlbench`` as the installed package lays it out."""
    dirs = package_dirs()
    top = into / "gqlbench"
    top.mkdir()
    for path in dirs["gqlbench"].iterdir():
        if path.name != "__pycache__":
            (top / path.name).symlink_to(path)
    for package, folder in dirs.items():
        if package != "gqlbench":
            (into / package.replace(".", "/")).symlink_to(folder)
    return into


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="gqlbench-typecheck-") as tmp:
        tree = build_tree(Path(tmp))
        command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "-p", "gqlbench", *argv]
        return subprocess.run(command, cwd=tree, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
