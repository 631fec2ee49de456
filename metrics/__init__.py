"""gqlbench.metrics: score generated call sequences by their dataflow.

A program is parsed with LibCST; its API calls are collected in program order
with standardized arguments (variables inlined, responses named by the call
that produced them, comprehension variables renamed by position), so that
renaming variables or reordering independent calls does not change a score.
The four scores of the GraphQLRestBench paper are then computed exactly as
defined in the README:

- Arg Match (full / functions): gold calls matched by predicted calls with the
  same name and equal arguments (maximum bipartite matching);
- Seq Match (full): the call names in program order equal the gold's;
- Seq Match (connected subsequences): the dataflow graph's weakly connected
  components, as call-name tuples, equal the gold's as a multiset.

Every metric, these four and the execution metrics of :mod:`.traces` (which
read the traces of programs run elsewhere), is one :class:`Metric` in the
registry of :mod:`.registry`; a new one is added there (see the README, "Add a metric").

Model-generated code is only parsed here, never executed, and only up to the
bounds of :mod:`.limits` (beyond them a prediction scores 0 as
``explanation.too_large``). This package imports no model backend and no mock.

Typical use::

    from gqlbench.dataset import get_sample
    from gqlbench.metrics import score_sample

    result = score_sample(get_sample("test/14"), model_answer)
    result.scores.arg_match_full, result.explanation.gold_calls
"""

from gqlbench.metrics.calls import HTTP_VERB_NAME, ApiCall, DataflowVisitor, ProgramAnalysis, analyze, is_api_name
from gqlbench.metrics.extract import extract_code
from gqlbench.metrics.limits import DEFAULT_LIMITS, Limits
from gqlbench.metrics.matching import GoldMatch, match_calls, maximum_matching
from gqlbench.metrics.registry import Metric, add_metric, all_metrics, get_metric, metric_titles, register_metric
from gqlbench.metrics.scores import aggregate, compare_programs, functions_for, missing_result, score_sample
from gqlbench.metrics.traces import trace_scores

__all__ = [
    "extract_code",
    "Limits",
    "DEFAULT_LIMITS",
    "analyze",
    "ProgramAnalysis",
    "ApiCall",
    "DataflowVisitor",
    "is_api_name",
    "HTTP_VERB_NAME",
    "match_calls",
    "maximum_matching",
    "GoldMatch",
    "score_sample",
    "missing_result",
    "compare_programs",
    "functions_for",
    "aggregate",
    "trace_scores",
    "Metric",
    "metric_titles",
    "register_metric",
    "add_metric",
    "get_metric",
    "all_metrics",
]
