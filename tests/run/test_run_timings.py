"""Per-stage timings of a run: the clock, the one-line summary, and what a run records in results.json."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gqlbench.run.runner import RunOptions, RunSettings, load_backend, run
from gqlbench.run.timings import STAGES, StageClock, format_timings
from tests.stub_backends import STUB


def test_stages_accumulate_and_unclaimed_time_goes_to_the_marked_stage() -> None:
    clock = StageClock()
    time.sleep(0.05)
    clock.mark("startup")
    for _ in range(2):
        with clock.stage("generation"):
            time.sleep(0.03)
    clock.count(10, 3)
    clock.count(5, 1)
    figures = clock.to_dict()
    assert figures["startup_s"] >= 0.05 and figures["generation_s"] >= 0.06
    assert figures["generation_s"] < figures["total_s"]
    assert (figures["tokens_in"], figures["tokens_out"]) == (15, 4)
    assert set(figures) == {f"{s}_s" for s in STAGES} | {"total_s", "tokens_in", "tokens_out"}


def test_an_unknown_stage_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown stage 'decode'"), StageClock().stage("decode"):
        pass


def test_the_summary_line_names_stages_that_took_time_and_the_tokens() -> None:
    line = format_timings(
        {
            "startup_s": 1.25,
            "engine_load_s": 46.0,
            "generation_s": 280.0,
            "scoring_s": 0.01,
            "total_s": 330.0,
            "tokens_in": 161778,
            "tokens_out": 6047,
        }
    )
    assert line.startswith("time: start-up 1.2 s, engine load 46.0 s, generation (161,778 tokens in, 6,047 out) 280.0 s")
    assert "scoring" not in line and line.endswith("total 330.0 s")


def test_a_run_records_where_its_wall_time_went(tmp_path: Path) -> None:
    """Stub engine: 0.2 s to load, 0.15 s per sample; the stages must account for the wall time between them."""

    def slow_load(settings: RunSettings) -> object:
        time.sleep(0.2)
        return load_backend(settings)

    settings = RunSettings(model="stub-model", backend=STUB, split="test", limit=4, model_args={"delay": 0.15})
    started = time.perf_counter()
    outcome = run(settings, RunOptions(runs_root=tmp_path, quiet=True), backend_factory=slow_load)  # type: ignore[arg-type]
    wall = time.perf_counter() - started
    timings = json.loads((outcome.run_dir / "results.json").read_text())["timings"]
    assert timings == outcome.timings
    assert timings["engine_load_s"] >= 0.2 and timings["generation_s"] >= 4 * 0.15
    stages = sum(timings[f"{s}_s"] for s in STAGES)
    assert timings["total_s"] <= wall and stages <= timings["total_s"] + 1e-3
    assert stages >= 0.9 * timings["total_s"]  # nothing big left unaccounted for
    assert timings["scoring_s"] > 0 and timings["execution_s"] > 0 and timings["writing_s"] > 0
    samples = [json.loads(line) for line in (outcome.run_dir / "samples.jsonl").read_text().splitlines()]
    assert timings["tokens_out"] == sum(s["tokens_out"] for s in samples) > 0
    assert timings["tokens_in"] == sum(s["tokens_in"] for s in samples) > 0


def test_a_complete_run_rerun_times_only_itself(tmp_path: Path) -> None:
    settings = RunSettings(model="stub-model", backend=STUB, split="test", limit=2, model_args={"delay": 0.1})
    run(settings, RunOptions(runs_root=tmp_path, quiet=True))
    again = run(settings, RunOptions(runs_root=tmp_path, quiet=True))
    assert again.already_complete
    assert again.timings["generation_s"] == 0 and again.timings["engine_load_s"] == 0
    assert again.timings["tokens_out"] == 0 and again.timings["startup_s"] > 0


def test_evaluate_results_have_no_timings_key(tmp_path: Path) -> None:
    from gqlbench.results.files import results_document, write_document

    write_document(tmp_path, results_document([]))
    assert "timings" not in json.loads((tmp_path / "results.json").read_text())


def test_engine_counters_are_the_difference_of_two_readings() -> None:
    clock = StageClock()
    clock.add_engine_counters({"prefix_cache_hit_tokens": 100, "preemptions": 1}, {"prefix_cache_hit_tokens": 400, "preemptions": 3})
    clock.add_engine_counters({"prefix_cache_hit_tokens": 400}, {"prefix_cache_hit_tokens": 450})
    assert clock.to_dict()["engine"] == {"prefix_cache_hit_tokens": 350, "preemptions": 2}
    assert "engine" not in StageClock().to_dict()  # an engine that keeps no counters adds no key


def test_the_summary_line_says_what_the_engine_counters_mean() -> None:
    base = {"generation_s": 10.0, "total_s": 12.0, "tokens_in": 1000, "tokens_out": 10}
    line = format_timings(base | {"engine": {"prefix_cache_queried_tokens": 1000, "prefix_cache_hit_tokens": 720, "preemptions": 3}})
    assert "prefix cache 72% of prompt tokens" in line and "3 preemptions (KV cache full" in line
    quiet = format_timings(base | {"engine": {"prefix_cache_queried_tokens": 1000, "prefix_cache_hit_tokens": 0, "preemptions": 0}})
    assert "prefix cache 0% of prompt tokens" in quiet and "preemption" not in quiet


def test_a_run_records_the_engine_counters_of_its_own_generation(tmp_path: Path) -> None:
    """The engine's counters are cumulative (one engine serves every cell of a --matrix): a run records its share."""
    readings = iter(
        [
            {"prefix_cache_queried_tokens": 5000, "prefix_cache_hit_tokens": 1000, "preemptions": 4},
            {"prefix_cache_queried_tokens": 5600, "prefix_cache_hit_tokens": 1300, "preemptions": 4},
        ]
    )

    def counting(settings: RunSettings) -> object:
        backend = load_backend(settings)
        backend.engine_counters = lambda: next(readings)  # type: ignore[attr-defined]
        return backend

    settings = RunSettings(model="stub-model", backend=STUB, split="test", limit=2)
    outcome = run(settings, RunOptions(runs_root=tmp_path, quiet=True), backend_factory=counting)  # type: ignore[arg-type]
    assert outcome.timings["engine"] == {"prefix_cache_queried_tokens": 600, "prefix_cache_hit_tokens": 300, "preemptions": 0}
    assert "prefix cache 50% of prompt tokens" in format_timings(outcome.timings)
