"""``gqlbench evaluate``: score a file of model predictions with the benchmark's metrics."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import click

from gqlbench.dataset import data_hash, default_data_dir, load_split, split_of
from gqlbench.errors import GqlbenchError
from gqlbench.jsonl import read_lines
from gqlbench.metrics import missing_result, score_sample
from gqlbench.records import SPLITS, Sample, SampleResult
from gqlbench.results import ensure_writable, render_table, results_document, run_meta, write_run
from gqlbench.scoring import add_exec_scores

__all__ = ["evaluate", "Prediction", "read_predictions", "score_predictions"]

_RESULT_FIELDS = set(SampleResult.model_fields)


@dataclass(frozen=True)
class Prediction:
    """One line of a predictions file: the raw model text for a sample, plus whatever else it carried."""

    id: str
    text: str
    extra: dict[str, object]
    line: int


def read_predictions(path: Path) -> list[Prediction]:
    """Parse a predictions JSONL file; every problem is reported with its file:line.

    The file is UTF-8 (a leading byte-order mark is accepted, as in utf-8-sig);
    an undecodable byte is reported with its line and offset.
    """
    predictions: list[Prediction] = []
    first_line: dict[str, int] = {}
    for number, raw in read_lines(path):
        if not raw.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise GqlbenchError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            raise GqlbenchError(f'{where}: expected an object with a string "id", e.g. {{"id": "test/0", "prediction": "..."}}')
        sample_id = row.pop("id")
        if not isinstance(row.get("prediction"), str):
            raise GqlbenchError(f'{where}: sample {sample_id!r} needs a string "prediction" (the raw model text)')
        if sample_id in first_line:
            raise GqlbenchError(
                f"{where}: duplicate id {sample_id!r} (first on line {first_line[sample_id]}); keep one prediction per sample"
            )
        first_line[sample_id] = number
        text = row.pop("prediction")
        predictions.append(Prediction(sample_id, text, row, number))
    return predictions


def _samples_by_id(predictions: Sequence[Prediction], path: Path, data_dir: Path, splits: Sequence[str]) -> dict[str, Sample]:
    """The samples of the evaluated splits; an id outside them is an error naming its line."""
    available = [s for s in SPLITS if (data_dir / f"{s}.jsonl").is_file()]
    for split in splits:
        if split not in available:
            raise GqlbenchError(f"{data_dir}: has no split {split!r} (it has {', '.join(available) or 'none'})")
    by_split = {split: load_split(split, data_dir) for split in splits}
    samples = {s.id: s for split_samples in by_split.values() for s in split_samples}
    for p in predictions:
        if p.id not in samples:
            ranges = ", ".join(f"{split}/0..{split}/{len(ss) - 1}" for split, ss in by_split.items())
            raise GqlbenchError(f"{path}:{p.line}: unknown sample id {p.id!r}; {data_dir.name} has {ranges}")
    return samples


def _with_inputs(result: SampleResult, prediction: Prediction) -> SampleResult:
    """Carry the prediction line's fields into the result line (renamed if they clash)."""
    carried = {"prediction": prediction.text}
    for key, value in prediction.extra.items():
        carried[f"input_{key}" if key in _RESULT_FIELDS or key == "prediction" else key] = value
    return SampleResult.model_validate({**carried, **result.model_dump()})


def score_predictions(
    predictions: Sequence[Prediction], samples: dict[str, Sample]
) -> tuple[list[SampleResult], list[str]]:
    """Score every sample of the evaluated splits; those without a prediction score 0."""
    by_id = {p.id: p for p in predictions}
    results, missing = [], []
    for sample_id, sample in samples.items():
        prediction = by_id.get(sample_id)
        if prediction is None:
            result = missing_result(sample)
            if result.skipped is None:
                missing.append(sample_id)
        else:
            result = _with_inputs(score_sample(sample, prediction.text), prediction)
        results.append(result)
    return results, missing


def _splits_of(predictions: Sequence[Prediction], path: Path, data_dir: Path) -> list[str]:
    """The splits the ids name, in train/valid/test order; an unknown split names its line."""
    found: set[str] = set()
    for p in predictions:
        try:
            split = split_of(p.id)
        except GqlbenchError as exc:
            raise GqlbenchError(f"{path}:{p.line}: {exc}") from None
        if not (data_dir / f"{split}.jsonl").is_file():
            raise GqlbenchError(f"{path}:{p.line}: unknown sample id {p.id!r}; {data_dir.name} has no split {split!r}")
        found.add(split)
    return sorted(found, key=lambda s: (SPLITS.index(s) if s in SPLITS else len(SPLITS), s))


