"""Running a model on the benchmark: one resumable folder per run.

A run folder holds::

    config.json    every setting, package versions, backend description, data hash, git commit
    samples.jsonl  one scored line per finished sample, appended and flushed as samples finish
    errors.jsonl   failed generations (a history; those samples are retried on resume)
    results.json   split-level metrics (same format as ``gqlbench evaluate``)
    report.md      the Table-2 style report

This module wires the pieces of a run together: the settings
(:mod:`gqlbench.run.config`), the folder, its lock and resume
(:mod:`gqlbench.run.folder`), the backend and prompt style registries
(:mod:`gqlbench.generators.backends.factory`, :mod:`gqlbench.generators.styles`), the
generation loop (:mod:`gqlbench.run.generate`) and the results files.
Re-running the same command continues the latest run with the same settings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gqlbench.dataset import data_hash, load_split, split_of
from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import Backend
from gqlbench.generators.react import Observer, SchemaObserver
from gqlbench.generators.shots import DEFAULT_SHOTS, SHOT_SPLIT, shot_pool, shot_set
from gqlbench.records import ALL_SPLIT, ResultsDocument, Sample, SampleResult
from gqlbench.run.config import DEFAULT_BATCH_SIZE, OBSERVE_MODES, RunConfig, RunOptions, RunSettings, setting_default
from gqlbench.run.folder import RUN_FILES, choose_dir, clear, exclusive, finished, model_slug, read_config, write_json
from gqlbench.run.repeated import completion_index
from gqlbench.run.timings import StageClock
from gqlbench.scoring.join import require_known_domains

if TYPE_CHECKING:
    from gqlbench.mocks.sandbox.pool import SandboxPool
    from gqlbench.run.generate import Work
    from gqlbench.scoring.relevance import Dropped

__all__ = [
    "OBSERVE_MODES",
    "DEFAULT_BATCH_SIZE",
    "RUN_FILES",
    "RunSettings",
    "RunOptions",
    "RunConfig",
    "RunOutcome",
    "Plan",
    "plan_run",
    "plan_samples",
    "held_out_shots",
    "shots_shown",
    "dropped_lines",
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
            from gqlbench.mocks.sandbox.pool import SandboxPool

            self._pool = SandboxPool()
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None


@dataclass(frozen=True)
class Plan:
    """What a run covers: its samples in order, and for a relevance run what each case offers and what was left out."""

    samples: list[Sample]
    offers: dict[str, list[str]] = field(default_factory=dict)  # case id -> offered endpoints (relevance under a wider --functions)
    dropped: list[Dropped] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)  # --split all: the few-shot examples left out, by id


def plan_run(settings: RunSettings) -> Plan:
    """The run's :class:`Plan`: ``--ids`` (in the given order) or the split, then ``--limit``.

    With ``relevance`` each chosen sample becomes its two relevance cases (possible, then impossible);
    samples that cannot give a guaranteed impossible case are left out, each in ``Plan.dropped`` with its reason.
    """
    excluded = [s.id for s in held_out_shots(settings)] if settings.split == ALL_SPLIT else []
    chosen = _chosen_samples(settings, set(excluded))
    if not settings.relevance:
        return Plan(chosen, excluded=excluded)
    from gqlbench.dataset import load_errata
    from gqlbench.scoring.relevance import relevance_set

    cases, dropped = relevance_set(chosen, load_errata(settings.data), settings.functions, settings.seed)
    if not cases:
        reasons = "; ".join(dropped_lines(dropped))
        raise GqlbenchError(f"--relevance: none of the chosen samples gives a case that cannot be done ({reasons})")
    offers = {case_id: offered for case in cases for case_id, offered in case.offers.items()}
    return Plan([s for case in cases for s in (case.possible, case.impossible)], offers, dropped)


def dropped_lines(dropped: Sequence[Dropped]) -> list[str]:
    """One line per sample a relevance run leaves out, and why."""
    return [f"relevance: {case.sample_id} left out: {case.reason}" for case in dropped]


def plan_samples(settings: RunSettings) -> list[Sample]:
    """The samples a run covers, in order (see :func:`plan_run`)."""
    return plan_run(settings).samples


def held_out_shots(settings: RunSettings) -> list[Sample]:
    """What ``--split all`` leaves out: each domain's fixed few-shot examples, as many as the run shows and at least 3.

    At least :data:`DEFAULT_SHOTS` (the paper's count), so every ``all`` run
    with up to 3 shots, zero included, evaluates the same samples and
    ``gqlbench report`` pairs them all.
    """
    from gqlbench.dataset import load_errata, load_samples

    train = [s for s in load_samples(settings.data) if s.split == SHOT_SPLIT]
    return shot_set(shot_pool(train, load_errata(settings.data)), max(settings.shots, DEFAULT_SHOTS))


def _chosen_samples(settings: RunSettings, excluded: set[str]) -> list[Sample]:
    if settings.split == ALL_SPLIT:
        from gqlbench.dataset import load_samples

        split = [s for s in load_samples(settings.data) if s.id not in excluded]
    else:
        split = load_split(settings.split, settings.data)
    if settings.ids:
        by_id = {s.id: s for s in split}
        chosen = []
        for sample_id in dict.fromkeys(settings.ids):
            if sample_id in excluded:
                raise GqlbenchError(f"--ids: {sample_id} is one of the few-shot examples --split all leaves out; choose another sample")
            if settings.split != ALL_SPLIT and split_of(sample_id) != settings.split:
                raise GqlbenchError(f"--ids: {sample_id} is not in split {settings.split!r}; pass --split {split_of(sample_id)}")
            if sample_id not in by_id:
                raise GqlbenchError(f"--ids: {sample_id} does not exist (split {settings.split!r} has {len(split)} samples)")
            chosen.append(by_id[sample_id])
        split = chosen
    return split[: settings.limit] if settings.limit else split


def load_backend(settings: RunSettings) -> Backend:
    """The backend ``--backend`` names (see :mod:`gqlbench.generators.backends.factory`), built for ``settings.model``."""
    from gqlbench.generators.backends.factory import build_backend

    return build_backend(
        settings.backend, settings.model, settings.model_args, base_url=settings.base_url, api_key_env=settings.api_key_env
    )


def _observer(settings: RunSettings, samples: Sequence[Sample], pool: Callable[[], SandboxPool]) -> Observer | None:
    """The observer of a style with steps (None otherwise); checked before any model is loaded."""
    if not settings.style.uses_steps:
        return None
    if settings.observe == "schema":
        return SchemaObserver()
    from gqlbench.run.observers import MockObserver
    from gqlbench.specs import list_domains

    unknown = sorted({s.domain for s in samples} - set(list_domains()))
    if unknown:
        raise GqlbenchError(
            f"--observe mock: domain(s) {', '.join(unknown)} are not in the catalog, "
            "so there is no mock API to run actions against; use --observe schema"
        )
    return MockObserver(seed=settings.seed, pool=pool)


def _write_outputs(
    settings: RunSettings,
    run_dir: Path,
    samples: Sequence[Sample],
    results: list[SampleResult],
    config: RunConfig,
    pool: Callable[[], SandboxPool],
    sections: dict[str, Any],
    dropped: Sequence[Dropped],
    clock: StageClock,
) -> tuple[ResultsDocument, list[str]]:
    """results.json and report.md as ``gqlbench evaluate`` writes them: a sample without a result scores 0 and is listed.

    results.json also gets this invocation's ``timings`` (up to writing it).
    """
    from gqlbench.metrics import missing_result
    from gqlbench.results.files import results_document, run_meta, write_document

    by_id = {r.id: r for r in results}
    missing = [s.id for s in samples if s.id not in by_id]
    with clock.stage("scoring"):
        absent = [missing_result(s) for s in samples if s.id not in by_id]
    if absent and settings.execute:  # 0 on execution too, as in evaluate
        from gqlbench.scoring.join import add_exec_scores

        with clock.stage("execution"):
            absent = add_exec_scores(absent, {s.id: s for s in samples}, {r.id: None for r in absent}, seed=settings.seed, pool=pool())
    by_id.update({r.id: r for r in absent})
    relevance, failed = None, list(missing)  # failed: every case without a result, impossible ones too
    if settings.relevance:  # Table 2 on the possible cases only; the relevance block on both
        from gqlbench.scoring.relevance import is_impossible_id
        from gqlbench.scoring.relevance_scores import relevance_block

        relevance = relevance_block(samples, {r.id: r for r in results}, dropped)
        samples = [s for s in samples if not is_impossible_id(s.id)]
        missing = [m for m in missing if not is_impossible_id(m)]
    scored = [by_id[s.id] for s in samples]
    meta = run_meta(
        command=" ".join(["gqlbench", *config.command[1:]]),
        data_hash=config.data_hash,
        model=config.model,
        prompt=config.prompt,
        split=config.split,
        backend=settings.backend,
        shots=settings.shots,
        execute=settings.execute,
        seed=settings.seed,
        **_run_extras(settings, sections.pop("bootstrap", None)),
        **_shot_record(settings, scored, config),
    )
    with clock.stage("scoring"):  # split-level metrics and their bootstrap intervals
        document = results_document(scored, missing, meta, **sections).model_copy(update={"relevance": relevance})
    document.timings = clock.to_dict()
    write_document(run_dir, document)
    return document, failed


# Prompt settings the Run: list names when a run changes them (the default is the paper's prompt, stated nowhere).
_PROMPT_SETTINGS = ("functions", "obfuscate", "schema", "relevance", "shot_rule")


def _run_extras(settings: RunSettings, bootstrap: int | None) -> dict[str, Any]:
    """meta keys only some runs have: the prompt settings that are not the defaults, K of --samples K, and --bootstrap N.

    Only non-defaults, so a default run's meta (and report.md) keeps its keys
    and each list shows just what sets the run apart; config.json has them all.
    """
    extras: dict[str, Any] = {
        name: getattr(settings, name) for name in _PROMPT_SETTINGS if getattr(settings, name) != setting_default(name)
    }
    if not settings.shots:
        extras.pop("shot_rule", None)  # no examples, so no rule picked them
    if settings.samples != setting_default("samples"):
        extras["samples"] = settings.samples
    if bootstrap is not None:
        extras["bootstrap"] = bootstrap
    return extras


def shots_shown(results: Sequence[SampleResult]) -> dict[str, int]:
    """How many samples' prompts showed each number of few-shot examples, most examples first (``{"3": 20, "1": 12}``).

    A line written before :attr:`SampleResult.shots` was recorded is read from its ``prompt.shots``;
    a sample without a prompt (no prediction) is not counted.
    """
    counts: dict[int, int] = {}
    for result in results:
        shots = result.shots
        if shots is None:
            prompt = (result.model_extra or {}).get("prompt")
            shots = prompt.get("shots") if isinstance(prompt, dict) else None
        if isinstance(shots, list):
            counts[len(shots)] = counts.get(len(shots), 0) + 1
    return {str(n): counts[n] for n in sorted(counts, reverse=True)}


def _shot_record(settings: RunSettings, results: Sequence[SampleResult], config: RunConfig) -> dict[str, Any]:
    """meta keys of the few-shot examples: how many each sample got (asked for ``shots``), and what ``--split all`` left out."""
    record: dict[str, Any] = {"shots_shown": shots_shown(results)} if settings.shots else {}
    if config.excluded_shots:
        record["excluded_shots"] = list(config.excluded_shots)
    return record


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
    plan = plan_run(settings)
    for line in dropped_lines(plan.dropped):
        options.say(line)
    pool = _LazyPool()
    try:
        return _run(settings, options, backend_factory, plan, pool, clock)
    finally:
        pool.close()


def _run(
    settings: RunSettings,
    options: RunOptions,
    backend_factory: Callable[[RunSettings], Backend],
    plan: Plan,
    pool: _LazyPool,
    clock: StageClock,
) -> RunOutcome:
    samples = plan.samples
    observer = _observer(settings, samples, pool)  # --observe mock names its own need for the catalog first
    if settings.execute:
        require_known_domains(s.domain for s in samples)
    digest = data_hash(settings.data)
    run_dir, overwrite = choose_dir(settings, options, digest)
    run_dir.mkdir(parents=True, exist_ok=True)
    with exclusive(run_dir):
        if overwrite:
            clear(run_dir, options.notify)
        config = read_config(run_dir)
        existed = config is not None
        if config is None:
            config = RunConfig.new(settings, samples, plan.excluded)
            write_json(run_dir / "config.json", config.to_json())
        planned = _pending(samples, finished(run_dir, repair=True, every=True, notify=options.notify), settings.samples)
        resumed_from = len(samples) - len(planned)
        if planned:
            if existed:
                options.say(f"resuming {run_dir}: {resumed_from} of {len(samples)} samples done")
            from gqlbench.run.engine_log import engine_output
            from gqlbench.run.generate import generate

            with engine_output(run_dir, verbose=options.verbose) as console:  # engine chatter -> engine.log
                clock.mark("startup")
                with clock.stage("engine_load"):
                    backend = backend_factory(settings)
                try:
                    generate(
                        settings,
                        backend,
                        run_dir=run_dir,
                        config=config,
                        total=len(samples) * settings.samples,
                        planned=planned,
                        batch_size=options.batch_size,
                        quiet=options.quiet,
                        observer=observer,
                        pool=pool,
                        console=console,
                        clock=clock,
                        offers=plan.offers,
                        notify=options.notify,
                    )
                finally:
                    with clock.stage("engine_close"):
                        backend.close()
        with clock.stage("writing"):
            results = finished(run_dir)
        by_id = {r.id: r for r in results}
        ordered = [by_id[s.id] for s in samples if s.id in by_id]
        every = finished(run_dir, every=True)
        sections = _sections(settings, options, samples, every, config)
        if not planned:  # nothing to generate: all this invocation did so far is start-up
            clock.mark("startup")
        document, _ = _write_outputs(settings, run_dir, samples, ordered, config, pool, sections, plan.dropped, clock)
        incomplete = [s.id for s, _ in _pending(samples, every, settings.samples)]  # impossible relevance cases too
    return RunOutcome(
        run_dir, ordered, document.metrics, incomplete, resumed_from, already_complete=not planned, timings=document.timings or {}
    )


def _pending(samples: Sequence[Sample], done: Sequence[SampleResult], k: int) -> list[Work]:
    """Each sample with a completion index 0..k-1 not yet in samples.jsonl, and those indices (resume is per completion)."""
    have = {(r.id, completion_index(r)) for r in done}
    pending = [(s, tuple(i for i in range(k) if (s.id, i) not in have)) for s in samples]
    return [(s, indices) for s, indices in pending if indices]


def _sections(
    settings: RunSettings, options: RunOptions, samples: Sequence[Sample], every: Sequence[SampleResult], config: RunConfig
) -> dict[str, Any]:
    """results.json's extras of a run: pass@k / pass^k (K > 1) and the cost and latency blocks."""
    from gqlbench.run.generate import WALL_KEY
    from gqlbench.run.repeated import repeated_metrics
    from gqlbench.run.usage import usage_blocks

    wall = config.extra.get(WALL_KEY)
    usage = usage_blocks(
        every,
        wall_s=float(wall) if wall is not None else None,
        backend=(config.backend or {}).get("backend"),
        steps=settings.style.uses_steps,
        prices=options.prices,
    )
    if settings.relevance:  # pass@k, like Table 2, on the possible cases only
        from gqlbench.scoring.relevance import is_impossible_id

        samples = [s for s in samples if not is_impossible_id(s.id)]
    repeated = repeated_metrics(samples, every, settings.samples) if settings.samples > 1 else None
    return {"repeated": repeated, "usage": usage, "bootstrap": options.bootstrap}
