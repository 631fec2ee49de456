"""Running a model on the benchmark: one resumable folder per run.

A run folder holds::

    config.json    every setting, package versions, backend description, data hash, git commit
    samples.jsonl  one scored line per finished sample, appended and flushed as samples finish
    errors.jsonl   failed generations (a history; those samples are retried on resume)
    results.json   split-level metrics (same format as ``gqlbench evaluate``)
    report.md      the Table-2 style report

This module wires the pieces of a run together: the settings
(:mod:`gqlbench.run_config`), the folder, its lock and resume
(:mod:`gqlbench.run_folder`), the backend and prompt style registries
(:mod:`gqlbench.generators.factory`, :mod:`gqlbench.generators.styles`), the
generation loop (:mod:`gqlbench.generate`) and the results files.
Re-running the same command continues the latest run with the same settings.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gqlbench.dataset import data_hash, load_split, split_of
from gqlbench.errors import GqlbenchError
from gqlbench.generators.backend import Backend
from gqlbench.generators.react import Observer, SchemaObserver
from gqlbench.records import ResultsDocument, Sample, SampleResult
from gqlbench.run_config import DEFAULT_BATCH_SIZE, OBSERVE_MODES, RunConfig, RunOptions, RunSettings
from gqlbench.run_folder import RUN_FILES, choose_dir, clear, exclusive, finished, model_slug, read_config, write_json
from gqlbench.timings import StageClock

if TYPE_CHECKING:
    from gqlbench.mocks.sandbox import SandboxPool

__all__ = [
    "OBSERVE_MODES",
    "DEFAULT_BATCH_SIZE",
    "RUN_FILES",
    "RunSettings",
    "RunOptions",
    "RunConfig",
    "RunOutcome",
    "plan_samples",
    "model_slug",
    "load_backend",
    "run",
]


@dataclass
class RunOutcome:
    run_dir: Path
    results: list[SampleResult]  # finished samples, in plan order
    metrics: dict[str, dict]  # results.json "metrics" (missing samples count as 0, as in evaluate)
    missing: list[str]  # planned samples without a result (failed generations)
    resumed_from: int = 0  # samples already done when this invocation started
    already_complete: bool = False
    timings: dict[str, Any] = field(default_factory=dict)  # this invocation's seconds per stage (results.json "timings")


class _LazyPool:
    """The run's one sandbox pool, started on first use (a run that executes nothing starts no workers)."""

    def __init__(self) -> None:
        self._pool: SandboxPool | None = None

    def __call__(self) -> SandboxPool:
        if self._pool is None:
            from gqlbench.mocks.sandbox import SandboxPool

            self._pool = SandboxPool()
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None


def plan_samples(settings: RunSettings) -> list[Sample]:
    """The samples a run covers, in order: ``--ids`` (in the given order) or the split, then ``--limit``."""
    split = load_split(settings.split, settings.data)
    if settings.ids:
        by_id = {s.id: s for s in split}
        chosen = []
        for sample_id in dict.fromkeys(settings.ids):
            if split_of(sample_id) != settings.split:
                raise GqlbenchError(f"--ids: {sample_id} is not in split {settings.split!r}; pass --split {split_of(sample_id)}")
            if sample_id not in by_id:
                raise GqlbenchError(f"--ids: {sample_id} does not exist (split {settings.split!r} has {len(split)} samples)")
            chosen.append(by_id[sample_id])
        split = chosen
    return split[: settings.limit] if settings.limit else split


def load_backend(settings: RunSettings) -> Backend:
    """The backend ``--backend`` names (see :mod:`gqlbench.generators.factory`), built for ``settings.model``."""
    from gqlbench.generators.factory import build_backend

    return build_backend(
        settings.backend, settings.model, settings.model_args, base_url=settings.base_url, api_key_env=settings.api_key_env
    )


def _observer(settings: RunSettings, samples: Sequence[Sample], pool: Callable[[], SandboxPool]) -> Observer | None:
    """The observer of a style with steps (None otherwise); checked before any model is loaded."""
    if not settings.style.uses_steps:
        return None
    if settings.observe == "schema":
        return SchemaObserver()
    from gqlbench.observers import MockObserver
    from gqlbench.specs import list_domains

    unknown = sorted({s.domain for s in samples} - set(list_domains()))
    if unknown:
        raise GqlbenchError(
            f"--observe mock: domain(s) {', '.join(unknown)} are not in the catalog, "
            "so there is no mock API to run actions against; use --observe schema"
        )
    return MockObserver(seed=settings.seed, pool=pool)


