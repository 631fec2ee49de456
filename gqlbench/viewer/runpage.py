"""A run's overview page and its sample list with filters."""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from gqlbench.metrics import all_metrics, metric_titles
from gqlbench.viewer.charts import grouped_bars
from gqlbench.viewer.data import (
    RunView,
    error_counts,
    error_kinds,
    pass_metrics,
    passes,
)
from gqlbench.viewer.text import TEXT_CHARS, bounded, clean, esc

__all__ = ["fixed", "is_number", "metric_sections", "metric_columns", "metric_cell", "metrics_table", "run_overview", "sample_list"]


def metric_sections(groups: Sequence[Mapping[str, Any]]) -> list[tuple[str, list[str]]]:
    """The rows of a metrics table, in sections: the registered scores (Table 2's, execution when
    measured, outside ones), the finer scores, then every other number results.json has (counts)."""
    registered = [m for m in all_metrics() if m.table2 or any(g.get(m.name) is not None for g in groups)]
    scores = [m.name for m in registered if not m.finer]
    finer = [m.name for m in registered if m.finer]
    counts: list[str] = []
    for group in groups:
        for key, value in group.items():
            if key not in scores and key not in finer and key not in counts and is_number(value):
                counts.append(key)
    return [(title, names) for title, names in (("Scores", scores), ("Finer scores", finer), ("Counts", counts)) if names]


def metric_columns(groups: list[Mapping[str, Any]]) -> list[str]:
    """Every metric and number of :func:`metric_sections`, in order."""
    return [name for _, names in metric_sections(groups) for name in names]


def metric_cell(group: Mapping[str, Any], column: str) -> str:
    """A metric with its interval (``ci.<metric>`` = [lo, hi]) when the results have one."""
    value = group.get(column)
    if value is None:
        return '<td class="num na">–</td>'
    if not is_number(value):  # a hand-edited results.json: shown as the text it is, never as markup
        return f'<td class="text" data-metric="{esc(column)}">{esc(value)}</td>'
    text = esc(fixed(value, 4) if isinstance(value, float) else value)
    ci = (group.get("ci") or {}).get(column) if isinstance(group.get("ci"), Mapping) else None
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(is_number(x) for x in ci):
        text += f' <span class="ci">[{esc(fixed(ci[0], 3))}, {esc(fixed(ci[1], 3))}]</span>'
    return f'<td class="num" data-metric="{esc(column)}">{text}</td>'


