"""``gqlbench evaluate``: score a file of model predictions with the benchmark's metrics.

The scoring is :func:`gqlbench.scoring.evaluation.evaluate_predictions`; this module
parses the options, writes the run folder and prints the table and notes.
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Sequence
from pathlib import Path

import click

from gqlbench.cli.options import bootstrap_option, interval_resamples
from gqlbench.dataset import data_hash
from gqlbench.records import ResultsDocument
from gqlbench.results.files import ensure_writable, render_table, results_document, run_meta, write_run
from gqlbench.results.statistics import DEFAULT_RESAMPLES
from gqlbench.run.folder import exclusive
from gqlbench.scoring.evaluation import Evaluation, evaluate_predictions

__all__ = ["evaluate"]


def _command(
    predictions: Path,
    out: Path | None,
    data: Path | None,
    splits: Sequence[str],
    execute: bool,
    seed: int,
    bootstrap: int = DEFAULT_RESAMPLES,
) -> str:
    parts = ["gqlbench", "evaluate", str(predictions)]
    if not execute:
        parts.append("--no-exec")
    if seed:
        parts += ["--seed", str(seed)]
    if bootstrap != DEFAULT_RESAMPLES:
        parts += ["--bootstrap", str(bootstrap)]
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


def _score(
    predictions: Path,
    out: Path | None,
    data: Path | None,
    splits: Sequence[str],
    overwrite: bool,
    execute: bool,
    seed: int,
    bootstrap: int,
) -> tuple[ResultsDocument, Evaluation]:
    """Score the predictions and write ``out`` (when given): the results document and the evaluation."""
    evaluation = evaluate_predictions(predictions, data, splits, execute=execute, seed=seed)
    data_dir, chosen, results, missing = evaluation.data_dir, evaluation.splits, evaluation.results, evaluation.missing

    meta = run_meta(
        command=_command(predictions, out, data, splits, execute, seed, bootstrap),
        data_hash=data_hash(data_dir),
        benchmark=data_dir.name,
        splits=chosen,
        predictions=str(predictions),
        bootstrap=bootstrap,
    )
    if out is not None:
        document = write_run(out, results, missing, meta, overwrite=overwrite)
    else:
        document = results_document(results, missing, meta)
    return document, evaluation


@click.command(short_help="Score a file of model predictions (Table 2 metrics).")
@click.argument("predictions", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder for results.json, samples.jsonl and report.md (not written when omitted).",
)
@click.option(
    "--data",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Benchmark folder of <split>.jsonl files [default: the bundled GraphQLRestBench].",
)
@click.option("--split", "splits", multiple=True, help="Split(s) to evaluate [default: the splits of the ids in the file].")
@click.option("--overwrite", is_flag=True, help="Replace results already in --out.")
@click.option(
    "--exec/--no-exec",
    "execute",
    default=True,
    show_default=True,
    help="Also run gold and predicted programs in the sandbox against mock worlds (Exec Success, Exec Match).",
)
@click.option("--seed", default=0, show_default=True, help="Seed of the mock worlds the programs run against.")
@bootstrap_option
def evaluate(
    predictions: Path,
    out: Path | None,
    data: Path | None,
    splits: tuple[str, ...],
    overwrite: bool,
    execute: bool,
    seed: int,
    bootstrap: int | None,
) -> None:
    """Score PREDICTIONS, a JSONL file of {"id": "test/0", "prediction": "<raw model text>"} lines.

    Code is taken from the fenced blocks of each prediction (or the whole text),
    parsed and scored by Arg Match and Seq Match against the gold programs.
    With --exec (the default) gold and predicted programs also run, only in the
    sandbox, against fresh mock worlds for Exec Success and Exec Match. Every sample of the evaluated split(s) counts: samples missing from
    the file score 0 and are listed. Other fields of each line are kept in
    samples.jsonl.
    """
    with exclusive(out) if out is not None else contextlib.nullcontext():  # held from the check to the last file written
        if out is not None:
            ensure_writable(out, overwrite)  # fail before scoring, not after
        document, evaluation = _score(predictions, out, data, splits, overwrite, execute, seed, interval_resamples(bootstrap))
    data_dir, chosen, missing = evaluation.data_dir, evaluation.splits, evaluation.missing
    click.echo(f"{data_dir.name} {'+'.join(chosen)}: {len(evaluation.predictions)} predictions for {len(evaluation.samples)} samples")
    click.echo(render_table(document.metrics))
    for entry in document.skipped:
        click.echo(f"warning: skipped {entry.id}: {entry.reason}", err=True)
    not_run = evaluation.domains_not_run
    if not_run:
        click.echo(f"warning: no execution scores for domain(s) {', '.join(not_run)}: not in the catalog (see GQLBENCH_CATALOG)", err=True)
    if missing:
        click.echo(f"warning: {len(missing)} samples have no prediction and score 0: {_preview(missing)}", err=True)
    failing = document.gold_failures or {}
    if failing:
        first = next(iter(failing))
        click.echo(
            f"warning: {len(failing)} gold program(s) fail on the mock world and are left out of Exec Match: "
            f"{_preview(list(failing))} (e.g. {first}: {failing[first]})",
            err=True,
        )
    parse_errors = evaluation.ids_with("parse_error")
    if parse_errors:
        click.echo(f"note: {len(parse_errors)} predictions do not parse as Python: {_preview(parse_errors)}", err=True)
    too_large = evaluation.ids_with("too_large")
    if too_large:
        click.echo(f"note: {len(too_large)} predictions are too large to score and count 0: {_preview(too_large)}", err=True)
    if out is not None:
        click.echo(f"wrote {out}/results.json, samples.jsonl, report.md")
