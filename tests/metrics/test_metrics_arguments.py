"""Call arguments carry the responses they read as (token, path) references, read once when standardized."""

from __future__ import annotations

from gqlbench.metrics import analyze
from gqlbench.metrics.sources import Reference, references


def test_an_index_that_reads_a_response_is_written_with_its_token() -> None:
    (_, _, call) = analyze("r = GET_a()\nGET_b(x=r.items[GET_c().n])\n", {}).calls
    argument = call.arguments["x"]
    assert argument.text == "GET_a#1.items[GET_c#1.n]"
    assert argument.references == (Reference("GET_a#1", ".items[GET_c#1.n]"), Reference("GET_c#1", ".n"))
    assert references(argument.text) == argument.references  # the text, read again, says the same


def test_literals_carry_their_value_and_read_nothing() -> None:
    (call,) = analyze("GET_x(a=3.0, b=[1, 'x'], c=-2, d=y)\n", {}).calls
    assert {k: (a.literal, a.value) for k, a in call.arguments.items()} == {
        "a": (True, 3),
        "b": (True, [1, "x"]),
        "c": (True, -2),
        "d": (False, None),
    }
    assert all(a.references == () for a in call.arguments.values())
