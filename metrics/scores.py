"""The paper's four scores, per sample and per split, and the scoring of one sample.

Per sample (see the README for the definitions in plain words):

- Arg Match: each gold call matched by a predicted call (:mod:`.matching`);
  ``arg_match_full`` is 1 when all are, ``matched_calls``/``gold_calls`` count them.
- Seq Match (full): the predicted call names in program order equal the gold's.
- Seq Match (connected subsequences): the multiset of weakly connected
  components of the dataflow graph, each as its call names in program order,
  equals the gold's.

Each is a :class:`~.registry.Metric` registered here; :func:`compare_programs`
and :func:`aggregate` score every registered metric that reads the programs'
analyses, so a new one is added in one place (see the README, "Add a metric").
Aggregates average the per-sample 0/1 scores over samples, except Arg Match
(functions), which sums matched gold calls over all the gold calls of the split.
Samples whose gold program does not parse are skipped, never scored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from functools import cache
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.metrics.calls import ProgramAnalysis, analyze
from gqlbench.metrics.diagnose import diagnose
from gqlbench.metrics.extract import extract_code
from gqlbench.metrics.matching import GoldMatch, match_calls
from gqlbench.metrics.registry import (
    all_metrics,
    empty_values,
    register_metric,
    sample_values,
    summary_of,
)
from gqlbench.program import one_reading, read_program
from gqlbench.records import Explanation, FunctionSpec, Sample, SampleResult, Scores

__all__ = ["functions_for", "compare_programs", "score_sample", "missing_result", "cluster_key", "aggregate", "matched_calls"]


def matched_calls(gold: ProgramAnalysis, predicted: ProgramAnalysis) -> list[GoldMatch]:
    """Gold calls and the predicted call matched to each, computed for this pair.

    Nothing is cached between samples: a metric that needs the match computes
    it from the two analyses it is given (a matching costs microseconds, about
    0.01% of scoring a sample), so scoring keeps no module state and threads
    never share a match.
    """
    return match_calls(gold.calls, predicted.calls)


@register_metric("arg_match_full", title="Arg Match (full)", reads="analyses", table2=True, short="Arg")
def arg_match_full(gold: ProgramAnalysis, predicted: ProgramAnalysis) -> int:
    """1 when every gold call is matched by a predicted call with the same name and arguments."""
    return int(sum(m.predicted is not None for m in matched_calls(gold, predicted)) == len(gold.calls))


@register_metric(
    "arg_match_functions",
    title="Arg Match (functions)",
    reads="analyses",
    aggregation="ratio",
    table2=True,
    fields=("matched_calls", "gold_calls"),
)
def arg_match_functions(gold: ProgramAnalysis, predicted: ProgramAnalysis) -> tuple[int, int]:
    """Matched gold calls of all gold calls, summed over the split before dividing."""
    return sum(m.predicted is not None for m in matched_calls(gold, predicted)), len(gold.calls)


@register_metric("seq_match_full", title="Seq Match (full)", reads="analyses", table2=True, short="Seq")
def seq_match_full(gold: ProgramAnalysis, predicted: ProgramAnalysis) -> int:
    """1 when the call names in program order equal the gold's."""
    return int(predicted.names == gold.names)


@register_metric("seq_match_conn", title="Seq Match (connected subsequences)", reads="analyses", table2=True, short="Conn")
def seq_match_conn(gold: ProgramAnalysis, predicted: ProgramAnalysis) -> int:
    """1 when the dataflow graph's connected components equal the gold's, as a multiset."""
    return int(Counter(predicted.components()) == Counter(gold.components()))


@cache
def _catalog(domain: str) -> dict[str, FunctionSpec]:
    """Every known endpoint of a domain, from ``gqlbench.specs`` when that catalog has it."""
    from gqlbench.specs import load_specs

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


def _scores(gold: ProgramAnalysis, predicted: ProgramAnalysis, scored: bool) -> Scores:
    """Every registered metric's fields: the analyses ones computed, the others empty until they run."""
    return Scores.model_validate(empty_values() | sample_values("analyses", gold, predicted, scored=scored))


def compare_programs(gold: ProgramAnalysis, predicted: ProgramAnalysis) -> tuple[Scores, Explanation]:
    """Score a predicted program against the gold one, with the explanation of every score."""
    explanation: dict[str, Any] = {"code": predicted.code, "parse_error": predicted.parse_error}
    if predicted.too_large is not None:
        explanation["too_large"] = predicted.too_large
    if predicted.parse_error is not None or predicted.too_large is not None:
        explanation |= {"gold_sequence": gold.names, "gold_components": _components(gold)}
        return _scores(gold, predicted, scored=False), Explanation.model_validate(explanation)
    scores = _scores(gold, predicted, scored=True)
    matches = matched_calls(gold, predicted)
    explanation |= {
        "gold_calls": [m.to_json() for m in matches],
        "predicted_calls": [f"{c.token} = {c.render()}" for c in predicted.calls],
        "gold_sequence": gold.names,
        "predicted_sequence": predicted.names,
        "gold_components": _components(gold),
        "predicted_components": _components(predicted),
    }
    return scores, Explanation.model_validate(explanation)


