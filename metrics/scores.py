"""The benchmark's four scores, per sample and per split.

Per sample (see the README for the definitions in plain words):

- Arg Match: each gold call matched by a predicted call (:mod:`.matching`);
  ``arg_match_full`` is 1 when all are, ``matched_calls``/``gold_calls`` count them.
- Seq Match (full): the predicted call names in program order equal the gold's.
- Seq Match (connected subsequences): the multiset of weakly connected
  components of the dataflow graph, each as its call names in program order,
  equals the gold's.

Aggregates average the per-sample 0/1 scores over samples, except Arg Match
(functions), which sums matched gold calls over all the gold calls of the split.
Samples whose gold program does not parse are skipped, never scored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import cache

from gqlbench.errors import GqlbenchError
from gqlbench.metrics.calls import ProgramAnalysis, analyze
from gqlbench.metrics.diagnose import diagnose
from gqlbench.metrics.extract import extract_code
from gqlbench.metrics.matching import match_calls
from gqlbench.records import FunctionSpec, Sample, SampleResult, Scores

__all__ = ["METRICS", "EXEC_METRICS", "functions_for", "compare_programs", "score_sample", "missing_result", "aggregate"]

METRICS: tuple[str, ...] = ("arg_match_full", "arg_match_functions", "seq_match_full", "seq_match_conn")
"""The four dataflow metrics, in the paper's column order."""

EXEC_METRICS: tuple[str, ...] = ("exec_success", "exec_match")
"""Execution metrics, present when a sample was executed against a mock world."""


@cache
def _catalog(domain: str) -> dict[str, FunctionSpec]:
    """Every known endpoint of a domain, from ``gqlbench.specs`` when that catalog has it."""
    try:
        from gqlbench.specs import load_specs  # type: ignore[attr-defined]
    except ImportError:
        return {}
    try:
        specs = load_specs(domain)
    except (GqlbenchError, LookupError, OSError):
        return {}  # a domain the catalog does not know: the sample's own specs still apply
    items = specs.values() if isinstance(specs, Mapping) else specs
    return {f.name: f for f in (FunctionSpec.model_validate(f) for f in items)}


def functions_for(sample: Sample) -> dict[str, FunctionSpec]:
    """The functions a sample's programs are read against: its own specs over the domain catalog."""
    return {**_catalog(sample.domain), **{f.name: f for f in sample.function_specs}}


def _components(analysis: ProgramAnalysis) -> list[list[str]]:
    return sorted(list(c) for c in analysis.components())


def compare_programs(gold: ProgramAnalysis, predicted: ProgramAnalysis) -> tuple[Scores, dict]:
    """Score a predicted program against the gold one, with the explanation of every score."""
    explanation: dict = {"code": predicted.code, "parse_error": predicted.parse_error}
    if predicted.too_large is not None:
        explanation["too_large"] = predicted.too_large
    if predicted.parse_error is not None or predicted.too_large is not None:
        scores = Scores(gold_calls=len(gold.calls))
        explanation |= {"gold_sequence": gold.names, "gold_components": _components(gold)}
        return scores, explanation
    matches = match_calls(gold.calls, predicted.calls)
    matched = sum(m.predicted is not None for m in matches)
    scores = Scores(
        arg_match_full=int(matched == len(gold.calls)),
        matched_calls=matched,
        gold_calls=len(gold.calls),
        seq_match_full=int(predicted.names == gold.names),
        seq_match_conn=int(Counter(predicted.components()) == Counter(gold.components())),
    )
    explanation |= {
        "gold_calls": [m.to_json() for m in matches],
        "predicted_calls": [f"{c.token} = {c.render()}" for c in predicted.calls],
        "gold_sequence": gold.names,
        "predicted_sequence": predicted.names,
        "gold_components": _components(gold),
        "predicted_components": _components(predicted),
    }
    return scores, explanation


def _gold(sample: Sample, functions: Mapping[str, FunctionSpec]) -> ProgramAnalysis:
    return analyze(sample.gold_code, functions, limits=None)  # the benchmark's own programs are trusted


def _skipped(sample: Sample, gold: ProgramAnalysis) -> SampleResult:
    return SampleResult(
        id=sample.id,
        domain=sample.domain,
        scores=Scores(),
        skipped=f"gold program does not parse ({gold.parse_error})",
        explanation={"gold_code": sample.gold_code},
    )


def score_sample(
    sample: Sample, prediction: str, functions: Mapping[str, FunctionSpec] | None = None
) -> SampleResult:
    """Score one raw model answer; a sample whose gold does not parse comes back ``skipped``."""
    functions = functions_for(sample) if functions is None else functions
    gold = _gold(sample, functions)
    if gold.parse_error is not None:
        return _skipped(sample, gold)
    predicted = analyze(extract_code(prediction), functions)
    scores, explanation = compare_programs(gold, predicted)
    explanation |= diagnose(sample.domain, gold, predicted, functions)
    return SampleResult(id=sample.id, domain=sample.domain, scores=scores, explanation=explanation)


def missing_result(sample: Sample, functions: Mapping[str, FunctionSpec] | None = None) -> SampleResult:
    """The result of a sample that has no prediction: 0 on every score (or skipped, like any)."""
    functions = functions_for(sample) if functions is None else functions
    gold = _gold(sample, functions)
    if gold.parse_error is not None:
        return _skipped(sample, gold)
    return SampleResult(
        id=sample.id,
        domain=sample.domain,
        scores=Scores(gold_calls=len(gold.calls)),
        explanation={"missing": "no prediction for this sample", "gold_sequence": gold.names}
        | diagnose(sample.domain, gold, None, functions),
    )


def _summary(results: Sequence[SampleResult]) -> dict:
    n = len(results)
    gold_calls = sum(r.scores.gold_calls for r in results)

    def mean(values: Iterable[int]) -> float:
        return sum(values) / n if n else 0.0

    summary = {
        "arg_match_full": mean(r.scores.arg_match_full for r in results),
        "arg_match_functions": sum(r.scores.matched_calls for r in results) / gold_calls if gold_calls else 0.0,
        "seq_match_full": mean(r.scores.seq_match_full for r in results),
        "seq_match_conn": mean(r.scores.seq_match_conn for r in results),
        "n_samples": n,
        "n_gold_calls": gold_calls,
    }
    for name in EXEC_METRICS:
        values = [v for r in results if (v := getattr(r.scores, name)) is not None]
        if values:
            summary[name] = sum(values) / len(values)
            summary[f"n_{name}"] = len(values)
    return summary


def aggregate(results: Sequence[SampleResult]) -> dict[str, dict]:
    """Split-level metrics: ``"overall"`` then one entry per domain; skipped samples excluded."""
    scored = [r for r in results if r.skipped is None]
    groups = {"overall": scored}
    for domain in sorted({r.domain for r in scored}):
        groups[domain] = [r for r in scored if r.domain == domain]
    summaries = {name: _summary(group) for name, group in groups.items()}
    # An execution metric appears in every group or in none, so tables stay rectangular.
    for name in EXEC_METRICS:
        if name in summaries["overall"]:
            for summary in summaries.values():
                summary.setdefault(name, None)
                summary.setdefault(f"n_{name}", 0)
    return summaries
