"""The generation loop of a run: prompts, batched generation, scoring, appending.

Samples are generated in chunks of ``batch_size``: each chunk is one batched
generation through the run's prompt style (:mod:`gqlbench.generators.styles`),
scored (with ``execute``, also run in the sandbox for Exec Success and Exec
Match, as ``gqlbench evaluate`` does) and appended, so a killed run loses at
most the chunk in flight. A failed generation is recorded in errors.jsonl and
never cached as an answer.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from gqlbench.dataset import load_errata, load_split
from gqlbench.generators.backends.backend import Backend, backend_warnings, engine_counters
from gqlbench.generators.backends.progress import listening
from gqlbench.generators.budget import PromptTooLong, fit_prompt
from gqlbench.generators.present import Presenter
from gqlbench.generators.shots import SHOT_SPLIT, select_shots, shot_pool
from gqlbench.generators.styles import StyleOptions
from gqlbench.records import Completion, Prompt, Sample, SampleResult
from gqlbench.run.config import RunConfig, RunSettings, tool_result_bound
from gqlbench.run.files import open_run_file
from gqlbench.run.folder import write_json
from gqlbench.run.presenting import observer_for, real_program, shown_record
from gqlbench.run.progress import RunBar
from gqlbench.run.timings import StageClock
from gqlbench.scoring.relevance import lacking

if TYPE_CHECKING:
    from gqlbench.generators.react import Observer
    from gqlbench.mocks.sandbox.pool import SandboxPool

__all__ = ["WALL_KEY", "Work", "Sink", "Generator", "generate"]

WALL_KEY = "generation_wall_s"  # config.json: seconds spent generating, scoring and executing, over all sessions


Work = tuple[Sample, tuple[int, ...]]  # a sample and the completion indices it still needs (0..K-1)


class Sink:
    """Appends finished samples (flushed and synced line by line) and failures."""

    def __init__(self, run_dir: Path) -> None:
        self.samples_path = run_dir / "samples.jsonl"
        self.errors_path = run_dir / "errors.jsonl"

    def sample(self, result: SampleResult) -> None:
        from gqlbench.results.files import append_sample

        append_sample(self.samples_path, result)

    def error(self, sample_id: str, error: str, completion: Completion | None, index: int | None = None) -> None:
        line: dict[str, Any] = {"id": sample_id, "error": error, "time": datetime.now(UTC).isoformat(timespec="seconds")}
        if index is not None:
            line["completion_index"] = index
        if completion is not None:
            line["completion"] = completion.model_dump(mode="json")
        with open_run_file(self.errors_path, "a") as fh:
            fh.write(json.dumps(line) + "\n")


def _scored(sample: Sample, prompt: Prompt, completion: Completion, code: str, prediction: str, shown: dict[str, Any]) -> SampleResult:
    from gqlbench.metrics import score_sample

    result = score_sample(sample, prediction, offered=shown.get("offered"))
    if completion.explanation.model_fields_set:  # what the style knows about the answer (tools: where each argument came from)
        result = result.model_copy(update={"explanation": result.explanation.with_parts(completion.explanation)})
    extra: dict[str, Any] = {
        "shots": list(prompt.shots),  # what fit, not what was asked
        "prompt": prompt.model_dump(mode="json"),
        "raw_output": completion.text,
        "code": code,
        "tokens_in": completion.tokens_in,
        "tokens_out": completion.tokens_out,
        "latency_s": round(completion.latency_s, 4),
        "finish_reason": completion.finish_reason,
        **shown,  # under a prompt setting: the offered functions and the name mapping
    }
    if completion.steps:
        extra["steps"] = [step.model_dump(mode="json") for step in completion.steps]
    if completion.note:  # the text was cut to its bound, or ends inside an unclosed code block
        extra["generation_note"] = completion.note
    if completion.text_chars is not None:
        extra["raw_output_chars"] = completion.text_chars
    return SampleResult.model_validate({**result.model_dump(mode="json"), **extra})


def _tool_sources(
    sample: Sample, completion: Completion, code: str, prediction: str, pool: Callable[[], SandboxPool], seed: int
) -> tuple[Completion, str, str]:
    """``--prompt tools``: arguments set to gold's source where the trajectory's values allow it, before scoring.

    An ambiguous argument takes gold's source when it is among its candidates
    (:mod:`gqlbench.scoring.tool_sources`); an argument whose value is the one
    gold's expression gives on the same world is written as that expression
    (:mod:`gqlbench.scoring.tool_values`). Each choice is recorded in ``tool_arguments``.
    """
    provenance = completion.explanation.tool_arguments
    if provenance is None or prediction != code:
        return completion, code, prediction
    from gqlbench.scoring.tool_sources import choose_gold_candidates
    from gqlbench.scoring.tool_values import credit_equal_values

    if any("candidates" in e for e in provenance):
        code, provenance = choose_gold_candidates(sample, code, provenance)
    code, provenance = credit_equal_values(sample, code, provenance, pool=pool, seed=seed)
    return completion.model_copy(update={"explanation": completion.explanation.with_parts({"tool_arguments": provenance})}), code, code


def _too_long(sample: Sample, style: str, error: PromptTooLong, shown: dict[str, Any]) -> SampleResult:
    """A prompt that cannot fit is the model's answer-less failure: scored 0, explained, never retried."""
    from gqlbench.metrics import score_sample

    result = score_sample(sample, "")
    prompt = Prompt(sample_id=sample.id, style=style, messages=[], n_tokens=error.n_tokens, dropped=error.dropped)
    return SampleResult.model_validate(
        {
            **result.model_dump(mode="json"),
            "shots": [],  # nothing was sent
            "prompt": prompt.model_dump(mode="json"),
            "raw_output": "",
            "code": "",
            "error": str(error),
            **shown,
        }
    )


