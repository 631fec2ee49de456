"""Execution scores joined onto metric results (through the real sandbox)."""

from __future__ import annotations

import pytest

from gqlbench.dataset import load_errata, load_split
from gqlbench.metrics import missing_result, score_sample
from gqlbench.mocks.sandbox.pool import SandboxPool
from gqlbench.scoring.join import add_exec_scores


@pytest.fixture(scope="module")
def pool():
    with SandboxPool() as pool:
        yield pool


def test_gold_against_itself_matches_where_gold_runs(pool: SandboxPool) -> None:
    samples = {s.id: s for s in load_split("test")}
    broken = set(load_errata().other.get("non_executable_gold", {}))
    results = [score_sample(s, s.gold_code) for s in samples.values()]
    codes = {r.id: samples[r.id].gold_code for r in results}
    scored = add_exec_scores(results, samples, codes, pool=pool)
    for result in scored:
        if result.id in broken:
            assert result.scores.exec_match is None and result.scores.exec_success == 0, result.id
        else:
            assert (result.scores.exec_success, result.scores.exec_match) == (1, 1), result.id
            assert result.explanation.exec.pred_trace.calls, result.id


def test_missing_prediction_scores_zero_but_gold_still_runs(pool: SandboxPool) -> None:
    sample = load_split("test")[12]
    scored = add_exec_scores([missing_result(sample)], {sample.id: sample}, {sample.id: None}, pool=pool)
    assert (scored[0].scores.exec_success, scored[0].scores.exec_match) == (0, 0)
    assert scored[0].explanation.exec.gold_trace.calls


def test_literal_id_runs_but_does_not_match(pool: SandboxPool) -> None:
    sample = load_split("test")[17]  # search a movie, read its credits, look up the lead actor
    guessed = "GET_person__person_id_(person_id=504)"
    result = score_sample(sample, guessed)
    (scored,) = add_exec_scores([result], {sample.id: sample}, {sample.id: guessed}, pool=pool)
    assert scored.scores.exec_match == 0
    assert scored.explanation.exec.divergence.index == 0


def test_crashing_prediction_has_classified_error(pool: SandboxPool) -> None:
    sample = load_split("test")[12]
    code = "r = GET_tv_popular()\nGET_tv__tv_id_(tv_id=r.results[0].identifier)"
    (scored,) = add_exec_scores([score_sample(sample, code)], {sample.id: sample}, {sample.id: code}, pool=pool)
    assert scored.scores.exec_success == 0
    assert scored.explanation.exec.error.kind == "unknown_field"


def test_blank_program_is_no_prediction(pool: SandboxPool) -> None:
    sample = load_split("test")[15]
    (scored,) = add_exec_scores([score_sample(sample, "  \n")], {sample.id: sample}, {sample.id: "\n"}, pool=pool)
    assert (scored.scores.exec_success, scored.scores.exec_match) == (0, 0)


def test_a_too_large_program_is_not_run(pool: SandboxPool) -> None:
    sample = load_split("test")[12]
    code = "x = 1\n" * 100_000
    (scored,) = add_exec_scores([score_sample(sample, code)], {sample.id: sample}, {sample.id: code}, pool=pool)
    assert (scored.scores.exec_success, scored.scores.exec_match) == (0, 0)
    executed = scored.explanation.exec
    assert executed is not None and executed.pred_not_run == "too large to analyse"
    assert (executed.exec_success, executed.exec_match) == (0, 0)
    assert executed.pred_trace is not None and executed.pred_trace.calls == [] and executed.gold_trace and executed.gold_trace.calls


def test_a_missing_prediction_is_explained_as_not_run(pool: SandboxPool) -> None:
    sample = load_split("test")[12]
    (scored,) = add_exec_scores([missing_result(sample)], {sample.id: sample}, {sample.id: None}, pool=pool)
    assert scored.explanation.exec.pred_not_run == "no program" and scored.explanation.exec.exec_success == 0
