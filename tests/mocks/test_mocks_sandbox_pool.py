"""The sandbox pool runs programs in reused workers and turns every outcome into a trace."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gqlbench.dataset import load_errata, load_samples
from gqlbench.errors import GqlbenchError
from gqlbench.mocks.sandbox.limits import SandboxLimits
from gqlbench.mocks.sandbox.pool import DEFAULT_RUNTIME, Job, SandboxPool, StepResult, run_program
from gqlbench.mocks.sandbox.worker import load_factory
from gqlbench.records import ExecError

ECHO = f"{Path(__file__).parent / 'echo_runtime.py'}:echo_runtime"


def job(code: str, **fields: object) -> Job:
    return Job(code=code, **{"domain": "tmdb", "runtime": ECHO, **fields})  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    with SandboxPool(workers=2, cpu_seconds=1, wall_seconds=20) as pool:
        yield pool


def test_a_program_runs_and_its_calls_output_and_identity_are_traced(pool: SandboxPool) -> None:
    code = (
        'r = GET_search_movie(query="Titanic")\n'
        "GET_movie__movie_id__credits(movie_id=r.results[0].id)\n"
        "print('first:', r.results[0].id)\n"
    )
    trace = pool.run(job(code, seed=7, sample_id="test/99"))
    assert trace.error is None
    assert (trace.sample_id, trace.domain, trace.seed) == ("test/99", "tmdb", 7)
    assert [c.function for c in trace.calls] == ["GET_search_movie", "GET_movie__movie_id__credits"]
    assert trace.calls[0].arguments == {"query": "Titanic"}
    assert trace.calls[1].arguments == {"movie_id": "GET_search_movie#1.results[0].id"}
    assert trace.stdout == "first: GET_search_movie#1.results[0].id\n"
    assert trace.elapsed_s > 0


def test_same_program_and_seed_give_the_same_trace(pool: SandboxPool) -> None:
    code = 'GET_search_movie(query="Up")'
    first, second, other_seed = pool.run_many([job(code, seed=1), job(code, seed=1), job(code, seed=2)])
    assert first.world_digest == second.world_digest != other_seed.world_digest
    assert first.calls == second.calls


ERRORS = {
    # code: (kind, line)
    "x = (": ("parse_error", 1),
    "x = 1\nimport os": ("refused", 2),
    "x = 1\nGET_movie_details(movie_id=1)": ("unknown_function", 2),
    "x = query": ("other", 1),
    "r = GET_search_movie(query='x')\nGET_movie__movie_id_(movie_id=r, colour='red')": ("bad_arguments", 2),
    "x = []\ny = x[3]": ("index_out_of_range", 2),
    "d = {}\ny = d['missing']": ("index_out_of_range", 2),
    "x = 1\ny = x + 'a'": ("other", 2),
    "for i in range(10 ** 7):\n    pass": ("resource_limit", 1),
    "x = 1\nfor i in range(100):\n    print('x' * 1000)": ("resource_limit", 3),
}


@pytest.mark.parametrize("code", ERRORS.keys())
def test_errors_are_classified_with_the_program_line(pool: SandboxPool, code: str) -> None:
    kind, line = ERRORS[code]
    trace = pool.run(job(code))
    assert trace.error is not None, code
    assert (trace.error.kind, trace.error.line) == (kind, line), trace.error
    assert trace.error.message


def test_calls_made_before_an_error_are_kept(pool: SandboxPool) -> None:
    trace = pool.run(job("GET_search_movie(query='a')\nx = [][0]\nGET_search_movie(query='b')"))
    assert trace.error is not None and trace.error.kind == "index_out_of_range"
    assert [c.arguments for c in trace.calls] == [{"query": "a"}]


def test_output_is_capped_at_the_limit(pool: SandboxPool) -> None:
    trace = pool.run(job("for i in range(10 ** 5):\n    print('abc')"))
    assert trace.error is not None and trace.error.kind == "resource_limit"
    assert len(trace.stdout) == 10_000 and trace.stdout.startswith("abc\nabc")


def test_a_large_trace_arrives_whole_up_to_its_bound_and_the_rest_is_counted(pool: SandboxPool) -> None:
    trace = pool.run(job("for i in range(20000):\n    GET_search_movie(query=str(i) * 20)"))
    assert trace.error is None
    recorded = len(json.dumps([c.model_dump() for c in trace.calls]))
    assert 2**16 < recorded <= SandboxLimits(1, 1, 1).max_trace_chars  # more than one read of the pipe, less than the bound
    assert trace.calls[-1].arguments == {"query": str(len(trace.calls) - 1) * 20}
    assert len(trace.calls) + trace.calls_left_out == 20000


def test_run_many_preserves_order_and_uses_every_worker(pool: SandboxPool) -> None:
    jobs = [job(f"print({i})") for i in range(40)]
    traces = pool.run_many(jobs)
    assert [t.stdout for t in traces] == [f"{i}\n" for i in range(40)]
    assert pool.run_many([]) == []


def test_workers_are_reused_between_jobs(pool: SandboxPool) -> None:
    pool.run_many([job("x = 1")] * 4)
    pids = [w.process.pid for w in pool._workers]
    pool.run_many([job("x = 2")] * 10)
    assert [w.process.pid for w in pool._workers] == pids


def test_an_overrunning_worker_is_killed_and_replaced() -> None:
    with SandboxPool(workers=1, cpu_seconds=30, wall_seconds=1) as pool:
        pool.run(job("x = 1"))
        pid = pool._workers[0].process.pid
        slow, after = pool.run_many([job("x = 10 ** 1000\nfor i in range(40):\n    x = x * x"), job("print('fine')")])
        assert slow.error is not None and slow.error.kind == "timeout"
        assert 1 <= slow.elapsed_s < 5
        assert after.error is None and after.stdout == "fine\n"
        assert pool._workers[0].process.pid != pid


def test_run_program_is_a_one_off_pool() -> None:
    trace = run_program(job("print(len('four'))"), wall_seconds=10)
    assert trace.error is None and trace.stdout == "4\n"


def test_a_runtime_that_cannot_start_is_a_user_error(pool: SandboxPool) -> None:
    with pytest.raises(GqlbenchError, match="domain 'atlantis'"):
        pool.run(job("x = 1", domain="atlantis"))
    with pytest.raises(GqlbenchError, match="no_such_module"):
        pool.run(job("x = 1", runtime="no_such_module:make"))
    assert pool.run(job("print(1)")).stdout == "1\n"  # the pool is still usable


def test_closed_pool_refuses_work() -> None:
    pool = SandboxPool(workers=1)
    pool.close()
    with pytest.raises(GqlbenchError, match="closed"):
        pool.run(job("x = 1"))


def test_echo_runtime_checks_keywords_and_records_calls() -> None:
    runtime = load_factory(ECHO)("spotify", 0)
    response = runtime.namespace["GET_search"](q="x", type="track")
    assert str(response.tracks.items[0].uri) == "GET_search#1.tracks.items[0].uri"
    with pytest.raises(Exception, match="no parameter 'colour'") as raised:
        runtime.namespace["GET_search"](colour="red")
    assert raised.value.kind == "bad_arguments"  # type: ignore[attr-defined]
    assert [c.function for c in runtime.calls()] == ["GET_search"]


@pytest.mark.skipif(importlib.util.find_spec("gqlbench.mocks.endpoints") is None, reason="real runtime not built yet")
def test_the_sandbox_does_not_get_in_the_real_runtimes_way() -> None:
    """Gold programs on the real runtime: no veto, limit or timeout caused by the sandbox itself."""
    errata = load_errata()
    samples = [s for s in load_samples() if not errata.why_invalid(s.id)]
    with SandboxPool(workers=2, wall_seconds=30) as pool:
        traces = pool.run_many([Job(code=s.gold_code, domain=s.domain, sample_id=s.id, runtime=DEFAULT_RUNTIME) for s in samples])
    for trace in traces:
        if trace.error is not None:
            assert trace.error.kind not in ("timeout", "resource_limit"), (trace.sample_id, trace.error)
            assert "sandbox does not allow" not in trace.error.message, (trace.sample_id, trace.error)


@pytest.mark.parametrize(
    ("code", "result"),
    [
        ("x = [1, 2]", "[1,2]"),
        ("x = 1\nx + 1", "2"),
        ("x = 1\nx += 2", "3"),
        ("a = b = {'k': 'é'}", '{"k":"é"}'),
        ("print(1)", "null"),
        ("for i in range(3):\n    pass", "null"),
        ("r = GET_search_movie(query='Up')", '"GET_search_movie#1"'),  # no JSON form: its str()
    ],
)
def test_observe_last_reports_the_last_statements_value_as_json(pool: SandboxPool, code: str, result: str) -> None:
    trace = pool.run(job(code, observe_last=True))
    assert trace.error is None and trace.result == result
    assert pool.run(job(code)).result is None  # only when asked


def test_an_observed_value_is_capped_and_contained() -> None:
    with SandboxPool(workers=1, wall_seconds=20, max_result_chars=1000) as pool:
        huge = pool.run(job("x = 'ab' * 10 ** 7", observe_last=True))
        assert huge.error is None and huge.result == '"' + "ab" * 499 + "a ... (cut at 1000 characters)"
        circular = pool.run(job("a = []\na.append(a)\na", observe_last=True))
        assert circular.error is not None and circular.error.kind == "resource_limit" and "circular" in circular.error.message
        deep = pool.run(job("a = []\nfor i in range(10 ** 5):\n    a = [a]\na", observe_last=True))
        assert deep.error is not None and deep.error.kind == "resource_limit" and deep.result is None
        assert pool.run(job("import os", observe_last=True)).error.kind == "refused"  # type: ignore[union-attr]
        assert pool.run(job("x = (", observe_last=True)).error.kind == "parse_error"  # type: ignore[union-attr]
        assert pool.run(job("[1][5]", observe_last=True)).error.kind == "index_out_of_range"  # type: ignore[union-attr]
        assert pool.run(job("len('four')", observe_last=True)).result == "4"  # the pool is still fine


def test_the_parent_trusts_no_result_it_did_not_ask_for_or_cannot_bound() -> None:
    from gqlbench.mocks.sandbox.pool import _trace_from_reply

    asked = job("x = 1", observe_last=True)
    assert _trace_from_reply(asked, {"calls": [], "result": "x" * 5000}, 0.0, 100).result == "x" * 100 + " ... (cut at 100 characters)"
    assert _trace_from_reply(asked, {"calls": [], "result": {"a": 1}}, 0.0, 100).error.kind == "other"  # type: ignore[union-attr]
    assert _trace_from_reply(job("x = 1"), {"calls": [], "result": "1"}, 0.0, 100).result is None


def _step_results(pool: SandboxPool, code: str, *steps: str) -> tuple[ExecError | None, list[tuple[str | None, str | None, bool]]]:
    """The job's error and each step's (result, error kind, finished)."""
    ((trace, said),) = pool.run_steps([job(code, steps=steps)])
    return trace.error, [(s.result, s.error.kind if s.error else None, s.finished) for s in said]


def test_steps_run_in_one_world_after_the_replay_and_each_is_reported(pool: SandboxPool) -> None:
    """A step's ordinary error is its own and the next step runs; one that cannot parse or is refused does not run."""
    ((trace, said),) = pool.run_steps(
        [job("z = 5", steps=("a = z + 1", "a[0]", "a * 2", "import os", "x = (", "type = 1\ntype + a", "GET_search_movie(query='x')"))]
    )
    assert trace.error is None and [c.function for c in trace.calls] == ["GET_search_movie"]
    assert [s.result for s in said][:3] == ["6", None, "12"] and said[5].result == "7"  # a name one step binds is the next's
    assert [(s.error.kind, s.error.line) for s in said if s.error] == [("other", 3), ("refused", 5), ("parse_error", 6)]
    assert said[6].result is not None and all(s.finished for s in said)


