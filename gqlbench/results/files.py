"""The files a scored run leaves behind, and the tables made from them.

A run folder (from ``gqlbench evaluate`` or ``gqlbench run``) holds:

- ``samples.jsonl``: one :class:`~gqlbench.records.SampleResult` per line, appended
  as samples finish, so a killed run keeps what it scored;
- ``results.json``: a :class:`~gqlbench.records.ResultsDocument`, ``{"metrics":
  {"overall": {...}, "<domain>": {...}}, "skipped": [...], "missing": [...], "meta": {...}}``,
  its metric keys and the report's columns taken from the metric registry;
- ``report.md``: the metrics as the paper's Table 2 (rows overall and one per
  domain, one column per metric, four decimals).

The same :func:`render_table` prints to the terminal and writes the report, so
what a user sees is what the file holds.

Every file is valid UTF-8: a lone surrogate (from a ``"\\ud800"`` escape in a
prediction, or a program's output) is written as U+FFFD (see :mod:`gqlbench.jsonl`).
:func:`write_run` replaces the three files together: each is complete in a
temporary file before any is renamed over the old one, so a failure while
writing leaves ``--out`` as it was (the previous results, or nothing).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError
from tabulate import tabulate

from gqlbench import __version__
from gqlbench.display import escape_controls
from gqlbench.errors import GqlbenchError
from gqlbench.jsonl import BOM, decode_line, read_lines, utf8_data, utf8_text
from gqlbench.metrics import Metric, aggregate, all_metrics, metric_titles
from gqlbench.provenance import redact_urls
from gqlbench.records import ResultsDocument, SampleResult, SkippedSample
from gqlbench.results.difficulty import difficulty_breakdown, difficulty_section
from gqlbench.results.statistics import DEFAULT_RESAMPLES
from gqlbench.results.uncertainty import add_uncertainty, uncertainty_section
from gqlbench.run.files import json_text, open_run_file, refuse_link, write_files, write_json
from gqlbench.run.repeated import completion_index, repeated_section
from gqlbench.run.usage import usage_problem, usage_section

if TYPE_CHECKING:
    from gqlbench.run.config import RunConfig

__all__ = [
    "SAMPLES_FILE",
    "RESULTS_FILE",
    "REPORT_FILE",
    "CONFIG_FILE",
    "run_meta",
    "gold_failures",
    "GOLD_FAILURES_NOTE",
    "ensure_writable",
    "append_sample",
    "read_samples",
    "repair_samples",
    "results_document",
    "write_results",
    "write_document",
    "read_results",
    "read_config",
    "render_table",
    "table_columns",
    "render_report",
    "shots_shortfall",
    "write_run",
]

SAMPLES_FILE = "samples.jsonl"
RESULTS_FILE = "results.json"
REPORT_FILE = "report.md"
CONFIG_FILE = "config.json"  # written by `gqlbench run`: model, prompt, split, ...


def run_meta(command: str | None = None, data_hash: str | None = None, **extra: object) -> dict[str, object]:
    """What ties a results file to the code, data and command that produced it."""
    return {
        "gqlbench_version": __version__,
        "data_hash": data_hash,
        "command": redact_urls(command if command is not None else " ".join(["gqlbench", *sys.argv[1:]])),
        "timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
        **extra,
    }


# -- samples.jsonl -------------------------------------------------------------


def ensure_writable(out_dir: Path, overwrite: bool = False) -> None:
    """Refuse a folder that already holds results, unless the user asked to overwrite them."""
    if out_dir.exists() and not out_dir.is_dir():
        raise GqlbenchError(f"{out_dir}: exists and is not a folder; choose another --out")
    existing = [name for name in (SAMPLES_FILE, RESULTS_FILE, REPORT_FILE) if (out_dir / name).exists()]
    if existing and not overwrite:
        raise GqlbenchError(
            f"{out_dir} already holds results ({', '.join(existing)}); pass --overwrite to replace them or choose another --out"
        )


def _line(result: SampleResult) -> str:
    """One ``samples.jsonl`` line; text UTF-8 cannot encode (lone surrogates) becomes U+FFFD."""
    try:
        return result.model_dump_json() + "\n"
    except PydanticSerializationError:  # other failures raise again below
        return SampleResult.model_validate(utf8_data(result.model_dump())).model_dump_json() + "\n"


def append_sample(path: Path, result: SampleResult) -> None:
    """Append one finished sample and flush it, so an interrupted run keeps it."""
    line = _line(result)  # serialized first: a failure never leaves half a line
    with open_run_file(path, "a") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def _parse_line(line: str, where: str) -> SampleResult:
    try:
        return SampleResult.model_validate_json(line)
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] == "json_invalid":  # e.g. a "\ud800" escape, which pydantic's parser refuses
            try:
                return SampleResult.model_validate(utf8_data(json.loads(line)))
            except (ValueError, ValidationError):
                pass
        place = ".".join(map(str, first["loc"])) or "line"
        raise GqlbenchError(f"{where}: not a sample result ({place}: {first['msg']})") from None


def _split(data: bytes) -> tuple[list[bytes], bytes]:
    """Complete lines (each with its ``\\n``) and what follows the last newline."""
    cut = data.rfind(b"\n") + 1
    return data[:cut].split(b"\n")[:-1], data[cut:]


def _is_result(fragment: bytes) -> bool:
    try:
        _parse_line(fragment.decode("utf-8"), "")
    except (UnicodeDecodeError, GqlbenchError):
        return False
    return True


def read_samples(path: Path, *, every: bool = False) -> list[SampleResult]:
    """Read ``samples.jsonl`` back: one result per id (the first, should a hand edit repeat one), in file order.

    A run with ``--samples K`` has K lines per id, told apart by their
    ``completion`` index (:mod:`gqlbench.run.repeated`); this returns completion 0
    of each sample (the lines Table 2 scores), or with ``every`` one line per
    (id, completion). A last line without its newline is kept when it is a whole
    result, and left out otherwise: it was cut by a kill while being appended
    (see :func:`repair_samples`). Any other line that is not a sample result is
    an error naming the file and the line.
    """
    data = path.read_bytes()
    offset = len(BOM) if data.startswith(BOM) else 0  # a hand edit in an editor that adds one
    lines, tail = _split(data[offset:])
    if tail.strip() and _is_result(tail):
        lines.append(tail)
    results: dict[tuple[str, int], SampleResult] = {}
    for number, raw in enumerate(lines, start=1):
        where = f"{path}:{number}"
        line = decode_line(raw, where, offset)
        offset += len(raw) + 1
        if line.strip():
            result = _parse_line(line, where)
            results.setdefault((result.id, completion_index(result)), result)
    return [r for (_, index), r in results.items() if every or index == 0]


def repair_samples(path: Path) -> str | None:
    """Make ``samples.jsonl`` end with a newline again, so appends start a line; says what changed (None: nothing).

    A last line cut by a kill is removed; a whole result that only lacks its
    newline gets one.
    """
    refuse_link(path)  # the first file a resume touches
    if not path.is_file():
        return None
    data = path.read_bytes()
    _, tail = _split(data)
    if not tail:
        return None
    if _is_result(tail):
        with open_run_file(path, "ab") as fh:
            fh.write(b"\n")
        return None
    with open_run_file(path, "r+b") as fh:
        fh.truncate(len(data) - len(tail))
    return f"{path}: dropped an unfinished last line ({len(tail)} bytes; the previous run was interrupted while writing it)"


# -- results.json --------------------------------------------------------------


def results_document(
    results: Sequence[SampleResult],
    missing: Sequence[str] = (),
    meta: Mapping[str, object] | None = None,
    *,
    repeated: Mapping[str, Mapping[str, object]] | None = None,
    usage: tuple[dict, dict] | None = None,
) -> ResultsDocument:
    """The content of ``results.json`` for a run's sample results (``meta["bootstrap"]``: resamples of the intervals).

    ``repeated``: pass@k / pass^k per group (:func:`gqlbench.run.repeated.repeated_metrics`), added to that
    group's metrics; ``usage``: the ``cost`` and ``latency`` blocks (:func:`gqlbench.run.usage.usage_blocks`).
    """
    resamples = int((meta or {}).get("bootstrap", DEFAULT_RESAMPLES))  # type: ignore[call-overload]
    metrics = add_uncertainty(aggregate(results), results, resamples)
    for group, values in (repeated or {}).items():
        metrics.setdefault(group, {}).update(values)
    cost, latency = usage if usage is not None else (None, None)
    return ResultsDocument(
        metrics=metrics,
        skipped=[SkippedSample(id=r.id, reason=r.skipped) for r in results if r.skipped is not None],
        missing=list(missing),
        meta=dict(meta or {}),
        cost=cost,
        latency=latency,
        difficulty=difficulty_breakdown(results),
        gold_failures=gold_failures(results) or None,
    )


def gold_failures(results: Sequence[SampleResult]) -> dict[str, str]:
    """Sample id -> ``"<kind>: <message>"`` for each sample whose gold program failed on the mock world."""
    found = {}
    for result in results:
        error = result.explanation.exec.gold_error if result.explanation.exec is not None else None
        if error is not None:
            found[result.id] = f"{error.kind}: {error.message}"
    return found


def write_results(path: Path, document: ResultsDocument) -> None:
    write_json(path, document.model_dump())


_MAX_DIGITS = 4300  # Python's limit on int <-> str conversion (sys.get_int_max_str_digits)


class _TooLong(int):
    """An integer literal too long to convert, kept as a marker so the error can name its field."""

    digits: int


def _parse_int(literal: str) -> int:
    if len(literal.lstrip("-")) <= _MAX_DIGITS:
        return int(literal)
    marker = _TooLong(0)
    marker.digits = len(literal.lstrip("-"))
    return marker


def _too_long(data: object, place: str = "") -> tuple[str, int] | None:
    """The field (``metrics.overall.n_samples``) of the first over-long integer in ``data``, and its digits."""
    if isinstance(data, _TooLong):
        return place or "(top level)", data.digits
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        found = _too_long(value, f"{place}.{key}" if place else str(key))
        if found is not None:
            return found
    return None


def _read_json(path: Path) -> object:
    """A JSON file, its strings made UTF-8-safe (a ``"\\ud800"`` escape would break printing them).

    An integer of over 4,300 digits (which Python cannot convert, nor print) is
    an error naming the field, not a traceback.
    """
    text = "".join(line for _, line in read_lines(path))
    try:
        data = json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        raise GqlbenchError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    found = _too_long(data)
    if found is not None:
        raise GqlbenchError(f"{path}: {found[0]}: a number of {found[1]:,} digits, too long to be a count or a score; fix the field")
    return utf8_data(data)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def _check_metrics(path: Path, metrics: Mapping[str, Mapping[str, Any]]) -> None:
    """The per-group maps the report and viewer compute with: ``errors`` holds counts, ``ci`` pairs of numbers.

    A scalar metric value of another type is left alone: reports show it as the text it is.
    """
    for group, values in metrics.items():
        errors = values.get("errors", {})
        if not isinstance(errors, dict):
            raise GqlbenchError(f"{path}: metrics.{group}.errors: not a map of error kind to count; fix or remove it")
        for kind, count in errors.items():
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise GqlbenchError(f"{path}: metrics.{group}.errors.{kind}: {_shown(count)} is not a count (a whole number); fix it")
        _check_intervals(path, f"metrics.{group}.ci", values.get("ci", {}))


def _check_intervals(path: Path, where: str, ci: object) -> None:
    """A ``ci`` map: each metric's interval is ``[low, high]`` (numbers) or null."""
    if not isinstance(ci, dict):
        raise GqlbenchError(f"{path}: {where}: not a map of metric to [low, high]; fix or remove it")
    for name, interval in ci.items():
        pair = isinstance(interval, list) and len(interval) == 2
        if interval is not None and not (pair and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in interval)):
            raise GqlbenchError(f"{path}: {where}.{name}: {_shown(interval)} is not [low, high]; fix or remove it")


