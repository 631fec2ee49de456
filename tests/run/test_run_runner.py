"""The runner: run folders, config.json, resume, retries, settings checks."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

from gqlbench.dataset import default_data_dir
from gqlbench.errors import GqlbenchError
from gqlbench.results.files import read_samples
from gqlbench.run.runner import RunOptions, RunSettings, load_backend, model_slug, plan_samples, run
from tests.stub_backends import STUB


def _settings(**changes: object) -> RunSettings:
    base = {"model": "stub-model", "backend": STUB, "split": "test", "limit": 4}
    return RunSettings(**{**base, **changes})  # type: ignore[arg-type]


def _lines(run_dir: Path, name: str = "samples.jsonl") -> list[dict]:
    path = run_dir / name
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_run_writes_its_folder_with_config_samples_results_and_report(tmp_path: Path) -> None:
    outcome = run(_settings(), RunOptions(runs_root=tmp_path, quiet=True))
    run_dir = outcome.run_dir
    assert run_dir.parent == tmp_path / "stub-model" and run_dir.name.endswith("_test_cot")
    assert {p.name for p in run_dir.iterdir()} >= {"config.json", "samples.jsonl", "results.json", "report.md"}
    config = json.loads((run_dir / "config.json").read_text())
    assert (config["model"], config["prompt"], config["split"]) == ("stub-model", "cot", "test")
    assert config["sample_ids"] == ["test/0", "test/1", "test/2", "test/3"]
    assert config["settings"]["shots"] == 3 and config["settings"]["temperature"] == 0.0
    assert config["settings"]["max_steps"] is None  # ReAct-only settings never split CoT runs
    assert config["generation"]["max_new_tokens"] == 512 and config["generation"]["stop"]
    assert config["backend"] == {"backend": "stub", "model": "stub-model", "max_model_len": 1_000_000}
    assert config["data_hash"] and "python" in config["versions"] and "pydantic" in config["versions"]
    lines = _lines(run_dir)
    assert [line["id"] for line in lines] == config["sample_ids"]
    first = lines[0]
    assert first["prompt"]["messages"][0]["role"] == "system" and first["prompt"]["text"].startswith("<system>")
    assert len(first["prompt"]["shots"]) == 3 and first["code"].strip() and first["raw_output"].startswith("I make")
    assert first["tokens_in"] > 0 and first["tokens_out"] > 0 and first["scores"]["gold_calls"] > 0
    results = json.loads((run_dir / "results.json").read_text())
    assert results["metrics"]["overall"]["n_samples"] == 4 and results["missing"] == []
    assert results["metrics"]["overall"]["seq_match_full"] == 1.0  # the stub answers with the gold code
    assert "Arg Match (full)" in (run_dir / "report.md").read_text()


def test_a_run_executes_gold_and_prediction_and_reports_exec_scores(tmp_path: Path) -> None:
    outcome = run(_settings(limit=3), RunOptions(runs_root=tmp_path, quiet=True))
    config = json.loads((outcome.run_dir / "config.json").read_text())
    assert config["settings"]["execute"] is True
    lines = _lines(outcome.run_dir)
    runnable = [line for line in lines if line["explanation"]["exec"]["gold_trace"]["error"] is None]
    assert len(runnable) >= 2  # test/1's gold asks for the builtin `type`: it cannot run, so it has no Exec Match
    for line in lines:
        trace = line["explanation"]["exec"]
        assert trace["pred_trace"]["calls"] == trace["gold_trace"]["calls"]  # the stub answers gold
        if line in runnable:
            assert line["scores"]["exec_success"] == line["scores"]["exec_match"] == 1 and trace["pred_trace"]["calls"]
            assert trace["pred_trace"]["world_digest"] == trace["gold_trace"]["world_digest"]
        else:
            assert line["scores"]["exec_match"] is None and trace["gold_error"]["kind"] == "refused"
    overall = json.loads((outcome.run_dir / "results.json").read_text())["metrics"]["overall"]
    assert (overall["exec_match"], overall["n_exec_match"], overall["n_exec_success"]) == (1.0, len(runnable), 3)
    assert "Exec Success" in (outcome.run_dir / "report.md").read_text()


def test_no_exec_runs_nothing_and_is_a_setting_resume_checks(tmp_path: Path) -> None:
    out = tmp_path / "run"
    outcome = run(_settings(limit=2, execute=False), RunOptions(out=out, quiet=True))
    overall = json.loads((out / "results.json").read_text())["metrics"]["overall"]
    assert "exec_success" not in overall and "exec_match" not in overall
    assert all(line["scores"]["exec_success"] is None and "exec" not in line["explanation"] for line in _lines(out))
    assert "Exec" not in (out / "report.md").read_text() and outcome.metrics["overall"]["seq_match_full"] == 1.0
    with pytest.raises(GqlbenchError, match="execute: False in the folder, True now"):
        run(_settings(limit=2), RunOptions(out=out, quiet=True))


def test_failed_generations_score_zero_on_execution_too(tmp_path: Path) -> None:
    settings = _settings(ids=("test/0", "test/2"), limit=None, model_args={"fail": "test/2"})
    outcome = run(settings, RunOptions(out=tmp_path / "run", quiet=True))
    assert outcome.missing == ["test/2"] and [line["id"] for line in _lines(outcome.run_dir)] == ["test/0"]
    overall = outcome.metrics["overall"]  # test/2 counts 0 on every metric (its gold runs), as in evaluate
    assert (overall["exec_success"], overall["exec_match"], overall["n_exec_match"]) == (0.5, 0.5, 2)


def test_the_same_settings_resume_the_latest_run_and_failures_are_retried(tmp_path: Path) -> None:
    flag = tmp_path / "fail"
    flag.write_text("")
    settings = _settings(model_args={"fail_while": str(flag)})
    options = RunOptions(runs_root=tmp_path / "runs", quiet=True)
    first = run(settings, options)
    assert first.missing == ["test/0", "test/1", "test/2", "test/3"] and _lines(first.run_dir) == []
    assert len(_lines(first.run_dir, "errors.jsonl")) == 4
    assert json.loads((first.run_dir / "results.json").read_text())["metrics"]["overall"]["arg_match_full"] == 0.0
    flag.unlink()
    second = run(settings, options)
    assert second.run_dir == first.run_dir and second.missing == []
    assert [line["id"] for line in _lines(second.run_dir)] == ["test/0", "test/1", "test/2", "test/3"]
    third = run(settings, options)  # complete: nothing generated again, the report is rewritten
    assert third.already_complete and third.run_dir == first.run_dir and len(_lines(third.run_dir)) == 4


def test_a_partial_run_generates_only_the_missing_samples(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    settings = _settings(model_args={"log": str(log)})
    out = tmp_path / "run"
    first = run(settings, RunOptions(out=out, quiet=True))
    samples = (out / "samples.jsonl").read_text().splitlines(keepends=True)
    (out / "samples.jsonl").write_text("".join(samples[:2]) + samples[2][:40])  # killed while writing line 3
    log.unlink()
    told: list[str] = []
    second = run(settings, RunOptions(out=out, quiet=True, batch_size=1, notify=told.append))
    assert "samples.jsonl: dropped an unfinished last line (40 bytes;" in told[0]
    assert told[1] == f"resuming {out}: 2 of 4 samples done"
    assert log.read_text().split() == ["test/2", "test/3"]
    assert [r.id for r in read_samples(out / "samples.jsonl")] == ["test/0", "test/1", "test/2", "test/3"]
    assert second.resumed_from == 2 and second.metrics == first.metrics


def test_a_completion_with_a_lone_surrogate_is_written_and_read_back(tmp_path: Path) -> None:
    settings = _settings(limit=2, model_args={"surrogate": "yes"})
    out = tmp_path / "run"
    first = run(settings, RunOptions(out=out, quiet=True))
    lines = [json.loads(line) for line in (out / "samples.jsonl").read_bytes().decode("utf-8").splitlines()]
    assert [line["raw_output"][:32] for line in lines] == [r"I make the calls in order\ud800."] * 2  # its escape text
    assert first.metrics["overall"]["seq_match_full"] == 1.0 and first.missing == []
    again = run(settings, RunOptions(out=out, quiet=True))  # the resume reads the file back
    assert again.already_complete and again.metrics == first.metrics


def test_other_settings_get_their_own_folder_and_out_refuses_a_mismatch(tmp_path: Path) -> None:
    options = RunOptions(runs_root=tmp_path, quiet=True)
    a = run(_settings(limit=1), options)
    b = run(_settings(limit=1, shots=1), options)
    assert a.run_dir != b.run_dir
    with pytest.raises(GqlbenchError, match=r"other settings \(shots: 3 in the folder, 2 now"):
        run(_settings(limit=1, shots=2), RunOptions(out=a.run_dir, quiet=True))


def test_out_starts_over_a_run_that_failed_before_any_result_under_other_settings(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with pytest.raises(GqlbenchError):  # the engine fails to load: config.json is written, no sample
        run(_settings(limit=1, model_args={"broken": "yes"}), RunOptions(out=out, quiet=True))
    assert (out / "config.json").exists() and not (out / "samples.jsonl").exists()
    told: list[str] = []
    fixed = run(_settings(limit=1), RunOptions(out=out, quiet=True, notify=told.append))
    assert "ended before writing any result; starting it over" in told[0]
    assert [r.id for r in fixed.results] == ["test/0"]
    with pytest.raises(GqlbenchError, match="other settings"):  # now it has a result: refused as before
        run(_settings(limit=1, shots=2), RunOptions(out=out, quiet=True))


def test_overwrite_starts_over_and_says_what_it_removes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run(_settings(limit=2), RunOptions(out=out, quiet=True))
    (out / "notes.txt").write_text("mine")
    told: list[str] = []
    again = run(_settings(limit=1), RunOptions(out=out, quiet=True, overwrite=True, notify=told.append))
    assert "removing config.json, samples.jsonl" in told[0]
    assert [r.id for r in again.results] == ["test/0"] and (out / "notes.txt").read_text() == "mine"


def test_out_refuses_a_folder_that_is_not_a_run(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("user file")
    with pytest.raises(GqlbenchError, match="not a gqlbench run"):
        run(_settings(), RunOptions(out=tmp_path, quiet=True))


def test_react_runs_score_the_action_sequence(tmp_path: Path) -> None:
    outcome = run(_settings(prompt="react", ids=("test/3", "test/7")), RunOptions(runs_root=tmp_path, quiet=True))
    lines = _lines(outcome.run_dir)
    assert [line["finish_reason"] for line in lines] == ["finish", "finish"]
    assert all(line["steps"][-1]["action"] == "finish" for line in lines)
    assert outcome.metrics["overall"]["seq_match_full"] == 1.0
    assert json.loads((outcome.run_dir / "config.json").read_text())["generation"]["stop"][0] == "\nObservation:"


def test_react_with_mock_observations_shows_the_executed_responses(tmp_path: Path) -> None:
    outcome = run(_settings(prompt="react", observe="mock", ids=("test/3", "test/7")), RunOptions(runs_root=tmp_path, quiet=True))
    assert json.loads((outcome.run_dir / "config.json").read_text())["settings"]["observe"] == "mock"
    lines = {line["id"]: line for line in _lines(outcome.run_dir)}
    devices = json.loads(lines["test/7"]["steps"][0]["observation"])  # GET_me_player_devices(), run on the world
    assert "My PC" in [d["name"] for d in devices["devices"]]
    assert lines["test/7"]["steps"][1]["observation"] == '{"ok":true,"status_code":200}'
    assert "Observation: {" in lines["test/3"]["raw_output"]
    assert outcome.metrics["overall"]["exec_match"] == 1.0 and outcome.metrics["overall"]["seq_match_full"] == 1.0


def test_mock_observations_need_a_catalog_domain_and_are_refused_before_a_model_is_loaded(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    line = json.loads((default_data_dir() / "test.jsonl").read_text(encoding="utf-8").splitlines()[0])
    (data / "test.jsonl").write_text(json.dumps({**line, "domain": "atlantis"}) + "\n")

    def no_model(settings: RunSettings) -> None:
        raise AssertionError("no model may be loaded")

    settings = _settings(prompt="react", observe="mock", data=str(data), shots=0, limit=None)
    with pytest.raises(GqlbenchError, match="--observe mock: domain\\(s\\) atlantis are not in the catalog"):
        run(settings, RunOptions(runs_root=tmp_path / "runs", quiet=True), backend_factory=no_model)  # type: ignore[arg-type]
    assert not (tmp_path / "runs").exists()
    settings = _settings(data=str(data), shots=0, limit=None)  # executing any run needs the domain's world
    with pytest.raises(GqlbenchError, match="unknown domain 'atlantis'.*pass --no-exec"):
        run(settings, RunOptions(runs_root=tmp_path / "runs", quiet=True), backend_factory=no_model)  # type: ignore[arg-type]
    assert not (tmp_path / "runs").exists()


def test_a_prompt_that_cannot_fit_is_scored_zero_with_the_reason(tmp_path: Path) -> None:
    outcome = run(_settings(limit=1, model_args={"max_model_len": 600}), RunOptions(runs_root=tmp_path, quiet=True))
    line = _lines(outcome.run_dir)[0]
    assert "prompt exceeds context" in line["error"] and line["scores"]["arg_match_full"] == 0
    assert line["prompt"]["dropped"][-1] == "parameter descriptions" and outcome.missing == []
    assert (line["scores"]["exec_success"], line["scores"]["exec_match"]) == (0, 0)  # nothing ran; the gold did
    assert line["explanation"]["exec"]["gold_trace"]["error"] is None


def test_planning_ids_limit_and_train_checks() -> None:
    assert [s.id for s in plan_samples(_settings(ids=("test/5", "test/2", "test/5"), limit=None))] == ["test/5", "test/2"]
    with pytest.raises(GqlbenchError, match="not in split 'test'"):
        plan_samples(_settings(ids=("valid/1",)))
    with pytest.raises(GqlbenchError, match="does not exist"):
        plan_samples(_settings(ids=("test/99",)))
    with pytest.raises(GqlbenchError, match="--shots 0"):
        _settings(split="train")
    assert len(plan_samples(_settings(split="train", shots=0, limit=None))) == 107


def test_custom_backends_and_model_slugs(tmp_path: Path) -> None:
    backend = load_backend(_settings(model_args={"max_model_len": 77}))
    assert backend.max_model_len == 77 and backend.describe()["backend"] == "stub"
    with pytest.raises(GqlbenchError, match="cannot import"):
        load_backend(_settings(backend="no_such_module_xyz:Backend"))
    with pytest.raises(GqlbenchError, match="has no .Missing.; name a backend it defines"):
        load_backend(_settings(backend=STUB.replace(":StubBackend", ":Missing")))
    assert model_slug("HuggingFaceTB/SmolLM2-135M-Instruct") == "HuggingFaceTB--SmolLM2-135M-Instruct"
    (tmp_path / "my model").mkdir()
    assert model_slug(str(tmp_path / "my model")) == "my_model"


def test_the_run_list_names_the_prompt_settings_that_are_not_the_defaults(tmp_path: Path) -> None:
    changed = _settings(
        limit=2, execute=False, obfuscate="names", schema="types-only", shot_rule="similar", model_args={"obfuscate": "names"}
    )
    outcome = run(changed, RunOptions(runs_root=tmp_path, quiet=True))
    meta = json.loads((outcome.run_dir / "results.json").read_text())["meta"]
    assert {k: meta.get(k) for k in ("obfuscate", "schema", "shot_rule", "functions", "relevance")} == {
        "obfuscate": "names",
        "schema": "types-only",
        "shot_rule": "similar",
        "functions": None,
        "relevance": None,
    }
    report = (outcome.run_dir / "report.md").read_text().split("\nRun:\n", 1)[1]
    assert "- obfuscate: `names`" in report and "- schema: `types-only`" in report and "- shot_rule: `similar`" in report
    assert "functions" not in report and outcome.metrics["overall"]["seq_match_full"] == 1.0  # mapped back
    default = run(_settings(limit=1, execute=False, shots=0, shot_rule="similar"), RunOptions(runs_root=tmp_path, quiet=True))
    meta = json.loads((default.run_dir / "results.json").read_text())["meta"]
    assert not set(meta) & {"functions", "obfuscate", "schema", "relevance", "shot_rule"}  # no shots: the rule picked nothing


def test_a_call_of_a_function_not_offered_maps_back_runs_and_is_tagged(tmp_path: Path) -> None:
    settings = _settings(limit=2, obfuscate="names", model_args={"obfuscate": "names", "unoffered": "1"})
    outcome = run(settings, RunOptions(runs_root=tmp_path, quiet=True))
    for line in _lines(outcome.run_dir):
        [(opaque, real)] = line["not_offered_calls"].items()
        assert opaque.startswith("api_") and real not in line["offered"] and f"extra = {real}()" in line["code"]
        tagged = [e for e in line["explanation"]["errors"] if e["kind"] == "hallucinated_function"]
        assert [e["got"] for e in tagged] == [real] and "not offered" in tagged[0]["detail"]
        assert "NameError" not in json.dumps(line["explanation"].get("exec"))  # it ran as the real endpoint
    assert outcome.metrics["overall"]["errors"]["hallucinated_function"] == 2


def test_a_run_on_the_bundled_synthetic_set_reports_the_difficulty_breakdown(tmp_path: Path) -> None:
    data = default_data_dir().parent / "synthetic"
    rows = [json.loads(line) for line in (data / "test.jsonl").read_text().splitlines()]
    first = {(r["domain"], r["synthetic"]["shape"]): f"test/{i}" for i, r in reversed(list(enumerate(rows)))}
    ids = tuple(sorted(first.values(), key=lambda i: int(i.split("/")[1])))  # the first sample of each shape of each domain
    settings = _settings(data=str(data), ids=ids, limit=None, model_args={"data": str(data)})
    run_dir = run(settings, RunOptions(runs_root=tmp_path, quiet=True)).run_dir
    assert [line["synthetic"]["shape"] for line in _lines(run_dir)] == [rows[int(i.split("/")[1])]["synthetic"]["shape"] for i in ids]
    results = json.loads((run_dir / "results.json").read_text())
    assert results["metrics"]["overall"]["arg_match_full"] == 1.0  # the stub answers with the gold code
    chosen = collections.Counter(shape for _domain, shape in first)
    assert {shape: g["n_samples"] for shape, g in results["difficulty"]["shape"].items()} == dict(chosen)
    assert {"combine", "two_parts"} <= set(chosen)
    report = (run_dir / "report.md").read_text()
    assert "## By difficulty" in report and f"| two_parts (n={chosen['two_parts']})" in report
