"""Where each value of a JSON text is written, so a world file's mistake names its line."""

from __future__ import annotations

from gqlbench.mocks.engine.jsonpos import duplicate_members, line_of, value_lines


def test_positions_name_the_line_of_each_key_and_item() -> None:
    lines = value_lines('{"a": [1,\n {"b": 2}],\n "c": {}}')
    assert lines[("a",)] == 1 and lines[("a", 1)] == 2 and lines[("a", 1, "b")] == 2 and lines[("c",)] == 3


def test_strings_holding_json_punctuation_and_escapes_do_not_shift_the_lines() -> None:
    text = '{\n "a": "x\\"],{\\n",\n "b": [\n  -1.5e3,\n  true\n ],\n "c": null\n}'
    lines = value_lines(text)
    assert lines[("a",)] == 2 and lines[("b",)] == 3 and lines[("b", 0)] == 4 and lines[("b", 1)] == 5 and lines[("c",)] == 7


def test_a_path_not_written_takes_the_line_of_its_nearest_written_ancestor() -> None:
    lines = value_lines('{\n "endpoints": {\n  "GET_x": {}\n }\n}')
    assert line_of(lines, ("endpoints", "GET_x", "respond", "do")) == 3
    assert line_of(lines, ("nowhere",)) == 1


def test_a_key_written_twice_in_one_object_is_found_with_its_second_line() -> None:
    text = '{"a": {"x": 1,\n "y": 2},\n "b": {"x": 1},\n "a": {"x": 3, "x": 4}}'
    assert duplicate_members(text) == [(("a",), 4), (("a", "x"), 4)]
    assert duplicate_members('{"a": {"x": 1}, "b": {"x": 1}}') == []  # the same key in two objects is no mistake