def read_results(path: Path) -> ResultsDocument:
    """Read a ``results.json``; errors name the file and the field."""
    if not path.is_file():
        raise GqlbenchError(f"{path}: no such file; is {path.parent} a folder written by gqlbench evaluate or run?")
    document = _read_json(path)
    if not isinstance(document, dict) or not isinstance(document.get("metrics"), dict):
        raise GqlbenchError(f"{path}: has no 'metrics' object; it was not written by gqlbench")
    try:
        parsed = ResultsDocument.model_validate(document)
    except ValidationError as exc:
        first = exc.errors()[0]
        place = ".".join(map(str, first["loc"]))
        raise GqlbenchError(f"{path}: {place}: {first['msg']}; it was not written by gqlbench, or was edited by hand") from None
    _check_metrics(path, parsed.metrics)
    if parsed.relevance is not None:
        _check_intervals(path, "relevance.ci", parsed.relevance.get("ci", {}))
    problem = usage_problem(parsed.cost, parsed.latency)
    if problem is not None:
        raise GqlbenchError(f"{path}: {problem}; it was not written by gqlbench, or was edited by hand")
    return parsed


def read_config(run_dir: Path) -> RunConfig | None:
    """A run folder's ``config.json`` (written by ``gqlbench run``), or None when it has none (``evaluate --out``).

    The one reader of the file (:func:`gqlbench.run.folder.read_config` is this):
    invalid JSON and a field of the wrong shape are errors naming the file.
    """
    from gqlbench.run.config import RunConfig

    path = run_dir / CONFIG_FILE
    if not path.is_file():
        return None
    return RunConfig.from_json(_read_json(path), path)


