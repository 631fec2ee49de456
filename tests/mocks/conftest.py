"""Helpers shared by the mock tests."""

from __future__ import annotations

import pytest

from gqlbench.mocks.endpoints import Runtime, make_runtime


class Budget:
    """A stand-in for the server's time budget, callable as ``World.interrupt`` or an index ``step``.

    It lets ``allowed`` checks pass, then raises TimeoutError at each one after.
    """

    def __init__(self, allowed: int) -> None:
        self.allowed = allowed
        self.calls = 0

    def __call__(self) -> None:
        self.calls += 1
        if self.calls > self.allowed:
            raise TimeoutError("over budget")


@pytest.fixture
def budget() -> type[Budget]:
    """The :class:`Budget` class: ``budget(3)`` stops the work at its fourth check."""
    return Budget


@pytest.fixture
def tmdb() -> Runtime:
    """A fresh TMDB runtime, seed 0."""
    return make_runtime("tmdb", 0)


@pytest.fixture
def spotify() -> Runtime:
    """A fresh Spotify runtime, seed 0."""
    return make_runtime("spotify", 0)
