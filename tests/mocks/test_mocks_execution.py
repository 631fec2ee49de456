"""Gold and predicted programs run through the sandbox and come back as two traces."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def pool():
    from gqlbench.mocks.sandbox.pool import SandboxPool

    with SandboxPool(workers=1) as sandbox:
        yield sandbox


def test_execute_samples_runs_gold_and_prediction_in_the_sandbox(pool) -> None:
    from gqlbench.dataset import get_sample
    from gqlbench.metrics.traces import first_divergence
    from gqlbench.mocks.execution import execute_samples

    sample = get_sample("test/17")  # Shawshank -> credits -> the lead actor's birthday
    predictions = {
        sample.id: sample.gold_code.replace("response_obj1.cast[0].id", "response_obj1.crew[0].id"),
    }
    pair = execute_samples([sample], predictions, seed=0, pool=pool)[sample.id]
    assert pair.gold.error is None and pair.pred.error is None
    divergence = first_divergence(pair.gold, pair.pred)
    assert divergence["index"] == 2 and divergence["gold"]["function"] == "GET_person__person_id_"

    refused = execute_samples([sample], {sample.id: "import os"}, pool=pool)[sample.id]
    assert refused.pred.error.kind == "refused" and refused.pred.calls == []
    assert refused.gold.calls[0].function == "GET_search_movie"


def test_samples_without_a_prediction_are_not_run(pool) -> None:
    from gqlbench.dataset import get_sample
    from gqlbench.mocks.execution import execute_samples

    samples = [get_sample("test/17"), get_sample("test/14")]
    assert list(execute_samples(samples, {"test/14": samples[1].gold_code}, pool=pool)) == ["test/14"]
