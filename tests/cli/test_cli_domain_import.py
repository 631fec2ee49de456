"""``gqlbench domains import-openapi``: files written, merged, never overwritten silently."""

from __future__ import annotations

from pathlib import Path

import pytest

from gqlbench.cli import main
from gqlbench.specs import list_domains, load_specs, read_specs_file

REPO = Path(__file__).resolve().parents[2]
OPENAPI = REPO / "examples" / "library" / "openapi.yaml"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_import_writes_a_catalog_folder_that_gqlbench_catalog_finds(tmp_path: Path, capsys, monkeypatch) -> None:
    code, out, _ = run(["domains", "import-openapi", str(OPENAPI), "--name", "shelf", "--out", str(tmp_path)], capsys)
    assert code == 0
    assert "10 signatures" in out and "9 response schemas" in out and "DELETE_loans__loan_id_" in out
    assert f"export GQLBENCH_CATALOG={tmp_path}" in out
    assert len(read_specs_file(tmp_path / "specs" / "shelf.json").functions) == 10
    assert len(list((tmp_path / "schemas" / "shelf").glob("*.graphql"))) == 9
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    assert "shelf" in list_domains() and "POST_loans" in load_specs("shelf")


def test_endpoints_add_up_and_changes_need_force(tmp_path: Path, capsys) -> None:
    base = ["domains", "import-openapi", str(OPENAPI), "--name", "shelf", "--out", str(tmp_path)]
    assert run([*base, "--endpoints", "GET /search/books"], capsys)[0] == 0
    assert run([*base, "--endpoints", "POST /loans,GET /me/loans"], capsys)[0] == 0
    specs_file = tmp_path / "specs" / "shelf.json"
    assert list(read_specs_file(specs_file).functions) == ["GET_search_books", "POST_loans", "GET_me_loans"]
    code, out, _ = run([*base, "--endpoints", "POST /loans"], capsys)
    assert code == 0 and "0 file(s) written, 3 unchanged" in out  # specs, SDL, openapi_facts.json

    changed = tmp_path / "changed.yaml"
    changed.write_text(OPENAPI.read_text().replace("Borrow an edition for the current patron", "Borrow a book"))
    before = specs_file.read_text()
    code, _, err = run(["domains", "import-openapi", str(changed), "--name", "shelf", "--out", str(tmp_path)], capsys)
    assert code == 2 and "POST_loans already exists with a different signature; pass --force" in err
    assert specs_file.read_text() == before  # nothing written, not even the new files
    assert not (tmp_path / "schemas" / "shelf" / "GET_books__book_id_.graphql").exists()
    assert run(["domains", "import-openapi", str(changed), "--name", "shelf", "--out", str(tmp_path), "--force"], capsys)[0] == 0
    assert "Borrow a book" in specs_file.read_text()


def test_changed_schema_files_need_force(tmp_path: Path, capsys) -> None:
    base = ["domains", "import-openapi", str(OPENAPI), "--name", "shelf", "--out", str(tmp_path), "--endpoints", "GET /me/loans"]
    assert run(base, capsys)[0] == 0
    sdl = tmp_path / "schemas" / "shelf" / "GET_me_loans.graphql"
    sdl.write_text(sdl.read_text() + "\n# my edit\n")
    code, _, err = run(base, capsys)
    assert code == 2 and "GET_me_loans.graphql already exists with different content" in err
    assert "# my edit" in sdl.read_text()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--endpoints", "GET /nope"], "endpoint 'GET /nope' is not in the document"),
        (["--endpoints", "GET"], "is not of the form 'METHOD /path'"),
        (["--name", "my-lib"], "--name 'my-lib': use letters, digits and _ only"),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, capsys, extra: list[str], message: str) -> None:
    args = ["domains", "import-openapi", str(OPENAPI), "--out", str(tmp_path)]
    args += extra if "--name" in extra else ["--name", "shelf", *extra]
    code, _, err = run(args, capsys)
    assert code == 2 and message in err and err.count("\n") == 1


EMPTY_PATHS = "openapi: 3.0.3\ninfo: {title: Nothing, version: '1'}\npaths: {}\n"


def test_a_file_without_operations_is_an_error_naming_it_unless_allowed(tmp_path: Path, capsys) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text(EMPTY_PATHS)
    out = tmp_path / "catalog"
    code, _, err = run(["domains", "import-openapi", str(empty), "--name", "nothing", "--out", str(out)], capsys)
    assert code != 0
    assert f"{empty}: 'paths' has no operations, so domain 'nothing' would have no endpoints" in err
    assert "--allow-empty" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()  # nothing written
    code, stdout, _ = run(["domains", "import-openapi", str(empty), "--name", "nothing", "--out", str(out), "--allow-empty"], capsys)
    assert code == 0 and "nothing: 0 signatures" in stdout
    assert read_specs_file(out / "specs" / "nothing.json").functions == {}


