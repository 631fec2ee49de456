"""`gqlbench --help` lists every command without importing any of them."""

from __future__ import annotations

import json
import subprocess
import sys

import click
from click.testing import CliRunner

from gqlbench.cli import COMMANDS, SUMMARIES, cli

HEAVY = ("libcst", "graphql", "pydantic", "vllm", "torch", "transformers", "openai", "tqdm", "gqlbench.records")

_PROBE = """
import io, json, sys
from contextlib import redirect_stdout
from gqlbench.cli import main
out = io.StringIO()
with redirect_stdout(out):
    code = main(["--help"])
print(json.dumps({"code": code, "help": out.getvalue(), "modules": sorted(sys.modules)}))
"""


def test_help_lists_every_command_and_imports_no_heavy_module() -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=60)
    probe = json.loads(done.stdout)
    assert probe["code"] == 0
    listed = [line.split()[0] for line in probe["help"].split("Commands:")[1].splitlines() if line.strip()]
    assert listed == sorted(COMMANDS)
    loaded = set(probe["modules"])
    assert [m for m in HEAVY if m in loaded] == []
    assert not any(m.startswith("gqlbench.cli.") for m in loaded)  # no command module was imported


def test_each_summary_is_its_commands_own_short_help() -> None:
    assert set(SUMMARIES) == set(COMMANDS)
    ctx = click.Context(cli)
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        assert command is not None and command.get_short_help_str(10**6) == SUMMARIES[name], name


def test_a_command_still_shows_its_own_help() -> None:
    result = CliRunner().invoke(cli, ["run", "--help"])
    assert result.exit_code == 0 and "--prompt" in result.output
