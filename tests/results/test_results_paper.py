"""The paper's Table 2 as reference data (gqlbench.results.paper), and a run's intervals read against it."""

from __future__ import annotations

import pytest

from gqlbench.dataset import data_hash
from gqlbench.errors import GqlbenchError
from gqlbench.results.paper import (
    PAPER_MODELS,
    TABLE2,
    TABLE2_METRICS,
    beside_table2,
    check_against_paper,
    paper_reference,
    paper_rows,
    paper_split_problem,
)

N_SAMPLES = {"spotify": 12, "tmdb": 20}
N_CALLS = {"spotify": 31, "tmdb": 46}


def test_all_18_rows_and_every_overall_row_is_the_weighted_mean_of_its_domains_but_the_flagged_one() -> None:
    assert len(TABLE2) == 18 and len({(r.model, r.prompt, r.domain) for r in TABLE2}) == 18
    for model in PAPER_MODELS:
        for prompt in ("cot", "react"):
            rows = paper_rows(model, prompt)
            for metric in TABLE2_METRICS:
                weights = N_CALLS if metric == "arg_match_functions" else N_SAMPLES
                tmdb = rows["tmdb"].implied.get(metric, rows["tmdb"].values[metric])
                mean = (weights["spotify"] * rows["spotify"].values[metric] + weights["tmdb"] * tmdb) / sum(weights.values())
                assert mean == pytest.approx(rows["overall"].values[metric], abs=1.5e-4), (model, prompt, metric)
    flagged = [r for r in TABLE2 if r.note]
    assert [(r.model, r.prompt, r.domain) for r in flagged] == [("granite-34b-code-instruct", "cot", "tmdb")]
    assert dict(flagged[0].values) == dict.fromkeys(TABLE2_METRICS, 1.0)  # the published values are kept


def test_the_row_comes_from_the_preset_the_model_name_or_the_option() -> None:
    preset = {"model": "/m/x", "prompt": "cot", "settings": {"preset": {"name": "paper:deepseek-coder-33b-instruct:react"}}}
    assert paper_reference("paper", preset, "r") == ("deepseek-coder-33b-instruct", "cot")  # --prompt cot given over the preset
    assert paper_reference("paper", {**preset, "prompt": "mine"}, "r") == ("deepseek-coder-33b-instruct", "react")
    hub = {"model": "ibm-granite/granite-34b-code-instruct-8k", "prompt": "cot"}
    assert paper_reference("paper", hub, "r") == ("granite-34b-code-instruct", "cot")
    assert paper_reference("paper", {"model": "codellama/CodeLlama-34b-Instruct-hf", "prompt": "react"}, "r")[0] == "codellama-34b-instruct"
    assert paper_reference("paper:codellama-34b-instruct:cot", {"model": "smollm2"}, "r") == ("codellama-34b-instruct", "cot")
    with pytest.raises(GqlbenchError, match="r: model 'smollm2' with prompt 'cot' is not one of the paper's runs; name the row"):
        paper_reference("paper", {"model": "smollm2", "prompt": "cot"}, "r")
    with pytest.raises(GqlbenchError, match="no Table 2 rows for 'gpt' with prompt 'cot'"):
        paper_reference("paper:gpt:cot", {}, "r")
    with pytest.raises(GqlbenchError, match="write paper or paper:MODEL:PROMPT"):
        paper_reference("table2", {}, "r")


def test_inside_is_read_from_the_runs_own_intervals() -> None:
    metrics = {
        "overall": {"arg_match_full": 0.7, "ci": {"arg_match_full": [0.6, 0.8], "seq_match_full": [0.95, 1.0]}},
        "tmdb": {"arg_match_full": 0.9, "ci": {"arg_match_full": {"lo": 0.96, "hi": 1.0}}},
    }
    checks = {(c.domain, c.metric): c for c in check_against_paper(metrics, "granite-34b-code-instruct", "cot")}
    assert len(checks) == 8  # the domains the run has, the four Table 2 metrics each
    assert checks["overall", "arg_match_full"].inside is True  # 0.7812 in [0.6, 0.8]
    assert checks["overall", "seq_match_full"].inside is False  # 0.9375 below 0.95
    assert checks["overall", "seq_match_conn"].inside is None and checks["overall", "seq_match_conn"].run is None
    tmdb = checks["tmdb", "arg_match_full"]
    assert (tmdb.inside, tmdb.implied, tmdb.implied_inside) == (True, 0.95, False) and tmdb.note


def test_only_the_bundled_test_split_is_the_papers() -> None:
    assert paper_split_problem("test", data_hash()) is None
    assert "the test split" in (paper_split_problem("valid", data_hash()) or "")
    assert "not the bundled GraphQLRestBench" in (paper_split_problem("test", "0123456789abcdef") or "")
    assert "no data hash" in (paper_split_problem("test", None) or "")


def test_a_two_part_paper_preset_takes_the_prompt_that_ran_and_anything_else_is_a_one_line_error() -> None:
    def reference(name: str, prompt: str) -> tuple[str, str]:
        return paper_reference("paper", {"model": "m", "prompt": prompt, "settings": {"preset": {"name": name}}}, "run")

    assert reference("paper:codellama-34b-instruct", "react") == ("codellama-34b-instruct", "react")
    assert reference("paper:codellama-34b-instruct:cot", "plain") == ("codellama-34b-instruct", "cot")
    for name, prompt in (("paper:codellama-34b-instruct", "plain"), ("paper:", "cot"), ("paper:nobody:cot", "cot")):
        with pytest.raises(GqlbenchError, match="names no row of the paper's Table 2"):
            reference(name, prompt)


def test_a_split_all_run_is_put_beside_table2_without_a_verdict() -> None:
    metrics = {"overall": {"arg_match_full": 0.7, "ci": {"arg_match_full": [0.6, 0.8]}}}
    rows = beside_table2(metrics, "granite-34b-code-instruct", "cot")
    assert len(rows) == 4 and all(set(r) == {"domain", "metric", "run", "ci", "table2"} for r in rows)  # no "inside"
    assert rows[0] == {"domain": "overall", "metric": "arg_match_full", "run": 0.7, "ci": [0.6, 0.8], "table2": 0.7812}
