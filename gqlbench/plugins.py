"""Finding outside code: registries of named objects, entry points and ``module:object``.

Prompt styles, backends, metrics and world behaviours are each one
:class:`Registry`: a short name maps to an object. Outside code adds one in
any of three ways, and no gqlbench file changes: it calls the registry's
``register``, it ships an installed package declaring the registry's entry
point group (``[project.entry-points."gqlbench.backends"]``),
or the user names it on the command line as ``module:object`` or
``path/to/file.py:object``. This ground-floor module only finds objects; what
an object must be is its registry's business.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any, Generic, TypeVar

from gqlbench.errors import GqlbenchError

__all__ = ["Registry", "load_object"]

T = TypeVar("T")


def load_object(
    spec: str,
    where: str,
    *,
    base: Path | None = None,
    module_prefix: str = "gqlbench_plugin_",
    what: str = "an object",
    module_alone: bool = False,
) -> Any:
    """The object named by ``module:object`` or ``path/to/file.py:object``: the one loader of outside code.

    Every place that takes such a name (``--prompt``/``--backend``, a world's
    ``"behaviour"``, ``GQLBENCH_METRICS``, a sandbox runtime) calls this, so they
    accept the same spellings and fail the same way: a :class:`GqlbenchError`
    of one line, starting with ``where`` (the caller's option, e.g.
    ``--prompt``) and the spec, saying what is wrong and what to do.

    A file path (ending in ``.py`` or containing ``/``) is read relative to
    ``base`` (default: the current folder) and imported once per process as
    module ``<module_prefix><stem>_<digest of its path>``, registered in
    ``sys.modules`` so dataclasses and pickling find it. ``what`` names the
    expected object in the error ("a Metric"). With ``module_alone``, a spec
    without ``:object`` returns the module itself (a module that registers on import).
    """
    where = f"{where} {spec}"
    target, colon, attr = spec.rpartition(":")
    if module_alone and not colon:
        target = spec
    elif not target or not attr or not target.strip():
        raise GqlbenchError(f"{where}: write module:object or path/to/file.py:object, naming {what}")
    module = _import_target(target, where, base, module_prefix)
    if module_alone and not colon:
        return module
    found = getattr(module, attr, None)
    if found is None:
        raise GqlbenchError(f"{where}: module {target!r} has no {attr!r}; name {what} it defines")
    return found


def _is_file(target: str) -> bool:
    return target.endswith(".py") or "/" in target or os.sep in target


def _import_target(target: str, where: str, base: Path | None, prefix: str) -> ModuleType:
    """The module ``target`` names (a dotted name or a file); import failures become one-line errors."""
    try:
        if not _is_file(target):
            return importlib.import_module(target)
        path = (base or Path.cwd()) / target
        if not path.is_file():
            relative = f"relative to {base}" if base is not None else "relative to the current folder, or absolute"
            raise GqlbenchError(f"{where}: {Path(target) if base is None else path} does not exist; give a .py file {relative}")
        return _import_file(path.resolve(), prefix)
    except GqlbenchError:
        raise
    except Exception as exc:  # the user's module failed to import: say so in one line
        detail = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        todo = "fix the file" if _is_file(target) else "is it installed or on PYTHONPATH?"
        raise GqlbenchError(f"{where}: cannot import {target!r} ({detail}); {todo}") from None


def _import_file(path: Path, prefix: str) -> ModuleType:
    name = f"{prefix}{path.stem}_{zlib.crc32(str(path).encode()):08x}"
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]  # a failed import is not cached: fixing the file and retrying works
        raise
    return module


class Registry(Generic[T]):
    """Named objects of one kind: registered ones, then the entry point ``group``, then ``module:object``.

    The one registry type: prompt styles, backends, metrics and world
    behaviours are each an instance, so they share registration, entry points,
    ``module:object`` loading (:meth:`load`) and the wording of errors.
    ``kind`` and ``option`` word the errors ("unknown prompt style 'x' (--prompt)");
    ``what`` names the expected object (default: "a <kind>") and files named
    as ``path/to/file.py:object`` are imported as modules ``<module_prefix>...``.
    Entry points are listed by name without being imported; one is loaded when
    it is asked for (:meth:`get`), or all at once (:meth:`load_entry_points`).
    """

    def __init__(self, kind: str, group: str, option: str, *, what: str | None = None, module_prefix: str = "gqlbench_plugin_") -> None:
        self.kind = kind
        self.group = group
        self.option = option
        self.what = what or f"a {kind}"
        self.module_prefix = module_prefix
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

    def unregister(self, name: str) -> None:
        """Forget a registration (nothing happens when ``name`` is not registered)."""
        self._items.pop(name, None)

    def find(self, name: str) -> T | None:
        """The object registered as ``name``, or None (entry points and ``module:object`` are not looked at): a hot path's lookup."""
        return self._items.get(name)

    def registered(self) -> dict[str, T]:
        """The objects registered in this process, in registration order (entry points are not loaded)."""
        return dict(self._items)

    def names(self) -> list[str]:
        """Registered names in registration order, then installed entry points (not imported)."""
        found = list(self._items)
        found += sorted({ep.name for ep in _entry_points(self.group)} - set(found))
        return found

    def load(self, spec: str, where: str | None = None, *, base: Path | None = None, module_alone: bool = False) -> Any:
        """The object a ``module:object`` or ``path/to/file.py:object`` names (see :func:`load_object`), not registered."""
        return load_object(
            spec, where or self.option, base=base, module_prefix=self.module_prefix, what=self.what, module_alone=module_alone
        )

    def entry_point(self, name: str) -> Any | None:
        """The installed entry point ``name`` of this registry's group (not loaded), or None."""
        return next((ep for ep in _entry_points(self.group) if ep.name == name), None)

    def load_entry_points(self) -> list[tuple[Any, Any]]:
        """Every installed entry point of the group with the object it names, loaded now."""
        return [(entry, self._load_entry(entry)) for entry in _entry_points(self.group)]

    def get(self, name: str) -> T:
        """The object named ``name``; an unknown name is an error listing the known ones."""
        if name in self._items:
            return self._items[name]
        if name in self._loaded:
            return self._loaded[name]
        if ":" in name:
            item = self.load(name)
        else:
            entry = self.entry_point(name)
            if entry is None:
                raise GqlbenchError(
                    f"{self.option} {name}: unknown {self.kind}; choose one of {', '.join(self.names())}, or name your own as module:object"
                )
            item = self._load_entry(entry)
        self._loaded[name] = item
        return item

    def _load_entry(self, entry: Any) -> Any:
        try:
            return entry.load()
        except Exception as exc:  # an installed plugin that fails to import: say which one
            detail = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
            raise GqlbenchError(
                f"{self.option} {entry.name}: the entry point {entry.value} ({self.group}) failed to load ({detail}); "
                "fix or uninstall its package"
            ) from None


def _entry_points(group: str) -> list[Any]:
    from importlib.metadata import entry_points

    return list(entry_points(group=group))
