"""Finding outside code: registries of named objects, entry points and ``module:object``.

Prompt styles and backends are each one registry: a short name maps to an
object. Outside code adds one in any of three ways, and no gqlbench file
changes: it calls the registry's ``register``, it ships an installed package
declaring the registry's entry point group (``[project.entry-points."gqlbench.backends"]``),
or the user names it on the command line as ``module:object`` or
``path/to/file.py:object``. This ground-floor module only finds objects; what
an object must be is its registry's business.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from typing import Any, Generic, TypeVar

from gqlbench.errors import GqlbenchError

__all__ = ["Registry", "load_object"]

T = TypeVar("T")


def load_object(spec: str, option: str) -> Any:
    """The object named by ``module:object`` or ``path/to/file.py:object``; errors name ``option``."""
    target, _, attr = spec.rpartition(":")
    if not target or not attr:
        raise GqlbenchError(f"{option} {spec}: write module:object or path/to/file.py:object")
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise GqlbenchError(f"{option} {spec}: {path} does not exist")
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        assert module_spec is not None and module_spec.loader is not None
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as exc:
            raise GqlbenchError(f"{option} {spec}: cannot import {target!r} ({exc}); is it on PYTHONPATH?") from None
    found = getattr(module, attr, None)
    if found is None:
        raise GqlbenchError(f"{option} {spec}: {target} has no attribute {attr!r}")
    return found


class Registry(Generic[T]):
    """Named objects of one kind: registered ones, then the entry point ``group``, then ``module:object``.

    ``kind`` and ``option`` only word the errors ("unknown prompt style 'x' (--prompt)").
    Entry points are listed by name without being imported; one is loaded when it is asked for.
    """

    def __init__(self, kind: str, group: str, option: str) -> None:
        self.kind = kind
        self.group = group
        self.option = option
        self._items: dict[str, T] = {}
        self._loaded: dict[str, T] = {}  # entry points and module:object names already loaded

    def register(self, name: str, item: T, *, replace: bool = False) -> T:
        """Add ``item`` under ``name``; registering a taken name twice is an error unless ``replace``."""
        if ":" in name or not name.strip():
            raise GqlbenchError(f"cannot register {self.kind} {name!r}: a name is a plain word (':' marks module:object)")
        if name in self._items and not replace and self._items[name] is not item:
            raise GqlbenchError(f"{self.kind} {name!r} is registered already; pass replace=True to replace it")
        self._items[name] = item
        return item

    def registered(self) -> dict[str, T]:
        """The objects registered in this process (entry points are not loaded)."""
        return dict(self._items)

    def names(self) -> list[str]:
        """Registered names in registration order, then installed entry points (not imported)."""
        found = list(self._items)
        found += sorted({ep.name for ep in _entry_points(self.group)} - set(found))
        return found

    def get(self, name: str) -> T:
        """The object named ``name``; an unknown name is an error listing the known ones."""
        if name in self._items:
            return self._items[name]
        if name in self._loaded:
            return self._loaded[name]
        if ":" in name:
            item = load_object(name, self.option)
        else:
            entry = next((ep for ep in _entry_points(self.group) if ep.name == name), None)
            if entry is None:
                raise GqlbenchError(
                    f"{self.option} {name}: unknown {self.kind}; choose one of {', '.join(self.names())}, "
                    "or name your own as module:object"
                )
            try:
                item = entry.load()
            except Exception as exc:  # an installed plugin that fails to import: say which one
                raise GqlbenchError(f"{self.option} {name}: the entry point {entry.value} ({self.group}) failed to load: {exc}") from None
        self._loaded[name] = item
        return item


def _entry_points(group: str) -> list[Any]:
    from importlib.metadata import entry_points

    return list(entry_points(group=group))