# -- tables --------------------------------------------------------------------


def table_columns(metric_groups: Iterable[Mapping[str, object]], table2_only: bool = False) -> list[Metric]:
    """The registered metrics in order: the paper's, and the others some group has (optional ones: a value).

    A results.json written before a metric was registered has no column for
    it. ``table2_only`` keeps the paper's Table 2 metrics only. The finer
    scores are never columns here: report.md shows them with their intervals.
    """
    groups = list(metric_groups)
    return [
        m
        for m in all_metrics()
        if not m.finer
        and (m.table2 or not table2_only)
        and (m.table2 or any((g.get(m.name) is not None) if m.optional else (m.name in g) for g in groups))
    ]


def render_table(metrics: Mapping[str, Mapping[str, object]], fmt: str = "github", table2_only: bool = False, first: str = "Domain") -> str:
    """Table 2 of the paper: a row for overall, then one per domain; four decimals.

    ``fmt`` is any tabulate format ("github" for Markdown, "latex" for a paper).
    """
    columns = table_columns(metrics.values(), table2_only)
    rows = [[name, *(group.get(c.name) for c in columns)] for name, group in metrics.items()]
    headers = [first, *(c.title for c in columns)]
    return tabulate(rows, headers=headers, tablefmt=fmt, floatfmt=".4f", missingval="-")


