"""Relevance runs end to end with the stub backend: cases, prompts, the relevance block, Table 2 untouched."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gqlbench.cli import main
from gqlbench.run.runner import RunOptions, RunSettings, plan_samples, run
from gqlbench.scoring.relevance import is_impossible_id
from tests.stub_backends import STUB


def _settings(**changes: object) -> RunSettings:
    base = {"model": "stub-model", "backend": STUB, "split": "test", "limit": 4, "execute": False, "relevance": True}
    return RunSettings(**{**base, **changes})  # type: ignore[arg-type]


def test_each_sample_becomes_a_possible_and_an_impossible_case() -> None:
    planned = plan_samples(_settings())
    assert [s.id for s in planned] == [f"{split}/{i}" for i in range(4) for split in ("test", "test-impossible")]
    for possible, impossible in zip(planned[::2], planned[1::2], strict=True):
        assert len(impossible.function_specs) == len(possible.function_specs) - 1
    assert [s.id for s in plan_samples(_settings(relevance=False))] == ["test/0", "test/1", "test/2", "test/3"]


@pytest.mark.parametrize("prompt", ["cot", "react"])
def test_a_model_that_declines_only_impossible_cases_scores_a_perfect_relevance_block(tmp_path: Path, prompt: str) -> None:
    outcome = run(_settings(prompt=prompt, model_args={"decline": "1"}), RunOptions(out=tmp_path / "run", quiet=True))
    results = json.loads((outcome.run_dir / "results.json").read_text())
    block = results["relevance"]
    assert (block["n_impossible"], block["n_possible"]) == (4, 4)
    assert block["explicit_abstention"] == 1.0 and block["false_abstention_rate"] == 0.0
    assert block["hallucinated_call_rate"] == 0.0 and block["hallucinated_calls"] == 0
    assert results["metrics"]["overall"]["n_samples"] == 4  # Table 2 on the possible cases only
    assert results["metrics"]["overall"]["seq_match_full"] == 1.0
    lines = [json.loads(line) for line in (outcome.run_dir / "samples.jsonl").read_text().splitlines()]
    impossible = [line for line in lines if is_impossible_id(line["id"])]
    assert impossible and all("NotSupported" in line["prompt"]["messages"][0]["content"] for line in lines)
    assert all("NotSupported" in line["code"] for line in impossible)
    report = (outcome.run_dir / "report.md").read_text()
    assert "## Cases that cannot be done" in report and "Explicit abstention (impossible" in report


def test_a_model_that_never_declines_calls_the_function_not_offered(tmp_path: Path) -> None:
    outcome = run(_settings(limit=3), RunOptions(out=tmp_path / "run", quiet=True))
    block = json.loads((outcome.run_dir / "results.json").read_text())["relevance"]
    assert block["explicit_abstention"] == 0.0 and block["hallucinated_call_rate"] == 1.0
    low, high = block["ci"]["explicit_abstention"]
    assert block["hallucinated_calls"] >= 3 and low == 0.0 < 0.5 < high  # Wilson: 0 of 3 is no zero-width interval


def test_a_normal_run_has_no_relevance_key_anywhere(tmp_path: Path) -> None:
    outcome = run(_settings(relevance=False, limit=2), RunOptions(out=tmp_path / "run", quiet=True))
    assert "relevance" not in json.loads((outcome.run_dir / "results.json").read_text())
    assert "relevance" not in json.loads((outcome.run_dir / "config.json").read_text())["settings"]
    assert "NotSupported" not in (outcome.run_dir / "samples.jsonl").read_text()


def test_the_split_alias_is_the_same_run_and_names_its_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["run", "--model", "stub-model", "--backend", STUB, "--limit", "2", "--no-exec", "--quiet"]
    assert main([*args, "--split", "test-relevance", "--out", str(tmp_path / "a")]) == 0
    capsys.readouterr()
    assert main([*args, "--relevance", "--out", str(tmp_path / "a")]) == 0
    assert "already complete" in capsys.readouterr().err
    fresh = run(_settings(limit=2), RunOptions(runs_root=tmp_path / "runs", quiet=True))
    assert fresh.run_dir.name.endswith("_test-relevance_cot")


def test_a_failed_impossible_case_is_reported_missing_and_not_counted(tmp_path: Path) -> None:
    outcome = run(_settings(limit=2, model_args={"fail": "test-impossible/1"}), RunOptions(out=tmp_path / "run", quiet=True))
    assert outcome.missing == ["test-impossible/1"]
    results = json.loads((outcome.run_dir / "results.json").read_text())
    assert results["missing"] == [] and results["relevance"]["missing"] == ["test-impossible/1"]
    assert results["relevance"]["n_impossible"] == 1


def test_a_relevance_run_with_distractors_offers_them_and_writes_the_block(tmp_path: Path) -> None:
    from gqlbench.scoring.relevance import stand_in

    outcome = run(_settings(functions="distractors:3", model_args={"decline": "1"}), RunOptions(out=tmp_path / "run", quiet=True))
    results = json.loads((outcome.run_dir / "results.json").read_text())
    block = results["relevance"]
    assert (block["n_impossible"], block["n_possible"]) == (4, 4) and block["dropped"] == []
    assert block["explicit_abstention"] == 1.0 and block["false_abstention_rate"] == 0.0 and block["hallucinated_calls"] == 0
    assert results["metrics"]["overall"]["seq_match_full"] == 1.0  # Table 2 on the possible cases, gold offered among distractors
    lines = {line["id"]: line for line in map(json.loads, (outcome.run_dir / "samples.jsonl").read_text().splitlines())}
    for sample in plan_samples(_settings(functions="distractors:3")):
        offered = lines[sample.id]["offered"]
        assert set(sample.function_names) < set(offered)  # what the case offers, plus distractors
        if is_impossible_id(sample.id):
            (removed,) = set(lines[sample.id.replace("-impossible", "")]["offered"]) - set(offered)  # the one it lacks
            assert not any(stand_in(sample.domain, removed, other) for other in offered)
    never = run(_settings(functions="distractors:3", limit=2), RunOptions(out=tmp_path / "never", quiet=True))
    assert json.loads((never.run_dir / "results.json").read_text())["relevance"]["hallucinated_call_rate"] == 1.0


def test_calling_an_offered_distractor_is_no_hallucinated_call_but_the_removed_function_is() -> None:
    from gqlbench.dataset import get_sample, load_errata
    from gqlbench.metrics import score_sample
    from gqlbench.records import SampleResult
    from gqlbench.scoring.relevance import relevance_set
    from gqlbench.scoring.relevance_scores import relevance_block

    (case,), _ = relevance_set([get_sample("test/0")], load_errata(), "distractors:3")
    offered = case.offers[case.impossible.id]
    distractor = next(n for n in offered if n not in case.impossible.function_names)
    code = f"{distractor}()\n{case.removed}()\n"
    result = SampleResult.model_validate({**score_sample(case.impossible, code).model_dump(mode="json"), "code": code, "offered": offered})
    block = relevance_block([case.impossible], {case.impossible.id: result}, resamples=10)
    assert block["cases"][0]["unoffered"] == [case.removed] and block["hallucinated_calls"] == 1


def _shows(text: str, removed: str, catalog: set[str]) -> bool:
    """Whether ``text`` names ``removed``, or a type named after it (``GET_tracks__id_Album``)."""
    from gqlbench.generators.sdl_view import type_owner

    names = re.findall(r"\b(?:GET|PUT|POST|DELETE|PATCH)_\w+", text)
    return any(n == removed or (owner := type_owner(n, catalog)) is not None and owner[0] == removed for n in names)


@pytest.mark.parametrize("functions", ["gold", "domain"])
def test_no_example_of_an_impossible_case_shows_the_function_it_lacks(functions: str) -> None:
    from gqlbench.generators.offer import load_domain_catalog
    from gqlbench.run.generate import Generator
    from gqlbench.run.runner import plan_run
    from gqlbench.scoring.relevance import lacking
    from tests.stub_backends import StubBackend

    settings = _settings(limit=None, shots=3, functions=functions)
    plan = plan_run(settings)
    generator = Generator(settings, StubBackend(), None, lambda: None, offers=plan.offers)  # type: ignore[arg-type]
    checked = 0
    for case in (s for s in plan.samples if is_impossible_id(s.id)):
        (removed,) = lacking(case, generator.presenter(case).offered)
        catalog = set(load_domain_catalog(case.domain).specs)
        messages = generator.prompt(case).messages
        assert not [m.role for m in messages if _shows(m.content, removed, catalog)], (case.id, removed)
        checked += 1
    assert checked == len(plan.samples) // 2
