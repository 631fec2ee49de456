"""Did a program decline the request, and did it call functions it was not offered?

Relevance cases (``gqlbench run --relevance``) offer a function set from which
one function the gold program needs was removed, so no correct program exists.
The prompt asks a model to say so with the documented marker: a program that
raises ``NotSupported("why")``. An answer is read as one of three things:

- an **explicit abstention**: it raises ``NotSupported`` anywhere, or it calls
  no API function and states a refusal in words (:data:`REFUSAL`: "cannot
  fulfil", "no function ... can", "not supported");
- **no call**: it calls no API function and says nothing of the kind (empty,
  unparsable, prose, or code that only computes). This is not a decline: an
  empty answer must not score as a correct one;
- an attempt: it calls at least one API function.

All checks are static (the program is read, never run), so they also work
for programs the sandbox refuses.

A **hallucinated call** is a call of an API function the prompt did not offer:
a name of the domain's catalog, or one shaped like an endpoint
(:func:`gqlbench.specs.names.looks_like_endpoint_name`), that is not in the offered set.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from gqlbench.metrics.limits import DEFAULT_LIMITS, source_too_large
from gqlbench.program import read_program
from gqlbench.specs.names import looks_like_endpoint_name

__all__ = ["NOT_SUPPORTED", "REFUSAL", "Abstention", "read_abstention"]

NOT_SUPPORTED = "NotSupported"
_RAISE_TEXT = re.compile(rf"\braise\s+{NOT_SUPPORTED}\b")
_CALL_TEXT = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_CANNOT = r"(?:cannot|can ?not|can't|unable to|not able to|impossible to|no way to|not possible to)"
_DO = r"(?:fulfil|fulfill|complete|do|answer|perform|satisfy|handle|carry out|accomplish)"
_NO_FUNCTION = r"(?:no|none of the)\s+(?:\w+\s+)?(?:functions?|endpoints?|apis?)"
_CAN = r"(?:can|could|does|do|allows?|lets?|supports?|provides?)"
REFUSAL = re.compile(
    rf"\b{_CANNOT}\b[^.\n]{{0,80}}?\b{_DO}\b|\bnot supported\b|\b{_NO_FUNCTION}\b[^.\n]{{0,80}}?\b{_CAN}\b",
    re.IGNORECASE,
)
"""A refusal stated in words: the request cannot be done, or no function can do it (one sentence)."""


@dataclass(frozen=True)
class Abstention:
    """What a program says about a request it may not be able to fulfil."""

    raises: bool  # raises NotSupported
    api_calls: tuple[str, ...]  # calls of offered or catalog functions, in source order
    unoffered: tuple[str, ...]  # of those, the calls of functions not offered
    refuses: bool = False  # the answer states a refusal in words (REFUSAL)

    @property
    def explicit(self) -> bool:
        """Declines explicitly: raises NotSupported, or calls no API function and says it cannot be done."""
        return self.raises or (self.refuses and not self.api_calls)

    @property
    def no_call(self) -> bool:
        """Calls no API function and does not decline (empty, unparsable or prose): not an abstention."""
        return not self.api_calls and not self.explicit


def _called_names(code: str) -> tuple[list[str], bool]:
    """Names called as plain functions, in source order, and whether ``raise NotSupported`` occurs.

    A program that does not parse (or is too large to analyse) is read by
    pattern instead, so a truncated answer is still classified.
    """
    if source_too_large(code, DEFAULT_LIMITS) is None:
        program = read_program(code)
        if program.tree is not None:
            return [c.name for c in program.calls], program.raises(NOT_SUPPORTED)
    return _CALL_TEXT.findall(code), bool(_RAISE_TEXT.search(code))


def read_abstention(code: str, offered: Collection[str], catalog: Collection[str] = (), answer: str = "") -> Abstention:
    """Classify ``code`` against the ``offered`` functions and the domain's ``catalog`` names.

    ``answer`` is the model's whole text (prose around the code), read for a stated refusal; the code is read too.
    """
    names, raises = _called_names(code)
    api = [n for n in names if n in offered or n in catalog or looks_like_endpoint_name(n)]
    refuses = any(REFUSAL.search(text) for text in (answer, code) if text)
    return Abstention(raises=raises, api_calls=tuple(api), unoffered=tuple(n for n in api if n not in offered), refuses=refuses)
