"""What a program is handed: functions it can only call, capped printing and a bounded ``range``."""

from __future__ import annotations

import builtins

import pytest

from gqlbench.mocks.sandbox.limits import ResourceLimit
from gqlbench.mocks.sandbox.sealed import MAX_RANGE, CappedOutput, SealedFunction, program_builtins, seal_namespace


def test_a_sealed_function_calls_through_and_refuses_every_attribute() -> None:
    sealed = SealedFunction(lambda x, y=1: x + y, "add")
    assert sealed(2, y=3) == 5 and repr(sealed) == "<function add>"
    for name in ("__globals__", "__code__", "__class__", "_function"):
        with pytest.raises(AttributeError, match=f"add\\(\\) has no attribute '{name}': functions can only be called"):
            getattr(sealed, name)
    with pytest.raises(AttributeError, match=r"add\(\) cannot be changed"):
        sealed.x = 1  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match=r"add\(\) cannot be changed"):
        del sealed.x  # type: ignore[attr-defined]


def test_a_namespace_seals_its_callables_and_passes_data_through() -> None:
    data = {"limit": 3}
    sealed = seal_namespace({"search": len, "defaults": data})
    assert isinstance(sealed["search"], SealedFunction) and sealed["search"]([1, 2]) == 2
    assert sealed["defaults"] is data


def test_printing_keeps_the_first_characters_then_stops_the_program() -> None:
    output = CappedOutput(5)
    assert output.write("abc") == 3
    with pytest.raises(ResourceLimit, match="printed more than 5 characters"):
        output.write("defg")
    assert output.getvalue() == "abcde"


def test_the_builtins_are_a_safe_subset_with_a_bounded_range() -> None:
    names = program_builtins()
    assert "open" not in names and "__import__" not in names and "eval" not in names
    assert all(getattr(builtins, name) is value for name, value in names.items() if name != "range")
    assert list(names["range"](3)) == [0, 1, 2]
    with pytest.raises(ResourceLimit, match=f"longer than {MAX_RANGE} items"):
        names["range"](MAX_RANGE + 1)
    with pytest.raises(ResourceLimit):
        names["range"](10**30)