_T = TypeVar("_T")

# a finished completion: its result, its program (None: nothing was predicted) and its completion index
_Finished = tuple[SampleResult, str | None, int]


class Generator:
    """Builds prompts for one run and turns chunks of samples into scored results (K completions each with --samples K)."""

    def __init__(
        self,
        settings: RunSettings,
        backend: Backend,
        observer: Observer | None,
        pool: Callable[[], SandboxPool],
        clock: StageClock | None = None,
        *,
        offers: Mapping[str, Sequence[str]] | None = None,
        tool_result_chars: int | None = None,
    ) -> None:
        self.clock = clock or StageClock()
        # told of each completion as the backend returns it, before its chunk is scored and executed: progress
        # inside a batch for the backends that answer request by request (openai's pool)
        self.on_generated: Callable[[Completion], None] | None = None
        self.settings = settings
        self.sandbox = pool
        self.backend = backend
        self.config = settings.generation_config()
        self.shot_pool = shot_pool(load_split(SHOT_SPLIT, settings.data), load_errata(settings.data)) if settings.shots else []
        self.presenter = Presenter(settings.prompt_setting, settings.seed, offers={k: list(v) for k, v in (offers or {}).items()})
        self.style = settings.style.start(
            StyleOptions(
                max_steps=settings.max_steps,
                observer=observer_for(observer, self.presenter),
                abstain=settings.relevance,
                shown=settings.prompt_setting.shown,
                tool_result_chars=tool_result_chars,
            )
        )

    def prompt(self, sample: Sample) -> Prompt:
        """The prompt of ``sample`` and its examples, each as the run's prompt setting shows it."""
        avoid = lacking(sample, self.presenter(sample).offered)  # an impossible case's examples never show what it lacks
        settings = self.settings
        shots = select_shots(sample, self.shot_pool, settings.shots, settings.shot_rule, avoid=avoid) if settings.shots else []
        examples = [self.presenter.example(s, avoid).sample for s in shots]
        return fit_prompt(
            self.presenter(sample).sample,
            examples,
            self.style.messages,
            self.backend,
            style=self.settings.prompt,
            reserve=self.config.max_new_tokens,
            assistant_prefix=self.style.assistant_prefix,
            tools=getattr(self.style, "tools", None),  # --prompt tools: the tools' JSON counts too
        )

    def _labelled(self, result: SampleResult, index: int) -> SampleResult:
        """With K > 1 a line says which completion it is; a K = 1 line is as it always was."""
        if self.settings.samples == 1:
            return result
        from gqlbench.run.repeated import with_completion

        return with_completion(result, index)

    def run_chunk(self, chunk: Sequence[Work], sink: Sink) -> Iterator[SampleResult | str]:
        """Yield the id of each sample whose generation failed as it fails, then the chunk's results as they are written."""
        finished: list[_Finished] = []
        work: list[tuple[Sample, Prompt, tuple[int, ...]]] = []
        with self.clock.stage("prompts"):
            for sample, indices in chunk:
                try:
                    prompt = self.prompt(sample)
                    work.append((self.presenter(sample).sample, prompt, indices))
                except PromptTooLong as exc:
                    record = shown_record(self.presenter, sample.id)
                    finished += [(_too_long(sample, self.settings.prompt, exc, record), None, i) for i in indices]
        if work:
            try:
                yield from self._complete(work, sink, finished)
            except Exception:  # a fatal error mid-chunk: the samples that finished before it are kept, then it goes on
                self._write([s for s, _ in chunk], finished, sink)
                raise
        yield from self._write([s for s, _ in chunk], finished, sink)

    def _write(self, chunk: Sequence[Sample], finished: list[_Finished], sink: Sink) -> list[SampleResult]:
        """Execute (when the run does) and append ``finished``; the results in the order written."""
        with self.clock.stage("execution"):
            executed = self._executed(chunk, finished)
        for result in executed:
            with self.clock.stage("writing"):
                sink.sample(result)
        return executed

    def _executed(self, chunk: Sequence[Sample], finished: list[_Finished]) -> list[SampleResult]:
        """The results with Exec Success / Exec Match (when the run executes), one sandbox batch per completion index."""
        if not self.settings.execute or not finished:
            return [self._labelled(result, i) for result, _, i in finished]
        from gqlbench.scoring.join import add_exec_scores

        done: list[SampleResult] = []
        for index in sorted({i for _, _, i in finished}):
            group = [(result, code) for result, code, i in finished if i == index]
            codes = {result.id: code for result, code in group}
            results = add_exec_scores([r for r, _ in group], {s.id: s for s in chunk}, codes, seed=self.settings.seed, pool=self.sandbox())
            done += [self._labelled(result, index) for result in results]
        return done

    def _calls(self, work: Sequence[tuple[Sample, Prompt, tuple[int, ...]]]) -> Iterator[tuple[Completion, int]]:
        """Every completion ``work`` asks for, with its completion index.

        A backend with ``supports_n`` (and a style without steps) gets one
        request per sample with ``n`` = the missing count; otherwise the style
        generates once per missing index, seeded ``seed + index`` (so K = 1 is
        one call at the run's seed, and ReAct draws K independent trajectories).
        """
        if self.settings.samples > 1 and not self.settings.style.uses_steps and getattr(self.backend, "supports_n", False):
            groups: dict[tuple[int, ...], list[tuple[Sample, Prompt]]] = {}
            for sample, prompt, indices in work:
                groups.setdefault(indices, []).append((sample, prompt))
            for indices, group in groups.items():
                for completion in self.style.generate(group, self.backend, dataclasses.replace(self.config, n=len(indices))):
                    if 0 <= completion.index < len(indices):
                        yield completion, indices[completion.index]
            return
        for index in sorted({i for _, _, indices in work for i in indices}):
            group = [(sample, prompt) for sample, prompt, indices in work if index in indices]
            config = dataclasses.replace(self.config, seed=self.config.seed + index)
            for completion in self.style.generate(group, self.backend, config):
                yield completion, index

    def _complete(self, work: Sequence[tuple[Sample, Prompt, tuple[int, ...]]], sink: Sink, finished: list[_Finished]) -> Iterator[str]:
        """Generate and statically score ``work`` into ``finished``; yield the ids whose generation failed."""
        by_id = {s.id: (s, p) for s, p, _ in work}
        wanted = {(s.id, i) for s, _, indices in work for i in indices}
        label = (lambda i: i) if self.settings.samples > 1 else (lambda i: None)
        seen: set[tuple[str, int]] = set()
        for completion, index in self._timed(self._calls(work)):
            key = (completion.sample_id, index)
            if key not in wanted or key in seen:
                continue
            seen.add(key)
            if self.on_generated is not None:
                self.on_generated(completion)
            shown, prompt = by_id[completion.sample_id]
            if completion.error:
                sink.error(shown.id, completion.error, completion, label(index))
                yield shown.id
                continue
            self.clock.count(completion.tokens_in or 0, completion.tokens_out or 0)
            with self.clock.stage("scoring"):
                answer = self.style.answer(completion)
                if answer.code is None:
                    from gqlbench.metrics import extract_code

                    code = extract_code(answer.prediction)
                else:
                    code = answer.code
                sample, code, prediction, record = real_program(self.presenter, shown.id, code, answer.prediction)
                real = sample or shown
                completion, code, prediction = _tool_sources(real, completion, code, prediction, self.sandbox, self.settings.seed)
                finished.append((_scored(real, prompt, completion, code, prediction, record), code, index))
        for sample, _, indices in work:
            for index in indices:
                if (sample.id, index) not in seen:
                    sink.error(sample.id, "the backend returned no completion for this sample", None, label(index))
                    yield sample.id

    def _timed(self, items: Iterator[_T]) -> Iterator[_T]:
        """``items``, the time spent producing each one counted as generation."""
        while True:
            with self.clock.stage("generation"):
                item = next(items, None)
            if item is None:
                return
            yield item