def test_import_writes_a_starter_world_that_is_kept_once_edited(tmp_path: Path, capsys, monkeypatch) -> None:
    import json

    from gqlbench.mocks.endpoints import Runtime

    base = ["domains", "import-openapi", str(OPENAPI), "--name", "shelf", "--out", str(tmp_path)]
    assert run(base, capsys)[0] == 0
    world = tmp_path / "worlds" / "shelf.json"
    fixture = json.loads(world.read_text())
    assert set(fixture["endpoints"]) == set(read_specs_file(tmp_path / "specs" / "shelf.json").functions)
    assert fixture["endpoints"]["GET_books__book_id_"] == {"action": "lookup", "kind": "book", "id_param": "book_id"}
    fixture["entities"] = {"book": [{"book_id": "B1", "title": "Mine"}]}
    world.write_text(json.dumps(fixture))
    assert run([*base, "--force"], capsys)[0] == 0
    assert json.loads(world.read_text())["entities"]  # the user's world survives a re-import
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    assert Runtime("shelf").namespace["GET_books__book_id_"](book_id="B1").title == "Mine"


MULTIFILE = REPO / "tests" / "data" / "openapi_multifile" / "reference" / "Fleet.json"


def test_a_multi_file_document_imports_as_published(tmp_path: Path, capsys, monkeypatch) -> None:
    code, out, err = run(["domains", "import-openapi", str(MULTIFILE), "--name", "fleet", "--out", str(tmp_path)], capsys)
    assert code == 0 and "fleet: 6 signatures" in out and "6 response schemas" in out
    assert "parameter 'class' is called 'class_' (the request still sends 'class')" in err
    specs = read_specs_file(tmp_path / "specs" / "fleet.json").functions
    assert "GET_root" in specs and "GET_" not in specs
    waypoints = specs["GET_systems__systemSymbol__waypoints"].parameters.properties
    assert list(waypoints) == ["systemSymbol", "class_"] and waypoints["class_"].request_name == "class"
    assert not any("token" in p for spec in specs.values() for p in spec.parameters.properties)  # never part of the task
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    assert main(["domains", "check", "fleet"]) == 0
    assert "fleet: no new problems" in capsys.readouterr().err
    sdl = (tmp_path / "schemas" / "fleet" / "GET_my_ships__shipSymbol_.graphql").read_text()
    assert sdl.count("fleet_access_token: String!") == 1  # two bearer schemes required at once: one token
    assert "type GET_my_ships__shipSymbol__Destination {" in sdl  # Ship.json -> ShipNav.json -> Waypoint.yaml
    assert "fleet_access_token" not in (tmp_path / "schemas" / "fleet" / "GET_root.graphql").read_text()  # security: []


def test_an_exponential_document_is_one_line_and_writes_nothing(tmp_path: Path, capsys) -> None:
    bomb = REPO / "tests" / "data" / "openapi_hostile" / "nested_12_levels.json"
    assert bomb.stat().st_size < 6000  # 12 levels of 3 references each: 3**12 leaves once expanded
    out = tmp_path / "catalog"
    code, _, err = run(["domains", "import-openapi", str(bomb), "--name", "bomb", "--out", str(out)], capsys)
    assert code == 2 and err.count("\n") == 1
    assert f"{bomb}: GET /x: the schema expands to more than 20,000 nodes" in err
    assert not out.exists()


def test_warnings_show_the_documents_control_characters_escaped(tmp_path: Path, capsys) -> None:
    doc = tmp_path / "api.yaml"
    doc.write_text(
        'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  "/x\\e]0;owned\\a":\n    get:\n'
        "      parameters: [{name: class, in: query, schema: {type: string}}]\n"
        '      responses: {"200": {description: ok, content: {application/json: {schema: {type: string}}}}}\n'
    )
    code, _, err = run(["domains", "import-openapi", str(doc), "--name", "x", "--out", str(tmp_path / "out")], capsys)
    assert code == 0 and "parameter 'class' is called 'class_'" in err and "no absolute server URL" in err
    assert "\x1b" not in err and "\x07" not in err and "\\x1b]0;owned\\x07" in err


def test_check_pairs_prints_every_self_test_pair_and_the_pass_rate(tmp_path: Path, capsys, monkeypatch) -> None:
    fleet = REPO / "tests" / "data" / "worlds" / "fleet.yaml"
    assert run(["domains", "import-openapi", str(fleet), "--name", "fleet", "--out", str(tmp_path)], capsys)[0] == 0
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    code, out, err = run(["domains", "check", "fleet", "--pairs"], capsys)
    assert code == 0
    assert "passed: list→get GET_my_ships → GET_my_ships__shipSymbol_: symbol " in out
    assert "fleet: 7 of 7 endpoint pairs pass the world's self-test" in err
