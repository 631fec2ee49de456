"""The typed world file: every mistake is a line naming the file, the line and the field, when the world loads."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared.templates import OPERATIONS
from gqlbench.mocks.engine.rules import Rule
from gqlbench.mocks.engine.world import World
from gqlbench.mocks.engine.worldfile import SECTIONS, EndpointRule, check_world
from tests.mocks.library_catalog import library_catalog

REPO = Path(__file__).resolve().parents[2]
LIBRARY = json.loads((REPO / "mocks" / "worlds" / "library.json").read_text(encoding="utf-8"))
BOOK = "GET_books__book_id_"


def library_with(tmp_path: Path, respond: Any = None, **sections: Any) -> Path:
    """The bundled library world with a book, ``respond`` answering GET_books__book_id_, and more sections; written indented."""
    fixture = {**LIBRARY, "entities": {"book": [{"book_id": "B1", "title": "Dune"}]}, **sections}
    if respond is not None:
        fixture["endpoints"] = {**LIBRARY["endpoints"], BOOK: {**LIBRARY["endpoints"][BOOK], "respond": respond}}
    path = tmp_path / f"library{len(list(tmp_path.iterdir()))}.json"  # a new file: models are cached per file version
    path.write_text(json.dumps(fixture, indent=2), encoding="utf-8")
    return path


def line_with(path: Path, text: str) -> int:
    """The line of ``path`` that holds ``text`` (found by reading the file, not by the code under test)."""
    lines = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line]
    assert len(lines) == 1, lines
    return lines[0]


# the six mistakes of issue 31: (respond or sections, the text on the faulty line, the message after "file:line: ")
SIX = [
    (
        {"respond": {"$each": [1, 2], "doo": "$it"}},
        '"doo"',
        f"endpoints.{BOOK}.respond: unknown key 'doo' in $each; did you mean 'do'?",
    ),
    (
        {"respond": {"$int": ["$book_id"], "lo": 1, "hii": 3}},
        '"hii"',
        f"endpoints.{BOOK}.respond: unknown key 'hii' in $int; did you mean 'hi'?",
    ),
    (
        {"respond": {"x": {"$count": [1], "$sum": [1]}}},
        '"x"',
        f"endpoints.{BOOK}.respond.x: two operations in one object ($count and $sum); write one operation per object",
    ),
    ({"respond": {"id": "$bookid"}}, '"$bookid"', f"endpoints.{BOOK}.respond.id: unknown name 'bookid'; did you mean 'book_id'?"),
    (
        {"views": {"card": {"kind": "book", "fields": {"title": "$titel"}}}},
        '"$titel"',
        "views.card.fields.title: unknown name 'titel'; did you mean 'title'?",
    ),
    (
        {"respond": {"$if": True, "than": 1}},
        '"than"',
        f"endpoints.{BOOK}.respond: unknown key 'than' in $if; did you mean 'then'?",
    ),
]


@pytest.mark.parametrize(("change", "text", "message"), SIX, ids=["each-doo", "int-hii", "two-ops", "bookid", "titel", "if-than"])
def test_each_mistake_is_one_line_naming_the_file_line_and_field(tmp_path: Path, change: dict[str, Any], text: str, message: str) -> None:
    path = library_with(tmp_path, **change)
    with pytest.raises(GqlbenchError) as caught:
        World.create("library", fixture=path)
    assert str(caught.value) == f"{path}:{line_with(path, text)}: {message}"


def test_a_file_with_two_mistakes_reports_both(tmp_path: Path) -> None:
    path = library_with(tmp_path, {"$each": [1, 2], "doo": "$it"}, views={"card": {"kind": "book", "fields": {"title": "$titel"}}})
    with pytest.raises(GqlbenchError) as caught:
        World.create("library", fixture=path)
    doo, titel = line_with(path, '"doo"'), line_with(path, '"$titel"')
    assert str(caught.value).splitlines() == [
        f"{path}:{doo}: endpoints.{BOOK}.respond: unknown key 'doo' in $each; did you mean 'do'?",
        f"{path}:{titel}: views.card.fields.title: unknown name 'titel'; did you mean 'title'?",
    ]


def test_an_unknown_section_is_refused_with_the_nearest_name(tmp_path: Path) -> None:
    path = library_with(tmp_path, veiws={})
    line = line_with(path, '"veiws"')
    with pytest.raises(GqlbenchError, match=re.escape(f"{path}:{line}: (top level): unknown key 'veiws'; did you mean 'views'?")):
        World.create("library", fixture=path)


# the old ways of making a file's entities (issue 31): each step is one line saying what to write instead
OLD_LOAD = [
    (
        {"make": {"shelf": {"id": "$name"}}, "shelves": ["A"], "load": [{"make": "shelf", "from": "shelves"}]},
        '"make": "shelf"',
        "load[0]: a file's entities are written under entities: move 'shelves' to entities.shelf (made by make.shelf)",
    ),
    (
        {"make": {"shelf": {"id": "$name"}}, "mine": ["A"], "load": [{"make": "shelf", "from": "mine", "state": "mine"}]},
        '"make": "shelf"',
        "load[0]: a file's entities are written under entities: move 'mine' to entities.shelf (made by make.shelf); "
        'keep their ids with {"refer": "shelf", "from": <a section of their names>, "state": ...}',
    ),
    (
        {"make": {"shelf": {"id": "$name"}}, "mine": ["A"], "load": [{"refer": "shelf", "from": "mine", "with": {"x": 1}}]},
        '"refer": "shelf"',
        "load[0]: the fields an entry lacks are written in the entry under entities.<kind>, or in make.<kind>.defaults",
    ),
]


@pytest.mark.parametrize(("sections", "text", "message"), OLD_LOAD, ids=["make-step", "make-step-state", "with"])
def test_an_old_way_of_making_entities_is_one_line_saying_what_to_write(tmp_path: Path, sections: Any, text: str, message: str) -> None:
    path = library_with(tmp_path, **sections)
    with pytest.raises(GqlbenchError) as caught:
        World.create("library", fixture=path)
    assert str(caught.value) == f"{path}:{line_with(path, text) - 1}: {message}"  # the line the step opens on


def test_a_bare_name_is_an_entity_only_of_a_kind_with_a_recipe(tmp_path: Path) -> None:
    path = library_with(tmp_path, entities={"book": ["Dune"]})
    with pytest.raises(GqlbenchError) as caught:
        World.create("library", fixture=path)
    dune = line_with(path, '"Dune"')
    assert str(caught.value) == (
        f"{path}:{dune}: entities.book[0]: a name makes an entity only by a recipe: "
        'declare "make": {"book": {...}}, or write an object with its key'
    )
    made = library_with(tmp_path, entities={"book": ["Dune"]}, make={"book": {"id": {"$token": ["book", "$name"]}}})
    assert World.create("library", fixture=made).find("book", lambda r: r["name"] == "Dune")  # the recipe makes it
    assert check_world({"entities": {"book": [{"title": "Dune"}]}, "make": {"book": {"id": "$title"}}}) == []  # its id: the recipe's


def test_a_missing_required_key_and_a_wrong_shape_are_named() -> None:
    found = check_world({"endpoints": {BOOK: {"respond": {"$if": True}, "paging": {"limit": 0}}}}, parameters={BOOK: ["book_id"]})
    assert [(p.path, p.message) for p in found] == [
        (("endpoints", BOOK, "paging", "limit"), "input should be greater than 0, got 0"),
        (("endpoints", BOOK, "respond"), "$if needs 'then'"),
    ]


def test_the_names_a_template_binds_are_known_inside_it_only() -> None:
    inside = {"$let": {"b": "$book_id"}, "in": {"$each": "$b", "do": ["$it", "$i", "$b"]}}
    assert check_world({"endpoints": {BOOK: {"respond": inside}}}, parameters={BOOK: ["book_id"]}) == []
    outside = {"a": {"$each": [1], "do": "$it"}, "b": "$it"}
    found = check_world({"endpoints": {BOOK: {"respond": outside}}}, parameters={BOOK: ["book_id"]})
    assert [(p.path, p.message) for p in found] == [(("endpoints", BOOK, "respond", "b"), "unknown name 'it'; use one of book_id")]


def test_every_operation_declares_what_it_takes() -> None:
    operations = OPERATIONS.registered()
    each = operations["each"]
    assert each.required == {"do"} and each.binds == {"do": ("it", "i")}
    assert operations["count"].keys == frozenset()  # an operation of one argument takes no other key


def test_the_endpoint_model_has_every_field_of_a_rule() -> None:
    from dataclasses import fields

    assert set(EndpointRule.model_fields) == {f.name for f in fields(Rule)} - {"function"}
    assert {"entities", "endpoints", "views", "make", "load", "grow"} <= SECTIONS


def test_the_bundled_worlds_have_no_problem() -> None:
    for domain in ("library", "spotify", "tmdb"):
        World.create(domain)  # raises on any problem


def broken_catalog(tmp_path: Path) -> Path:
    """The bundled library domain in a catalog folder whose world has the mistake ``"doo"``; its file is returned."""
    broken = library_with(tmp_path, {"$each": [1, 2], "doo": "$it"})
    return library_catalog(tmp_path, broken.read_text()) / "worlds" / "library.json"


@pytest.mark.parametrize("command", ["domains check", "exec", "evaluate", "mock serve"])
def test_a_world_that_does_not_load_stops_each_command_with_its_line_not_a_trace(tmp_path: Path, command: str) -> None:
    import os
    import subprocess

    from tests.cli_process import gqlbench_command

    world = broken_catalog(tmp_path)
    program = tmp_path / "prog.py"
    program.write_text('GET_books__book_id_(book_id="B1")\n')
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "test.jsonl").write_text(json.dumps({"domain": "library", "utterance": "u", "output": program.read_text()}) + "\n")
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"id": "test/0", "prediction": program.read_text()}) + "\n")
    args = {
        "domains check": ["domains", "check", "library"],
        "exec": ["exec", str(program), "--domain", "library"],
        "evaluate": ["evaluate", str(predictions), "--data", str(bench)],
        "mock serve": ["mock", "serve", "--domain", "library", "--port", "0"],
    }[command]
    env = {**os.environ, "GQLBENCH_CATALOG": str(tmp_path)}
    done = subprocess.run(gqlbench_command(*args), capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    line = line_with(world, '"doo"')
    expected = f"{world}:{line}: endpoints.{BOOK}.respond: unknown key 'doo' in $each; did you mean 'do'?"
    lines = [line.removeprefix("error: ") for line in (done.stdout + done.stderr).splitlines()]
    assert done.returncode in (1, 2) and expected in lines, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "ran to the end" not in done.stdout
