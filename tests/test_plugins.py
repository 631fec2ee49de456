"""The plugin registry: registered names, module:object, entry points and their errors."""

from __future__ import annotations

import re
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
        ("json:no_such_attr", "--x json:no_such_attr: module 'json' has no 'no_such_attr'"),
        ("missing/file.py:X", "--x missing/file.py:X: missing/file.py does not exist"),
        ("json:", "write module:object"),
    ],
)
def test_bad_names_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(GqlbenchError) as info:
        load_object(spec, "--x")
    assert str(info.value).startswith(message) or message in str(info.value)


def test_one_loader_reads_files_relative_to_a_base_under_a_prefix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    (tmp_path / "plug").mkdir()
    (tmp_path / "plug" / "thing.py").write_text("from dataclasses import dataclass\n@dataclass\nclass Box:\n    n: int = 1\nBOX = Box()\n")
    found = load_object("plug/thing.py:BOX", "--x", base=tmp_path, module_prefix="toy_prefix_")
    module = sys.modules[type(found).__module__]  # registered, so dataclasses and pickling find the module
    assert found.n == 1 and module.__name__.startswith("toy_prefix_thing_")
    assert load_object(f"{tmp_path}/plug/thing.py:BOX", "--x", module_prefix="toy_prefix_") is found  # imported once
    monkeypatch.chdir(tmp_path)
    assert load_object("plug/thing.py:Box", "--x", module_prefix="toy_prefix_") is type(found)
    assert load_object("json", "--x", module_alone=True).__name__ == "json"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nothing", "--x nothing: write module:object or path/to/file.py:object, naming a toy"),
        (":X", "--x :X: write module:object or path/to/file.py:object, naming a toy"),
        ("json:", "--x json:: write module:object or path/to/file.py:object, naming a toy"),
        ("json:nope", "--x json:nope: module 'json' has no 'nope'; name a toy it defines"),
        ("gone.py:X", "--x gone.py:X: {base}/gone.py does not exist; give a .py file relative to {base}"),
        ("broken.py:X", "--x broken.py:X: cannot import 'broken.py' (ZeroDivisionError: division by zero); fix the file"),
        ("bad_syntax.py:X", "--x bad_syntax.py:X: cannot import 'bad_syntax.py' (SyntaxError: '(' was never closed"),
        (
            "json.no_such_sub:X",
            "--x json.no_such_sub:X: cannot import 'json.no_such_sub' (ModuleNotFoundError: No module named 'json.no_such_sub'); "
            "is it installed or on PYTHONPATH?",
        ),
    ],
)
def test_the_loader_errors_are_one_line_naming_the_spec(spec: str, message: str, tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("X = 1\n\n1 / 0\n")
    (tmp_path / "bad_syntax.py").write_text("X = (\n")
    with pytest.raises(GqlbenchError) as info:
        load_object(spec, "--x", base=tmp_path, what="a toy")
    assert str(info.value).startswith(message.format(base=tmp_path)) and "\n" not in str(info.value)


def test_a_file_that_failed_to_import_loads_once_fixed(tmp_path: Path) -> None:
    (tmp_path / "flaky.py").write_text("X = 1 / 0\n")
    with pytest.raises(GqlbenchError, match="ZeroDivisionError"):
        load_object("flaky.py:X", "--x", base=tmp_path)
    (tmp_path / "flaky.py").write_text("X = 2\n")
    assert load_object("flaky.py:X", "--x", base=tmp_path) == 2


def test_every_caller_uses_the_one_loader() -> None:
    """No other module imports files by path or resolves module:object on its own."""
    root = Path(__file__).resolve().parents[1]
    own = [
        path.relative_to(root)
        for folder in ("gqlbench", "metrics", "mocks", "generators", "specs", "schemas")
        for path in (root / folder).rglob("*.py")
        if "spec_from_file_location" in path.read_text(encoding="utf-8") and path.name != "plugins.py"
    ]
    assert not own, own


def test_entry_points_are_loaded_by_name_or_all_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "toy_numbers.py").write_text("ONE = 1\n")
    (tmp_path / "toy_broken.py").write_text("X = 1 / 0\n")
    dist = tmp_path / "toy_numbers-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-numbers\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[gqlbench.test_numbers]\none = toy_numbers:ONE\n\n[gqlbench.test_broken]\nbad = toy_broken:X\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry: Registry[int] = Registry("number", "gqlbench.test_numbers", "--number")
    registry.register("two", 2)
    assert registry.names() == ["two", "one"] and registry.get("one") == 1 and registry.entry_point("nope") is None
    assert [(entry.name, value) for entry, value in registry.load_entry_points()] == [("one", 1)]
    registry.unregister("two")
    registry.unregister("two")  # forgetting twice is harmless
    assert registry.registered() == {} and registry.names() == ["one"]
    broken: Registry[int] = Registry("number", "gqlbench.test_broken", "--number")
    for attempt in (lambda: broken.get("bad"), broken.load_entry_points):
        with pytest.raises(GqlbenchError) as info:
            attempt()
        message = str(info.value)
        assert message.startswith("--number bad: the entry point toy_broken:X (gqlbench.test_broken) failed to load (ZeroDivisionError")
        assert message.endswith("fix or uninstall its package") and "\n" not in message


def test_every_kind_of_plugin_is_one_registry_type() -> None:
    """Metrics and worlds kept their own dicts and entry point scans beside the generic Registry (#25)."""
    from gqlbench.generators.backends.factory import BACKEND_REGISTRY
    from gqlbench.generators.styles import STYLES
    from gqlbench.metrics.registry import METRICS, all_metrics
    from gqlbench.mocks.engine.registry import WORLDS

    kinds = {BACKEND_REGISTRY.group, STYLES.group, METRICS.group, WORLDS.group}
    assert all(isinstance(r, Registry) for r in (BACKEND_REGISTRY, STYLES, METRICS, WORLDS)) and len(kinds) == 4
    metrics = list(all_metrics())  # built-ins and plugins loaded first
    assert list(METRICS.registered().values()) == metrics
    root = Path(__file__).resolve().parents[1]
    scanning = [
        path.relative_to(root)
        for folder in ("gqlbench", "metrics", "mocks", "generators", "specs", "schemas")
        for path in (root / folder).rglob("*.py")
        if re.search(r"\bentry_points\(|metadata import entry_points", path.read_text(encoding="utf-8")) and path.name != "plugins.py"
    ]
    assert not scanning, scanning  # only the Registry reads entry points
