"""``--split all``: every human sample but the fixed few-shot examples, which are listed; and the shots each sample got."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.dataset import load_errata, load_split
from gqlbench.errors import GqlbenchError
from gqlbench.generators.shots import select_shots, shot_pool
from gqlbench.results.files import read_samples
from gqlbench.run.runner import RunOptions, RunSettings, plan_run, run, shots_shown
from tests.stub_backends import STUB


def _settings(**changes: object) -> RunSettings:
    base = {"model": "stub-model", "backend": STUB, "split": "all"}
    return RunSettings(**{**base, **changes})  # type: ignore[arg-type]


def _lines(run_dir: Path, name: str = "samples.jsonl") -> list[dict]:
    path = run_dir / name
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _test_run_shots() -> set[str]:
    """The examples a test-split run shows, per domain (the paper's fixed representative set)."""
    pool = shot_pool(load_split("train"), load_errata())
    return {shot.id for sample in load_split("test") for shot in select_shots(sample, pool, 3)}


def test_split_all_is_every_human_sample_but_the_shots_a_test_run_shows() -> None:
    every = [s.id for split in ("train", "valid", "test") for s in load_split(split)]
    plan = plan_run(_settings())
    chosen = [s.id for s in plan.samples]
    assert set(plan.excluded) == _test_run_shots() and len(plan.excluded) == 6  # 3 per domain
    assert not set(chosen) & set(plan.excluded) and set(chosen) | set(plan.excluded) == set(every)
    assert len(chosen) == len(every) - 6 == 149 and chosen == [i for i in every if i not in plan.excluded]  # file order
    for shots in (0, 2):  # fewer shots, the same samples: runs with up to 3 shots pair on all of them
        assert [s.id for s in plan_run(_settings(shots=shots)).samples] == chosen
    wider = plan_run(_settings(shots=5))
    assert len(wider.excluded) == 10 and set(plan.excluded) < set(wider.excluded) and len(wider.samples) == 145


def test_split_all_refuses_what_would_show_an_evaluated_sample_as_an_example() -> None:
    with pytest.raises(GqlbenchError, match="--shot-rule fixed"):
        _settings(shot_rule="similar")
    with pytest.raises(GqlbenchError, match="no --relevance"):
        _settings(relevance=True)
    assert _settings(shot_rule="similar", shots=0).shots == 0  # no examples, nothing to leak
    shot = sorted(_test_run_shots())[0]
    with pytest.raises(GqlbenchError, match=f"--ids: {shot} is one of the few-shot examples --split all leaves out"):
        plan_run(_settings(ids=(shot,)))
    assert [s.id for s in plan_run(_settings(ids=("test/3", "train/0", "valid/1"))).samples] == ["test/3", "train/0", "valid/1"]


def test_a_split_all_run_lists_its_excluded_shots_and_resumes_without_redoing_samples(tmp_path: Path) -> None:
    log, out = tmp_path / "calls.log", tmp_path / "run"
    settings = _settings(ids=("train/0", "valid/1", "test/0"), model_args={"log": str(log)})
    first = run(settings, RunOptions(out=out, quiet=True))
    assert [line["id"] for line in _lines(out)] == ["train/0", "valid/1", "test/0"] and first.missing == []
    excluded = _test_run_shots()
    config = json.loads((out / "config.json").read_text())
    assert config["split"] == "all" and set(config["excluded_shots"]) == excluded and len(config["excluded_shots"]) == 6
    assert json.loads((out / "results.json").read_text())["meta"]["excluded_shots"] == config["excluded_shots"]
    report = (out / "report.md").read_text()
    assert "Not evaluated: the 6 few-shot examples (`--split all` leaves them out): " in report
    assert all(f"`{e}`" in report for e in excluded)
    lines = (out / "samples.jsonl").read_text().splitlines(keepends=True)
    (out / "samples.jsonl").write_text("".join(lines[:2]))  # killed before the last sample was written
    log.unlink()
    second = run(settings, RunOptions(out=out, quiet=True))
    assert second.resumed_from == 2 and log.read_text().split() == ["test/0"]  # only what was missing
    assert (out / "samples.jsonl").read_text().splitlines(keepends=True)[:2] == lines[:2]  # the finished ones kept as they were
    assert second.metrics == first.metrics and run(settings, RunOptions(out=out, quiet=True)).already_complete


def test_errata_samples_are_handled_as_in_the_test_split(tmp_path: Path) -> None:
    every = run(_settings(ids=("train/84", "valid/0", "valid/2", "test/1")), RunOptions(out=tmp_path / "all", quiet=True))
    test = run(_settings(split="test", ids=("test/1",)), RunOptions(out=tmp_path / "test", quiet=True))
    errata = load_errata()
    lines = {line["id"]: line for line in _lines(every.run_dir)}
    assert lines["train/84"]["skipped"] and lines["valid/0"]["skipped"]  # invalid gold: out of every metric, said why
    skipped = json.loads((every.run_dir / "results.json").read_text())["skipped"]
    assert {s["id"] for s in skipped} == set(errata.invalid_gold)
    assert lines["valid/2"]["scores"]["exec_match"] is None  # gold that cannot run: no Exec Match, as test/1
    assert lines["test/1"]["scores"] == _lines(test.run_dir)[0]["scores"]
    assert every.metrics["overall"]["n_samples"] == 2


def test_each_line_records_the_shots_its_prompt_showed_and_the_results_count_them(tmp_path: Path) -> None:
    # the stub counts words: 2,600 fit some examples, not all three, for test/0..3
    outcome = run(_settings(split="test", limit=4, model_args={"max_model_len": 2600}), RunOptions(out=tmp_path / "run", quiet=True))
    lines = _lines(outcome.run_dir)
    assert all(line["shots"] == line["prompt"]["shots"] for line in lines)
    got = [len(line["shots"]) for line in lines]
    assert min(got) < 3 and all(line["prompt"]["dropped"][: 3 - len(line["shots"])] for line in lines if len(line["shots"]) < 3)
    counted: dict[str, int] = {}
    for n in sorted(got, reverse=True):
        counted[str(n)] = counted.get(str(n), 0) + 1
    results = json.loads((outcome.run_dir / "results.json").read_text())
    assert results["meta"]["shots"] == 3 and results["meta"]["shots_shown"] == counted
    report = (outcome.run_dir / "report.md").read_text()
    assert f"- shots_shown: `{counted[str(max(got))]} samples got {max(got)}" in report
    assert "\nAsked for 3 few-shot examples; " in report and "(the context kept fewer).\n" in report
    older = [r.model_copy(update={"shots": None}) for r in read_samples(outcome.run_dir / "samples.jsonl")]
    assert all("shots" not in json.loads(r.model_dump_json()) for r in older)  # a line from before: no key
    assert shots_shown(older) == counted  # read from its prompt
