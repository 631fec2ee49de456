"""The program model: one parse per program per scoring, and the facts every reader takes from it."""

from __future__ import annotations

import ast

import libcst
import pytest

from gqlbench.dataset import get_sample
from gqlbench.metrics import score_sample
from gqlbench.program import one_reading, read_program


def _recording(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[str]:
    """The programs ``owner.name`` is called on from now on; the function still runs."""
    seen: list[str] = []
    function = getattr(owner, name)
    monkeypatch.setattr(owner, name, lambda source, *args, **kwargs: seen.append(source) or function(source, *args, **kwargs))
    return seen


def test_scoring_a_prediction_parses_it_and_the_gold_once_each(monkeypatch: pytest.MonkeyPatch) -> None:
    sample = get_sample("test/0")
    prediction = sample.gold_code.replace(".id", ".idd", 1)  # an invalid field: the field check reads both programs
    by_python = _recording(monkeypatch, ast, "parse")
    by_libcst = _recording(monkeypatch, libcst, "parse_module")
    result = score_sample(sample, prediction)
    assert "invalid_field" in {e["kind"] for e in result.explanation.errors or []}
    for code in (prediction, sample.gold_code):
        assert by_python.count(code) == 1
        assert by_libcst.count(code) == 1


def test_outside_a_reading_block_nothing_is_kept() -> None:
    assert read_program("x = 1\n") is not read_program("x = 1\n")
    with one_reading():
        assert read_program("x = 1\n") is read_program("x = 1\n")
        with one_reading():
            assert read_program("x = 1\n") is read_program("x = 1\n")


def test_calls_in_source_order_top_level_calls_and_raises() -> None:
    program = read_program('r = f(g(1), k="a b")\nfor x in h(r):\n    print(x.y)\nraise NotSupported("no")\n')
    assert [c.name for c in program.calls] == ["f", "g", "h", "print", "NotSupported"]
    assert program.raises("NotSupported") and not program.raises("ValueError")
    first = program.top_level_calls[0]
    assert (first.function, first.target, first.arguments) == ("f", "r", (("#0", "g(1)"), ("k", '"a b"')))
    assert first.reads == {"f", "g"}
    assert [c.function for c in program.top_level_calls] == ["f"]  # the loop is not a top-level call


def test_a_syntax_error_is_recorded_with_its_line_and_no_tree() -> None:
    program = read_program("x = 1\ny = (\n")
    assert program.tree is None and program.module is None and program.calls == ()
    assert program.problem is not None and program.problem.line == 2
    assert program.syntax_error == f"line 2: {program.problem.message}"
    assert read_program("a\0b").syntax_error is not None  # Python's ValueError, recorded too


def test_a_skeleton_masks_literals_and_renames_variables_but_keeps_functions_and_fields() -> None:
    one = read_program('r = GET_search(q="Money", type="track")\nGET_x(id=r.tracks.items[0].id)')
    other = read_program('resp = GET_search(q="Blue", type="artist")\nGET_x(id=resp.tracks.items[2].id)')
    assert one.skeleton == other.skeleton == "v0 = GET_search(q=_, type=_)\nGET_x(id=v0.tracks.items[_].id)"
    assert one.skeleton_key == other.skeleton_key and len(one.skeleton_key or "") == 12
    assert read_program('r = GET_search(q="Money")\nGET_x(id=r.albums.items[0].id)').skeleton != one.skeleton  # another field
    comprehension = read_program('a = GET_me()\nPUT_x(ids=[i.id for i in a.items if i.name == "x"][:3])')
    assert comprehension.skeleton == "v0 = GET_me()\nPUT_x(ids=[v1.id for v1 in v0.items if v1.name == _][:_])"
    assert read_program("f(").skeleton is None and read_program("f(").skeleton_key is None
