"""A world file's mistake as a record: its path written as the file writes it, and a "did you mean"."""

from __future__ import annotations

import pytest

from gqlbench.mocks.engine.problems import FileProblem, did_you_mean, dotted


@pytest.mark.parametrize(
    ("path", "text"),
    [((), ""), (("views",), "views"), (("views", "track", "fields", 0), "views.track.fields[0]"), (("load", 2, "id"), "load[2].id")],
)
def test_a_path_is_dotted_with_indexes_in_brackets(path: tuple[str | int, ...], text: str) -> None:
    assert dotted(path) == text


def test_a_near_name_is_suggested_else_a_short_list_else_nothing() -> None:
    assert did_you_mean("doo", ["do", "each"]) == "; did you mean 'do'?"
    assert did_you_mean("zzz", ["do", "each", "do"]) == "; use one of do, each"
    assert did_you_mean("zzz", [f"name{i}" for i in range(13)]) == ""
    assert did_you_mean("zzz", []) == ""


def test_a_problems_line_is_read_at_its_own_path_unless_told_where() -> None:
    assert FileProblem(("a", "b"), "wrong").line_path() == ("a", "b")
    assert FileProblem(("a", "b"), "missing", at=("a",)).line_path() == ("a",)