def _write_outputs(
    run_dir: Path, samples: Sequence[Sample], results: list[SampleResult], config: RunConfig, pool: Callable[[], SandboxPool],
    clock: StageClock,
) -> tuple[ResultsDocument, list[str]]:
    """results.json and report.md as ``gqlbench evaluate`` writes them: a sample without a result scores 0 and is listed.

    results.json also gets this invocation's ``timings`` (up to writing it).
    """
    from gqlbench.metrics import missing_result
    from gqlbench.results import results_document, run_meta, write_document

    by_id = {r.id: r for r in results}
    missing = [s.id for s in samples if s.id not in by_id]
    with clock.stage("scoring"):
        absent = [missing_result(s) for s in samples if s.id not in by_id]
    if absent and config.settings.get("execute"):  # 0 on execution too, as in evaluate
        from gqlbench.scoring import add_exec_scores

        seed = config.settings["seed"]
        with clock.stage("execution"):
            absent = add_exec_scores(absent, {s.id: s for s in samples}, {r.id: None for r in absent}, seed=seed, pool=pool())
    by_id.update({r.id: r for r in absent})
    scored = [by_id[s.id] for s in samples]
    meta = run_meta(
        command=" ".join(["gqlbench", *config.command[1:]]),
        data_hash=config.data_hash,
        model=config.model,
        prompt=config.prompt,
        split=config.split,
        backend=config.settings["backend"],
        shots=config.settings["shots"],
        execute=config.settings.get("execute"),
        seed=config.settings["seed"],
    )
    with clock.stage("scoring"):  # split-level metrics and their bootstrap intervals
        document = results_document(scored, missing, meta)
    document.timings = clock.to_dict()
    write_document(run_dir, document)
    return document, missing


def run(
    settings: RunSettings,
    options: RunOptions = RunOptions(),
    *,
    backend_factory: Callable[[RunSettings], Backend] = load_backend,
) -> RunOutcome:
    """Run (or resume) ``settings`` and write the run folder; see the module docstring."""
    if options.batch_size < 1:
        raise GqlbenchError("--batch-size must be >= 1")
    clock = StageClock()
    samples = plan_samples(settings)
    pool = _LazyPool()
    try:
        return _run(settings, options, backend_factory, samples, pool, clock)
    finally:
        pool.close()


def _run(
    settings: RunSettings,
    options: RunOptions,
    backend_factory: Callable[[RunSettings], Backend],
    samples: Sequence[Sample],
    pool: _LazyPool,
    clock: StageClock,
) -> RunOutcome:
    observer = _observer(settings, samples, pool)
    digest = data_hash(settings.data)
    run_dir, overwrite = choose_dir(settings, options, digest)
    run_dir.mkdir(parents=True, exist_ok=True)
    with exclusive(run_dir):
        if overwrite:
            clear(run_dir)
        config = read_config(run_dir)
        existed = config is not None
        if config is None:
            config = RunConfig.new(settings, samples)
            write_json(run_dir / "config.json", config.to_json())
        done = {r.id for r in finished(run_dir, repair=True)}
        planned = [s for s in samples if s.id not in done]
        resumed_from = len(samples) - len(planned)
        if planned:
            if existed:
                print(f"resuming {run_dir}: {resumed_from} of {len(samples)} samples done", file=sys.stderr)
            from gqlbench.engine_log import engine_output
            from gqlbench.generate import generate

            with engine_output(run_dir, verbose=options.verbose) as console:  # engine chatter -> engine.log
                clock.mark("startup")
                with clock.stage("engine_load"):
                    backend = backend_factory(settings)
                try:
                    generate(settings, backend, run_dir=run_dir, config=config, total=len(samples), planned=planned,
                             batch_size=options.batch_size, quiet=options.quiet, observer=observer, pool=pool,
                             console=console, clock=clock)
                finally:
                    with clock.stage("engine_close"):
                        backend.close()
        with clock.stage("writing"):
            results = finished(run_dir)
        by_id = {r.id: r for r in results}
        ordered = [by_id[s.id] for s in samples if s.id in by_id]
        if not planned:  # nothing to generate: all this invocation did so far is start-up
            clock.mark("startup")
        document, missing = _write_outputs(run_dir, samples, ordered, config, pool, clock)
    return RunOutcome(run_dir, ordered, document.metrics, missing, resumed_from, already_complete=not planned,
                      timings=document.timings or {})
