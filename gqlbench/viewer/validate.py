"""The generation fields of a sample result the viewer computes with, checked on read.

A run folder is passed between people and edited by hand, and older ones
predate some fields, so ``samples.jsonl`` is untrusted input. Its
``explanation`` is a typed record (:class:`~gqlbench.records.Explanation`),
checked when the line is read; the generation fields ``gqlbench run`` adds
(``tokens_in``, ``steps``, ...) stay open on ``SampleResult``, as every
stage adds to them. The pages count tokens and list steps, so
:func:`check_result` validates those, and a value of the wrong shape is one
line naming the file, the sample and the field, not a traceback halfway
through the page. Text values (messages, code, raw output) need no check:
the page escapes whatever they hold.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gqlbench.errors import GqlbenchError
from gqlbench.records import SampleResult

__all__ = ["check_result"]


class _Generation(BaseModel):
    """The generation fields ``gqlbench run`` adds to a result (``Completion``'s)."""

    model_config = ConfigDict(extra="allow")

    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_s: float | None = Field(default=None, allow_inf_nan=False)
    steps: list[Any] = Field(default_factory=list)


def check_result(path: Path, result: SampleResult) -> None:
    """Raise a :class:`GqlbenchError` naming ``path``, the sample and the field when ``result`` has a part of the wrong shape."""
    try:
        _Generation.model_validate(result.model_extra or {})
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(map(str, first["loc"]))
        message = first["msg"].split(" or instance of ")[0]  # "...a valid dictionary", not the model's private name
        raise GqlbenchError(
            f"{path}: sample {result.id!r}: {field}: {message}; fix or remove the field (a hand edit, or a file from another tool)"
        ) from None
