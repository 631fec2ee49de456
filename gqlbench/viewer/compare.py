"""The comparison page of several runs: metrics side by side, paired differences, a pass/fail grid, programs across runs.

Each run after the first is compared with the first on their shared samples
(:func:`gqlbench.results.compare.compare_runs`, the same numbers as ``gqlbench
report``): the paired difference, its interval, the test's p-value and the one
verdict it gives, with a warning when the runs share fewer than all samples.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gqlbench.metrics import metric_titles
from gqlbench.results.compare import HEADERS, VERDICT_NOTE, compare_with_first, comparison_cells, shared_warning
from gqlbench.viewer.charts import grouped_bars
from gqlbench.viewer.data import (
    RunView,
    pass_metrics,
    passes,
    shared_ids,
)
from gqlbench.viewer.graph import dataflow_svg
from gqlbench.viewer.runpage import is_number, metric_columns, metrics_table
from gqlbench.viewer.sample import (
    PROGRAM_LINES,
    gold_code,
    predicted_code,
    sample_comparison,
    score_badges,
)
from gqlbench.viewer.text import TEXT_CHARS, clip, esc, highlight_line, safe_id, truncation_note

__all__ = ["comparison_pages"]


def _metrics(runs: Sequence[RunView]) -> str:
    titles = metric_titles()
    columns = metric_columns([g for run in runs for g in run.metrics.values()])
    domains = list(dict.fromkeys(d for run in runs for d in run.metrics))
    tables = "".join(
        f"<h3>{esc(domain)}</h3>" + metrics_table([(run.label, run.metrics.get(domain)) for run in runs], "metrics compare")
        for domain in domains
    )
    chart_data = {
        titles.get(c, c): {run.label: run.metrics["overall"][c] for run in runs if is_number(run.metrics.get("overall", {}).get(c))}
        for c in columns
        if c in titles
    }
    return tables + grouped_bars(chart_data, "overall metrics by run", "{:.3f}")


def _paired(runs: Sequence[RunView], comparisons: Sequence[Mapping[str, Any]]) -> str:
    """Run i minus the first run on their shared samples, one table per pair."""
    titles = metric_titles()
    order = {name: i for i, name in enumerate(titles)}
    parts = ["<h2>Paired differences (B - A on shared samples)</h2>"]
    for run, comparison in zip(runs[1:], comparisons, strict=True):
        if not comparison.get("paired", True):
            parts.append(f"<h3>A = {esc(runs[0].label)}, B = {esc(run.label)}</h3><p>{esc(comparison['reason'])}.</p>")
            continue
        head = f"<h3>A = {esc(runs[0].label)}, B = {esc(run.label)}: {comparison['shared']} shared samples</h3>"
        warning = shared_warning(comparison)
        if warning:
            head += f'<p class="badge fail"><b>{esc(warning)}</b></p>'
        rows = []
        for name, entry in sorted(comparison["metrics"].items(), key=lambda item: order.get(item[0], len(order))):
            cells = comparison_cells(titles.get(name, name), entry, digits=3)
            rows.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>")
        table = (
            f'<table class="metrics compare"><thead><tr>{"".join(f"<th>{esc(h)}</th>" for h in HEADERS)}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
        )
        parts.append(head + (table if rows else "<p>Fewer than two shared samples: nothing to compare.</p>"))
    return "".join(parts) + f"<p>{esc(VERDICT_NOTE)}</p>"


def _grid(runs: Sequence[RunView], ids: list[str]) -> str:
    titles = metric_titles()
    options = "".join(f'<option value="{esc(m)}">{esc(titles.get(m, m))}</option>' for m in pass_metrics())
    controls = (
        f'<p>metric <select id="grid-metric">{options}</select> '
        '<button id="sort-disagree">disagreements first</button> <button id="sort-order">sample order</button></p>'
    )
    head = "".join(f"<th>{esc(run.label)}</th>" for run in runs)
    by_run = [{r.id: r for r in run.results} for run in runs]
    rows = []
    for order, sample_id in enumerate(ids):
        cells = []
        for results in by_run:
            marks = passes(results[sample_id])
            data = " ".join(f'data-m-{m}="{"" if v is None else v}"' for m, v in marks.items())
            cells.append(f'<td class="cell" {data}></td>')
        domain = by_run[0][sample_id].domain
        rows.append(
            f'<tr data-id="{esc(sample_id)}" data-order="{order}"><td class="id"><a href="#compare/{esc(sample_id)}">{esc(sample_id)}</a></td>'
            f"<td>{esc(domain)}</td>{''.join(cells)}</tr>"
        )
    table = f'<table class="grid"><thead><tr><th>sample</th><th>domain</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    return f"<h2>Per sample ({len(ids)} samples every run has)</h2>{controls}{table}"


def _code(code: str) -> str:
    code, cut = clip(code, TEXT_CHARS, PROGRAM_LINES)
    return "<pre>" + "\n".join(highlight_line(line) for line in code.splitlines()) + "</pre>" + truncation_note(cut)


def _sample(runs: Sequence[RunView], sample_id: str) -> str:
    first = runs[0]
    sample = first.samples.get(sample_id)
    result = first.result(sample_id)
    assert result is not None  # ids are shared by every run
    parts = [f'<section class="page" id="compare/{esc(sample_id)}"><h1>{esc(sample_id)} across runs</h1>']
    if sample is not None:
        parts.append(f'<p class="utterance">{esc(sample.utterance)}</p>')
    parts.append("<h2>Gold</h2>" + _code(gold_code(result, sample)))
    columns = []
    for i, run in enumerate(runs):
        run_result = run.result(sample_id)
        assert run_result is not None
        comparison = sample_comparison(run_result, run.samples.get(sample_id))
        svg = "" if comparison is None else dataflow_svg(comparison.predicted, f"{run.label} dataflow", safe_id("c", i, sample_id))
        columns.append(
            f'<div class="run-col"><h3><a href="#r{i}/{esc(sample_id)}">{esc(run.label)}</a></h3>{score_badges(run_result)}'
            f"{_code(predicted_code(run_result))}{svg}</div>"
        )
    parts.append(f'<div class="cols">{"".join(columns)}</div></section>')
    return "".join(parts)


def _data_hash(run: RunView) -> str | None:
    found = run.document.meta.get("data_hash") or run.config.get("data_hash")
    return found if isinstance(found, str) else None


def comparison_pages(runs: Sequence[RunView]) -> str:
    """The comparison's overview section and one section per shared sample."""
    ids = shared_ids(runs)
    comparisons = compare_with_first([run.results for run in runs], [_data_hash(run) for run in runs])
    warnings = [(run, shared_warning(c)) for run, c in zip(runs[1:], comparisons, strict=True) if c.get("paired", True)]
    banner = "".join(f'<p class="badge fail"><b>{esc(run.label)}: {esc(w)}</b></p>' for run, w in warnings if w)
    overview = (
        f'<section class="page" id="compare"><h1>Comparison of {len(runs)} runs</h1>{banner}<h2>Metrics</h2>{_metrics(runs)}'
        f"{_paired(runs, comparisons)}{_grid(runs, ids)}</section>"
    )
    return overview + "".join(_sample(runs, sample_id) for sample_id in ids)
