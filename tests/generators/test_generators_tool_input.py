"""What a tool-calling turn may bring in: escaped text, bounded text, arguments read with a depth bound."""

from __future__ import annotations

import json

import pytest

from gqlbench.generators.tool_input import MAX_ARGUMENT_DEPTH, RefusedArguments, bounded, read_arguments
from gqlbench.records import escape_surrogates as escaped


def test_a_lone_surrogate_becomes_its_escape_text_and_everything_else_is_unchanged() -> None:
    assert escaped("caf\u00e9 \U0001f600") == "caf\u00e9 \U0001f600"
    assert escaped("a\ud800b") == "a\\ud800b"
    escaped("a\udfffb").encode("utf-8")  # writable as UTF-8


def test_bounded_cuts_and_keeps_the_full_length_only_when_it_cut() -> None:
    assert bounded("abc", 3) == ("abc", None)
    assert bounded("abcdef", 3) == ("abc", 6)


def test_arguments_are_an_object_with_escaped_strings() -> None:
    assert read_arguments("") == {}
    assert read_arguments('{"ids": ["\\ud800x"], "\\udc00k": 1}') == {"ids": ["\\ud800x"], "\\udc00k": 1}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{bad", "not valid JSON"),
        ('{"a": NaN}', "NaN is not a JSON number"),
        ('{"a": -1e400}', "-1e400 is too large for a number"),
        ('{"a": ' + "9" * 5000 + "}", "not valid JSON"),  # past Python's limit of digits
        ("[1]", "must be a JSON object"),
        (json.dumps({"a": json.loads("[" * MAX_ARGUMENT_DEPTH + "]" * MAX_ARGUMENT_DEPTH)}), "nested deeper"),
        ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested deeper"),  # past the decoder's own recursion guard
        ('{"a": ' + '{"b": ' * 600 + "1" + "}" * 600 + "}", "nested deeper"),
    ],
)
def test_arguments_that_are_not_a_shallow_json_object_are_refused_with_the_reason(text: str, reason: str) -> None:
    with pytest.raises(RefusedArguments, match=reason):
        read_arguments(text)


def test_arguments_at_the_depth_bound_are_read() -> None:
    inner = json.loads("[" * (MAX_ARGUMENT_DEPTH - 1) + "]" * (MAX_ARGUMENT_DEPTH - 1))
    assert read_arguments(json.dumps({"a": inner})) == {"a": inner}
