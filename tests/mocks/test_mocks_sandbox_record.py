"""What the sandbox records of a program is bounded, written under the job's limits, and says when it was cut.

The programs here are small and their values huge only once written out
(``[s] * 300`` is 300 references to one string). The peak memory of the
worker is measured in a child process that starts a one-worker pool, runs the
program and reports ``RUSAGE_CHILDREN.ru_maxrss``: its only child is the
worker, so that is the worker's peak resident size, not a time.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gqlbench.cli import main
from gqlbench.mocks.sandbox.limits import SandboxLimits
from gqlbench.mocks.sandbox.pool import Job, SandboxPool
from gqlbench.mocks.sandbox.record import MAX_MESSAGE_CHARS, json_text, message_text, record_calls
from gqlbench.records import TraceCall

LIMITS = SandboxLimits(cpu_seconds=1, memory_mb=64, max_output_chars=100)
MEMORY_MB = 64
# what a worker holds before a job (the interpreter, gqlbench, a domain's schema and world: ~60 MB)
# and the report's allowance (sandbox_limits.REPORT_MEMORY_MB, 32 MB), with room to spare
WORKER_MARGIN_MB = 128
HUGE_KEY = "d = {}\nd[tuple(['a' * 10**6] * 300)]"
HUGE_ARGUMENT = "s = 'a' * 10**6\nPUT_me_player_play(uris=[s] * 300)"
HUGE_INT = "GET_movie_popular()\nx = 2**4000\nx = x * x * x * x\nGET_movie__movie_id_(movie_id=x)"

PEAK = """
import json, resource, sys
from gqlbench.mocks.sandbox.pool import Job, run_program
trace = run_program(Job(code=sys.argv[1], domain=sys.argv[2]), memory_mb=int(sys.argv[3]), cpu_seconds=10, wall_seconds=60)
peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"peak_mb": peak_mb, "trace": trace.model_dump()}))
"""


def worker_peak(code: str, domain: str) -> tuple[float, dict]:
    """The worker's peak resident size (MB) running ``code`` with a 64 MB job limit, and the trace."""
    done = subprocess.run([sys.executable, "-c", PEAK, code, domain, str(MEMORY_MB)], capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    return found["peak_mb"], found["trace"]


def test_json_text_writes_at_most_its_bound_and_says_it_cut() -> None:
    s = "a" * 10**6
    text, cut = json_text({"uris": [s] * 300}, 1_000)
    assert cut and len(text) < 1_100 and text.startswith('{"uris": ["aaa') and "(cut at 1000 characters)" in text
    assert json_text({"a": [1, "x", None, True, 1.5]}, 1_000) == ('{"a": [1, "x", null, true, 1.5]}', False)


def test_an_integer_too_large_to_write_is_a_placeholder() -> None:
    text, cut = json_text([1, 2**16000], 10_000)
    assert cut and text == "[1, <int of about 4817 digits>]"


def test_nesting_and_cycles_are_cut_not_a_crash() -> None:
    loop: list = []
    loop.append(loop)
    text, cut = json_text(loop, 10_000)
    assert cut and "<nested too deeply>" in text and len(text) < 10_100


def test_an_error_message_is_written_from_a_bounded_repr() -> None:
    message = message_text(KeyError(tuple(["a" * 10**6] * 300)), with_type=True)
    assert message.startswith("KeyError: ('aaa") and len(message) <= MAX_MESSAGE_CHARS + 40


def test_a_trace_keeps_calls_up_to_its_bound_and_counts_the_rest() -> None:
    calls = [TraceCall(function="GET_x", arguments={"q": "b" * 5_000}) for _ in range(1_000)]
    records, left_out = record_calls(calls, LIMITS)
    assert len(json.dumps(records)) <= LIMITS.max_trace_chars + 1_000 and left_out == 1_000 - len(records) > 0
    assert records[0] == {"function": "GET_x", "arguments": {"q": "b" * 5_000}, "response_ids": [], "error": None}


@pytest.mark.parametrize("code, domain", [(HUGE_KEY, "tmdb"), (HUGE_ARGUMENT, "spotify")], ids=["error_message", "trace"])
def test_the_worker_writes_what_the_program_made_within_the_jobs_memory_limit(code: str, domain: str) -> None:
    """Issue 20, items 5 and 6: the message and the trace were written after the limits were lifted (~635 MB)."""
    peak_mb, trace = worker_peak(code, domain)
    assert peak_mb < MEMORY_MB + WORKER_MARGIN_MB, f"the worker peaked at {peak_mb:.0f} MB"
    assert trace["error"]["kind"] in ("index_out_of_range", "bad_arguments")
    assert len(trace["error"]["message"]) <= MAX_MESSAGE_CHARS + 40
    assert len(json.dumps(trace)) < 3 * (SandboxLimits(1, 1, 1).max_argument_chars + MAX_MESSAGE_CHARS)


def test_a_huge_integer_argument_is_recorded_bounded_and_the_calls_before_it_are_kept() -> None:
    """Issue 20, item 7: writing the reply raised (4,300-digit limit) and the worker died with the trace."""
    with SandboxPool(workers=1) as pool:
        trace = pool.run(Job(code=HUGE_INT, domain="tmdb"))
    assert [c.function for c in trace.calls] == ["GET_movie_popular", "GET_movie__movie_id_"]
    assert trace.calls[0].response_ids and trace.calls[0].error is None
    assert trace.calls[1].arguments == {"movie_id": "<int of about 4817 digits>"} and trace.calls[1].truncated == ["movie_id"]
    assert trace.error is not None and "died" not in trace.error.message


def test_a_samples_line_stores_a_huge_trace_bounded_and_once(tmp_path: Path) -> None:
    """Issue 20, item 3: 87 bytes of prediction made a 112 MB samples.jsonl (a 56 MB trace, stored twice)."""
    predictions = tmp_path / "predictions.jsonl"
    prediction = "s='a'*10**6; PUT_me_player_play(uris=[s]*55)"
    predictions.write_text(json.dumps({"id": "test/0", "prediction": prediction}) + "\n")
    assert main(["evaluate", str(predictions), "--out", str(tmp_path / "out")]) == 0
    lines = (tmp_path / "out" / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    line = json.loads(next(text for text in lines if json.loads(text)["id"] == "test/0"))
    assert len(json.dumps(line)) < 3 * SandboxLimits(1, 1, 1).max_argument_chars
    call = line["explanation"]["exec"]["pred_trace"]["calls"][0]
    assert call["truncated"] == ["uris"] and call["arguments"]["uris"].endswith("(cut at 10000 characters)")
    assert line["explanation"]["exec"]["divergence"] == {"index": 0}  # the call is in pred_trace, not again here


def test_a_program_stopped_at_its_memory_limit_is_still_reported_with_its_calls() -> None:
    """The report runs under the job's limits plus a small allowance, so a program that used them all keeps its trace."""
    code = "GET_movie_popular()\na = []\nfor i in range(1000):\n    a.append('x' * 10**6 + str(i))\nGET_movie_popular()"
    with SandboxPool(workers=1, memory_mb=MEMORY_MB) as pool:
        trace = pool.run(Job(code=code, domain="tmdb"))
    assert trace.error is not None and trace.error.message == "the program exceeded its memory limit"
    assert [c.function for c in trace.calls] == ["GET_movie_popular"] and trace.calls[0].response_ids
    assert trace.world_digest is not None


def test_a_rejected_huge_argument_is_named_from_a_bounded_repr_and_its_call_recorded() -> None:
    """The runtime's own messages about a program's value are bounded too (a full repr ran out of memory)."""
    with SandboxPool(workers=1, memory_mb=MEMORY_MB) as pool:
        trace = pool.run(Job(code="s = 'a' * 10**6\nGET_search_movie(query=[s] * 300)", domain="tmdb"))
    assert trace.error is not None and trace.error.kind == "bad_arguments"
    assert trace.error.message.startswith("GET_search_movie(): query must be a JSON string, got array ['aaa")
    assert [c.truncated for c in trace.calls] == [["query"]]
