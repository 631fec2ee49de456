"""Scoring a predictions file: from its lines to one result per sample of the evaluated splits.

This is ``gqlbench evaluate`` without the command line: :func:`evaluate_predictions`
reads the file, works out which splits it covers, scores every sample of them
with the metrics (a sample without a prediction scores 0 and is listed as
missing) and, when asked, runs gold and predicted programs in the sandbox. It
writes nothing and prints nothing; the command writes the run folder
(:func:`gqlbench.results.files.write_run`) and reports what it returns.

Every problem with the file is a :class:`~gqlbench.errors.GqlbenchError` naming
its file and line.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gqlbench.dataset import default_data_dir, load_split, split_of
from gqlbench.errors import GqlbenchError
from gqlbench.jsonl import read_lines
from gqlbench.metrics import missing_result, score_sample
from gqlbench.records import SPLITS, Sample, SampleResult
from gqlbench.scoring.join import add_exec_scores, not_run_domains, require_known_domains

__all__ = [
    "Prediction",
    "Evaluation",
    "read_predictions",
    "choose_splits",
    "samples_for",
    "score_predictions",
    "evaluate_predictions",
]

_RESULT_FIELDS = set(SampleResult.model_fields)


@dataclass(frozen=True)
class Prediction:
    """One line of a predictions file: the raw model text for a sample, plus whatever else it carried."""

    id: str
    text: str
    extra: dict[str, object]
    line: int


@dataclass(frozen=True)
class Evaluation:
    """What scoring a predictions file produced; the command prints and writes it."""

    data_dir: Path
    splits: list[str]  # the evaluated splits, in train/valid/test order
    predictions: list[Prediction]
    samples: dict[str, Sample]  # every sample of the evaluated splits, by id
    results: list[SampleResult]  # one per sample, in split order
    missing: list[str]  # ids of samples without a prediction (scored 0)

    def ids_with(self, key: str) -> list[str]:
        """The samples whose explanation has a truthy ``key`` (``parse_error``, ``too_large``)."""
        return [r.id for r in self.results if getattr(r.explanation, key)]

    @property
    def domains_not_run(self) -> list[str]:
        """Domains with no execution scores: the catalog has no mock world for them."""
        return not_run_domains(self.results)


def read_predictions(path: Path) -> list[Prediction]:
    """Parse a predictions JSONL file; every problem is reported with its file:line, and a file without a prediction is one.

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
            # some of json's messages end in "at" themselves ("Invalid control character at")
            raise GqlbenchError(f"{where}: not valid JSON ({exc.msg.removesuffix(' at')} at column {exc.colno})") from None
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
    if not predictions:  # scoring nothing would print a table of zeros that looks like a result
        raise GqlbenchError(f'{path}: has no predictions; write one {{"id": "test/0", "prediction": "..."}} object per line')
    return predictions


def choose_splits(predictions: Sequence[Prediction], path: Path, data_dir: Path, splits: Sequence[str] = ()) -> list[str]:
    """The splits to evaluate: ``splits`` when given (every id must be in them), else those the ids name, else test.

    An id of a split the benchmark folder does not have is an error naming its line.
    """
    found: set[str] = set()
    for p in predictions:
        try:
            split = split_of(p.id)
        except GqlbenchError as exc:
            raise GqlbenchError(f"{path}:{p.line}: {exc}") from None
        if not (data_dir / f"{split}.jsonl").is_file():
            raise GqlbenchError(f"{path}:{p.line}: unknown sample id {p.id!r}; {data_dir.name} has no split {split!r}")
        found.add(split)
    if splits:
        outside = [p for p in predictions if split_of(p.id) not in splits]
        if outside:
            raise GqlbenchError(
                f"{path}:{outside[0].line}: {outside[0].id!r} is not in --split {','.join(splits)}; remove the line or the option"
            )
        return list(splits)
    return sorted(found, key=lambda s: (SPLITS.index(s) if s in SPLITS else len(SPLITS), s)) or ["test"]


def samples_for(predictions: Sequence[Prediction], path: Path, data_dir: Path, splits: Sequence[str]) -> dict[str, Sample]:
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
    carried: dict[str, Any] = {"prediction": prediction.text}
    for key, value in prediction.extra.items():
        carried[f"input_{key}" if key in _RESULT_FIELDS or key == "prediction" else key] = value
    return SampleResult.model_validate({**carried, **result.model_dump()})


def score_predictions(
    predictions: Sequence[Prediction], samples: dict[str, Sample], *, execute: bool = False, seed: int = 0
) -> tuple[list[SampleResult], list[str]]:
    """Score every sample of ``samples``; those without a prediction score 0 and are returned as missing.

    With ``execute``, gold and predicted programs also run in the sandbox
    against mock worlds seeded with ``seed`` (Exec Success, Exec Match).
    """
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
    if execute:
        codes = {r.id: (None if r.id in missing else r.explanation.code or "") for r in results}
        results = add_exec_scores(results, samples, codes, seed=seed)
    return results, missing


def evaluate_predictions(
    path: Path, data_dir: Path | None = None, splits: Sequence[str] = (), *, execute: bool = True, seed: int = 0
) -> Evaluation:
    """Read and score a predictions file against ``data_dir`` (default: the bundled GraphQLRestBench)."""
    data_dir = data_dir if data_dir is not None else default_data_dir()
    predictions = read_predictions(path)
    chosen = choose_splits(predictions, path, data_dir, splits)
    samples = samples_for(predictions, path, data_dir, chosen)
    if execute:
        require_known_domains(s.domain for s in samples.values())
    results, missing = score_predictions(predictions, samples, execute=execute, seed=seed)
    return Evaluation(data_dir, chosen, predictions, samples, results, missing)
