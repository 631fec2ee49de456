"""The frozen operation set: every operation documented with an example, and every use checked when the file loads."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import gqlbench.mocks.engine.loader  # noqa: F401  (every module that registers operations)
from gqlbench.mocks.engine.declared.templates import OPERATIONS, problems
from gqlbench.mocks.engine.worldfile import check_world

DOCS = Path(__file__).parents[2] / "docs" / "world-operations.md"
BOOK = "GET_books__book_id_"


def _rows() -> dict[str, str]:
    """Each documented operation's example, by name."""
    text = DOCS.read_text(encoding="utf-8")
    table = text.split("<!-- operations: start -->")[1].split("<!-- operations: end -->")[0]
    return {m.group(1): m.group(2) for m in re.finditer(r"^\| `\$(\w+)` \| `(.*?)` \|", table, re.M)}


def test_every_operation_is_documented_and_every_documented_one_exists() -> None:
    assert sorted(_rows()) == sorted(OPERATIONS.names())


@pytest.mark.parametrize("name", sorted(_rows()))
def test_each_documented_example_is_a_well_formed_use(name: str) -> None:
    example = json.loads(_rows()[name])
    assert f"${name}" in example
    assert problems(example, ()) == []


@pytest.mark.parametrize("name", OPERATIONS.names())
def test_a_misspelt_key_of_any_operation_is_refused_at_load(name: str) -> None:
    found = check_world({"endpoints": {BOOK: {"respond": {f"${name}": None, "zzz": 1}}}}, parameters={BOOK: ["book_id"]})
    assert any(p.message.startswith(f"unknown key 'zzz' in ${name}") and p.path == ("endpoints", BOOK, "respond") for p in found)


@pytest.mark.parametrize("name", ["filter", "sharing", "flat", "split", "uri", "offset_page", "query", "sub", "one_of", "save", "find"])
def test_a_removed_operation_is_an_unknown_one_at_load(name: str) -> None:
    found = check_world({"endpoints": {BOOK: {"respond": {f"${name}": None}}}}, parameters={BOOK: ["book_id"]})
    assert [p.message.split(";")[0] for p in found] == [f"unknown operation '${name}'"]
