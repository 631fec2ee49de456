"""docs/add-your-own-api.md, run from scratch: its commands build the library domain and the check passes."""

from __future__ import annotations

import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "add-your-own-api.md"


def walkthrough_script() -> str:
    """The bash blocks between the doc's walkthrough markers, exactly as a reader sees them."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("<!-- walkthrough: start -->", 1)[1].split("<!-- walkthrough: end -->", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    assert blocks, "the walkthrough section has no bash block"
    return "\n".join(blocks)


def run_bash(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GQLBENCH_CATALOG"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # the venv's gqlbench
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_walkthrough_from_scratch(tmp_path: Path) -> None:
    # the reader's starting point: the example OpenAPI file and the sample files, nothing else
    shutil.copytree(REPO / "examples" / "library", tmp_path / "examples" / "library")
    shutil.copytree(REPO / "data" / "library", tmp_path / "data" / "library")
    script = walkthrough_script()
    assert "import-openapi" in script and "domains check library" in script

    result = run_bash(script, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "library: no new problems" in result.stderr
    assert "GET_books__book_id__editions(book_id: str, limit: int = None)" in result.stdout
    assert "Dune True" in result.stdout  # the generic world: a lookup shows what the search showed

    # the bundled domain is exactly what these commands produce
    catalog = tmp_path / "my-catalog"
    assert filecmp.cmp(catalog / "specs" / "library.json", REPO / "specs" / "library.json", shallow=False)
    made = sorted(p.name for p in (catalog / "schemas" / "library").glob("*.graphql"))
    assert made == sorted(p.name for p in (REPO / "schemas" / "library").glob("*.graphql")) and len(made) == 9
    for name in made:
        assert filecmp.cmp(catalog / "schemas" / "library" / name, REPO / "schemas" / "library" / name, shallow=False), name
    # the starter world, with the one declaration the guide says the bundled world adds: any subject exists
    starter = json.loads((catalog / "worlds" / "library.json").read_text(encoding="utf-8"))
    assert "open" not in starter["endpoints"]["GET_subjects__subject_"]  # a lookup is open only where declared
    starter["endpoints"]["GET_subjects__subject_"]["open"] = True
    assert starter == json.loads((REPO / "mocks" / "worlds" / "library.json").read_text(encoding="utf-8"))

    # and the check reads that catalog: without the search endpoint's schema, reading its response is a problem
    (catalog / "schemas" / "library" / "GET_search_books.graphql").unlink()
    broken = run_bash(f'export GQLBENCH_CATALOG="{catalog}"\ngqlbench domains check library --data data/library', tmp_path)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "GET_search_books" in broken.stdout and "no response schema" in broken.stdout


def test_every_path_the_guide_names_exists() -> None:
    """A file or module the guide names (``gqlbench/mocks/...``, ``tests/...``) is where it says (a placeholder is not a path)."""
    text = DOC.read_text(encoding="utf-8")
    named = set(
        re.findall(r"`((?:gqlbench|mocks|tests|examples|docs|specs|schemas|data)/[^`\s<>*]+\.(?:py|json|md|yaml|jsonl|graphql))`", text)
    )
    assert len(named) >= 10
    missing = [path for path in named if not (REPO / path).exists() and not (REPO / path.removeprefix("gqlbench/")).exists()]
    assert not missing, f"docs/add-your-own-api.md names files that do not exist: {sorted(missing)}"


def example(name: str) -> str:
    """The code block the guide marks ``<!-- world example: NAME -->``."""
    text = DOC.read_text(encoding="utf-8")
    block = text.split(f"<!-- world example: {name} -->", 1)[1]
    return re.match(r"\s*```\w+\n(.*?)```", block, flags=re.S).group(1)  # type: ignore[union-attr]


def test_the_guides_behaviour_is_short_uses_the_public_module_and_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gqlbench.mocks.endpoints import Runtime
    from gqlbench.mocks.engine.responses import unwrap
    from gqlbench.specs.catalog import bundled_root

    code = example("library_world.py")
    lines = [line for line in code.splitlines() if line.strip() and not line.startswith(('"""', "from", "import"))]
    assert len(lines) <= 20 and "from gqlbench.mocks.world import" in code and "gqlbench.mocks.engine" not in code
    root = bundled_root()
    (tmp_path / "specs").mkdir()
    shutil.copy(root.specs_dir / "library.json", tmp_path / "specs" / "library.json")
    shutil.copytree(root.schemas_dir / "library", tmp_path / "schemas" / "library")
    (tmp_path / "worlds").mkdir()
    (tmp_path / "worlds" / "library.json").write_text(example("library.json"), encoding="utf-8")
    (tmp_path / "worlds" / "library_world.py").write_text(code, encoding="utf-8")
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    search = Runtime("library").namespace["GET_search_books"]
    assert [d["title"] for d in unwrap(search(q="Dune"))["docs"]] == ["Dune", "Dune Messiah"]
    assert [d["title"] for d in unwrap(search(q="messiah dune"))["docs"]] == ["Dune Messiah"]
