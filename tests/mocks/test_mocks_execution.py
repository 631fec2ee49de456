"""Exec Success / Exec Match from traces, and the batch helper through the sandbox."""

from __future__ import annotations

import pytest

from gqlbench.mocks.execution import exec_scores, first_divergence
from gqlbench.records import ExecError, Trace, TraceCall


def _trace(*calls: tuple[str, dict], digest: str = "w1", error: ExecError | None = None) -> Trace:
    return Trace(domain="tmdb", calls=[TraceCall(function=f, arguments=a) for f, a in calls], world_digest=digest, error=error)


SEARCH = ("GET_search_movie", {"query": "Titanic"})
CREDITS = ("GET_movie__movie_id__credits", {"movie_id": 597})
POPULAR = ("GET_movie_popular", {})


def test_identical_runs_match() -> None:
    assert exec_scores(_trace(SEARCH, CREDITS), _trace(SEARCH, CREDITS))[:2] == (1, 1)


def test_order_does_not_matter_but_the_multiset_does() -> None:
    success, match, details = exec_scores(_trace(SEARCH, POPULAR), _trace(POPULAR, SEARCH))
    assert (success, match) == (1, 1)
    assert details["divergence"]["index"] == 0  # still reported, for reading
    assert exec_scores(_trace(SEARCH, CREDITS), _trace(SEARCH, CREDITS, CREDITS))[:2] == (1, 0)


def test_other_argument_values_do_not_match() -> None:
    success, match, details = exec_scores(_trace(SEARCH), _trace(("GET_search_movie", {"query": "titanic"})))
    assert (success, match) == (1, 0)
    assert details["divergence"]["pred"]["arguments"] == {"query": "titanic"}


def test_a_different_final_state_does_not_match() -> None:
    success, match, details = exec_scores(_trace(SEARCH, digest="a"), _trace(SEARCH, digest="b"))
    assert (success, match) == (1, 0) and details["same_final_state"] is False


def test_a_failed_prediction_neither_succeeds_nor_matches() -> None:
    error = ExecError(kind="not_found", message="no movie with id 1")
    success, match, details = exec_scores(_trace(SEARCH, CREDITS), _trace(SEARCH, CREDITS, error=error))
    assert (success, match) == (0, 0) and details["error"]["kind"] == "not_found"


def test_a_failed_gold_cannot_be_matched() -> None:
    error = ExecError(kind="refused", message="...")
    success, match, details = exec_scores(_trace(error=error), _trace(SEARCH))
    assert (success, match) == (1, None) and details["gold_error"]["kind"] == "refused"


def test_no_divergence_when_traces_agree() -> None:
    assert first_divergence(_trace(SEARCH), _trace(SEARCH)) is None
    assert first_divergence(_trace(SEARCH), _trace())["gold"]["function"] == "GET_search_movie"


@pytest.fixture(scope="module")
def pool():
    from gqlbench.mocks.sandbox import SandboxPool

    with SandboxPool(workers=1) as sandbox:
        yield sandbox


def test_execute_samples_scores_predictions_in_the_sandbox(pool) -> None:
    from gqlbench.dataset import get_sample
    from gqlbench.mocks.execution import execute_samples

    sample = get_sample("test/17")  # Shawshank -> credits -> the lead actor's birthday
    predictions = {
        sample.id: sample.gold_code.replace("response_obj1.cast[0].id", "response_obj1.crew[0].id"),
    }
    outcome = execute_samples([sample], predictions, seed=0, pool=pool)[sample.id]
    assert (outcome.exec_success, outcome.exec_match) == (1, 0)
    assert outcome.details["divergence"]["index"] == 2
    assert outcome.details["divergence"]["gold"]["function"] == "GET_person__person_id_"

    refused = execute_samples([sample], {sample.id: "import os"}, pool=pool)[sample.id]
    assert (refused.exec_success, refused.exec_match) == (0, 0)
    assert refused.pred.error.kind == "refused"
    assert refused.to_dict()["gold_trace"]["calls"][0]["function"] == "GET_search_movie"
