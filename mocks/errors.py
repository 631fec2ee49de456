"""Errors a mock endpoint raises while a program runs.

Each carries a ``kind`` (the class attribute), so the sandbox can classify a
failed run without parsing messages. Messages are one line and say what the
program did wrong and what would be right (the valid parameters, the closest
fields, the ids the world has).
"""

from __future__ import annotations

from typing import ClassVar

__all__ = ["MockError", "UnknownFunction", "BadArguments", "UnknownField", "NotFound"]


class MockError(Exception):
    """Base of every error a program can cause in a mock API."""

    kind: ClassVar[str] = "other"


class UnknownFunction(MockError):
    """The program called an endpoint the domain does not have."""

    kind = "unknown_function"


class BadArguments(MockError):
    """An unknown parameter, a missing required one, or a value of the wrong JSON type."""

    kind = "bad_arguments"


class UnknownField(MockError):
    """The program read a field its response's GraphQL type does not have."""

    kind = "unknown_field"


class NotFound(MockError):
    """A lookup by an id (or number) the world does not have."""

    kind = "not_found"
