"""``gqlbench exec`` runs a program file in the sandbox and prints its trace."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from gqlbench.cli import cli, main
from gqlbench.dataset import get_sample


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
