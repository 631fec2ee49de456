"""Every shell command in README.md and docs/*.md runs as written, and every relative link there resolves.

The rule, so that commands added to any page are picked up without touching this file:

- **Commands** are the lines of fenced blocks whose info string is ``bash``, ``sh``, ``shell`` or
  ``console``. A ``bash``/``sh``/``shell`` block is script as a reader pastes it (comments, backslash
  continuations and heredocs included). In a ``console`` block the commands are the lines that start
  with ``$ `` (and the backslash continuations of such a line); the other lines are output.
- **Files a page asks you to save**: a ``python`` block whose first line is ``# <name>.py`` is written
  to ``<name>.py`` at its place in the page, so the commands after it find it.
- **Where they run**: a page's blocks run in order as one ``bash -euo pipefail`` script (shell
  variables carry from block to block) in a fresh copy of the repository's files, as in a clone
  (``examples/...``, ``data/...`` resolve), with the project's venv first on PATH, a temporary
  ``GQLBENCH_HOME`` and no ``GQLBENCH_CATALOG`` or ``GQLBENCH_METRICS`` from the caller.
- **Slow blocks**: a block that runs a model (``gqlbench run`` without ``--dry-run``, ``gqlbench models
  prepare``) is slow. A page's fast test runs its other blocks; its slow test (marker ``slow``) runs
  them all. So a fast block must not need what a slow block makes: put those commands in the slow block.
- **Commands that cannot run here** are listed in ``CANNOT_RUN`` with the reason, and replaced by ``:``.
  Every entry must still match a command (none goes stale), and the ``gqlbench`` commands and
  ``bench/`` scripts among them get their options checked against their ``--help``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_INFO = {"bash", "sh", "shell", "console"}

# A substring of the command -> why it cannot run in the tests. Keep this short and true.
CANNOT_RUN: dict[str, str] = {
    "make bench": "installs .venv and runs the whole test split on the bundled model (2.5 to 25 min); "
    "README's `gqlbench run --model smollm2 --limit 2` runs the same path (slow test)",
    "make test": "the whole suite, this test included; CI runs it (.ci/run)",
    "bash .ci/run": "CI itself: a fresh .venv, then make test",
    "pip install": "installs into the environment the tests run in; scripts/install.sh (make) installs the same packages",
    "vllm serve": "needs GPUs and vLLM's GPU build; tests/test_tools_vllm_serve.py serves the bundled model on CPU",
    "/models/Llama-3.1-8B-Instruct": "a model folder on a machine with two GPUs (tensor_parallel_size=2)",
    "--base-url http://gpu-node:8000/v1": "needs a running model server; tests/generators/backends/test_generators_backends_openai.py "
    "runs the openai backend against a local one",
    "--base-url http://NODE1:8000/v1": "needs a running model server on a cluster (same backend test as above)",
    "gqlbench mock serve": "serves until stopped, on a fixed port; tests/cli/test_cli_mock.py serves it on a free port and queries it",
    "python bench/": "a measurement: loads engines or runs thousands of programs, minutes to hours, and its figures are the machine's",
    "runs/fc-vs-code/": "a measurement: 2 x 16 samples on the bundled model, 10 min here and far longer on an AVX2 CPU; "
    "tests/test_tools_local.py runs the same tools path in-process (vllm, hf) and README's run the code path (slow tests)",
    "--matrix functions=gold,distractors:3 --matrix obfuscate=none,all": "a measurement: 8 generations under 4 prompt settings "
    "(15 min on the AVX2 machine); settings.md's grid runs the same path (slow test)",
}

SLOW = re.compile(r"\bgqlbench\s+(models\s+prepare\b|run\b(?!.*--(dry-run|help)\b))", re.S)
HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")
SAVED_FILE = re.compile(r"#\s*([\w./-]+\.py)\s*$")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    info: str
    body: list[str]


def fenced_blocks(page: Path) -> list[Block]:
    """The fenced code blocks of a Markdown page, in order (a fence is three or more backticks)."""
    blocks: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        opening = re.match(r"^(\s*)(`{3,})\s*([\w+-]*)", lines[i])
        if not opening:
            i += 1
            continue
        fence, start, body = opening.group(2), i, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i])
            i += 1
        blocks.append(Block(page, start + 1, opening.group(3).lower(), body))
        i += 1
    return blocks


def commands(block: Block) -> list[str]:
    """The block's commands, each a logical line: backslash continuations joined, a heredoc kept whole."""
    lines = block.body
    if block.info == "console":
        lines, keep = [], False
        for line in block.body:
            if line.startswith("$ "):
                lines.append(line[2:])
                keep = line.endswith("\\")
            elif keep:
                lines.append(line)
                keep = line.endswith("\\")
    found: list[str] = []
    i = 0
    while i < len(lines):
        command = [lines[i]]
        while command[-1].endswith("\\") and i + 1 < len(lines):
            i += 1
            command.append(lines[i])
        heredoc = HEREDOC.search(command[-1])
        if heredoc:
            while i + 1 < len(lines):
                i += 1
                command.append(lines[i])
                if lines[i].strip() == heredoc.group(1):
                    break
        i += 1
        text = "\n".join(command)
        if text.strip() and not text.lstrip().startswith("#"):
            found.append(text)
    return found