def _gold(sample: Sample, functions: Mapping[str, FunctionSpec]) -> ProgramAnalysis:
    return analyze(sample.gold_code, functions, limits=None)  # the benchmark's own programs are trusted


def _result(sample: Sample, **fields: Any) -> SampleResult:
    """A sample's result line; a generated sample's labels ride along, so results can be broken down by difficulty.

    A generated sample also gets its cluster (:func:`cluster_key`), so its
    intervals resample the samples of one program skeleton together.
    """
    if sample.synthetic is not None:
        fields["synthetic"] = sample.synthetic
        fields["cluster"] = cluster_key(sample)
    return SampleResult(id=sample.id, domain=sample.domain, **fields)


def cluster_key(sample: Sample) -> str | None:
    """Which samples are not independent of ``sample``: its ``synthetic.cluster`` when it states one, else, for a
    generated sample, its gold program's skeleton (:attr:`gqlbench.program.ParsedProgram.skeleton_key`).

    Samples written one by one by people (no ``synthetic`` labels) are each their own cluster (None).
    """
    if sample.synthetic is None:
        return None
    stated = sample.synthetic.get("cluster")
    if isinstance(stated, str) and stated:
        return stated
    return read_program(sample.gold_code).skeleton_key


def _skipped(sample: Sample, gold: ProgramAnalysis) -> SampleResult:
    return _result(
        sample,
        scores=Scores.model_validate(empty_values()),
        skipped=f"gold program does not parse ({gold.parse_error})",
        explanation={"gold_code": sample.gold_code},
    )


def score_sample(
    sample: Sample, prediction: str, functions: Mapping[str, FunctionSpec] | None = None, offered: Collection[str] | None = None
) -> SampleResult:
    """Score one raw model answer; a sample whose gold does not parse comes back ``skipped``.

    ``offered``: the functions a prompt setting offered, so a call of one it did
    not offer is tagged ``hallucinated_function``; the scores never read it.
    """
    functions = functions_for(sample) if functions is None else functions
    with one_reading():  # the gold and the predicted program are parsed once each, whatever reads them
        gold = _gold(sample, functions)
        if gold.parse_error is not None:
            return _skipped(sample, gold)
        predicted = analyze(extract_code(prediction), functions)
        scores, explanation = compare_programs(gold, predicted)
        explanation = explanation.with_parts(diagnose(sample.domain, gold, predicted, functions, offered))
    return _result(sample, scores=scores, explanation=explanation)


def missing_result(sample: Sample, functions: Mapping[str, FunctionSpec] | None = None) -> SampleResult:
    """The result of a sample that has no prediction: 0 on every score (or skipped, like any)."""
    functions = functions_for(sample) if functions is None else functions
    with one_reading():
        gold = _gold(sample, functions)
        if gold.parse_error is not None:
            return _skipped(sample, gold)
        return _result(
            sample,
            scores=_scores(gold, ProgramAnalysis(code=""), scored=False),
            explanation={"missing": "no prediction for this sample", "gold_sequence": gold.names}
            | diagnose(sample.domain, gold, None, functions),
        )


def aggregate(results: Sequence[SampleResult]) -> dict[str, dict]:
    """Split-level metrics: ``"overall"`` then one entry per domain; skipped samples excluded.

    Each group holds the registered metrics that are not optional (in order),
    ``n_samples``, ``n_<denominator>`` of each ratio metric, then each
    optional metric some sample has, with its count ``n_<name>`` (none for the
    finer scores read from the explanation).
    """
    scored = [r for r in results if r.skipped is None]
    groups = {"overall": scored}
    for domain in sorted({r.domain for r in scored}):
        groups[domain] = [r for r in scored if r.domain == domain]
    summaries = {name: summary_of([r.scores.model_dump() for r in group], [r.explanation for r in group]) for name, group in groups.items()}
    # An optional metric appears in every group or in none, so tables stay rectangular.
    for metric in (m for m in all_metrics() if m.optional):
        if metric.name in summaries["overall"]:
            for summary in summaries.values():
                summary.setdefault(metric.name, None)
                if metric.reads != "explanation":
                    summary.setdefault(f"n_{metric.name}", 0)
    return summaries
