"""A worker loads its runtime factory by ``module:function`` or ``path/to/file.py:function``."""

from __future__ import annotations

from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.sandbox.worker import load_factory

ECHO_FILE = Path(__file__).parent / "echo_runtime.py"


def test_a_factory_is_loaded_from_a_file_and_makes_a_runtime() -> None:
    factory = load_factory(f"{ECHO_FILE}:echo_runtime")
    assert callable(factory) and factory("spotify", 0) is not None


def test_a_factory_is_loaded_from_a_module() -> None:
    assert load_factory("tests.mocks.echo_runtime:echo_runtime").__name__ == "echo_runtime"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("/no/such/runtime.py:make", "/no/such/runtime.py does not exist"),
        ("make_runtime", "write module:object or path/to/file.py:object"),
    ],
)
def test_a_name_that_loads_nothing_is_one_line_saying_what_to_write(name: str, message: str) -> None:
    with pytest.raises(GqlbenchError, match=message) as raised:
        load_factory(name)
    assert "\n" not in str(raised.value)
