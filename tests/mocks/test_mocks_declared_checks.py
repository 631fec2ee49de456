"""An endpoint's declared argument checks: allowed values and ranges, refused before the endpoint runs."""

from __future__ import annotations

from typing import Any

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared.checks import apply_checks, check_checks
from gqlbench.mocks.errors import BadArguments

CHECKS = {"volume_percent": {"min": 0, "max": 100}, "state": {"one_of": ["track", "context", "off"]}, "offset": {"min": 0}}


@pytest.mark.parametrize("arguments", [{}, {"volume_percent": 0, "state": "off"}, {"volume_percent": 100, "offset": 7}, {"state": None}])
def test_arguments_within_their_checks_or_not_given_pass(arguments: dict[str, Any]) -> None:
    apply_checks(CHECKS, arguments)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"volume_percent": 150}, "volume_percent must be between 0 and 100, got 150"),
        ({"volume_percent": "loud"}, "volume_percent must be a number, got 'loud'"),
        ({"state": "loop"}, "state must be 'track', 'context' or 'off', got 'loop'"),
        ({"offset": -1}, "offset must be >= 0, got -1"),
    ],
)
def test_an_argument_breaking_its_check_is_bad_arguments_naming_it(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(BadArguments, match=f"^{message}$"):
        apply_checks(CHECKS, arguments)


@pytest.mark.parametrize("checks", [[], {"x": {"between": [0, 1]}}, {"x": {}}, {"x": {"one_of": []}}])
def test_a_wrong_declaration_is_one_line_naming_where(checks: Any) -> None:
    with pytest.raises(GqlbenchError, match="^endpoints.PUT_x: checks") as raised:
        check_checks(checks, "endpoints.PUT_x")
    assert "\n" not in str(raised.value)