def fixed(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals; an int too large for a float is written out instead of raising."""
    try:
        return f"{value:.{digits}f}"
    except OverflowError:
        return clean(value)


def is_number(value: object) -> bool:
    """An int or float as JSON numbers read (not a bool, not a string that looks like a number)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def metrics_table(columns: Sequence[tuple[str, Mapping[str, Any] | None]], css: str = "metrics") -> str:
    """Metrics as rows (in :func:`metric_sections`), one column per group (a domain, or a run).

    Transposed so that the table grows downwards as metrics are registered: a
    page holds any number of them without scrolling sideways.
    """
    titles = metric_titles()
    sections = metric_sections([group for _, group in columns if group])
    head = "".join(f"<th>{esc(label)}</th>" for label, _ in columns)
    body = []
    for title, names in sections:
        body.append(f'<tr class="section"><th colspan="{len(columns) + 1}">{esc(title)}</th></tr>')
        for name in names:
            cells = "".join(metric_cell(group, name) if group else '<td class="num na">–</td>' for _, group in columns)
            body.append(f'<tr data-row="{esc(name)}"><th>{esc(titles.get(name, name))}</th>{cells}</tr>')
    return f'<table class="{css}"><thead><tr><th>Metric</th>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _configuration(run: RunView) -> str:
    config, meta = run.config, run.document.meta
    settings = config.get("settings") if isinstance(config.get("settings"), Mapping) else {}
    git = config.get("git") if isinstance(config.get("git"), Mapping) else {}
    rows: dict[str, Any] = {
        "folder": str(run.path),
        "model": config.get("model") or meta.get("model"),
        "backend": config.get("backend"),
        "prompt style": config.get("prompt") or meta.get("prompt"),
        "split": config.get("split") or meta.get("split") or meta.get("splits"),
        "settings": settings,
        "shots shown": meta.get("shots_shown"),  # samples per number of examples their prompts kept
        "excluded shots": ", ".join(map(str, config.get("excluded_shots") or meta.get("excluded_shots") or [])),  # --split all
        "generation": config.get("generation"),
        "versions": config.get("versions") or meta.get("gqlbench_version"),
        "data hash": config.get("data_hash") or meta.get("data_hash"),
        "git commit": git.get("commit") if git else None,
        "command": meta.get("command"),
        "created": config.get("created") or meta.get("timestamp"),
    }
    body = "".join(f"<tr><th>{esc(k)}</th><td>{_setting_html(v)}</td></tr>" for k, v in rows.items() if v not in (None, "", {}, []))
    return f"<table>{body}</table>"


def _setting_html(value: Any) -> str:
    """A configuration value as it reads in config.json: a mapping one ``key: value`` per line, values in JSON."""
    if isinstance(value, Mapping):
        return "<br>".join(f"<code>{bounded(k)}: {bounded(json.dumps(v, default=str))}</code>" for k, v in value.items())
    return f"<code>{bounded(value)}</code>"


def _cost(run: RunView) -> str:
    extras = [r.model_extra or {} for r in run.results]
    latencies = [float(e["latency_s"]) for e in extras if isinstance(e.get("latency_s"), (int, float))]
    tokens_in = sum(int(e.get("tokens_in") or 0) for e in extras)
    tokens_out = sum(int(e.get("tokens_out") or 0) for e in extras)
    if not latencies and not tokens_in and not tokens_out:
        return ""
    rows: dict[str, object] = {"tokens in (total)": tokens_in, "tokens out (total)": tokens_out}
    if latencies:
        rows |= {
            "latency mean (s)": f"{statistics.mean(latencies):.3f}",
            "latency median (s)": f"{statistics.median(latencies):.3f}",
            "latency max (s)": f"{max(latencies):.3f}",
        }
    body = "".join(f"<tr><th>{esc(k)}</th><td class='num'>{esc(v)}</td></tr>" for k, v in rows.items())
    return f'<h2>Cost and latency</h2><table class="cost">{body}</table>'


def run_overview(run: RunView, index: int) -> str:
    """The run page: configuration, metrics with intervals, error kinds chart, cost, skipped and missing."""
    parts = [f'<section class="page overview" id="r{index}"><h1>{esc(run.label)}</h1>', "<h2>Configuration</h2>", _configuration(run)]
    parts += ["<h2>Metrics</h2>", metrics_table(list(run.metrics.items()))]
    counts = error_counts(run)
    if counts:
        by_kind: dict[str, dict[str, float]] = {}
        for domain, kinds in counts.items():
            for kind, n in kinds.items():
                by_kind.setdefault(kind, {})[domain] = n
        parts.append("<h2>Error kinds</h2>" + grouped_bars(dict(sorted(by_kind.items())), "samples with each error kind, by domain"))
    parts.append(_cost(run))
    skipped, missing = [s.model_dump() for s in run.document.skipped], run.document.missing
    if skipped:
        parts.append(
            "<h2>Skipped</h2><ul>"
            + "".join(f"<li>{bounded(s.get('id'))}: {bounded(s.get('reason'))}</li>" for s in skipped if isinstance(s, Mapping))
            + "</ul>"
        )
    if missing:
        parts.append(f"<h2>Missing predictions ({len(missing)}, scored 0)</h2><p>{bounded(', '.join(map(str, missing)), TEXT_CHARS)}</p>")
    parts.append("</section>")
    return "".join(parts)


def _select(name: str, label: str, options: list[tuple[str, str]]) -> str:
    opts = "".join(f'<option value="{esc(v)}">{esc(t)}</option>' for v, t in options)
    return f'<label>{esc(label)}<select data-filter="{name}"><option value="">any</option>{opts}</select></label>'


def sample_list(run: RunView, index: int) -> str:
    """The sidebar: filters by domain, metric pass/fail and error kind, and one link per sample."""
    titles = metric_titles()
    domains = sorted({r.domain for r in run.results})
    kinds = sorted({k for r in run.results for k in error_kinds(r)})
    filters = [
        _select("domain", "domain", [(d, d) for d in domains]),
        _select("metric", "metric", [(m, titles.get(m, m)) for m in pass_metrics()]),
        _select("outcome", "outcome", [("1", "pass"), ("0", "fail")]),
        _select("error", "error kind", [(k, k) for k in kinds]),
    ]
    items = []
    for result in run.results:
        marks = passes(result)
        data = " ".join(f'data-m-{m}="{"" if v is None else v}"' for m, v in marks.items())
        dots = "".join(f'<span class="dot-{"" if v is None else v}">●</span>' for v in marks.values())
        page = f"r{index}/{result.id}"
        items.append(
            f'<li data-page="{esc(page)}" data-domain="{esc(result.domain)}" data-errors="{esc(" ".join(error_kinds(result)))}" {data}>'
            f'<a href="#{esc(page)}">{esc(result.id)}<span class="dots">{dots}</span></a></li>'
        )
    return (
        f'<aside><a href="#r{index}">run overview</a>{"".join(filters)}<div class="count muted"></div>'
        f'<ul class="samples">{"".join(items)}</ul><p class="muted">j/k or ←/→: next/previous sample</p></aside>'
    )
