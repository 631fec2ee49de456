"""The plugin registry: registered names, module:object, entry points and their errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.plugins import Registry, load_object


def test_registered_names_come_first_and_taken_names_are_refused() -> None:
    registry: Registry[int] = Registry("number", "gqlbench.test_no_such_group", "--number")
    registry.register("one", 1)
    registry.register("two", 2)
    assert registry.names() == ["one", "two"] and registry.get("two") == 2
    with pytest.raises(GqlbenchError, match="registered already"):
        registry.register("one", 11)
    registry.register("one", 11, replace=True)
    assert registry.get("one") == 11
    with pytest.raises(GqlbenchError, match="plain word"):
        registry.register("a:b", 3)
    with pytest.raises(GqlbenchError, match=r"--number three: unknown number; choose one of one, two, or name your own"):
        registry.get("three")


def test_module_object_and_file_object_are_loaded_once(tmp_path: Path) -> None:
    source = tmp_path / "counted.py"
    source.write_text("import builtins\nbuiltins.gqlbench_loads = getattr(builtins, 'gqlbench_loads', 0) + 1\nVALUE = 42\n")
    registry: Registry[int] = Registry("number", "gqlbench.test_no_such_group", "--number")
    assert registry.get(f"{source}:VALUE") == 42 and registry.get(f"{source}:VALUE") == 42
    import builtins

    assert builtins.gqlbench_loads == 1  # type: ignore[attr-defined]
    assert load_object("json:dumps", "--x")([1]) == "[1]"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_xyz:X", "--x no_such_module_xyz:X: cannot import 'no_such_module_xyz'"),
        ("json:no_such_attr", "--x json:no_such_attr: json has no attribute 'no_such_attr'"),
        ("missing/file.py:X", "--x missing/file.py:X: missing/file.py does not exist"),
        ("json:", "write module:object"),
    ],
)
def test_bad_names_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(GqlbenchError) as info:
        load_object(spec, "--x")
    assert str(info.value).startswith(message) or message in str(info.value)
