"""ReAct observations from the mock APIs: what an action really returned, or why it failed.

:class:`MockObserver` is the ``mock`` observation mode of ``gqlbench run
--prompt react``. It joins two packages that do not know each other: it
satisfies :class:`gqlbench.generators.react.Observer` (and its batched form)
by shape, and runs actions only through the sandbox of :mod:`gqlbench.mocks`.

Each observation is a deterministic replay: the sample's earlier actions and
the new one run as one program, in the sandbox, on a fresh world of the
sample's domain built from the run's seed, so the world shows what earlier
actions changed (a playlist created in step 1 is there in step 2), and the
observation is the value the new action produced (the value assigned, or the
expression's value) as JSON, shortened to ``max_chars`` as a tool result is
(:mod:`gqlbench.generators.shorten`: still JSON, saying inside it what was left out). When the action
fails, the observation is the error's kind and message (which name the valid
fields or parameters), so the model can correct itself. An action that failed
is left out of later replays: as in a live session its variable was never
assigned. (A mutation it made before failing, in the same line, is lost; with
one call per line that is rare.)

A tool-calling turn (:meth:`MockObserver.run_turns`) is one sandbox job:
the sample's earlier calls that succeeded are replayed once, then the turn's
calls run in order in that world, each reported on its own
(``Job.steps``, :mod:`gqlbench.mocks.sandbox.pool`), so a turn of N calls
costs one job of N statements after the replay, not N jobs that each replay
everything before them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gqlbench.generators.shorten import shorten
from gqlbench.generators.tools import CallOutcome
from gqlbench.mocks.sandbox.pool import Job, SandboxPool, StepResult
from gqlbench.records import ExecError, Sample, Trace

__all__ = ["MockObserver"]

_LINE_PREFIX = re.compile(r"^line \d+: ")

Request = tuple[Sample, list[str], str]  # (sample, actions so far, new action)
Turn = tuple[Sample, list[str], list[str]]  # (sample, calls so far, the turn's new calls)


@dataclass
class MockObserver:
    """Observation = the executed response of the action (JSON), or its error.

    ``pool`` returns the sandbox pool to run in, so a run can share one pool
    that starts on first use; without it the observer starts its own on first
    use and :meth:`close` stops it. Observe a sample's steps in order (as
    :func:`~gqlbench.generators.react.run_react` does): which earlier actions
    succeeded is remembered, and worked out again step by step otherwise.
    """

    seed: int = 0
    max_chars: int = 2000
    pool: Callable[[], SandboxPool] | None = None
    name: str = "mock"
    explains: str = (
        "the JSON response your call returned from the API (long responses are cut), or the error it raised, so you can fix the action"
    )
    _kept: dict[tuple[str, str, tuple[str, ...]], tuple[str, ...]] = field(default_factory=dict, repr=False)
    _own_pool: SandboxPool | None = field(default=None, repr=False)

    def observe(self, sample: Sample, actions_so_far: list[str], action: str) -> str:
        return self.observe_many([(sample, actions_so_far, action)])[0]

    def observe_many(self, requests: Sequence[Request]) -> list[str]:
        """One observation per request, all run as one sandbox batch."""
        return [self._describe(trace, lines) for trace, lines in self._run(requests)]

    def run_turns(self, requests: Sequence[Turn]) -> list[list[CallOutcome]]:
        """The value of each new call of each turn (decoded JSON), or the world's error as an observation says it (``--prompt tools``).

        One sandbox job per turn, all turns in one batch: the earlier calls
        that succeeded are replayed, then the turn's calls run in order in
        that world. A call that failed is left out of later replays.
        """
        if not requests:
            return []
        replays = [self._replayed(sample, calls) for sample, calls, _ in requests]
        jobs = [
            Job(
                code="\n".join(replay),
                domain=sample.domain,
                seed=self.seed,
                sample_id=sample.id,
                request=sample.utterance,
                steps=tuple(new),
            )
            for (sample, _, new), replay in zip(requests, replays, strict=True)
        ]
        outcomes = []
        for (sample, calls, new), replay, (_, steps) in zip(requests, replays, self._sandbox().run_steps(jobs), strict=True):
            replayed = sum(line.count("\n") + 1 for line in replay)
            outcomes.append([_outcome(step, replayed) for step in steps])
            kept = [line for line, step in zip(new, steps, strict=True) if step.error is None]
            self._kept[_key(sample, [*calls, *new])] = (*replay, *kept)
        return outcomes

    def _run(self, requests: Sequence[Request]) -> list[tuple[Trace, int]]:
        """Each request's trace and the number of replayed lines before its action, all run as one sandbox batch."""
        if not requests:
            return []
        replays = [self._replayed(sample, actions) for sample, actions, _ in requests]
        jobs = [
            Job(
                code="\n".join([*replay, action]),
                domain=sample.domain,
                seed=self.seed,
                sample_id=sample.id,
                observe_last=True,
                request=sample.utterance,
            )
            for (sample, _, action), replay in zip(requests, replays, strict=True)
        ]
        traces = self._sandbox().run_many(jobs)
        done = []
        for (sample, actions, action), replay, trace in zip(requests, replays, traces, strict=True):
            self._kept[_key(sample, [*actions, action])] = replay if trace.error else (*replay, action)
            done.append((trace, sum(a.count("\n") + 1 for a in replay)))
        return done

    def close(self) -> None:
        """Stop the pool this observer started (a pool given by ``pool`` belongs to its owner)."""
        if self._own_pool is not None:
            self._own_pool.close()
            self._own_pool = None

    def _sandbox(self) -> SandboxPool:
        if self.pool is not None:
            return self.pool()
        if self._own_pool is None:
            self._own_pool = SandboxPool()
        return self._own_pool

    def _replayed(self, sample: Sample, actions: list[str]) -> tuple[str, ...]:
        """The earlier actions that ran without error, in order."""
        if not actions:
            return ()
        key = _key(sample, actions)
        if key not in self._kept:  # not observed in order: observe the previous step first
            self.observe(sample, actions[:-1], actions[-1])
        return self._kept[key]

    def _describe(self, trace: Trace, replayed_lines: int) -> str:
        if trace.error is not None:
            return _error_text(trace.error, replayed_lines)
        if trace.result is None:
            return "The action ran; it has no value to show."
        text = str(trace.result)
        if len(text) <= self.max_chars:
            return text
        try:
            value = json.loads(text)
        except ValueError:  # cut by the sandbox's bound: shown as a string
            value = text
        return shorten(value, self.max_chars).text


def _key(sample: Sample, actions: Sequence[str]) -> tuple[str, str, tuple[str, ...]]:
    return sample.id, sample.domain, tuple(actions)


def _error_text(error: ExecError, replayed_lines: int) -> str:
    message = _LINE_PREFIX.sub("", error.message)
    text = f"Error ({error.kind}): {message}"
    if error.line is not None and error.line <= replayed_lines:
        text += f" (raised while replaying an earlier action, line {error.line})"
    return text


def _outcome(step: StepResult, replayed_lines: int) -> CallOutcome:
    """A tool call's outcome from its step of the turn's job (:meth:`MockObserver.run_turns`)."""
    if step.error is not None:
        text = _error_text(step.error, replayed_lines)
        in_replay = step.error.line is not None and step.error.line <= replayed_lines
        if not step.finished and not in_replay:
            text += " (this call did not finish: a turn's calls run in one sandbox job, which stopped before it did)"
        return CallOutcome(error=text)
    try:
        return CallOutcome(value=json.loads(step.result) if step.result is not None else None)
    except ValueError:  # cut by the sandbox's bound: the text as it is
        return CallOutcome(value=step.result)
