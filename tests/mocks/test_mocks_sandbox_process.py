"""A worker process: its start-up budget and the environment it inherits."""

from __future__ import annotations

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.sandbox.process import SETUP_SECONDS_ENV, STARTUP_SECONDS, WORKER_PATH_ENV, setup_seconds, worker_environment
from gqlbench.specs.catalog import CATALOG_ENV


@pytest.mark.parametrize(("given", "seconds"), [(None, STARTUP_SECONDS), ("  ", STARTUP_SECONDS), ("2.5", 2.5)])
def test_the_set_up_budget_is_the_setting_or_the_default(monkeypatch: pytest.MonkeyPatch, given: str | None, seconds: float) -> None:
    if given is None:
        monkeypatch.delenv(SETUP_SECONDS_ENV, raising=False)
    else:
        monkeypatch.setenv(SETUP_SECONDS_ENV, given)
    assert setup_seconds() == seconds


@pytest.mark.parametrize("given", ["soon", "0", "-3", "nan"])
def test_a_set_up_budget_that_is_not_positive_seconds_is_one_line(monkeypatch: pytest.MonkeyPatch, given: str) -> None:
    monkeypatch.setenv(SETUP_SECONDS_ENV, given)
    with pytest.raises(GqlbenchError, match=f"{SETUP_SECONDS_ENV}='{given}' is not a number of seconds above 0"):
        setup_seconds()


def test_a_worker_inherits_only_allow_listed_variables_and_the_python_path_under_its_own_name() -> None:
    parent = {"PATH": "/bin", "LC_ALL": "C", CATALOG_ENV: "/catalog", "OPENAI_API_KEY": "sk-x", "PYTHONPATH": "/plugins"}
    env = worker_environment(parent)
    assert env == {"PATH": "/bin", "LC_ALL": "C", CATALOG_ENV: "/catalog", WORKER_PATH_ENV: "/plugins"}
