"""The ``relevance`` block of a relevance run's results.json, and its report lines.

Its own block, never mixed into Table 2 (whose numbers a relevance run computes
on the possible cases only):

- ``explicit_abstention`` (the headline): impossible cases whose answer declines
  explicitly, with the requested ``raise NotSupported(...)`` or a refusal stated
  in words (:mod:`gqlbench.metrics.abstention`), higher is better;
- ``no_call``: impossible cases whose answer calls no API function and does not
  decline (empty, unparsable, prose): reported apart, since an empty answer is
  no correct decline;
- ``false_abstention_rate``: possible cases whose answer declines explicitly, lower is better;
- ``hallucinated_call_rate``: impossible cases that call a function not offered
  (under a wider ``--functions``, not in the offer the prompt showed, as samples.jsonl
  records it), and ``hallucinated_calls`` their number of such calls.

Rates come with a 95% Wilson interval over cases (:func:`gqlbench.results.statistics.mean_estimate`).
A case without a result (failed generation) is left out and counted in ``missing``:
an answer never given is neither a decline nor a call. A block written before
``explicit_abstention`` existed has ``abstention_rate`` instead (no calls and
declines together); it is shown under its own title, never as the headline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tabulate import tabulate

from gqlbench.records import Sample, SampleResult
from gqlbench.scoring.relevance import Dropped, is_impossible_id

__all__ = ["RATES", "relevance_block", "render_relevance"]

RATES = {
    "explicit_abstention": "Explicit abstention (impossible, higher is better)",
    "no_call": "No call, no abstention (impossible: empty, unparsable or prose)",
    "false_abstention_rate": "False abstention (possible, lower is better)",
    "hallucinated_call_rate": "Calls a function not offered (impossible, lower is better)",
}
_OLD_RATES = {"abstention_rate": "Declines or calls nothing (older run, not split; impossible)"}


def _titles(blocks: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The rates to show: :data:`RATES`, and an older block's ``abstention_rate`` under its own title."""
    return RATES | {k: v for k, v in _OLD_RATES.items() if any(k in b for b in blocks)}


def _rate(values: Sequence[bool], resamples: int) -> tuple[float | None, list[float] | None]:
    from gqlbench.results.statistics import mean_estimate

    if not values:
        return None, None
    estimate = mean_estimate([float(v) for v in values], resamples=resamples)
    return round(estimate.value, 6), [round(x, 6) for x in estimate.ci] if estimate.ci else None


def relevance_block(
    samples: Sequence[Sample],
    results: Mapping[str, SampleResult],
    dropped: Sequence[Dropped] = (),
    resamples: int = 10_000,
) -> dict[str, Any]:
    """Scores of a relevance run's cases (``samples``: the planned cases, ``results`` by id)."""
    from gqlbench.metrics.abstention import read_abstention
    from gqlbench.specs import list_domains, load_specs

    domains = set(list_domains())
    cases: list[dict[str, Any]] = []
    missing: list[str] = []
    for sample in samples:
        result = results.get(sample.id)
        extra = (result.model_extra or {}) if result is not None else {}
        code = extra.get("code")
        if result is None or code is None:
            missing.append(sample.id)
            continue
        catalog = load_specs(sample.domain) if sample.domain in domains else {}
        offered = extra.get("offered") or sample.function_names  # a wider --functions records what the prompt offered
        read = read_abstention(str(code), set(offered), set(catalog), answer=str(extra.get("raw_output") or ""))
        cases.append(
            {
                "id": sample.id,
                "case": "impossible" if is_impossible_id(sample.id) else "possible",
                "explicit_abstention": read.explicit,
                "no_call": read.no_call,
                "unoffered": list(read.unoffered),
            }
        )
    impossible = [c for c in cases if c["case"] == "impossible"]
    possible = [c for c in cases if c["case"] == "possible"]
    values = {
        "explicit_abstention": [c["explicit_abstention"] for c in impossible],
        "no_call": [c["no_call"] for c in impossible],
        "false_abstention_rate": [c["explicit_abstention"] for c in possible],
        "hallucinated_call_rate": [bool(c["unoffered"]) for c in impossible],
    }
    block: dict[str, Any] = {"n_impossible": len(impossible), "n_possible": len(possible)}
    intervals: dict[str, list[float] | None] = {}
    for name, flags in values.items():
        block[name], intervals[name] = _rate(flags, resamples)
    block["hallucinated_calls"] = sum(len(c["unoffered"]) for c in impossible)
    block["ci"] = intervals
    block["missing"] = missing
    block["dropped"] = [{"id": d.sample_id, "reason": d.reason} for d in dropped]
    block["cases"] = cases
    return block


def render_relevance(block: Mapping[str, Any], fmt: str = "github") -> str:
    """The block as a small table with intervals, then what was left out."""
    from gqlbench.results.uncertainty import with_ci

    ci = block.get("ci", {})
    rows = [[title, with_ci(block.get(name), ci.get(name))] for name, title in _titles([block]).items()]
    rows.append(["Calls of functions not offered (impossible, count)", str(block.get("hallucinated_calls", 0))])
    lines = [
        f"{block.get('n_impossible', 0)} impossible and {block.get('n_possible', 0)} possible cases, 95% bootstrap intervals.",
        "",
        tabulate(rows, headers=["Relevance", "value"], tablefmt=fmt, disable_numparse=True),
    ]
    if block.get("dropped"):
        lines += ["", "Left out of the relevance set:"]
        lines += [f"- `{d['id']}`: {d['reason']}" for d in block["dropped"]]
    if block.get("missing"):
        lines += ["", f"Without a result (not counted): {', '.join(block['missing'])}"]
    return "\n".join(lines)


def render_relevance_runs(labelled: Sequence[tuple[str, Mapping[str, Any]]], fmt: str = "github") -> str:
    """``gqlbench report``: one row per relevance run (its label, then each rate with its interval)."""
    from gqlbench.results.uncertainty import with_ci

    titles = _titles([block for _, block in labelled])
    rows = []
    for label, block in labelled:
        rates = [with_ci(block.get(name), block.get("ci", {}).get(name)) for name in titles]
        rows.append([label, block.get("n_impossible", 0), *rates, block.get("hallucinated_calls", 0)])
    headers = ["Run", "Impossible cases", *titles.values(), "Calls not offered (count)"]
    table = tabulate(rows, headers=headers, tablefmt=fmt, disable_numparse=True)
    return f"Cases that cannot be done (relevance runs; not part of the table above), 95% intervals\n\n{table}"