def _counts(metrics: Mapping[str, Mapping[str, object]]) -> str:
    overall = metrics.get("overall", {})
    domains = ", ".join(f"{name} {group.get('n_samples', 0)}" for name, group in metrics.items() if name != "overall")
    text = f"{overall.get('n_samples', 0)} scored samples"
    if domains:
        text += f" ({domains})"
    return text + f", {overall.get('n_gold_calls', 0)} gold calls"


def _meta_value(key: str, value: object) -> object:
    """A ``Run:`` item as read: ``shots_shown`` as "20 samples got 3, 12 samples got 1", ``excluded_shots`` comma-separated."""
    if key == "shots_shown" and isinstance(value, Mapping):
        return ", ".join(f"{count} samples got {n}" for n, count in value.items()) or "none"
    if key == "excluded_shots" and isinstance(value, list):
        return ", ".join(map(str, value))
    return value


def shots_shortfall(meta: Mapping[str, object]) -> str | None:
    """ "asked for 3 few-shot examples; 10 samples got 2, 2 samples got 1" when the context kept fewer for some sample, else None."""
    asked, shown = meta.get("shots"), meta.get("shots_shown")
    if not isinstance(asked, int) or not isinstance(shown, Mapping) or set(shown) <= {str(asked)}:
        return None
    return f"asked for {asked} few-shot examples; {_meta_value('shots_shown', shown)} (the context kept fewer)"


