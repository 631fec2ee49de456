"""Between the shown and the real: a run's prompt setting meets observers, scoring and execution.

Prompts show a sample as :func:`gqlbench.generators.present.present` rewrote
it (offered functions, obfuscated names, schema view). Everything that judges
or runs a program uses the real sample and the program mapped back to real
names, so scores compare across settings. An observer that executes actions
(``--observe mock``) therefore sees real names too, and what it answers is
shown in the prompt's names; the ``schema`` observer reads the shown sample
itself, since it only describes what the prompt already shows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.generators.present import Presented, Presenter
from gqlbench.generators.react import Observer, SchemaObserver
from gqlbench.generators.sdl_view import shown_type_name
from gqlbench.generators.tools import CallOutcome, CallRunner
from gqlbench.records import Sample

__all__ = ["RealNamesObserver", "observer_for", "shown_record", "real_program"]


def _shown_text(presented: Presented, text: str) -> str:
    """An observation in the prompt's names: functions and the types named after them (whole words only)."""
    numbering = presented.names.numbering
    if not numbering:
        return text
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: shown_type_name(m.group(0), numbering), text)


@dataclass
class RealNamesObserver:
    """Hands an executing observer the real sample and real-named actions."""

    inner: Observer
    presenter: Presenter
    name: str = field(init=False)
    explains: str = field(init=False)

    def __post_init__(self) -> None:
        self.name, self.explains = self.inner.name, self.inner.explains

    def _real(self, request: tuple[Sample, list[str], str]) -> tuple[Presented | None, tuple[Sample, list[str], str]]:
        sample, actions, action = request
        presented = self.presenter.get(sample.id)
        if presented is None:
            return None, request
        return presented, (presented.original, [presented.real_code(a) for a in actions], presented.real_code(action))

    def observe(self, sample: Sample, actions_so_far: list[str], action: str) -> str:
        return self.observe_many([(sample, actions_so_far, action)])[0]

    def observe_many(self, requests: Sequence[tuple[Sample, list[str], str]]) -> list[str]:
        mapped = [self._real(r) for r in requests]
        batch = getattr(self.inner, "observe_many", None)
        real = [m for _, m in mapped]
        answers = list(batch(real)) if batch is not None else [self.inner.observe(*r) for r in real]
        return [_shown_text(p, a) if p is not None else a for (p, _), a in zip(mapped, answers, strict=True)]

    def run_turns(self, requests: Sequence[tuple[Sample, list[str], list[str]]]) -> list[list[CallOutcome]]:
        """The inner observer's call outcomes (``--prompt tools``), its errors in the prompt's names."""
        if not isinstance(self.inner, CallRunner):
            raise GqlbenchError(f"the {self.name} observer does not run calls; --prompt tools needs the mock world")
        mapped: list[tuple[Presented | None, tuple[Sample, list[str], list[str]]]] = []
        for sample, calls, new in requests:
            presented = self.presenter.get(sample.id)
            if presented is None:
                mapped.append((None, (sample, calls, new)))
            else:
                real = [presented.real_code(line) for line in calls], [presented.real_code(line) for line in new]
                mapped.append((presented, (presented.original, *real)))
        turns = self.inner.run_turns([m for _, m in mapped])
        return [
            [CallOutcome(o.value, _shown_text(p, o.error)) if p is not None and o.error is not None else o for o in outcomes]
            for (p, _), outcomes in zip(mapped, turns, strict=True)
        ]

    def close(self) -> None:
        closer: Any = getattr(self.inner, "close", None)
        if closer is not None:
            closer()


def observer_for(observer: Observer | None, presenter: Presenter) -> Observer | None:
    """The observer a style should use under the run's prompt setting."""
    if observer is None or presenter.setting.is_default or isinstance(observer, SchemaObserver):
        return observer
    return RealNamesObserver(observer, presenter)


def shown_record(presenter: Presenter, sample_id: str) -> dict[str, Any]:
    """What samples.jsonl keeps about how the sample was shown (nothing under the default setting)."""
    presented = presenter.get(sample_id)
    return {} if presented is None or presenter.setting.is_default else presented.record()


def real_program(presenter: Presenter, sample_id: str, code: str, prediction: str) -> tuple[Sample | None, str, str, dict[str, Any]]:
    """(real sample, real code, what to score, the per-sample record) of an answer in the shown names.

    Under the default setting nothing changes and the record is empty, so
    samples.jsonl keeps its keys. A call of a function of the domain's
    numbering that this sample did not offer (a name a few-shot example
    showed) maps back too, and the record lists it under
    ``"not_offered_calls"`` (``{"api_8": "GET_artist"}``); scoring then tags
    it ``hallucinated_function`` (see ``offered`` in :func:`gqlbench.metrics.score_sample`).
    An opaque name outside the numbering (``api_999``) is a made-up endpoint
    (:func:`gqlbench.generators.obfuscate.unknown_endpoint`), listed there too:
    it scores and is tagged as an invented ``GET_lyrics`` is in a plain run.
    """
    presented = presenter.get(sample_id)
    if presented is None or presenter.setting.is_default:
        return (presented.original if presented else None), code, prediction, {}
    real, not_offered = presented.real_code_logged(code)
    names = presented.names
    renamed = bool(names.functions or names.params or names.others or names.other_params)
    record = shown_record(presenter, sample_id)
    if not_offered:
        record["not_offered_calls"] = not_offered
    return presented.original, real, real if renamed else prediction, record