def generate(
    settings: RunSettings,
    backend: Backend,
    *,
    run_dir: Path,
    config: RunConfig,
    total: int,
    planned: Sequence[Work],
    batch_size: int,
    quiet: bool,
    observer: Observer | None,
    pool: Callable[[], SandboxPool],
    console: Any = None,
    clock: StageClock | None = None,
    offers: Mapping[str, Sequence[str]] | None = None,
    notify: Callable[[str], None] | None = None,
) -> None:
    """Generate ``planned`` in chunks of ``batch_size`` samples into ``run_dir``, recording the backend in config.json.

    ``total`` counts completions (samples x K). ``console`` is where the
    progress bar goes (the real terminal while the engine's own output is sent
    to engine.log); the one-line summary of the backend is told to ``notify``. The wall time of generating, scoring and
    executing is added up over sessions in config.json's ``generation_wall_s``
    (after every chunk), for the run's throughput and GPU-hour cost. ``offers``: what some samples'
    prompts offer instead of what ``--functions`` would (a relevance run's cases, :class:`gqlbench.run.runner.Plan`).
    A tools run also records the bound of its tool results (``tool_results``, :func:`gqlbench.run.config.tool_result_bound`).
    """
    from gqlbench.run.engine_log import summary_line

    clock = clock or StageClock()
    with clock.stage("engine_load"):  # describing a local model hashes its weights
        description = backend.describe()
    if notify is not None:  # the engine, model, dtype and device: told before the first sample
        notify(summary_line(description))
    pending = sum(len(indices) for _, indices in planned)
    with clock.stage("writing"):
        config.tool_results = tool_result_bound(settings, config, backend.max_model_len, resumed=pending < total)
        config.record_backend(description)
        write_json(run_dir / "config.json", config.to_json())
    bound = config.tool_results["max_chars"] if config.tool_results else None
    with clock.stage("prompts"):  # the few-shot pool
        generator = Generator(settings, backend, observer, pool, clock, offers=offers, tool_result_chars=bound)
    sink = Sink(run_dir)
    bar = RunBar(total, total - pending, pending, quiet=quiet, stream=console, unit="sample" if settings.samples == 1 else "completion")
    counted = engine_counters(backend)
    generator.on_generated = bar.generated  # the bar moves inside a batch, before the batch is scored
    wall = float(config.extra.get(WALL_KEY) or 0.0)
    try:
        with listening(backend, None if quiet else bar.progressed):  # and inside the backend's call, for a backend that reports it
            for start in range(0, len(planned), batch_size):
                chunk_started = time.perf_counter()
                for item in generator.run_chunk(planned[start : start + batch_size], sink):
                    if isinstance(item, str):
                        bar.count_failure()
                    else:
                        bar.written()
                wall += time.perf_counter() - chunk_started
                config.extra[WALL_KEY] = round(wall, 4)
                write_json(run_dir / "config.json", config.to_json())
    finally:
        bar.close()
        clock.add_engine_counters(counted, engine_counters(backend))
    for warning in backend_warnings(backend):  # after the run: every finished sample is written by now
        if notify is not None:
            notify(f"warning: {warning}")