def _command(predictions: Path, out: Path | None, data: Path | None, splits: Sequence[str], execute: bool, seed: int) -> str:
    parts = ["gqlbench", "evaluate", str(predictions)]
    if not execute:
        parts.append("--no-exec")
    if seed:
        parts += ["--seed", str(seed)]
    if out is not None:
        parts += ["--out", str(out)]
    if data is not None:
        parts += ["--data", str(data)]
    for split in splits:
        parts += ["--split", split]
    return shlex.join(parts)


def _preview(ids: Sequence[str], limit: int = 10) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f", ... ({len(ids) - limit} more)" if len(ids) > limit else "")


@click.command(short_help="Score a file of model predictions (Table 2 metrics).")
@click.argument("predictions", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Folder for results.json, samples.jsonl and report.md (not written when omitted).")
@click.option("--data", type=click.Path(exists=True, file_okay=False, path_type=Path), help="Benchmark folder of <split>.jsonl files [default: the bundled GraphQLRestBench].")
@click.option("--split", "splits", multiple=True, help="Split(s) to evaluate [default: the splits of the ids in the file; test for an empty file].")
@click.option("--overwrite", is_flag=True, help="Replace results already in --out.")
@click.option("--exec/--no-exec", "execute", default=True, show_default=True, help="Also run gold and predicted programs in the sandbox against mock worlds (Exec Success, Exec Match).")
@click.option("--seed", default=0, show_default=True, help="Seed of the mock worlds the programs run against.")
def evaluate(
    predictions: Path,
    out: Path | None,
    data: Path | None,
    splits: tuple[str, ...],
    overwrite: bool,
    execute: bool,
    seed: int,
) -> None:
    """Score PREDICTIONS, a JSONL file of {"id": "test/0", "prediction": "<raw model text>"} lines.

    Code is taken from the fenced blocks of each prediction (or the whole text),
    parsed and scored by Arg Match and Seq Match against the gold programs.
    With --exec (the default) gold and predicted programs also run, only in the
    sandbox, against fresh mock worlds for Exec Success and Exec Match. Every sample of the evaluated split(s) counts: samples missing from
    the file score 0 and are listed. Other fields of each line are kept in
    samples.jsonl.
    """
    if out is not None:
        ensure_writable(out, overwrite)  # fail before scoring, not after
    data_dir = data if data is not None else default_data_dir()
    rows = read_predictions(predictions)
    found = _splits_of(rows, predictions, data_dir)
    if splits:
        outside = [p for p in rows if split_of(p.id) not in splits]
        if outside:
            raise GqlbenchError(
                f"{predictions}:{outside[0].line}: {outside[0].id!r} is not in --split {','.join(splits)}; remove the line or the option"
            )
    chosen = list(splits) or found or ["test"]
    samples = _samples_by_id(rows, predictions, data_dir, chosen)
    results, missing = score_predictions(rows, samples)
    if execute:
        codes = {r.id: (None if r.id in missing else str(r.explanation.get("code", ""))) for r in results}
        results = add_exec_scores(results, samples, codes, seed=seed)

    meta = run_meta(
        command=_command(predictions, out, data, splits, execute, seed),
        data_hash=data_hash(data_dir),
        benchmark=data_dir.name,
        splits=chosen,
        predictions=str(predictions),
    )
    if out is not None:
        document = write_run(out, results, missing, meta, overwrite=overwrite)
    else:
        document = results_document(results, missing, meta)

    click.echo(f"{data_dir.name} {'+'.join(chosen)}: {len(rows)} predictions for {len(samples)} samples")
    click.echo(render_table(document["metrics"]))  # type: ignore[arg-type]
    for entry in document["skipped"]:  # type: ignore[union-attr]
        click.echo(f"warning: skipped {entry['id']}: {entry['reason']}", err=True)
    not_run = sorted({r.domain for r in results if "not_run" in r.explanation.get("exec", {})})
    if not_run:
        click.echo(f"warning: no execution scores for domain(s) {', '.join(not_run)}: not in the catalog (see GQLBENCH_CATALOG)", err=True)
    if missing:
        click.echo(f"warning: {len(missing)} samples have no prediction and score 0: {_preview(missing)}", err=True)
    parse_errors = [r.id for r in results if r.explanation.get("parse_error")]
    if parse_errors:
        click.echo(f"note: {len(parse_errors)} predictions do not parse as Python: {_preview(parse_errors)}", err=True)
    too_large = [r.id for r in results if r.explanation.get("too_large")]
    if too_large:
        click.echo(f"note: {len(too_large)} predictions are too large to score and count 0: {_preview(too_large)}", err=True)
    if out is not None:
        click.echo(f"wrote {out}/results.json, samples.jsonl, report.md")
