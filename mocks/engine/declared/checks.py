"""Argument checks declared in a world fixture: allowed values and ranges the API enforces.

A real API refuses ``volume_percent=150`` or ``state="loop"`` even when the
signature only says ``int`` and ``str``. An endpoint declares what it takes
(``endpoints.<function>.checks``), and a call breaking it is a
``bad_arguments`` error that names the parameter, before the endpoint runs::

    "PUT_me_player_volume": {"checks": {"volume_percent": {"min": 0, "max": 100}}},
    "PUT_me_player_repeat": {"checks": {"state": {"one_of": ["track", "context", "off"]}}}

An argument that was not given is not checked (the signature says whether it
is required).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.errors import BadArguments

__all__ = ["apply_checks", "check_checks"]

_KEYS = {"one_of", "min", "max"}


def check_checks(checks: Any, where: str) -> None:
    """Raise a one-line error naming ``where`` unless ``checks`` maps parameters to ``one_of``/``min``/``max``."""
    example = '{"volume_percent": {"min": 0, "max": 100}}'
    if not isinstance(checks, dict) or not all(isinstance(c, dict) and c and set(c) <= _KEYS for c in checks.values()):
        raise GqlbenchError(f"{where}: checks must map each parameter to one_of, min or max, e.g. {example}")
    for param, check in checks.items():
        if "one_of" in check and not (isinstance(check["one_of"], list) and check["one_of"]):
            raise GqlbenchError(f"{where}: checks.{param}.one_of must be a non-empty list of the allowed values")


def _alternatives(values: list[Any]) -> str:
    shown = [repr(v) for v in values]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def apply_checks(checks: Mapping[str, Any], arguments: Mapping[str, Any]) -> None:
    """:class:`BadArguments` naming the first argument that breaks its check."""
    for param, check in checks.items():
        value = arguments.get(param)
        if value is None:
            continue
        if "one_of" in check and value not in check["one_of"]:
            raise BadArguments(f"{param} must be {_alternatives(check['one_of'])}, got {value!r}")
        low, high = check.get("min"), check.get("max")
        if (low is not None or high is not None) and not isinstance(value, (int, float)):
            raise BadArguments(f"{param} must be a number, got {value!r}")
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = (
                f"between {low} and {high}" if low is not None and high is not None else (f">= {low}" if low is not None else f"<= {high}")
            )
            raise BadArguments(f"{param} must be {bounds}, got {value}")
