"""``gqlbench exec`` runs a program file in the sandbox and prints its trace."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from click.testing import CliRunner

from gqlbench.cli import cli, main
from gqlbench.dataset import get_sample
from tests.cli_process import gqlbench_command


def test_exec_prints_the_trace_of_a_gold_program(tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    program.write_text(get_sample("train/54").gold_code)  # Django Unchained -> credits -> director's films
    result = CliRunner().invoke(cli, ["exec", str(program), "--domain", "tmdb"])
    assert result.exit_code == 0, result.output
    assert "1. GET_search_movie(query='Django Unchained') -> ids 68718" in result.output
    assert "3. GET_person__person_id__movie_credits(person_id=" in result.output
    assert "result: ran to the end, 3 call(s)" in result.output


def test_exec_reports_the_error_kind_and_line_and_exits_1(tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    program.write_text('r = GET_search_movie(query="Titanic")\nGET_movie__movie_id__credits(movie_id=r.results[0].title)\n')
    result = CliRunner().invoke(cli, ["exec", str(program), "--domain", "tmdb", "--json"])
    assert result.exit_code == 1
    trace = json.loads(result.output)
    assert trace["error"]["kind"] == "bad_arguments" and trace["error"]["line"] == 2
    assert [c["function"] for c in trace["calls"]] == ["GET_search_movie", "GET_movie__movie_id__credits"]


def test_exec_of_a_missing_file_is_a_one_line_error(tmp_path: Path, capsys) -> None:
    assert main(["exec", str(tmp_path / "nope.py"), "--domain", "tmdb"]) == 2
    assert "nope.py: no such file" in capsys.readouterr().err


def test_mock_serve_help_says_how_to_reset() -> None:
    result = CliRunner().invoke(cli, ["mock", "serve", "--help"])
    assert result.exit_code == 0 and "resetWorld" in result.output and "/reset" in result.output


def _exec_in_a_process(tmp_path: Path, code: str, *options: str) -> subprocess.CompletedProcess[bytes]:
    """``gqlbench exec`` as a user runs it: its own process, stdout a pipe encoded as UTF-8."""
    program = tmp_path / "prog.py"
    program.write_text(code, encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(gqlbench_command("exec", str(program), "--domain", "tmdb", *options), capture_output=True, env=env, timeout=120)


def test_exec_shows_terminal_control_sequences_instead_of_sending_them(tmp_path: Path) -> None:
    done = _exec_in_a_process(tmp_path, 'print("\\x1b]0;title\\x07…")\n')
    assert done.returncode == 0, done.stderr
    output = done.stdout.decode("utf-8")
    assert "\x1b" not in output and "\x07" not in output
    assert "  \\x1b]0;title\\x07…\n" in output


def test_exec_survives_a_lone_surrogate_in_the_output(tmp_path: Path) -> None:
    for options in ((), ("--json",)):
        done = _exec_in_a_process(tmp_path, 'print("a\\ud800b")\nGET_search_movie(query="x\\udfff")\n', *options)
        assert done.returncode == 0, done.stderr
        assert b"Traceback" not in done.stderr
        output = done.stdout.decode("utf-8")  # strict: what was written is valid UTF-8
        if options:  # JSON escapes them
            assert '"a\\ud800b\\n"' in output and '"x\\udfff"' in output
        else:  # printed text gets U+FFFD; the argument is shown as its repr
            assert "  a\ufffdb\n" in output and "query='x\\udfff'" in output


def test_exec_says_which_arguments_were_cut_and_how_many_calls_were_left_out(tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    # an open key (a subject name) takes any text; a search text would be refused over 1,000 characters
    program.write_text("GET_subjects__subject_(subject='a' * 20000)\nfor i in range(30):\n    GET_subjects__subject_(subject='b' * 5000)\n")
    result = CliRunner().invoke(cli, ["exec", str(program), "--domain", "library"])
    assert result.exit_code == 0, result.output
    assert "(cut at 10000 characters)') (cut: subject) -> ids" in result.output
    assert "... and 13 more call(s), counted but not recorded (the trace's size bound)" in result.output
    assert "result: ran to the end, 31 call(s)" in result.output
