"""The generation loop of a run: prompts, batched generation, scoring, appending.

Samples are generated in chunks of ``batch_size``: each chunk is one batched
generation through the run's prompt style (:mod:`gqlbench.generators.styles`),
scored (with ``execute``, also run in the sandbox for Exec Success and Exec
Match, as ``gqlbench evaluate`` does) and appended, so a killed run loses at
most the chunk in flight. A failed generation is recorded in errors.jsonl and
never cached as an answer.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gqlbench.dataset import load_errata, load_split
from gqlbench.generators.backend import Backend
from gqlbench.generators.budget import PromptTooLong, fit_prompt
from gqlbench.generators.shots import SHOT_SPLIT, select_shots, shot_pool
from gqlbench.generators.styles import StyleOptions
from gqlbench.records import Completion, Prompt, Sample, SampleResult
from gqlbench.run_config import RunConfig, RunSettings
from gqlbench.run_folder import write_json
from gqlbench.timings import StageClock

if TYPE_CHECKING:
    from gqlbench.generators.react import Observer
    from gqlbench.mocks.sandbox import SandboxPool

__all__ = ["Sink", "Generator", "generate"]


class Sink:
    """Appends finished samples (flushed and synced line by line) and failures."""

    def __init__(self, run_dir: Path) -> None:
        self.samples_path = run_dir / "samples.jsonl"
        self.errors_path = run_dir / "errors.jsonl"

    def sample(self, result: SampleResult) -> None:
        from gqlbench.results import append_sample

        append_sample(self.samples_path, result)

    def error(self, sample_id: str, error: str, completion: Completion | None) -> None:
        line: dict[str, Any] = {"id": sample_id, "error": error, "time": datetime.now(UTC).isoformat(timespec="seconds")}
        if completion is not None:
            line["completion"] = completion.model_dump(mode="json")
        with self.errors_path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")


def _scored(sample: Sample, prompt: Prompt, completion: Completion, code: str, prediction: str) -> SampleResult:
    from gqlbench.metrics import score_sample

    result = score_sample(sample, prediction)
    extra: dict[str, Any] = {
        "prompt": prompt.model_dump(mode="json"),
        "raw_output": completion.text,
        "code": code,
        "tokens_in": completion.tokens_in,
        "tokens_out": completion.tokens_out,
        "latency_s": round(completion.latency_s, 4),
        "finish_reason": completion.finish_reason,
    }
    if completion.steps:
        extra["steps"] = [step.model_dump(mode="json") for step in completion.steps]
    return SampleResult.model_validate({**result.model_dump(mode="json"), **extra})


def _too_long(sample: Sample, style: str, error: PromptTooLong) -> SampleResult:
    """A prompt that cannot fit is the model's answer-less failure: scored 0, explained, never retried."""
    from gqlbench.metrics import score_sample

    result = score_sample(sample, "")
    prompt = Prompt(sample_id=sample.id, style=style, messages=[], n_tokens=error.n_tokens, dropped=error.dropped)
    return SampleResult.model_validate(
        {**result.model_dump(mode="json"), "prompt": prompt.model_dump(mode="json"), "raw_output": "", "code": "", "error": str(error)}
    )