GOLD_FAILURES_NOTE = (
    "These samples have no Exec Match (nothing to compare against) and are left out of its average; "
    "a benchmark's errata.json may document why (non_executable_gold), `gqlbench domains check` lists them."
)


def render_report(document: ResultsDocument, title: str = "gqlbench results") -> str:
    """``report.md``: the table, what was scored, and what was not (skipped, missing)."""
    metrics = document.metrics
    lines = [f"# {title}", "", render_table(metrics), "", _counts(metrics) + "."]
    shortfall = shots_shortfall(document.meta)
    if shortfall:
        lines += ["", f"{shortfall[0].upper()}{shortfall[1:]}."]
    if document.skipped:
        lines += ["", "Skipped (invalid gold program, excluded from every metric):", ""]
        lines += [f"- `{s.id}`: {s.reason}" for s in document.skipped]
    if document.missing:
        lines += ["", f"Missing predictions (scored 0): {', '.join(f'`{m}`' for m in document.missing)}"]
    excluded = document.meta.get("excluded_shots")
    if isinstance(excluded, list) and excluded:
        lines += ["", f"Not evaluated: the {len(excluded)} few-shot examples (`--split all` leaves them out): "]
        lines[-1] += ", ".join(f"`{e}`" for e in excluded)
    lines += uncertainty_section(metrics, metric_titles())
    if document.gold_failures:
        lines += ["", "## Gold programs that fail on the mock world", "", GOLD_FAILURES_NOTE, ""]
        lines += [f"- `{sample_id}`: {reason}" for sample_id, reason in document.gold_failures.items()]
    lines += difficulty_section(document.difficulty)
    if document.relevance is not None:
        from gqlbench.scoring.relevance_scores import render_relevance

        lines += [
            "",
            "## Cases that cannot be done (relevance)",
            "",
            "The table above scores the possible cases only; these rates are their own block.",
            "",
            render_relevance(document.relevance),
        ]
    lines += repeated_section(metrics, int(document.meta.get("samples") or 1), metric_titles())
    lines += usage_section(document.cost, document.latency)
    if document.meta:
        lines += ["", "Run:", ""]
        lines += [f"- {key}: `{_meta_value(key, value)}`" for key, value in document.meta.items()]
    return escape_controls("\n".join(lines)) + "\n"  # ids and reasons come from input files


def write_document(out_dir: Path, document: ResultsDocument) -> None:
    """Write ``results.json`` and ``report.md`` of an already built document, together."""
    write_files(_summary_files(out_dir, document))


def _summary_files(out_dir: Path, document: ResultsDocument) -> dict[Path, Iterable[str]]:
    return {out_dir / RESULTS_FILE: [json_text(document.model_dump())], out_dir / REPORT_FILE: [utf8_text(render_report(document))]}


def write_run(
    out_dir: Path,
    results: Sequence[SampleResult],
    missing: Sequence[str] = (),
    meta: Mapping[str, object] | None = None,
    overwrite: bool = False,
) -> ResultsDocument:
    """Write all three files of a scored run into ``out_dir`` (refusing to clobber results).

    All or nothing: should writing fail, ``out_dir`` keeps its previous files,
    and a folder this call created is removed again. A file system error (a full
    disk, no permission) is a :class:`GqlbenchError` that says so.
    """
    ensure_writable(out_dir, overwrite)
    document = results_document(results, missing, meta)
    created = not out_dir.exists()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        write_files({out_dir / SAMPLES_FILE: (_line(r) for r in results), **_summary_files(out_dir, document)})
    except BaseException as exc:
        if created:
            with contextlib.suppress(OSError):
                out_dir.rmdir()  # only when empty: nothing of ours was left in it
        if isinstance(exc, OSError):
            raise GqlbenchError(
                f"{out_dir}: could not write the results ({exc.strerror or exc}); check free space and permissions, then run again"
            ) from None
        raise
    return document
