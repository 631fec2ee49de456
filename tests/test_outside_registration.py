"""Outside code adds a prompt style and a backend without touching gqlbench, and `gqlbench run` uses them.

The toy modules are written to a temporary folder and reached only through
PYTHONPATH, once named as ``module:object`` and once through installed entry
points (a ``.dist-info`` folder declaring the ``gqlbench.prompt_styles`` and
``gqlbench.backends`` groups), as a separately installed package would.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli_process import run_gqlbench

TESTS = Path(__file__).resolve().parent

TOY_STYLE = """
from dataclasses import dataclass
from gqlbench.generators.backends.backend import GenerationRequest
from gqlbench.generators.prompts import render_task
from gqlbench.generators.styles import Answer
from gqlbench.records import Message


@dataclass(frozen=True)
class _Run:
    assistant_prefix: str = ""

    def messages(self, sample, shots, detail=None):
        return [Message(role="user", content="TOY STYLE: answer with bare code only.\\n" + render_task(sample))]

    def generate(self, work, backend, config):
        return backend.generate([GenerationRequest(s.id, tuple(p.messages)) for s, p in work], config)

    def answer(self, completion):
        return Answer(completion.text, completion.text.strip() + "\\n")


@dataclass(frozen=True)
class ToyStyle:
    name: str = "toy"
    summary: str = "a test style: bare code in one call"
    default_max_new_tokens: int = 77
    uses_steps: bool = False

    def stop(self):
        return ("\\nEND",)

    def start(self, options):
        return _Run()


TOY = ToyStyle()
NOT_A_STYLE = object()
"""

TOY_BACKEND = '''
from stub_backends import StubBackend
from gqlbench.dataset import get_sample


class ToyBackend(StubBackend):
    """Answers with the gold program as bare code, as the toy style asks."""

    name = "toy-backend"

    def answer(self, request):
        assert request.messages[0].content.startswith("TOY STYLE"), "the toy style built this prompt"
        return get_sample(request.sample_id).gold_code.strip()
'''

ENTRY_POINTS = """\
[gqlbench.prompt_styles]
toy = toy_styles:TOY

[gqlbench.backends]
toy = toy_backends:ToyBackend
"""


@pytest.fixture
def plugin_path(tmp_path: Path) -> Path:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "toy_styles.py").write_text(TOY_STYLE)
    (folder / "toy_backends.py").write_text(TOY_BACKEND)
    dist = folder / "gqlbench_toys-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: gqlbench-toys\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS)
    return folder


def _gqlbench(plugin_path: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_path), str(TESTS), os.environ.get("PYTHONPATH", "")])}
    return run_gqlbench(*args, cwd=cwd, env=env)


def _check_toy_run(out: Path) -> None:
    config = json.loads((out / "config.json").read_text())
    assert config["prompt"] == "toy" or config["prompt"].endswith(":TOY")
    assert config["settings"]["max_new_tokens"] == 77 and config["generation"]["stop"] == ["\nEND"]
    assert config["settings"]["max_steps"] is None and config["settings"]["observe"] is None  # no step settings
    assert config["backend"]["backend"] == "toy-backend"
    lines = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert [line["id"] for line in lines] == ["test/0", "test/3"]
    for line in lines:
        assert line["prompt"]["messages"][0]["content"].startswith("TOY STYLE")
        assert line["code"] == line["raw_output"].strip() + "\n"  # the style's own code extraction
        assert line["scores"]["seq_match_full"] == 1
    assert json.loads((out / "results.json").read_text())["metrics"]["overall"]["arg_match_full"] == 1.0


def test_a_style_and_a_backend_named_module_object_run_end_to_end(plugin_path: Path, tmp_path: Path) -> None:
    style = f"{plugin_path / 'toy_styles.py'}:TOY"  # path/to/file.py:object; its run folder goes by the style's name
    args = [
        "run",
        "--model",
        "stub",
        "--prompt",
        style,
        "--backend",
        "toy_backends:ToyBackend",
        "--ids",
        "test/0,test/3",
        "--no-exec",
        "--quiet",
    ]
    done = _gqlbench(plugin_path, tmp_path, *args)
    assert done.returncode == 0, done.stderr
    out = Path(done.stdout.split("run folder: ")[1].strip())
    assert out.parent == Path("runs/stub") and out.name.endswith("_test_toy")
    _check_toy_run(tmp_path / out)
    again = _gqlbench(plugin_path, tmp_path, *args)  # the same command finds the run and has nothing left to do
    assert again.returncode == 0 and f"already complete: {out}" in again.stderr


def test_installed_entry_points_add_names_that_run_and_help_lists(plugin_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = _gqlbench(
        plugin_path,
        tmp_path,
        "run",
        "--model",
        "stub",
        "--prompt",
        "toy",
        "--backend",
        "toy",
        "--ids",
        "test/0,test/3",
        "--no-exec",
        "--out",
        str(out),
        "--quiet",
    )
    assert done.returncode == 0, done.stderr
    _check_toy_run(out)
    help_text = " ".join(_gqlbench(plugin_path, tmp_path, "run", "--help").stdout.split())
    assert "cot | react | tools | toy | module:object" in help_text and "auto | vllm | openai | hf | toy" in help_text


def test_wrong_names_are_one_line_errors(plugin_path: Path, tmp_path: Path) -> None:
    base = ["run", "--model", "stub", "--backend", "toy", "--limit", "1", "--out", str(tmp_path / "r")]
    unknown = _gqlbench(plugin_path, tmp_path, *base, "--prompt", "nope")
    assert unknown.returncode == 2
    assert (
        unknown.stderr.strip()
        == "error: --prompt nope: unknown prompt style; choose one of cot, react, tools, toy, or name your own as module:object"
    )
    wrong = _gqlbench(plugin_path, tmp_path, *base, "--prompt", "toy_styles:NOT_A_STYLE")
    assert wrong.returncode == 2 and "is not a prompt style" in wrong.stderr and len(wrong.stderr.strip().splitlines()) == 1
