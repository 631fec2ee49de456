"""``gqlbench domains``: overview, list, show, check and build, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gqlbench.cli import cli, main
from gqlbench.dataset import default_data_dir
from gqlbench.schemas import endpoints_with_sdl
from gqlbench.specs import CATALOG_ENV, load_specs


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_overview_counts_endpoints_and_response_schemas() -> None:
    code, out = run("domains")
    assert code == 0
    for domain in ("spotify", "tmdb"):
        row = next(line.split() for line in out.splitlines() if line.startswith(domain + " "))
        assert row[1:3] == [str(len(load_specs(domain))), str(len(endpoints_with_sdl(domain)))]


def test_list_marks_endpoints_with_a_response_schema() -> None:
    code, out = run("domains", "list", "spotify")
    assert code == 0
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines() if line.startswith(("GET_", "PUT_", "POST_", "DELETE_"))}
    assert set(rows) == set(load_specs("spotify"))
    assert {name for name, mark in rows.items() if mark == "yes"} == set(endpoints_with_sdl("spotify"))


def test_show_prints_signature_json_and_sdl() -> None:
    code, out = run("domains", "show", "tmdb", "GET_tv__tv_id_")
    assert code == 0
    assert out.startswith("GET_tv__tv_id_(tv_id: int)")
    start = out.index("Signature (JSON):\n") + len("Signature (JSON):\n")
    end = out.index("\n\nResponse schema")
    assert json.loads(out[start:end])["name"] == "GET_tv__tv_id_"
    assert "returns GET_tv__tv_id_Root" in out and "type GET_tv__tv_id_Root {" in out and "@rest(" in out


def test_show_marks_optional_parameters_and_missing_schema_and_variants() -> None:
    code, out = run("domains", "show", "spotify", "PUT_me_player_pause")
    assert code == 0
    assert out.startswith("PUT_me_player_pause(device_id: str = None)")
    assert "samples disagree on this signature" in out
    assert "Response schema: none" in out


def test_user_errors_are_one_line_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["domains", "show", "tmdb", "GET_tv_tv_id"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "closest: GET_tv__tv_id_" in err
    assert main(["domains", "list", "tmbd"]) == 2
    assert "did you mean 'tmdb'" in capsys.readouterr().err


def test_check_counts_documented_dataset_defects_as_known(tmp_path: Path) -> None:
    code, out = run("domains", "check", "spotify", "--show-known")
    assert code == 0
    assert "known: " in out and "PUT_me_player_pause: samples disagree" in out
    assert "[errata: spec_disagreements: spotify: only test/7's signature has 'device_id'" in out
    assert "spotify: no new problems, " in out and " known from errata.json" in out
    # the same defects are new problems once the benchmark's errata stop documenting them
    bench = tmp_path / "bench"
    bench.mkdir()
    for split in ("train", "valid", "test"):
        (bench / f"{split}.jsonl").write_bytes((default_data_dir() / f"{split}.jsonl").read_bytes())
    errata = json.loads((default_data_dir() / "errata.json").read_text())
    del errata["spec_disagreements"], errata["non_executable_gold"]["train/10"]
    (bench / "errata.json").write_text(json.dumps(errata))
    code, out = run("domains", "check", "spotify", "--data", str(bench))
    assert code == 1
    new = [line for line in out.splitlines() if not line.startswith("spotify:")]
    assert any("PUT_me_player_pause: samples disagree" in line for line in new)
    assert any(line.startswith("sample train/10 ") for line in new)
    assert "spotify: 5 new problems" in out


def test_check_prints_problems_and_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a clean user domain passes
    (tmp_path / "specs").mkdir()
    (tmp_path / "schemas" / "pets").mkdir(parents=True)
    spec = {"name": "GET_pets", "description": "List pets.", "parameters": {"type": "dict", "properties": {}, "required": []}}
    (tmp_path / "specs" / "pets.json").write_text(json.dumps([spec]))
    sdl = 'type GET_pets_Root {\n  name: String\n}\n\ntype Query {\n  GET_pets: GET_pets_Root @rest(endpoint: "https://pets.example")\n}\n'
    (tmp_path / "schemas" / "pets" / "GET_pets.graphql").write_text(sdl)
    monkeypatch.setenv(CATALOG_ENV, str(tmp_path))
    assert run("domains", "check", "pets") == (0, "pets: no new problems\n")
    # a broken endpoint file is reported with its path
    (tmp_path / "schemas" / "pets" / "GET_pets.graphql").write_text(sdl.replace("GET_pets_Root @rest", "Missing @rest"))
    code, out = run("domains", "check", "pets")
    assert code == 1 and "GET_pets.graphql: does not build" in out


def test_build_writes_a_catalog_folder_and_refuses_to_overwrite(tmp_path: Path) -> None:
    code, out = run("domains", "build", "--out", str(tmp_path))
    assert code == 0 and "67 written, 0 unchanged" in out
    assert "problem: specs/spotify.json: PUT_me_player_pause: samples disagree" in out
    assert (tmp_path / "schemas" / "tmdb" / "GET_tv__tv_id_.graphql").is_file()
    (tmp_path / "specs" / "tmdb.json").write_text("[]")
    with pytest.raises(Exception, match="refusing to overwrite 1 file"):
        run("domains", "build", "--out", str(tmp_path))
    code, out = run("domains", "build", "--out", str(tmp_path), "--force")
    assert code == 0 and "1 written, 66 unchanged" in out


def test_check_output_escapes_control_characters(tmp_path, monkeypatch, capsys) -> None:
    """A problem quotes a sample's text; a terminal escape in it must not reach the terminal."""
    from gqlbench.cli import domain_check
    from gqlbench.records import Problem

    problem = Problem(subject="x", where="test/1", message="bad name \x1b]0;title\x07")
    monkeypatch.setattr(domain_check, "check_domain", lambda domain, data_dir: [problem])
    monkeypatch.setattr(domain_check, "split_known", lambda problems, domain, data_dir: (problems, []))
    from gqlbench.cli import main

    with pytest.raises(SystemExit) as exited:  # a new problem: exit status 1
        main(["domains", "check", "spotify"])
    assert exited.value.code == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b]0;title\\x07" in out


