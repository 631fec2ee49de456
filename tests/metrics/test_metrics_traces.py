"""Exec Success / Exec Match, read from a gold and a predicted trace."""

from __future__ import annotations

from gqlbench.metrics.traces import first_divergence, trace_scores
from gqlbench.records import ExecError, Trace, TraceCall


def _trace(*calls: tuple[str, dict], digest: str = "w1", error: ExecError | None = None) -> Trace:
    return Trace(domain="tmdb", calls=[TraceCall(function=f, arguments=a) for f, a in calls], world_digest=digest, error=error)


SEARCH = ("GET_search_movie", {"query": "Titanic"})
CREDITS = ("GET_movie__movie_id__credits", {"movie_id": 597})
POPULAR = ("GET_movie_popular", {})


def scores(gold: Trace, pred: Trace, ran: bool = True) -> tuple[int | None, int | None, dict]:
    values, details = trace_scores(gold, pred, ran=ran)
    return values["exec_success"], values["exec_match"], details


def test_identical_runs_match() -> None:
    assert scores(_trace(SEARCH, CREDITS), _trace(SEARCH, CREDITS))[:2] == (1, 1)


def test_order_does_not_matter_but_the_multiset_does() -> None:
    success, match, details = scores(_trace(SEARCH, POPULAR), _trace(POPULAR, SEARCH))
    assert (success, match) == (1, 1)
    assert details["divergence"]["index"] == 0  # still reported, for reading
    assert scores(_trace(SEARCH, CREDITS), _trace(SEARCH, CREDITS, CREDITS))[:2] == (1, 0)


def test_other_argument_values_do_not_match() -> None:
    success, match, details = scores(_trace(SEARCH), _trace(("GET_search_movie", {"query": "titanic"})))
    assert (success, match) == (1, 0)
    assert details["divergence"] == {"index": 0}  # the calls there are in the traces, stored once
    assert details["pred_trace"]["calls"][0]["arguments"] == {"query": "titanic"}


def test_a_different_final_state_does_not_match() -> None:
    success, match, details = scores(_trace(SEARCH, digest="a"), _trace(SEARCH, digest="b"))
    assert (success, match) == (1, 0) and details["same_final_state"] is False


def test_a_failed_prediction_neither_succeeds_nor_matches() -> None:
    error = ExecError(kind="not_found", message="no movie with id 1")
    success, match, details = scores(_trace(SEARCH, CREDITS), _trace(SEARCH, CREDITS, error=error))
    assert (success, match) == (0, 0) and details["error"]["kind"] == "not_found"


def test_a_failed_gold_cannot_be_matched() -> None:
    error = ExecError(kind="refused", message="...")
    success, match, details = scores(_trace(error=error), _trace(SEARCH))
    assert (success, match) == (1, None) and details["gold_error"]["kind"] == "refused"


def test_a_prediction_that_did_not_run_scores_zero_but_keeps_an_unmatchable_gold_none() -> None:
    assert scores(_trace(), _trace(), ran=False)[:2] == (0, 0)
    assert scores(_trace(error=ExecError(kind="refused", message="...")), _trace(), ran=False)[:2] == (0, None)


def test_details_hold_the_scores_first_then_both_traces() -> None:
    values, details = trace_scores(_trace(SEARCH), _trace(SEARCH))
    assert list(details)[:2] == ["exec_success", "exec_match"] and list(details)[-2:] == ["gold_trace", "pred_trace"]
    assert details["pred_trace"]["calls"][0]["function"] == "GET_search_movie"


def test_no_divergence_when_traces_agree() -> None:
    assert first_divergence(_trace(SEARCH), _trace(SEARCH)) is None
    assert first_divergence(_trace(SEARCH), _trace())["gold"]["function"] == "GET_search_movie"


def test_a_trace_that_left_calls_out_cannot_match() -> None:
    gold, pred = _trace(SEARCH), _trace(SEARCH)
    assert scores(gold, pred)[:2] == (1, 1)
    assert scores(gold, pred.model_copy(update={"calls_left_out": 3}))[:2] == (1, 0)
