"""The run's progress bar (gqlbench/run/progress.py): what moves inside a batch, counted once."""

from __future__ import annotations

import io

from gqlbench.generators.backends.progress import BatchProgress
from gqlbench.records import Completion
from gqlbench.run.progress import REFRESH_S, RunBar


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def bar(pending: int = 16) -> tuple[RunBar, io.StringIO, Clock]:
    stream, clock = io.StringIO(), Clock()
    return RunBar(pending, 0, pending, quiet=False, stream=stream, clock=clock), stream, clock


def test_requests_finished_in_the_engine_show_before_any_completion_is_handed_over() -> None:
    run, stream, clock = bar()
    clock.now = 10.0
    for done, tokens in ((0, 0), (1, 30), (2, 50), (3, 80)):
        run.progressed(BatchProgress(1.0, done, 16, tokens, clock.now - 1.0))
    assert run.fields() == {"batch": "3/16 requests", "generated": "0/16", "tok/s": "8.0", "failed": 0}
    assert "batch=3/16 requests" in stream.getvalue().split("\r")[-1]  # drawn at once
    for tokens in (30, 20, 30):  # the same requests handed over later do not count twice
        run.generated(Completion(sample_id="s", text="x", tokens_out=tokens))
    assert run.fields()["tok/s"] == "8.0" and run.fields()["generated"] == "3/16"


def test_a_backend_that_reports_nothing_keeps_the_counts_of_what_it_handed_over() -> None:
    run, _, clock = bar()
    clock.now = 4.0
    run.generated(Completion(sample_id="s", text="x", tokens_out=20))
    assert run.fields() == {"generated": "1/16", "tok/s": "5.0", "failed": 0}


def test_finished_calls_are_folded_and_still_counted() -> None:
    run, _, clock = bar()
    clock.now = 10.0
    run.progressed(BatchProgress(1.0, 2, 2, 40, 1.0))
    run.progressed(BatchProgress(2.0, 0, 3, 0, 0.0))  # the next call starts: the first is folded
    run.progressed(BatchProgress(2.0, 1, 3, 10, 1.0))
    assert list(run.calls) == [2.0] and run.closed_tokens == 40
    assert run.fields()["tok/s"] == "5.0" and run.fields()["batch"] == "1/3 requests"


def test_token_counts_alone_are_redrawn_at_most_every_half_second() -> None:
    run, stream, clock = bar()
    run.progressed(BatchProgress(0.0, 0, 4, 0, 0.0))
    drawn = stream.getvalue().count("\r")
    for step in range(1, 11):  # ten generation steps within 0.45 s: one redraw at most
        clock.now = step * 0.045
        run.progressed(BatchProgress(0.0, 0, 4, step, clock.now))
    assert stream.getvalue().count("\r") == drawn
    clock.now += REFRESH_S
    run.progressed(BatchProgress(0.0, 0, 4, 11, clock.now))
    run.progressed(BatchProgress(0.0, 1, 4, 11, clock.now))  # a finished request: at once
    assert stream.getvalue().count("\r") == drawn + 2


def test_quiet_draws_nothing() -> None:
    stream = io.StringIO()
    run = RunBar(4, 0, 4, quiet=True, stream=stream)
    run.progressed(BatchProgress(0.0, 1, 4, 9, 1.0))
    run.written()
    run.close()
    assert stream.getvalue() == ""