def test_a_step_that_hits_a_limit_ends_the_job_and_the_steps_after_it_did_not_finish(pool: SandboxPool) -> None:
    slow = "x = [sum(range(10**6)) for _ in range(1000)]"
    error, said = _step_results(pool, "", "a = 1", slow, "b = 2")
    assert error is not None and error.kind == "resource_limit" and error.line == 3
    assert said == [("1", None, True), (None, "resource_limit", True), (None, "resource_limit", False)]
    assert _step_results(pool, "", "b = 2") == (None, [("2", None, True)])  # the worker was replaced
    error, said = _step_results(pool, "a = 1\nx = [][1]", "b = 2")  # the replay fails: no step runs
    assert error is not None and said == [(None, "index_out_of_range", False)]


def test_a_job_of_steps_stopped_by_the_wall_clock_keeps_the_steps_it_finished() -> None:
    with SandboxPool(workers=1, cpu_seconds=30, wall_seconds=1) as pool:
        error, said = _step_results(pool, "", "a = 1", "x = 10 ** 1000\nfor i in range(40):\n    x = x * x", "b = 2")
    assert error is not None and error.kind == "timeout"
    assert said == [("1", None, True), (None, "timeout", False), (None, "timeout", False)]


def test_the_parent_trusts_only_the_shape_of_what_steps_report() -> None:
    from gqlbench.mocks.sandbox.pool import _steps, _trace

    asked = job("", steps=("a = 1", "b = 2", "c = 3", "d = 4"))
    said = [{"result": "x" * 5000}, {"result": 5}, "junk"]
    steps = _steps(asked, _trace(asked, None, 0.0), said, 100)
    assert steps[0] == StepResult("x" * 100 + " ... (cut at 100 characters)")
    assert [s.error.kind for s in steps[1:] if s.error] == ["other", "other", "other"] and not steps[3].finished


