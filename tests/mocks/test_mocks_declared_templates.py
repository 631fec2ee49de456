"""The frozen operation set: every operation documented with an example, and every use checked when the file loads."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import gqlbench.mocks.engine.loader  # noqa: F401  (every module that registers operations)
from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared.templates import OPERATIONS, problems
from gqlbench.mocks.engine.worldfile import check_world
from tests.mocks.library_world import call, world_with

DOCS = Path(__file__).parents[2] / "docs" / "world-operations.md"
BOOK = "GET_books__book_id_"


def _rows() -> dict[str, str]:
    """Each documented operation's example, by name."""
    text = DOCS.read_text(encoding="utf-8")
    table = text.split("<!-- operations: start -->")[1].split("<!-- operations: end -->")[0]
    return {m.group(1): m.group(2) for m in re.finditer(r"^\| `\$(\w+)` \| `(.*?)` \|", table, re.M)}


def test_every_operation_is_documented_and_every_documented_one_exists() -> None:
    assert sorted(_rows()) == sorted(OPERATIONS.names())


def test_loading_a_world_alone_registers_every_documented_operation() -> None:
    """A world with no Python behaviour (which would import gqlbench.mocks.world) still knows every operation."""
    code = (
        "import gqlbench.mocks.engine.loader\n"
        "from gqlbench.mocks.engine.declared.templates import OPERATIONS\n"
        "print(*sorted(OPERATIONS.names()))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == sorted(_rows())


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


def test_an_unknown_operation_is_refused_when_the_fixture_loads_naming_where(tmp_path: Path) -> None:
    with pytest.raises(GqlbenchError, match=re.escape("endpoints.GET_me_loans.respond.loans[0]: unknown operation '$nope'")):
        world_with(tmp_path, {"GET_me_loans": {"loans": [{"$nope": 1}]}})
    with pytest.raises(GqlbenchError, match=re.escape("shapes.card.x: unknown operation '$nope'")):
        world_with(tmp_path, {}, shapes={"card": {"x": {"$nope": 1}}})


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ({"$shape": "absent", "of": {}}, "no shape 'absent'"),
        ({"$call": "absent"}, "no function 'absent'"),
    ],
)
def test_a_template_mistake_is_one_line_naming_it(tmp_path: Path, template: Any, message: str) -> None:
    world = world_with(tmp_path, {"GET_me_loans": template})
    with pytest.raises(GqlbenchError, match=message):
        call(world, "GET_me_loans")


def test_an_unknown_name_is_refused_when_the_fixture_loads(tmp_path: Path) -> None:
    with pytest.raises(GqlbenchError, match=re.escape("endpoints.GET_me_loans.respond: unknown name 'missing'")):
        world_with(tmp_path, {"GET_me_loans": "$missing"})


def test_an_operation_defined_twice_is_an_error_naming_it() -> None:
    from gqlbench.mocks.engine.declared.templates import OPERATIONS, operation

    before = OPERATIONS.find("count")
    with pytest.raises(GqlbenchError, match="template operation 'count' is registered already"):
        operation("count")(lambda template, scope: 0)
    assert OPERATIONS.find("count") is before
