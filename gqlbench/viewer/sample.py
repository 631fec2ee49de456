"""One sample's page: request, programs, dataflow pictures, arguments, execution, errors, model text."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from gqlbench.metrics import functions_for, get_metric
from gqlbench.records import Sample, SampleResult, ShortenedResult, Trace
from gqlbench.viewer.data import error_kinds, passes
from gqlbench.viewer.flow import Comparison, argument_rows, compare
from gqlbench.viewer.graph import dataflow_svg
from gqlbench.viewer.text import TEXT_CHARS, bounded, clip, esc, safe_id, side_by_side, truncation_note

__all__ = ["PROGRAM_LINES", "sample_page", "score_badges", "gold_code", "predicted_code", "sample_comparison"]

# What one sample's page embeds at most, with text.CELL_CHARS and text.TEXT_CHARS (samples.jsonl keeps everything).
PROGRAM_LINES = 300  # lines of a program drawn as a diff (each line is a table row)
TRACE_CALLS = 100  # rows of one execution trace (fewer when they pass 2 x TEXT_CHARS)

LEGEND = '<p class="legend"><span class="l-matched">■ matched</span><span class="l-missing">▢ missing (gold only)</span><span class="l-extra">▢ extra (prediction only)</span></p>'


def score_badges(result: SampleResult) -> str:
    if result.skipped is not None:
        return '<span class="badge na">skipped</span>'
    badges = []
    for metric, value in passes(result).items():
        cls = "na" if value is None else ("pass" if value else "fail")
        badges.append(f'<span class="badge {cls}" title="{esc(metric)}">{esc(get_metric(metric).label)}</span>')
    s = result.scores
    badges.append(f'<span class="badge na" title="matched gold calls">{s.matched_calls}/{s.gold_calls} calls</span>')
    return "".join(badges)


def gold_code(result: SampleResult, sample: Sample | None) -> str:
    return sample.gold_code if sample is not None else result.explanation.gold_code or ""


def predicted_code(result: SampleResult) -> str:
    return result.explanation.code or ""


def sample_comparison(result: SampleResult, sample: Sample | None) -> Comparison | None:
    """Both programs analysed; None when the gold program is unknown (a benchmark the viewer cannot read)."""
    gold = gold_code(result, sample)
    if not gold:
        return None
    return compare(gold, predicted_code(result), functions_for(sample) if sample is not None else {}, trusted_gold=sample is not None)


def _kv_table(rows: Mapping[str, Any]) -> str:
    body = "".join(f"<tr><th>{esc(k)}</th><td>{bounded(v)}</td></tr>" for k, v in rows.items() if v not in (None, "", [], {}))
    return f"<table>{body}</table>" if body else ""


def _functions(sample: Sample | None) -> str:
    if sample is None:
        return '<p class="muted">The benchmark sample was not found: utterance, functions and gold program are unavailable.</p>'
    rows = []
    for spec in sample.function_specs:
        params = ", ".join(
            f"{name}: {p.type}" + ("*" if name in spec.parameters.required else "") for name, p in spec.parameters.properties.items()
        )
        rows.append(f"<tr><td><code>{esc(spec.name)}</code></td><td><code>{esc(params)}</code></td><td>{esc(spec.description)}</td></tr>")
    table = f"<table><tr><th>function</th><th>parameters (* required)</th><th>description</th></tr>{''.join(rows)}</table>"
    return f"<details><summary>Offered functions ({len(sample.function_specs)})</summary>{table}</details>"


def _graphs(comparison: Comparison | None, uid: str) -> str:
    if comparison is None:
        return '<p class="muted">No gold program to compare with.</p>'
    figures = []
    for name, flow in (("gold", comparison.gold), ("predicted", comparison.predicted)):
        note = f'<p class="muted">{esc(flow.note)}</p>' if flow.note else ""
        figures.append(
            f'<figure data-program="{name}"><figcaption>{name}</figcaption>{dataflow_svg(flow, f"{name} dataflow", f"{uid}-{name}")}{note}</figure>'
        )
    return LEGEND + f'<div class="graphs">{"".join(figures)}</div>'


def _arguments(comparison: Comparison | None) -> str:
    if comparison is None or not comparison.gold_analysis.calls:
        return ""
    rows = []
    for row in argument_rows(comparison):
        cls = "pass" if row["equal"] else "fail"
        got = "(no such call)" if row["paired"] is None else ("(not passed)" if row["got"] is None else row["got"])
        rows.append(
            f"<tr><td><code>{esc(row['call'])}</code></td><td><code>{esc(row['argument'])}</code></td>"
            f'<td><code>{bounded(row["expected"])}</code></td><td><code>{bounded(got)}</code></td><td class="{cls}">{"yes" if row["equal"] else "no"}</td></tr>'
        )
    head = "<tr><th>gold call</th><th>argument</th><th>expected</th><th>got</th><th>equal?</th></tr>"
    return f'<h2>Arguments</h2><table class="args">{head}{"".join(rows)}</table>'


def _errors(result: SampleResult) -> str:
    ex = result.explanation
    items = []
    for key, value in (("missing", ex.missing), ("parse_error", ex.parse_error), ("too_large", ex.too_large)):
        if value:
            items.append(f"<li><b>{key}</b>: {bounded(value)}</li>")
    extra = result.model_extra or {}
    if extra.get("error"):
        items.append(f"<li><b>generation</b>: {bounded(extra['error'])}</li>")
    exec_error = ex.exec.error if ex.exec is not None else None
    if exec_error is not None:
        line = f" (line {exec_error.line})" if exec_error.line else ""
        items.append(f"<li><b>execution: {esc(exec_error.kind)}</b>{esc(line)}: {bounded(exec_error.message)}</li>")
    for m in ex.gold_calls or []:
        if isinstance(m, Mapping) and m.get("reason"):
            items.append(f"<li><b>unmatched</b> <code>{bounded(m.get('gold'))}</code>: {bounded(m['reason'])}</li>")
    table = ""
    listed = ex.error_list()
    if listed:
        keys = ["kind", "call", "argument", "expected", "got", "detail"]
        rows = "".join("<tr>" + "".join(f"<td>{bounded(e.get(k, ''))}</td>" for k in keys) + "</tr>" for e in listed)
        table = f'<table class="errors"><tr>{"".join(f"<th>{k}</th>" for k in keys)}</tr>{rows}</table>'
    if not items and not table:
        return ""
    kinds = " ".join(f'<span class="badge fail">{esc(k)}</span>' for k in error_kinds(result))
    return f"<h2>Errors {kinds}</h2><ul>{''.join(items)}</ul>{table}"


def _trace_table(record: Trace | None, diverge: int | None) -> str:
    if record is None:
        return '<p class="muted">no trace</p>'
    trace = record.model_dump(mode="json")
    rows: list[str] = []
    calls = trace.get("calls") or []
    size = 0
    for i, call in enumerate(calls[:TRACE_CALLS]):
        if size > TEXT_CHARS * 2:
            break
        cls = ' class="diverge"' if i == diverge else ""
        args = json.dumps(call.get("arguments"), ensure_ascii=False)
        ids = call.get("response_ids") or []
        shown = ", ".join(map(str, ids[:6])) + (f" … (+{len(ids) - 6})" if len(ids) > 6 else "")
        rows.append(
            f"<tr{cls}><td>{i}</td><td><code>{bounded(call.get('function'))}</code></td><td><code>{bounded(args)}</code></td>"
            f"<td>{bounded(shown)}</td><td>{bounded(call.get('error') or '')}</td></tr>"
        )
        size += len(rows[-1])
    if len(rows) < len(calls):
        rows.append(
            f'<tr><td colspan="5" class="truncated">[truncated: {len(rows)} of {len(calls)} calls shown; the run folder\'s samples.jsonl has the rest]</td></tr>'
        )
    if diverge is not None and diverge >= min(len(calls), TRACE_CALLS):
        rows.append(
            f'<tr class="diverge"><td>{esc(diverge)}</td><td colspan="4">{"(no call here)" if diverge >= len(calls) else "(not shown)"}</td></tr>'
        )
    head = "<tr><th>#</th><th>function</th><th>arguments</th><th>response ids</th><th>error</th></tr>"
    error = trace.get("error")
    tail = f"<p><b>error</b>: {esc(error.get('kind'))}: {bounded(error.get('message'))}</p>" if isinstance(error, Mapping) else ""
    stdout = f"<details><summary>stdout</summary><pre>{bounded(trace['stdout'], TEXT_CHARS)}</pre></details>" if trace.get("stdout") else ""
    return f'<table class="trace">{head}{"".join(rows)}</table>{tail}{stdout}'


def _execution(result: SampleResult) -> str:
    ex = result.explanation.exec
    if ex is None:
        return '<h2>Execution</h2><p class="muted">Not executed in this run (no execution traces).</p>'
    if ex.not_run:
        return f'<h2>Execution</h2><p class="muted">{esc(ex.not_run)}</p>'
    at = ex.divergence.index if ex.divergence is not None else None
    summary = _kv_table(
        {
            "same calls": ex.same_calls,
            "same final state": ex.same_final_state,
            "prediction not run": ex.pred_not_run,
            "first divergence at call": at,
        }
    )
    cols = "".join(
        f"<div><h3>{name}</h3>{_trace_table(trace, at)}</div>" for name, trace in (("gold", ex.gold_trace), ("predicted", ex.pred_trace))
    )
    return f'<h2>Execution</h2>{summary}<div class="cols">{cols}</div>'


def _tool_arguments(entries: Any) -> str:
    """``--prompt tools``: where each argument of a tool call came from (a response field, or typed: ``literal``)."""
    if not isinstance(entries, list) or not entries:
        return ""
    rows = []
    for entry in entries:
        entry = entry if isinstance(entry, Mapping) else {}
        candidates = entry.get("candidates")
        others = ", ".join(str(c) for c in candidates if c != entry.get("source")) if isinstance(candidates, list) else ""
        why = str(entry.get("chosen_because") or "") + (f" (read from {entry['read_from']})" if entry.get("read_from") else "")
        rows.append(
            f"<tr><td>{bounded(str(entry.get('call', '')))}</td><td><code>{bounded(str(entry.get('function', '')))}</code></td>"
            f"<td><code>{bounded(str(entry.get('argument', '')))}</code></td>"
            f"<td><code>{bounded(json.dumps(entry.get('value'), ensure_ascii=False))}</code></td>"
            f"<td><code>{bounded(str(entry.get('source', '')))}</code></td><td><code>{bounded(others)}</code></td>"
            f"<td>{bounded(why)}</td></tr>"
        )
    head = "<tr><th>call</th><th>function</th><th>argument</th><th>value</th><th>source</th><th>other candidates</th><th>why</th></tr>"
    return f'<h2>Tool-call arguments</h2><table class="steps">{head}{"".join(rows)}</table>'


def _shortened_results(results: Sequence[ShortenedResult] | None) -> str:
    """``--prompt tools``: the results the model was shown shortened to the run's bound."""
    if not results:
        return ""
    items = "".join(
        f"<li>step {r.step} ({bounded(r.function)}): {r.shown_chars:,} of {r.chars:,} characters shown, "
        f"{r.items_left_out:,} items or fields and {r.chars_left_out:,} characters of strings left out</li>"
        for r in results
    )
    return f"<p>Tool results shown shortened:</p><ul>{items}</ul>"


