"""The objects a sandboxed program is given besides its data: sealed callables and capped output.

A Python function carries ``__globals__`` (its module's namespace, with
``os`` or ``sys`` in it) and ``__closure__``; a program that reads either, by
attribute syntax or through a format field like ``"{0.__globals__}"``, walks
out of the sandbox. So every Python-level callable a program can name (the
API functions of its runtime, the bounded ``range``) reaches it wrapped in a
:class:`SealedFunction`, which can be called and has no readable attribute at
all; the other builtins are C functions, which carry no globals.
"""

from __future__ import annotations

import builtins
import io
from collections.abc import Callable, Mapping
from typing import Any

from gqlbench.mocks.sandbox.limits import ResourceLimit
from gqlbench.mocks.sandbox.policy import SAFE_BUILTINS

__all__ = ["MAX_RANGE", "CappedOutput", "SealedFunction", "program_builtins", "seal_namespace"]

MAX_RANGE = 1_000_000  # longest range() a program may ask for: a clear error beats a CPU timeout

_get = object.__getattribute__


class SealedFunction:
    """A callable a program may call, and do nothing else with: every attribute read is refused."""

    __slots__ = ("_function", "_name")

    def __init__(self, function: Callable[..., Any], name: str) -> None:
        object.__setattr__(self, "_function", function)
        object.__setattr__(self, "_name", name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _get(self, "_function")(*args, **kwargs)

    def __getattribute__(self, name: str) -> Any:
        raise AttributeError(f"{_get(self, '_name')}() has no attribute {name!r}: functions can only be called")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{_get(self, '_name')}() cannot be changed")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{_get(self, '_name')}() cannot be changed")

    def __repr__(self) -> str:
        return f"<function {_get(self, '_name')}>"


def seal_namespace(namespace: Mapping[str, Any]) -> dict[str, Any]:
    """The runtime's namespace with every callable sealed (data values pass through unchanged)."""
    return {name: SealedFunction(value, name) if callable(value) else value for name, value in namespace.items()}


class CappedOutput(io.TextIOBase):
    """Where ``print`` writes during a job: keeps the first ``limit`` characters."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self._limit = limit
        self._parts: list[str] = []
        self._size = 0

    def write(self, text: str) -> int:
        room = self._limit - self._size
        self._parts.append(text[: max(room, 0)])
        self._size += len(text)
        if self._size > self._limit:
            raise ResourceLimit(f"the program printed more than {self._limit} characters")
        return len(text)

    def getvalue(self) -> str:
        return "".join(self._parts)


def _bounded_range(*args: int) -> range:
    numbers = range(*args)
    try:
        too_long = len(numbers) > MAX_RANGE
    except OverflowError:
        too_long = True
    if too_long:
        raise ResourceLimit(f"range() longer than {MAX_RANGE} items is not allowed")
    return numbers


def program_builtins() -> dict[str, Any]:
    """The builtins a program sees: the safe C builtins and a sealed, bounded ``range``."""
    names = {name: getattr(builtins, name) for name in SAFE_BUILTINS}
    names["range"] = SealedFunction(_bounded_range, "range")
    return names