def test_show_puts_required_parameters_first_as_python_needs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = {
        "name": "GET_things",
        "description": "d",
        "parameters": {
            "type": "dict",
            "properties": {"limit": {"type": "integer", "description": "l"}, "q": {"type": "string", "description": "q"}},
            "required": ["q"],
        },
    }
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "things.json").write_text(json.dumps([spec]))
    monkeypatch.setenv(CATALOG_ENV, str(tmp_path))
    code, out = run("domains", "show", "things", "GET_things")
    assert code == 0 and out.startswith("GET_things(q: str, limit: int = None)\n")


def test_check_flags_dunder_and_keyword_names_an_old_import_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    properties = {"__class__": {"type": "string", "description": "c"}, "class": {"type": "string", "description": "k"}}
    spec = {"name": "GET_things", "description": "d", "parameters": {"type": "dict", "properties": properties, "required": []}}
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "odd.json").write_text(json.dumps([spec]))
    (tmp_path / "schemas" / "odd").mkdir(parents=True)
    (tmp_path / "schemas" / "odd" / "GET_things.graphql").write_text(
        "type GET_things_Root {\n  id: String\n}\n\ntype Query {\n  GET_things(__class__: String, class: String): GET_things_Root\n"
        '    @rest(endpoint: "https://odd.example.org/things")\n}\n'
    )
    monkeypatch.setenv(CATALOG_ENV, str(tmp_path))
    code, out = run("domains", "check", "odd")
    assert code == 1
    assert "GET_things: parameter '__class__' begins with '__'" in out
    assert "GET_things: parameter 'class' is a Python keyword" in out
    assert "the merged schema is not valid GraphQL, so every call would fail: Name '__class__' must not begin with '__'" in out


def test_list_and_show_escape_a_catalogs_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A catalog folder is third-party text: its descriptions reach the terminal escaped."""
    (tmp_path / "specs").mkdir()
    hostile = "Lists pets.\x1b]0;owned\x07 \x1b[2J\u202e"
    param = {"type": "string", "description": "a name\x1b[8m"}
    spec = {"name": "GET_pets", "description": hostile, "parameters": {"type": "dict", "properties": {"name": param}, "required": []}}
    (tmp_path / "specs" / "pets.json").write_text(json.dumps([spec]))
    monkeypatch.setenv(CATALOG_ENV, str(tmp_path))
    for args in (("domains", "list", "pets"), ("domains", "show", "pets", "GET_pets")):
        code, out = run(*args)
        assert code == 0 and "GET_pets" in out
        assert not any(c in out for c in "\x1b\x07\u202e") and "\\x1b]0;owned\\x07" in out
