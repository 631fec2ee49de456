"""Did a program decline the request, and did it call functions it was not offered?

Relevance cases (``gqlbench run --relevance``) offer a function set from which
one function the gold program needs was removed, so no correct program exists.
The prompt asks a model to say so with the documented marker: a program that
raises ``NotSupported("why")``. A program **abstains** when it raises
``NotSupported`` anywhere, or calls no API function at all (no call of an
offered or catalog function; an empty answer is the same as declining).
Both checks are static (the program is read, never run), so they also work
for programs the sandbox refuses.

A **hallucinated call** is a call of an API function the prompt did not offer:
a name of the domain's catalog, or one shaped like an endpoint
(:func:`gqlbench.specs.names.looks_like_endpoint_name`), that is not in the offered set.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection
from dataclasses import dataclass

from gqlbench.metrics.limits import DEFAULT_LIMITS, source_too_large
from gqlbench.specs.names import looks_like_endpoint_name

__all__ = ["NOT_SUPPORTED", "Abstention", "read_abstention"]

NOT_SUPPORTED = "NotSupported"
_RAISE_TEXT = re.compile(rf"\braise\s+{NOT_SUPPORTED}\b")
_CALL_TEXT = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


@dataclass(frozen=True)
class Abstention:
    """What a program says about a request it may not be able to fulfil."""

    raises: bool  # raises NotSupported
    api_calls: tuple[str, ...]  # calls of offered or catalog functions, in source order
    unoffered: tuple[str, ...]  # of those, the calls of functions not offered

    @property
    def abstains(self) -> bool:
        """Declines: raises NotSupported, or calls no API function."""
        return self.raises or not self.api_calls


def _called_names(code: str) -> tuple[list[str], bool]:
    """Names called as plain functions, in source order, and whether ``raise NotSupported`` occurs.

    A program that does not parse (or is too large to analyse) is read by
    pattern instead, so a truncated answer is still classified.
    """
    if source_too_large(code, DEFAULT_LIMITS) is None:
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError):
            pass
        else:
            calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
            calls.sort(key=lambda n: (n.lineno, n.col_offset))
            raises = any(
                isinstance(n, ast.Raise)
                and n.exc is not None
                and isinstance(target := (n.exc.func if isinstance(n.exc, ast.Call) else n.exc), ast.Name)
                and target.id == NOT_SUPPORTED
                for n in ast.walk(tree)
            )
            return [n.func.id for n in calls if isinstance(n.func, ast.Name)], raises
    return _CALL_TEXT.findall(code), bool(_RAISE_TEXT.search(code))


def read_abstention(code: str, offered: Collection[str], catalog: Collection[str] = ()) -> Abstention:
    """Classify ``code`` against the ``offered`` functions and the domain's ``catalog`` names."""
    names, raises = _called_names(code)
    api = [n for n in names if n in offered or n in catalog or looks_like_endpoint_name(n)]
    return Abstention(raises=raises, api_calls=tuple(api), unoffered=tuple(n for n in api if n not in offered))
