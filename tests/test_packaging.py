"""The wheel carries every package under the gqlbench namespace and nothing generic."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {
    "gqlbench": "gqlbench",
    "schemas": "gqlbench/schemas",
    "specs": "gqlbench/specs",
    "generators": "gqlbench/generators",
    "metrics": "gqlbench/metrics",
    "mocks": "gqlbench/mocks",
    "data": "gqlbench/data",
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(out), str(ROOT)],
        check=True,
    )
    (built,) = out.glob("gqlbench-*.whl")
    return built


@pytest.mark.slow
def test_wheel_has_namespaced_packages_only(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"gqlbench"}, f"generic top-level names would land in site-packages: {top - {'gqlbench'}}"
    # every tracked source module and data file of the mapped folders is in the wheel
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    wanted = set()
    for path in tracked:
        folder, _, rest = path.partition("/")
        if folder in FOLDERS and rest and not path.endswith("__pycache__"):
            if folder == "gqlbench" or path.endswith((".py", ".json", ".graphql", ".jsonl", ".md")) or rest.endswith("LICENSE"):
                wanted.add(f"{FOLDERS[folder]}/{rest}" if folder != "gqlbench" else path)
    missing = sorted(wanted - set(names))
    assert not missing, f"files missing from the wheel: {missing[:10]}"


@pytest.mark.slow
def test_unpacked_wheel_imports_and_runs(wheel: Path, tmp_path: Path) -> None:
    zipfile.ZipFile(wheel).extractall(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    code = (
        "import gqlbench, gqlbench.metrics, gqlbench.specs, gqlbench.schemas, gqlbench.mocks, gqlbench.generators\n"
        "from gqlbench.dataset import load_split, default_data_dir\n"
        "assert len(load_split('test')) == 32\n"
        "for m in (gqlbench, gqlbench.metrics, gqlbench.specs, gqlbench.schemas, gqlbench.mocks):\n"
        f"    assert m.__file__.startswith({str(tmp_path / 'site')!r}), m.__file__\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_editable_install_maps_folders() -> None:
    import gqlbench.metrics

    assert Path(gqlbench.metrics.__file__).parent == ROOT / "metrics"
    done = subprocess.run([sys.executable, "-c", "import metrics"], cwd="/", capture_output=True, text=True)
    assert done.returncode != 0 and "No module named 'metrics'" in done.stderr
