"""What the viewer shows of a run folder, read through the existing readers.

A run folder is one written by ``gqlbench run`` (``config.json`` present) or by
``gqlbench evaluate --out``. The samples' utterances, offered functions and
gold programs are not in the results; they come from the benchmark folder the
run used (``config.json``'s ``settings.data``) or the bundled one, and a sample
the benchmark does not know is shown without them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gqlbench.dataset import load_split, split_of
from gqlbench.errors import GqlbenchError
from gqlbench.metrics import all_metrics
from gqlbench.records import ResultsDocument, Sample, SampleResult
from gqlbench.results.files import RESULTS_FILE, SAMPLES_FILE, read_config, read_results, read_samples
from gqlbench.results.summary import load_run
from gqlbench.viewer.validate import check_result

__all__ = ["pass_metrics", "RunView", "load_run_view", "error_kinds", "passes", "find_samples", "shared_ids"]


def pass_metrics() -> tuple[str, ...]:
    """The registered per-sample metrics averaged over samples (0/1 each): a sample passes or fails each."""
    return tuple(m.name for m in all_metrics() if m.aggregation == "mean")


@dataclass(frozen=True)
class RunView:
    """One run folder: its label, configuration, results document and sample results."""

    path: Path
    label: str
    config: dict[str, Any]
    document: ResultsDocument
    results: list[SampleResult]
    samples: dict[str, Sample] = field(default_factory=dict)

    @property
    def metrics(self) -> dict[str, dict[str, Any]]:
        return self.document.metrics

    def result(self, sample_id: str) -> SampleResult | None:
        return next((r for r in self.results if r.id == sample_id), None)


def find_samples(ids: Sequence[str], data_dir: Path | str | None) -> dict[str, Sample]:
    """The benchmark samples behind ``ids``; ids of unknown splits or lines are left out."""
    found: dict[str, Sample] = {}
    for split in sorted({i.partition("/")[0] for i in ids}):
        try:
            by_id = {s.id: s for s in load_split(split, data_dir)}
        except GqlbenchError:
            continue  # a split the benchmark folder lacks: shown without utterance and gold
        found |= {i: by_id[i] for i in ids if i in by_id}
    return found


def _sample_order(result: SampleResult) -> tuple[str, int, str, int]:
    """``test/2`` before ``test/10``; a sample's completions in their order."""
    split, _, index = result.id.rpartition("/")
    number = int(index) if index.isdigit() and len(index) < 10 else -1
    return split, number, index, int(getattr(result, "completion", 0) or 0)


def load_run_view(run_dir: Path, data_dir: Path | None = None) -> RunView:
    """Read a run folder for the report; errors name the folder and what is missing."""
    summary = load_run(run_dir)  # checks the folder and results.json
    samples_file = run_dir / SAMPLES_FILE
    if not samples_file.is_file():
        raise GqlbenchError(f"{samples_file}: no such file; {run_dir} needs the samples.jsonl that gqlbench evaluate --out or run writes")
    stored = read_config(run_dir)
    config = stored.to_json() if stored is not None else {}  # the page shows the file as it is
    results = sorted(read_samples(samples_file), key=_sample_order)  # finished order is the engine's; pages read in id order
    for result in results:
        split_of(result.id)  # a malformed id is a clear error here, not a gap in the page
        check_result(samples_file, result)  # so is a field of the wrong shape (a hand edit, an older run)
    settings = config.get("settings") if isinstance(config.get("settings"), dict) else {}
    data = data_dir if data_dir is not None else settings.get("data")  # type: ignore[union-attr]
    # a run is labelled by its model and prompt; an evaluate folder (no config.json) by the folder, which tells runs apart
    label = f"{summary.model} · {summary.prompt}" if config.get("model") else run_dir.name
    return RunView(
        path=run_dir,
        label=label,
        config=config,
        document=read_results(run_dir / RESULTS_FILE),
        results=results,
        samples=find_samples([r.id for r in results], data),
    )


def passes(result: SampleResult) -> dict[str, int | None]:
    """Each pass/fail metric of a sample: 1, 0, or None (not measured, e.g. not executed)."""
    scores = result.scores.model_dump()
    return {m: (None if result.skipped is not None else _pass_value(scores.get(m))) for m in pass_metrics()}


def _pass_value(value: object) -> int | None:
    """1 or 0 as recorded; anything else an outside metric's field holds (a hand edit) reads as not measured."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1) else None


def error_kinds(result: SampleResult) -> list[str]:
    """The kinds of what went wrong in a sample, for filtering and the error chart.

    ``explanation.errors`` (``{kind, ...}`` entries) when the run has it; then
    what every run records: no prediction, a program that does not parse or is
    too large, the kind of the predicted program's execution error.
    """
    ex = result.explanation
    kinds = [str(e["kind"]) for e in ex.error_list() if e.get("kind")]
    kinds += [key for key, value in (("missing", ex.missing), ("parse_error", ex.parse_error), ("too_large", ex.too_large)) if value]
    exec_error = ex.exec.error if ex.exec is not None else None
    if exec_error is not None and exec_error.kind:
        kinds.append(exec_error.kind)
    return list(dict.fromkeys(kinds))


def error_counts(run: RunView) -> dict[str, dict[str, int]]:
    """``{domain: {kind: count}}``: results.json's ``metrics.<domain>.errors`` when present, else counted here."""
    stored = {d: g["errors"] for d, g in run.metrics.items() if isinstance(g.get("errors"), dict)}
    if stored:
        return stored
    counts: dict[str, Counter[str]] = {}
    for result in run.results:
        if result.skipped is None:
            for kind in error_kinds(result):
                counts.setdefault(result.domain, Counter())[kind] += 1
    return {d: dict(c) for d, c in sorted(counts.items())}


def shared_ids(runs: Sequence[RunView]) -> list[str]:
    """Sample ids every run has, in the first run's order."""
    others = [{r.id for r in run.results} for run in runs[1:]]
    return [r.id for r in runs[0].results if all(r.id in ids for ids in others)]