class Generator:
    """Builds prompts for one run and turns chunks of samples into scored results."""

    def __init__(
        self, settings: RunSettings, backend: Backend, observer: Observer | None, pool: Callable[[], SandboxPool],
        clock: StageClock | None = None,
    ) -> None:
        self.clock = clock or StageClock()
        self.settings = settings
        self.sandbox = pool
        self.backend = backend
        self.config = settings.generation_config()
        self.shot_pool = shot_pool(load_split(SHOT_SPLIT, settings.data), load_errata(settings.data)) if settings.shots else []
        self.style = settings.style.start(StyleOptions(max_steps=settings.max_steps, observer=observer))

    def _prompt(self, sample: Sample) -> Prompt:
        shots = select_shots(sample, self.shot_pool, self.settings.shots, self.settings.shot_rule) if self.settings.shots else []
        return fit_prompt(
            sample, shots, self.style.messages, self.backend,
            style=self.settings.prompt, reserve=self.config.max_new_tokens, assistant_prefix=self.style.assistant_prefix,
        )

    def run_chunk(self, chunk: Sequence[Sample], sink: Sink) -> Iterator[SampleResult | str]:
        """Yield the id of each sample whose generation failed as it fails, then the chunk's results as they are written."""
        finished: list[tuple[SampleResult, str | None]] = []  # a result and its program (None: nothing was predicted)
        work: list[tuple[Sample, Prompt]] = []
        with self.clock.stage("prompts"):
            for sample in chunk:
                try:
                    work.append((sample, self._prompt(sample)))
                except PromptTooLong as exc:
                    finished.append((_too_long(sample, self.settings.prompt, exc), None))
        if work:
            yield from self._complete(work, sink, finished)
        with self.clock.stage("execution"):
            executed = self._executed(chunk, finished)
        for result in executed:
            with self.clock.stage("writing"):
                sink.sample(result)
            yield result

    def _executed(self, chunk: Sequence[Sample], finished: list[tuple[SampleResult, str | None]]) -> list[SampleResult]:
        """The results with Exec Success / Exec Match (when the run executes), in one sandbox batch."""
        results = [result for result, _ in finished]
        if not self.settings.execute or not results:
            return results
        from gqlbench.scoring import add_exec_scores

        codes = {result.id: code for result, code in finished}
        return add_exec_scores(results, {s.id: s for s in chunk}, codes, seed=self.settings.seed, pool=self.sandbox())

    def _complete(
        self, work: Sequence[tuple[Sample, Prompt]], sink: Sink, finished: list[tuple[SampleResult, str | None]]
    ) -> Iterator[str]:
        """Generate and statically score ``work`` into ``finished``; yield the ids whose generation failed."""
        by_id = {s.id: (s, p) for s, p in work}
        seen: set[str] = set()
        for completion in self._timed(self.style.generate(work, self.backend, self.config)):
            if completion.sample_id not in by_id or completion.sample_id in seen:
                continue
            seen.add(completion.sample_id)
            sample, prompt = by_id[completion.sample_id]
            if completion.error:
                sink.error(sample.id, completion.error, completion)
                yield sample.id
                continue
            self.clock.count(completion.tokens_in or 0, completion.tokens_out or 0)
            with self.clock.stage("scoring"):
                answer = self.style.answer(completion)
                if answer.code is None:
                    from gqlbench.metrics import extract_code

                    code = extract_code(answer.prediction)
                else:
                    code = answer.code
                finished.append((_scored(sample, prompt, completion, code, answer.prediction), code))
        for sample, _ in work:
            if sample.id not in seen:
                sink.error(sample.id, "the backend returned no completion for this sample", None)
                yield sample.id


    def _timed(self, completions: Iterator[Completion]) -> Iterator[Completion]:
        """``completions``, the time spent producing each one counted as generation."""
        while True:
            with self.clock.stage("generation"):
                completion = next(completions, None)
            if completion is None:
                return
            yield completion


def _progress(total: int, initial: int, quiet: bool, stream: Any = None) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="sample", disable=quiet, file=stream or sys.stderr, dynamic_ncols=True,
                desc="gqlbench run")


def generate(
    settings: RunSettings,
    backend: Backend,
    *,
    run_dir: Path,
    config: RunConfig,
    total: int,
    planned: Sequence[Sample],
    batch_size: int,
    quiet: bool,
    observer: Observer | None,
    pool: Callable[[], SandboxPool],
    console: Any = None,
    clock: StageClock | None = None,
) -> None:
    """Generate ``planned`` in chunks of ``batch_size`` into ``run_dir``, recording the backend in config.json.

    ``console`` is where the summary line and the progress bar go (the real
    terminal while the engine's own output is sent to engine.log).
    """
    from gqlbench.engine_log import summary_line

    clock = clock or StageClock()
    with clock.stage("engine_load"):  # describing a local model hashes its weights
        description = backend.describe()
    print(summary_line(description), file=console or sys.stderr)
    with clock.stage("writing"):
        config.record_backend(description)
        write_json(run_dir / "config.json", config.to_json())
    with clock.stage("prompts"):  # the few-shot pool
        generator = Generator(settings, backend, observer, pool, clock)
    sink = Sink(run_dir)
    bar = _progress(total, total - len(planned), quiet, console)
    started, tokens_out, failed = time.perf_counter(), 0, 0
    try:
        for start in range(0, len(planned), batch_size):
            for item in generator.run_chunk(planned[start : start + batch_size], sink):
                if isinstance(item, str):
                    failed += 1
                else:
                    tokens_out += getattr(item, "tokens_out", 0) or 0
                    bar.update(1)
                rate = tokens_out / max(time.perf_counter() - started, 1e-9)
                bar.set_postfix({"tok/s": f"{rate:.1f}", "failed": failed}, refresh=False)
    finally:
        bar.close()