def test_workers_are_isolated_from_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkout's gqlbench/ folder where the user stands must not shadow the installed package."""
    fake = tmp_path / "gqlbench"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise SystemExit('the fake gqlbench package was imported')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    trace = run_program(job("GET_search_movie(query='x')\nprint('real')"))
    assert trace.error is None and trace.stdout == "real\n"


def test_pythonpath_adds_plugins_to_workers_but_cannot_shadow_gqlbench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PYTHONPATH folders come after the installed package: a plugin module loads, a gqlbench/ folder does not win."""
    fake = tmp_path / "gqlbench"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise SystemExit('the fake gqlbench package was imported')\n")
    (tmp_path / "plugin_runtime.py").write_text(
        "from gqlbench.mocks.endpoints import make_runtime\n\ndef make(domain, seed):\n    return make_runtime(domain, seed)\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    trace = run_program(job("GET_search_movie(query='x')\nprint('plugin')", runtime="plugin_runtime:make"))
    assert trace.error is None and trace.stdout == "plugin\n"


def test_a_worker_that_dies_says_why(tmp_path: Path) -> None:
    dying = tmp_path / "dying_runtime.py"
    dying.write_text(
        "import os\n\n"
        "def make(domain, seed):\n"
        "    os.write(2, b'dying runtime: the fixture store is unreachable\\nmore detail\\n')\n"
        "    os._exit(3)\n"
    )
    trace = run_program(job("x = 1", runtime=f"{dying}:make"))
    assert trace.error is not None and trace.error.kind == "other"
    assert trace.error.message == ("the sandbox worker died unexpectedly (exit status 3): dying runtime: the fixture store is unreachable")


def test_a_worker_that_cannot_start_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    from gqlbench.mocks.sandbox import process as sandbox_process

    monkeypatch.setattr(sandbox_process, "_WORKER_ENTRY", "import gqlbench_no_such_module")
    with pytest.raises(GqlbenchError, match="could not start: ModuleNotFoundError: No module named 'gqlbench_no_such_module'"):
        run_program(job("x = 1"))


def test_a_runtime_is_loaded_from_a_module_or_a_file(pool: SandboxPool) -> None:
    assert pool.run(job("x = 1", runtime=DEFAULT_RUNTIME)).error is None
    with pytest.raises(GqlbenchError, match=r"runtime /no/such/runtime.py:make: /no/such/runtime.py does not exist"):
        pool.run(job("x = 1", runtime="/no/such/runtime.py:make"))
    with pytest.raises(GqlbenchError, match="runtime make_runtime: write module:object or path/to/file.py:object, naming the runtime"):
        pool.run(job("x = 1", runtime="make_runtime"))


def test_a_set_up_over_budget_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 30: GitHub's whole spec overran the 60 s set-up with no hint; the budget is a setting and the error names it."""
    slow = tmp_path / "slow_runtime.py"
    slow.write_text("import time\n\ndef make(domain, seed):\n    time.sleep(30)\n")
    monkeypatch.setenv("GQLBENCH_SETUP_SECONDS", "3")
    with SandboxPool(workers=1) as pool, pytest.raises(GqlbenchError) as raised:
        pool.run(job("x = 1", runtime=f"{slow}:make"))
    message = str(raised.value)
    assert "did not set up domain 'tmdb' within 3 s" in message and "\n" not in message
    assert "--endpoints" in message and "GQLBENCH_SETUP_SECONDS=SECONDS" in message
    monkeypatch.setenv("GQLBENCH_SETUP_SECONDS", "soon")
    with pytest.raises(GqlbenchError, match="GQLBENCH_SETUP_SECONDS='soon' is not a number of seconds"):
        SandboxPool(workers=1)


def test_the_wall_clock_starts_when_the_runtime_is_set_up(tmp_path: Path) -> None:
    """Building a domain's schema the first time (seconds on a loaded machine) is not the program's time."""
    slow = tmp_path / "slow_runtime.py"
    slow.write_text(
        "import time\n\n"
        "class Slow:\n"
        "    namespace = {}\n"
        "    def calls(self):\n        return []\n"
        "    def world_digest(self):\n        return None\n\n"
        "def make(domain, seed):\n"
        "    time.sleep(2.5)\n"
        "    return Slow()\n"
    )
    with SandboxPool(workers=1, wall_seconds=1) as pool:
        trace = pool.run(job("x = 1", runtime=f"{slow}:make"))
        assert trace.error is None and trace.elapsed_s < 1
        stuck = pool.run(job("for i in range(10 ** 6):\n    for j in range(10 ** 6):\n        pass", runtime=f"{slow}:make"))
        assert stuck.error is not None and stuck.error.kind in {"timeout", "resource_limit"}
