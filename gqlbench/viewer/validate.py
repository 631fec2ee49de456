"""The parts of a sample result the viewer computes with, checked on read against the typed records.

A run folder is passed between people and edited by hand, and older ones
predate some fields, so ``samples.jsonl`` is untrusted input. ``SampleResult``
keeps ``explanation`` and the generation fields (``tokens_in``, ``steps``,
...) open, as every stage adds to them; the pages, though, count tokens,
compare divergence indices and walk traces. :func:`check_result` validates
those parts with :class:`~gqlbench.records.Trace`, :class:`~gqlbench.records.ExecError`
and the models below, and a value of the wrong shape is one line naming the
file, the sample and the field, not a traceback halfway through the page.
Text values (messages, code, raw output) need no check: the page escapes
whatever they hold.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gqlbench.errors import GqlbenchError
from gqlbench.records import ExecError, SampleResult, Trace

__all__ = ["check_result"]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class _Divergence(_Open):
    index: int | None = None


class _Exec(_Open):
    """``explanation.exec`` (:func:`metrics.traces.trace_scores`), or ``{"not_run": reason}``."""

    gold_trace: Trace | None = None
    pred_trace: Trace | None = None
    error: ExecError | None = None
    divergence: _Divergence | None = None
    same_calls: bool | None = None
    same_final_state: bool | None = None


class _Explanation(_Open):
    exec: _Exec | None = None
    errors: list[dict[str, Any]] = Field(default_factory=list)
    gold_calls: list[dict[str, Any]] = Field(default_factory=list)
    code: str | None = None
    gold_code: str | None = None


class _Generation(_Open):
    """The generation fields ``gqlbench run`` adds to a result (``Completion``'s)."""

    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_s: float | None = Field(default=None, allow_inf_nan=False)
    steps: list[Any] = Field(default_factory=list)


def check_result(path: Path, result: SampleResult) -> None:
    """Raise a :class:`GqlbenchError` naming ``path``, the sample and the field when ``result`` has a part of the wrong shape."""
    for model, data, prefix in ((_Explanation, result.explanation, "explanation."), (_Generation, result.model_extra or {}, "")):
        try:
            model.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = prefix + ".".join(map(str, first["loc"]))
            message = first["msg"].split(" or instance of ")[0]  # "...a valid dictionary", not the model's private name
            raise GqlbenchError(
                f"{path}: sample {result.id!r}: {field}: {message}; fix or remove the field (a hand edit, or a file from another tool)"
            ) from None
