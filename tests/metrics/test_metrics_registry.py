"""The metric registry: the built-ins in the paper's order, registration rules, per-sample values, aggregates."""

from __future__ import annotations

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.metrics import registry
from gqlbench.metrics.registry import Metric, add_metric, all_metrics, get_metric, register_metric, score_fields, summary_of
from gqlbench.records import Scores


@pytest.fixture
def scratch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations made by a test stay in that test."""
    list(all_metrics())  # built-ins and plugins loaded first
    monkeypatch.setattr(registry.METRICS, "_items", registry.METRICS.registered())


def _constant(value: object) -> object:
    return lambda gold, predicted: value


def test_built_ins_come_in_the_papers_column_order_then_execution() -> None:
    names = [m.name for m in all_metrics()]
    paper = ["arg_match_full", "arg_match_functions", "seq_match_full", "seq_match_conn"]
    assert names[:4] == paper and [m.name for m in all_metrics() if m.table2] == paper  # Table 2's columns, first
    assert names.index("seq_match_conn") < names.index("exec_success") < names.index("exec_match")
    assert [(get_metric(n).reads, get_metric(n).aggregation, get_metric(n).optional) for n in paper] == [
        ("analyses", "mean", False),
        ("analyses", "ratio", False),
        ("analyses", "mean", False),
        ("analyses", "mean", False),
    ]
    assert all(get_metric(n).reads == "traces" and get_metric(n).optional for n in ("exec_success", "exec_match"))
    assert get_metric("arg_match_functions").title == "Arg Match (functions)"
    declared = list(Scores.model_fields)  # the built-ins' fields declared for their types, in registration order
    assert [f for f in score_fields() if f in declared] == declared


def test_a_name_is_registered_once(scratch: None) -> None:
    metric = add_metric(Metric("toy", "Toy", "analyses", _constant(1)))
    assert add_metric(metric) is metric  # the same definition loaded twice (env var and entry point) is harmless
    with pytest.raises(GqlbenchError, match="metric 'toy' is already registered"):
        add_metric(Metric("toy", "Other toy", "analyses", _constant(0)))
    with pytest.raises(GqlbenchError, match="score field 'gold_calls' clashes with metric 'arg_match_functions'"):
        add_metric(Metric("calls", "Calls", "analyses", _constant((1, 1)), aggregation="ratio", fields=("hits", "gold_calls")))
    with pytest.raises(GqlbenchError, match="unknown metric 'nope'"):
        get_metric("nope")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "Bad Name"}, "use lower_case letters"),
        ({"name": "n_samples"}, "not n_samples"),
        ({"reads": "traces"}, "must be optional=True"),
        ({"reads": "programs"}, "reads must be 'analyses', 'traces' or 'explanation'"),
        ({"reads": "explanation"}, "a metric that reads explanation must be optional=True"),
        ({"reads": "explanation", "optional": True, "aggregation": "ratio", "fields": ("a", "b")}, "has no score fields"),
        ({"aggregation": "median"}, "aggregation must be 'mean' or 'ratio'"),
        ({"fields": ("a", "b")}, "fields, fraction and combine are only for aggregation='ratio'"),
        ({"combine": max}, "fields, fraction and combine are only for aggregation='ratio'"),
    ],
)
def test_a_bad_definition_is_refused_with_its_name(kwargs: dict, message: str) -> None:
    definition = {"name": "toy", "title": "Toy", "reads": "analyses", "compute": _constant(1)} | kwargs
    with pytest.raises(GqlbenchError, match=message):
        Metric(**definition)


def test_values_become_score_fields_and_unscored_predictions_are_zeroed() -> None:
    mean = Metric("toy", "Toy", "analyses", _constant(1))
    ratio = Metric("part", "Part", "analyses", _constant((2, 3)), aggregation="ratio")
    assert mean.values(True) == {"toy": 1} and mean.values(None) == {"toy": None}
    assert ratio.values((2, 3)) == {"part_numerator": 2, "part_denominator": 3}
    assert ratio.zeroed((2, 3)) == (0, 3) and mean.zeroed(1) == 0 and mean.zeroed(None) is None
    with pytest.raises(GqlbenchError, match=r"ratio metric returns \(numerator, denominator\), got 5"):
        ratio.values(5)
    with pytest.raises(GqlbenchError, match="a mean metric returns a number"):
        mean.values((1, 2))


def test_the_decorator_binds_the_definition(scratch: None) -> None:
    @register_metric("toy_len", title="Toy length", reads="analyses")
    def toy_len(gold: object, predicted: object) -> int:
        return 3

    assert isinstance(toy_len, Metric) and get_metric("toy_len") is toy_len
    assert list(all_metrics())[-1] is toy_len


def test_summary_means_ratios_of_sums_and_optional_counts(scratch: None) -> None:
    add_metric(Metric("toy", "Toy", "analyses", _constant(1)))
    add_metric(Metric("maybe", "Maybe", "traces", _constant(1), optional=True, aggregation="ratio", fields=("ok", "seen")))
    rows = [
        {"arg_match_full": 1, "matched_calls": 1, "gold_calls": 2, "toy": 1, "ok": 3, "seen": 4},
        {"arg_match_full": 0, "matched_calls": 1, "gold_calls": 2, "toy": 0, "ok": None, "seen": None},
    ]
    summary = summary_of(rows)
    assert summary["toy"] == 0.5 and summary["arg_match_full"] == 0.5 and summary["arg_match_functions"] == 0.5
    assert summary["maybe"] == 0.75 and summary["n_maybe"] == 1  # over the one sample that has it
    assert "exec_success" not in summary  # an optional metric no sample has is left out
    keys = list(summary)  # metrics in registration order, then the counts, then the optional metrics
    assert keys[:4] == ["arg_match_full", "arg_match_functions", "seq_match_full", "seq_match_conn"]
    assert keys.index("seq_match_conn") < keys.index("toy") < keys.index("n_samples") < keys.index("maybe")
    assert summary["n_samples"] == 2 and summary["n_gold_calls"] == 4