def _steps(steps: Sequence[Any], title: str = "ReAct steps") -> str:
    if not steps:
        return ""
    rows = []
    for i, step in enumerate(steps, start=1):
        step = step if isinstance(step, Mapping) else {"raw": step}
        rows.append(
            f"<tr><td>{i}</td><td>{bounded(step.get('thought') or '')}</td><td><code>{bounded(step.get('action') or '')}</code></td>"
            f"<td><pre>{bounded(step.get('observation') if step.get('observation') is not None else '', TEXT_CHARS)}</pre></td></tr>"
        )
    head = "<tr><th>step</th><th>thought</th><th>action</th><th>observation</th></tr>"
    return f'<h2>{esc(title)}</h2><table class="steps">{head}{"".join(rows)}</table>'


def sample_page(run_index: int, result: SampleResult, sample: Sample | None) -> str:
    """The ``<section>`` of one sample in one run; its id ``r<run>/<sample id>`` is its link."""
    extra = result.model_extra or {}
    page_id = f"r{run_index}/{result.id}"
    parts = [
        f'<section class="page sample" id="{esc(page_id)}">',
        f'<h1><a href="#{esc(page_id)}">{esc(result.id)}</a> <span class="muted">{esc(result.domain)}</span></h1>',
        score_badges(result),
    ]
    if result.skipped is not None:
        parts.append(f"<p><b>Skipped</b>: {bounded(result.skipped)}</p>")
    if sample is not None:
        parts.append(f'<h2>Request</h2><p class="utterance">{esc(sample.utterance)}</p>')
    parts.append(_functions(sample))
    comparison = sample_comparison(result, sample)
    gold, gold_cut = clip(gold_code(result, sample), TEXT_CHARS, PROGRAM_LINES)  # a run folder's, without the benchmark
    code, cut = clip(predicted_code(result), TEXT_CHARS, PROGRAM_LINES)
    parts.append("<h2>Programs</h2>" + side_by_side(gold, code) + truncation_note(gold_cut) + truncation_note(cut))
    parts.append("<h2>Dataflow</h2>" + _graphs(comparison, safe_id("g", run_index, result.id)))
    tools = result.explanation.tool_arguments
    parts += [
        _arguments(comparison),
        _errors(result),
        _execution(result),
        _steps(extra.get("steps") or [], "Tool calls" if tools is not None else "ReAct steps"),
        _tool_arguments(tools),
        _shortened_results(result.explanation.shortened_tool_results),
    ]
    cost = {k: extra.get(k) for k in ("tokens_in", "tokens_out", "latency_s", "finish_reason")}
    if any(v is not None for v in cost.values()):
        parts.append("<h2>Generation</h2>" + _kv_table(cost))
    raw = extra.get("raw_output", extra.get("prediction"))
    if raw is not None:
        parts.append(
            f"<details><summary>Raw model text ({len(str(raw)):,} characters)</summary><pre>{bounded(raw, TEXT_CHARS)}</pre></details>"
        )
    parts.append("</section>")
    return "".join(parts)