def reason_not_run(command: str) -> str | None:
    return next((why for key, why in CANNOT_RUN.items() if key in command), None)


def is_slow(block: Block) -> bool:
    return block.info in SHELL_INFO and any(SLOW.search(c) and not reason_not_run(c) for c in commands(block))


def script_of(block: Block) -> str:
    """What the block contributes to its page's script."""
    if block.info in SHELL_INFO:
        parts = []
        for command in commands(block):
            why = reason_not_run(command)
            parts.append(f": not run here: {shlex.quote(why)}" if why else command)
        return "\n".join(parts)
    saved = SAVED_FILE.match(block.body[0].strip()) if block.info == "python" and block.body else None
    if saved:
        return f"cat > {shlex.quote(saved.group(1))} <<'GQLBENCH_DOC_FILE'\n" + "\n".join(block.body) + "\nGQLBENCH_DOC_FILE"
    return ""


def runnable(page: Path) -> bool:
    return any(b.info in SHELL_INFO and any(not reason_not_run(c) for c in commands(b)) for b in fenced_blocks(page))


def checkout(dest: Path) -> Path:
    """A copy of the repository's files (tracked, and new ones not ignored), as a reader's clone has them."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True)
    for name in listed.stdout.splitlines():
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


@pytest.fixture(scope="session")
def gqlbench_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One temporary cache for the session: the bundled model is prepared once, not once per page."""
    return tmp_path_factory.mktemp("gqlbench-home")


def run_page(page: Path, *, slow: bool, home: Path, tmp_path: Path) -> None:
    blocks = [b for b in fenced_blocks(page) if slow or not is_slow(b)]
    script = "\n".join(s for s in (script_of(b) for b in blocks) if s)
    work = checkout(tmp_path / "clone")
    env = {k: v for k, v in os.environ.items() if k not in ("GQLBENCH_CATALOG", "GQLBENCH_METRICS", "GQLBENCH_HOME")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["GQLBENCH_HOME"] = str(home)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=work, env=env, capture_output=True, text=True, timeout=3600 if slow else 600
    )
    where = page.relative_to(ROOT)
    assert done.returncode == 0, f"{where}: a command failed (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.mark.parametrize("page", [p for p in PAGES if runnable(p)], ids=lambda p: str(p.relative_to(ROOT)))
def test_the_commands_of_a_page_run_as_written(page: Path, gqlbench_home: Path, tmp_path: Path) -> None:
    run_page(page, slow=False, home=gqlbench_home, tmp_path=tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if any(is_slow(b) for b in fenced_blocks(p))], ids=lambda p: str(p.relative_to(ROOT)))
def test_the_commands_of_a_page_run_as_written_with_the_model(page: Path, gqlbench_home: Path, tmp_path: Path) -> None:
    run_page(page, slow=True, home=gqlbench_home, tmp_path=tmp_path)


def all_commands() -> list[str]:
    return [c for p in PAGES for b in fenced_blocks(p) if b.info in SHELL_INFO for c in commands(b)]


def test_every_command_that_is_not_run_is_listed_with_a_reason_that_still_applies() -> None:
    found = all_commands()
    stale = [key for key in CANNOT_RUN if not any(key in c for c in found)]
    assert not stale, f"CANNOT_RUN entries that match no command in README.md or docs/: {stale}"


def help_command(command: str) -> list[str] | None:
    """``gqlbench <subcommand...> --help`` or ``python bench/<script>.py --help`` for a command, else None."""
    words = [w for w in shlex.split(command.replace("\\\n", " "), comments=True) if "=" not in w or w.startswith("-")]
    if words[:1] == ["gqlbench"]:
        sub = [w for w in words[1:] if not w.startswith("-")][:2]
        return ["gqlbench", *(sub[:1] if sub[:1] == ["run"] else sub), "--help"]
    if words[:1] == ["python"] and words[1:2] and words[1].startswith("bench/"):
        return [sys.executable, words[1], "--help"]
    return None


def test_commands_not_run_use_options_that_exist() -> None:
    """A command the tests cannot run still has its options checked, so a renamed option cannot linger in the docs."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    checked = 0
    for command in sorted({c for c in all_commands() if reason_not_run(c)}):
        helper = help_command(command)
        if helper is None:
            continue
        text = subprocess.run(helper, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300).stdout
        options = {w.split("=", 1)[0] for w in shlex.split(command.replace("\\\n", " "), comments=True) if w.startswith("--")}
        missing = sorted(o for o in options if o not in text)
        assert not missing, f"{command!r}: {' '.join(helper)} lists no {missing}"
        checked += 1
    assert checked >= 5


# -- links -----------------------------------------------------------------------------------------------------------

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.*)$", text, flags=re.M)}


def links(page: Path) -> list[str]:
    text = re.sub(r"^\s*```.*?^\s*```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    return [m.group(1) for m in LINK.finditer(text)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_to_a_file_and_heading_that_exist(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(target)
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: links to nothing: {broken}"
