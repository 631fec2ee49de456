"""Errors a mock endpoint raises carry a kind, so a failed run is classified without reading its message."""

from __future__ import annotations

from pathlib import Path

import pytest

from gqlbench.mocks.errors import BadArguments, MockError, NotFound, UnknownField, UnknownFunction


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (MockError, "other"),
        (UnknownFunction, "unknown_function"),
        (BadArguments, "bad_arguments"),
        (UnknownField, "unknown_field"),
        (NotFound, "not_found"),
    ],
)
def test_each_error_has_its_own_kind_and_is_a_mock_error(error: type[MockError], kind: str) -> None:
    assert issubclass(error, MockError) and error.kind == kind
    assert error("no track 'x'").kind == kind


def test_every_kind_is_one_the_errors_guide_names_for_a_run() -> None:
    guide = (Path(__file__).parents[2] / "docs" / "errors.md").read_text(encoding="utf-8")
    run_kinds = guide.split("its error is one more record whose kind is the")[1].split("(a sandbox")[0]
    for error in (MockError, UnknownFunction, BadArguments, UnknownField, NotFound):
        assert f"`{error.kind}`" in run_kinds, error
