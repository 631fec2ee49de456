"""What a world file may make is bounded when it loads (:mod:`gqlbench.mocks.engine.declared.bounds`).

Each test writes a small fixture for the bundled ``library`` domain; a file
over a bound is refused by ``World.create`` (what ``mock serve``, ``exec`` and
the sandbox call) with one line naming the file and the field, before any
request runs. A value a template computes is bounded when it is made.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.world import World

BOOKS = [{"book_id": "B1", "title": "Dune"}]


def _file(tmp_path: Path, **sections: Any) -> Path:
    path = tmp_path / f"library{len(list(tmp_path.iterdir()))}.json"  # a new file: models are cached per file version
    path.write_text(json.dumps({"entities": {"book": BOOKS}, **sections}), encoding="utf-8")
    return path


def _refused(path: Path) -> str:
    with pytest.raises(GqlbenchError) as caught:
        World.create("library", fixture=path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}:"), message  # file: or file:line:
    return message


def _respond(template: Any) -> dict[str, Any]:
    return {"endpoints": {"POST_loans": {"respond": template}}}


@pytest.mark.parametrize(
    ("template", "field"),
    [
        ({"$numbers": 30_000_000}, "endpoints.POST_loans.respond.$numbers: 30,000,000 is over the limit of 10,000"),
        ({"$mul": [["x"], 30_000_000]}, "endpoints.POST_loans.respond.$mul: 30,000,000 is over the limit of 10,000"),
        ({"in": {"$mul": ["ab", 5000, 3]}}, "endpoints.POST_loans.respond.in.$mul: 15,000 is over the limit"),
        ({"$token": ["x"], "length": 10**9}, "endpoints.POST_loans.respond.length: 1,000,000,000 is over the limit"),
    ],
)
def test_a_literal_bomb_is_refused_when_the_file_loads(tmp_path: Path, template: Any, field: str) -> None:
    # {"$numbers": 30000000} took one mock serve request to 1.2 GB (1e9: 10 GB).
    assert field in _refused(_file(tmp_path, **_respond(template)))


def test_a_grow_step_over_its_bound_is_refused_when_the_file_loads(tmp_path: Path) -> None:
    grow = {"fill": {"book": [{"fill": "notes", "to": 30_000_000, "add": "$n"}]}}
    assert "grow.fill.book[0].to: 30,000,000 entries, over the limit of 1,000 per record" in _refused(_file(tmp_path, grow=grow))


def test_a_computed_bomb_is_a_one_line_error_when_it_runs_not_a_gigabyte(tmp_path: Path) -> None:
    counts = {"$let": {"n": {"$mul": [3000, 10_000]}}, "in": {"$numbers": "$n"}}
    doubling: dict[str, Any] = {"a0": ["x"]}
    for n in range(1, 40):  # each name twice the one before: 2**39 items at the end
        doubling[f"a{n}"] = {"$add": [f"$a{n - 1}", f"$a{n - 1}"]}
    world = World.create("library", fixture=_file(tmp_path, endpoints={
        "POST_loans": {"respond": counts},
        "DELETE_loans__loan_id_": {"respond": {"$let": doubling, "in": {"$count": "$a39"}}},
    }))  # fmt: skip
    with pytest.raises(GqlbenchError, match=r"^world template: \$numbers: 30,000,000 is over the limit of 10,000"):
        world.handler("POST_loans")(world, {})  # type: ignore[misc]
    with pytest.raises(GqlbenchError, match=r"^world template: \$add: 1,048,576 items or characters, over the limit of 1,000,000"):
        world.handler("DELETE_loans__loan_id_")(world, {})  # type: ignore[misc]


def test_a_template_nested_too_deep_is_refused_when_the_file_loads(tmp_path: Path) -> None:
    # A 400-deep $case ended mock serve in a RecursionError traceback; exec's one line named neither file nor field.
    template: Any = "leaf"
    for _ in range(400):
        template = {"$case": "x", "of": {"x": template}}
    message = _refused(_file(tmp_path, **_respond(template)))
    assert re.search(r": endpoints\.POST_loans\.respond(\.of\.x)+: nested more than 64 levels deep", message), message


def test_json_too_deep_to_read_is_a_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "library.json"
    path.write_text('{"shapes": {"a": ' + "[" * 100_000 + "]" * 100_000 + "}}", encoding="utf-8")
    assert "nested too deep to read" in _refused(path)


@pytest.mark.parametrize(
    ("make", "cycle"),
    [
        ({"book": {"key": ["$title"], "defaults": {"sequel": {"$make": "book", "entry": {"title": "x"}}}}}, "book -> book"),
        (
            {
                "book": {"key": ["$title"], "refs": {"author": {"kind": "person", "create": True}}},
                "person": {"key": ["$name"], "children": {"books": "book"}},
            },
            "book -> person -> book",
        ),
    ],
)
def test_a_make_recipe_that_makes_its_own_kind_is_refused_when_the_file_loads(tmp_path: Path, make: Any, cycle: str) -> None:
    message = _refused(_file(tmp_path, make=make))
    assert f"make.book: makes its own kind ({cycle}); break the cycle" in message, message


def test_a_shape_that_renders_itself_is_refused_and_one_named_at_run_time_is_a_one_line_error(tmp_path: Path) -> None:
    shapes = {"a": {"$shape": "b", "of": {}}, "b": {"x": {"$shape": "a", "of": {}}}}
    assert "shapes.a: renders itself (a -> b -> a); break the cycle" in _refused(_file(tmp_path, shapes=shapes))
    computed = {"c": {"$shape": {"$join": ["c"]}, "of": {}}}  # the name is computed: only running it shows the cycle
    path = _file(tmp_path, shapes=computed, **_respond({"$shape": "c", "of": {}}))
    world = World.create("library", fixture=path)
    with pytest.raises(GqlbenchError, match=r"^.*endpoints\.POST_loans\.respond.*: the template uses itself without end") as caught:
        world.handler("POST_loans")(world, {})  # type: ignore[misc]
    assert str(caught.value).startswith(str(path)) and "\n" not in str(caught.value)
