"""`gqlbench run` under harder prompt settings: recorded, resumable, named, reported, and --dry-run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.cli import main
from gqlbench.dataset import get_sample
from tests.stub_backends import STUB_RUN


def _lines(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> Path:
    assert main([*STUB_RUN, "--ids", "test/2,test/20", "--quiet", *args]) == 0
    return Path(capsys.readouterr().out.split("run folder: ")[1].splitlines()[0].strip())


def test_an_obfuscated_distractor_run_scores_the_mapped_back_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = [
        "--functions",
        "distractors:3",
        "--obfuscate",
        "all",
        "--seed",
        "4",
        "--model-args",
        "obfuscate=all,functions=distractors:3,seed=4",
    ]
    run_dir = _run(args, capsys)
    assert run_dir.name.endswith("_test_cot_functions-distractors_3_obfuscate-all")
    settings = json.loads((run_dir / "config.json").read_text())["settings"]
    assert (settings["functions"], settings["obfuscate"], settings["schema"]) == ("distractors:3", "all", "full")
    for line in _lines(run_dir):
        assert "api_" in line["raw_output"] and "api_" not in line["code"]
        assert line["scores"]["arg_match_full"] == 1 and line["scores"]["exec_match"] == 1
        assert len(line["offered"]) >= 4 and set(line["obfuscation"]["functions"]) == set(line["offered"])
        assert all(name.startswith("api_") for name in line["obfuscation"]["functions"].values())
    assert _run(args, capsys) == run_dir  # the same settings resume (here: already complete)
    default = _run([], capsys)
    assert default != run_dir and default.name.endswith("_test_cot")
    assert "offered" not in _lines(default)[0]  # the paper's setting keeps samples.jsonl's keys
    assert main(["report", str(default), str(run_dir)]) == 0
    table = capsys.readouterr().out.split("\n\n")[0]
    assert "| Functions" in table and "| Obfuscate" in table and "Schema" not in table
    assert "| distractors:3" in table and "| gold" in table


def test_react_with_mock_observations_under_obfuscation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run_dir = _run(
        ["--prompt", "react", "--observe", "mock", "--obfuscate", "names", "--schema", "types-only", "--model-args", "obfuscate=names"],
        capsys,
    )
    for line in _lines(run_dir):
        assert line["scores"]["seq_match_full"] == 1
        observations = [step["observation"] for step in line["steps"] if step.get("observation")]
        assert observations and not any("Error" in o for o in observations)


def test_dry_run_prints_the_prompt_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([*STUB_RUN, "--functions", "domain", "--schema", "none", "--dry-run", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert "Utterance:" in out and "GET_search" in out
    assert "--- test/0:" in out and "estimated tokens" in out and "34 functions offered" in out
    assert list(tmp_path.iterdir()) == []


def test_a_bad_setting_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*STUB_RUN, "--functions", "distractors:many", "--dry-run"]) == 2
    assert "--functions 'distractors:many'" in capsys.readouterr().err


def test_a_prompt_that_cannot_fit_is_a_per_sample_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run_dir = _run(["--functions", "domain", "--no-exec", "--model-args", "max_model_len=3000"], capsys)
    for line in _lines(run_dir):
        assert "exceeds context" in line["error"] and line["scores"]["arg_match_full"] == 0
        assert line["prompt"]["dropped"][-1] == "parameter descriptions" and len(line["offered"]) in (34, 46)


def test_the_default_shots_are_the_fixed_set_of_the_domain(capsys: pytest.CaptureFixture[str]) -> None:
    def shots(*args: str) -> str:
        assert main([*STUB_RUN, "--ids", "test/0", "--dry-run", *args]) == 0
        return capsys.readouterr().out.rsplit("shots: ", 1)[1]

    default = shots()
    assert default == shots("--shot-rule", "fixed") == shots("--shot-rule", "diverse") != shots("--shot-rule", "similar")


def test_a_preset_sets_the_papers_run_records_itself_and_yields_to_explicit_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    preset = ["--preset", "paper:granite-34b-code-instruct:react"]
    assert main([*STUB_RUN, "--ids", "test/20", "--dry-run", *preset]) == 0
    out = capsys.readouterr().out
    assert "preset paper:granite-34b-code-instruct:react: prompt=react" in out and "obfuscate=spec-descriptions" in out
    task = out.rsplit("Function Signatures:", 1)[1].split("Utterance:")[0]  # the sample's own block
    signatures, schema = task.split("GraphQL schema:")
    assert '"name": "GET_' in signatures and '"properties"' in signatures and '"query"' in signatures  # names and parameters stay
    assert '"description"' not in signatures  # the functions' and the parameters' descriptions go
    assert schema.strip() in get_sample("test/20").graphql_schema  # the schema is not part of the function specs: kept whole
    run_dir = _run([*preset, "--no-exec", "--temperature", "0"], capsys)
    config = json.loads((run_dir / "config.json").read_text())
    assert config["prompt"] == "react" and config["settings"]["shots"] == 3 and config["settings"]["temperature"] == 0.0
    assert config["settings"]["preset"] == {"name": "paper:granite-34b-code-instruct:react", "overrides": {"temperature": 0.0}}
    assert config["settings"]["model_args"] == {"max_model_len": 8192}
    assert main(["run", "--model", "stub", "--preset", "paper:granite:react", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "did you mean paper:granite-34b-code-instruct:react" in err


def test_dry_run_escapes_a_datasets_utterance(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A benchmark folder is third-party text: the prompt it makes reaches the terminal escaped."""
    from gqlbench.dataset import default_data_dir

    monkeypatch.chdir(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    for split in ("train", "test"):
        row = json.loads((default_data_dir() / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()[0])
        row["utterance"] = "Play music\x1b]0;owned\x07\x1b[2J"
        (data / f"{split}.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert main([*STUB_RUN, "--data", str(data), "--dry-run", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert "Play music\\x1b]0;owned\\x07\\x1b[2J" in out and "\x1b" not in out and "\x07" not in out
