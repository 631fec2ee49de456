"""Where a domain's world file is and how it is read: a mistake in reading it is one line naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.fixtures import GENERIC_KEYS, fixture_file, load_fixture, starter_fixture
from gqlbench.mocks.engine.rules import Rule
from gqlbench.mocks.engine.world import World


def test_a_fixture_that_is_not_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "tmdb.json"
    path.write_text('{\n  "movies": [\n}')
    with pytest.raises(GqlbenchError, match=r"tmdb.json:3: .*not valid JSON"):
        World.create("tmdb", fixture=path)


def test_a_key_written_twice_is_refused_with_each_line(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    path.write_text('{"shapes": {"name": 1,\n  "card": {"id": "$id",\n    "id": "$key"},\n  "name": 2}}', encoding="utf-8")
    with pytest.raises(GqlbenchError) as caught:
        load_fixture("library", path)
    assert str(caught.value).splitlines() == [
        f"{path}:3: shapes.card.id: written twice in one object (JSON keeps only the last); keep one",
        f"{path}:4: shapes.name: written twice in one object (JSON keeps only the last); keep one",
    ]


def test_the_bundled_domains_read_their_bundled_files() -> None:
    assert fixture_file("spotify").name == "spotify.json" and fixture_file("spotify").is_file()
    assert "entities" in load_fixture("library")


@pytest.mark.parametrize(
    ("text", "message"),
    [(None, "no such world fixture; pass an existing JSON file"), ("[1, 2]", "a world fixture must be a JSON object (keys: ")],
)
def test_a_given_file_that_is_missing_or_not_an_object_is_one_line(tmp_path: Path, text: str | None, message: str) -> None:
    path = tmp_path / "library.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(GqlbenchError) as raised:
        load_fixture("library", path)
    assert str(raised.value).startswith(f"{path}") and message in str(raised.value) and "\n" not in str(raised.value)


def test_a_starter_fixture_shows_each_rule_and_uses_only_known_sections() -> None:
    rule = Rule(function="GET_books__book_id_", action="lookup", kind="book", id_param="book_id")
    starter = starter_fixture([rule])
    assert starter["endpoints"] == {"GET_books__book_id_": {"action": "lookup", "kind": "book", "id_param": "book_id"}}
    assert starter["entities"] == {}
    assert set(starter) <= set(GENERIC_KEYS)
    assert json.loads(json.dumps(starter)) == starter
