"""`gqlbench report`: one table across run folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.cli import main
from gqlbench.records import SampleResult, Scores
from gqlbench.results.compare import power_table
from gqlbench.results.files import write_run
from gqlbench.results.power import mcnemar_power
from tests.stub_backends import STUB_RUN

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "predictions_example.jsonl"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("runs")
    example, empty = root / "example-run", root / "empty-run"
    (root / "zero.jsonl").write_text('{"id": "test/0", "prediction": "no_such_endpoint()"}\n')  # scores 0 everywhere
    assert main(["evaluate", str(EXAMPLE), "--out", str(example)]) == 0
    assert main(["evaluate", str(root / "zero.jsonl"), "--out", str(empty)]) == 0
    (example / "config.json").write_text(json.dumps({"model": "hand-written", "prompt": "cot", "split": "test"}))
    return example, empty


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def test_one_table_across_runs(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["report", *map(str, runs)]) == 0
    lines = capsys.readouterr().out.splitlines()
    lines = lines[: lines.index("")]  # the table; the paired comparison follows
    assert cells(lines[0])[:5] == ["Model", "Prompt", "Split", "Domain", "Arg Match (full)"]
    assert cells(lines[2])[:4] == ["hand-written", "cot", "test", "overall"]
    assert cells(lines[5])[:4] == ["zero.jsonl", "-", "test", "overall"]  # no config.json: the predictions file evaluated
    assert "Exec Match" in cells(lines[0]) and cells(lines[5])[4:] == ["0.0000"] * (len(cells(lines[0])) - 4)  # every metric
    assert len(lines) == 2 + 3 + 3


def test_table2_keeps_the_papers_columns_only(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["report", "--table2", *map(str, runs)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert cells(lines[0])[4:] == ["Arg Match (full)", "Arg Match (functions)", "Seq Match (full)", "Seq Match (connected subsequences)"]
    assert cells(lines[5])[4:] == ["0.0000"] * 4


def test_latex_format(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["report", "--format", "latex_booktabs", str(runs[0])]) == 0
    assert "\\toprule" in capsys.readouterr().out


def test_folder_without_results_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path)]) == 2
    assert "results.json: no such file" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "nope")]) == 2
    assert "no such run folder" in capsys.readouterr().err


def test_needs_at_least_one_run() -> None:
    assert main(["report"]) == 2


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("twins")
    first, second = root / "first", root / "second"
    for seed, out in enumerate((first, second)):
        assert main(["evaluate", str(EXAMPLE), "--out", str(out), "--no-exec", "--bootstrap", "500"]) == 0
        (out / "config.json").write_text(json.dumps({"model": "m", "prompt": "cot", "split": "test", "seed": seed}))
    return first, second


def test_two_runs_of_the_same_predictions_show_no_difference(
    twins: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    out = tmp_path / "cmp.json"
    assert main(["report", *map(str, twins), "--bootstrap", "500", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    rows = [cells(line) for line in text.splitlines() if line.startswith("| Arg Match (full)")]
    # no discordant pair: still an interval of the width 32 samples allow (a zero-width one would claim certainty)
    assert rows and rows[0][3:10] == ["+0.0000", "[-0.11, +0.11]", "Tango score", "1", "1", "McNemar exact", "no difference"]
    assert "WARNING" not in text
    assert "mean ± sd" in text  # same label twice: a repeated configuration
    document = json.loads(out.read_text())
    (comparison,) = document["comparisons"]
    assert comparison["only_a"] == comparison["only_b"] == []
    assert all(m["difference"] == 0 and m["p_value"] == 1.0 for m in comparison["metrics"].values())
    assert {"arg_match_full", "arg_match_functions", "dataflow_f1", "argument_f1"} <= set(comparison["metrics"])


def test_samples_only_one_run_has_are_named(
    runs: tuple[Path, Path], twins: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    out = tmp_path / "cmp.json"
    assert main(["report", str(twins[0]), str(runs[1]), "--bootstrap", "200", "--json", str(out)]) == 0
    (comparison,) = json.loads(out.read_text())["comparisons"]
    scored = json.loads((twins[0] / "results.json").read_text())["metrics"]["overall"]["n_samples"]
    assert comparison["shared"] + len(comparison["only_a"]) + len(comparison["only_b"]) >= scored
    if comparison["only_a"] or comparison["only_b"]:
        assert f"WARNING: the runs share only {comparison['shared']} samples" in capsys.readouterr().out
    assert all(m["verdict"] in ("no difference", "within noise", "A higher", "B higher") for m in comparison["metrics"].values())


def test_power_note_without_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--power"]) == 0
    text = capsys.readouterr().out
    assert "on 32 paired samples" in text and "McNemar's exact test" in text and "normal approximation" not in text
    assert "| 0.50          | 0.0                      | 0.376" in text  # the normal approximation's 0.350 has 73% power
    # a smaller difference is detected less often, not never: the power at half the detectable difference, by enumeration
    row = next(cells(line) for line in text.splitlines() if line.startswith("| 0.50          | 0.5"))
    assert row[4] == f"{mcnemar_power(32, 0.5, float(row[2]) / 2, 0.5):.0%}" == "20%"
    assert "cannot show" not in text and "not never" in text and "Holm-adjusted" in text


def renamed_copy(source: Path, run: Path, spotify: str) -> Path:
    """``source``'s results.json in a new folder ``run``, its spotify domain renamed ``spotify`` (JSON escapes, ASCII)."""
    run.mkdir()
    document = json.loads((source / "results.json").read_text())
    document["metrics"][spotify] = document["metrics"].pop("spotify")
    (run / "results.json").write_text(json.dumps(document), encoding="ascii")
    return run


def test_lone_surrogate_escapes_in_run_files_are_printed_replaced(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = renamed_copy(runs[1], tmp_path / "odd-run", "sp\ud800tify")  # written as "\ud800" escapes
    (run / "config.json").write_bytes(b'\xef\xbb\xbf{"model": "m\\udc00", "prompt": "cot"}')
    capsys.readouterr()
    assert main(["report", str(run)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert cells(lines[2])[:4] == ["m\ufffd", "cot", "test", "overall"]
    assert [cells(line)[3] for line in lines[3:]] == ["tmdb", "sp\ufffdtify"]


def test_against_the_paper_says_per_metric_and_domain_whether_its_value_is_inside_the_runs_interval(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = runs[0]
    capsys.readouterr()
    assert main(["report", str(example), "--against", "paper"]) == 2  # model 'hand-written': no row to compare with
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--against paper:MODEL:PROMPT" in err
    out = tmp_path / "against.json"
    assert main(["report", str(example), "--against", "paper:granite-34b-code-instruct:cot", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Against the paper's Table 2 (granite-34b-code-instruct, cot)" in text and "note: the paper's" in text
    results = json.loads((example / "results.json").read_text())["metrics"]
    checks = json.loads(out.read_text())["against"][0]["checks"]
    assert len(checks) == 4 * len([d for d in results if d in ("overall", "spotify", "tmdb")])
    for check in checks:
        ci = results[check["domain"]]["ci"][check["metric"]]
        assert check["ci"] == ci and check["inside"] == (ci[0] <= check["paper"] <= ci[1])
    inside = sum(c["inside"] is True for c in checks)
    assert f"the paper's value inside the run's 95% interval for {inside} of {len(checks)}" in text


def test_terminal_escapes_in_a_run_folder_are_shown_not_obeyed(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A shared run folder's model name, prompt and domain names reach the terminal only escaped."""
    run = renamed_copy(runs[0], tmp_path / "shared-run", "sp\x1b[2Jotify")
    (run / "samples.jsonl").write_text((runs[0] / "samples.jsonl").read_text())
    (run / "config.json").write_text(json.dumps({"model": "m\x1b]0;owned\x07", "prompt": "cot\x9b31m", "split": "test"}))
    capsys.readouterr()
    assert main(["report", str(runs[0]), str(run), "--bootstrap", "10"]) == 0
    out = capsys.readouterr().out
    assert not any(c in out for c in "\x1b\x07\x9b")
    assert "m\\x1b]0;owned\\x07" in out and "sp\\x1b[2Jotify" in out and "cot\\x9b31m" in out


def test_a_run_on_generated_samples_shows_its_breakdown_and_the_papers_runs_do_not(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "made"
    folder.mkdir()
    labels = [{"shape": "single", "calls": 1}, {"shape": "chain", "calls": 2}]
    codes = ['GET_search(q="Adele", type="artist")', 'r = GET_search(q="Muse", type="artist")\nGET_artists__id_(id=r.artists.items[0].id)']
    (folder / "test.jsonl").write_text(
        "".join(
            json.dumps({"domain": "spotify", "utterance": f"u{i}", "output": c, "synthetic": lab}) + "\n"
            for i, (c, lab) in enumerate(zip(codes, labels, strict=True))
        )
    )
    (tmp_path / "p.jsonl").write_text(json.dumps({"id": "test/0", "prediction": codes[0]}) + "\n")
    made = tmp_path / "made-run"
    assert main(["evaluate", str(tmp_path / "p.jsonl"), "--data", str(folder), "--out", str(made), "--no-exec"]) == 0
    capsys.readouterr()
    assert main(["report", str(runs[0])]) == 0
    assert "By difficulty" not in capsys.readouterr().out
    assert main(["report", str(runs[0]), str(made)]) == 0
    out = capsys.readouterr().out
    assert out.count("## By difficulty") == 1
    rows = {cells(line)[0]: cells(line)[1] for line in out.splitlines() if line.startswith(("| single", "| chain"))}
    assert rows == {"single (n=1)": "1.0000", "chain (n=1)": "0.0000"}


SYNTHETIC = Path(__file__).resolve().parents[2] / "data" / "synthetic"


@pytest.fixture(scope="module")
def synthetic_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example predictions scored against the synthetic set: its test/0-31 are other samples than the paper's."""
    run = tmp_path_factory.mktemp("synthetic") / "run"
    assert main(["evaluate", str(EXAMPLE), "--data", str(SYNTHETIC), "--out", str(run), "--no-exec", "--bootstrap", "200"]) == 0
    (run / "config.json").write_text(json.dumps({"model": "hand-written", "prompt": "cot", "split": "test"}))
    return run


def test_runs_on_different_data_are_shown_side_by_side_without_paired_tests(
    runs: tuple[Path, Path], synthetic_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    out = tmp_path / "cmp.json"
    assert main(["report", str(runs[0]), str(synthetic_run), "--bootstrap", "200", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    reason = [line for line in text.splitlines() if line.startswith("not paired:")]
    assert len(reason) == 1 and "different benchmark files" in reason[0]
    assert "McNemar" not in text and "shared samples" not in text  # no paired table at all
    assert "mean ± sd" not in text  # the same label on two benchmarks is no repeat of one configuration
    assert cells(text.splitlines()[5])[:4] == ["hand-written", "cot", "test", "overall"]  # side by side, in the table
    (comparison,) = json.loads(out.read_text())["comparisons"]
    assert comparison["paired"] is False and comparison["metrics"] == {} and comparison["reason"] == reason[0][:-1]


def test_against_paper_refuses_a_run_on_other_data(synthetic_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["report", str(synthetic_run), "--against", "paper:codellama-34b-instruct:cot"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not the bundled GraphQLRestBench" in err and str(synthetic_run) in err


def test_against_paper_reads_a_two_part_paper_preset(runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "preset-run"
    run.mkdir()
    for name in ("results.json", "samples.jsonl"):
        (run / name).write_text((runs[0] / name).read_text())
    config = {"model": "m", "prompt": "react", "split": "test", "settings": {"preset": {"name": "paper:codellama-34b-instruct"}}}
    (run / "config.json").write_text(json.dumps(config))
    capsys.readouterr()
    assert main(["report", str(run), "--against", "paper"]) == 0  # the model from the preset, the prompt that ran
    assert "Against the paper's Table 2 (codellama-34b-instruct, react)" in capsys.readouterr().out
    config["prompt"] = "plain"
    (run / "config.json").write_text(json.dumps(config))
    assert main(["report", str(run), "--against", "paper"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "names no row of the paper's Table 2" in err and "--against paper:MODEL:PROMPT" in err


def test_the_verdicts_use_p_values_holm_adjusted_across_the_whole_report(
    runs: tuple[Path, Path], twins: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cmp.json"
    assert main(["report", str(runs[1]), str(runs[0]), str(twins[0]), "--bootstrap", "200", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    comparisons = json.loads(out.read_text())["comparisons"]
    tested = [m for c in comparisons for m in c["metrics"].values() if not m["identical"]]
    assert len(tested) > len(comparisons[0]["metrics"])  # the family spans both pairs
    assert all(c["adjustment"] == {"method": "holm", "tests": len(tested)} for c in comparisons)
    assert f"p (Holm): adjusted across the {len(tested)} tests of this report." in text
    ranked = sorted(tested, key=lambda m: m["p_value"])
    for rank, entry in enumerate(ranked):  # Holm's step-down, from its definition
        expected = max(min(1.0, (len(ranked) - j) * ranked[j]["p_value"]) for j in range(rank + 1))
        assert entry["p_adjusted"] == pytest.approx(expected)
        assert entry["verdict"] == ("within noise" if expected >= 0.05 else ("B higher" if entry["difference"] > 0 else "A higher"))
    assert any(m["p_value"] < 0.05 for m in tested)


def test_a_split_all_run_against_the_paper_is_its_own_section_beside_table2_with_the_excluded_shots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "all"
    assert main([*STUB_RUN, "--split", "all", "--ids", "train/0,valid/1,test/20", "--out", str(run), "--quiet", "--no-exec"]) == 0
    excluded = json.loads((run / "config.json").read_text())["excluded_shots"]
    capsys.readouterr()
    out = tmp_path / "against.json"
    assert main(["report", str(run), "--against", "paper:granite-34b-code-instruct:cot", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Beside the paper's Table 2 (granite-34b-code-instruct, cot), not part of it:" in text and "so no verdict" in text
    assert "Against the paper's Table 2" not in text and "Paper inside" not in text  # never judged as Table 2
    assert "| Run (split all)" in text and "| Table 2 (test)" in text
    assert f"excluded (the run's few-shot examples, never evaluated): {', '.join(excluded)}" in text and len(excluded) == 6
    section = json.loads(out.read_text())["against"][0]
    assert section["split"] == "all" and section["excluded_shots"] == excluded
    assert all("inside" not in row for row in section["beside_table2"]) and len(section["beside_table2"]) == 4 * 3
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "data_hash": "0123456789abcdef"}))  # another benchmark's all split
    assert main(["report", str(run), "--against", "paper:granite-34b-code-instruct:cot"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "data 0123456789abcdef, not the bundled GraphQLRestBench" in err


def test_a_run_whose_prompts_kept_fewer_examples_than_asked_is_noted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "tight"  # the stub counts words: 2,600 keep some examples, not all three
    assert main([*STUB_RUN, "--limit", "4", "--model-args", "max_model_len=2600", "--out", str(run), "--quiet", "--no-exec"]) == 0
    shown = json.loads((run / "results.json").read_text())["meta"]["shots_shown"]
    capsys.readouterr()
    assert main(["report", str(run)]) == 0
    note = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("note: "))
    assert f"({run}): asked for 3 few-shot examples; " in note and all(f"{c} samples got {n}" in note for n, c in shown.items())


def test_power_of_clustered_samples_is_that_of_n_over_the_design_effect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "power.json"
    assert main(["report", "--power", "--power-n", "128", "--cluster-size", "4", "--icc", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "design effect 1 + (m - 1) * ICC = 4.00, so the 128 samples weigh as 32 independent ones" in text
    document = json.loads(out.read_text())
    assert [r["difference"] for r in document["power"]] == [r["difference"] for r in power_table(32)]
    assert document["power_clustering"] == {"mean_size": 4.0, "icc": 1.0, "icc_source": "stated", "design_effect": 4.0}


def test_power_estimates_the_icc_from_a_run_whose_samples_carry_clusters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    passed = [1, 0, 1, 1, 0, 1, 0, 1]  # 8 clusters of 4 samples with the same outcome: ICC 1
    results = [
        SampleResult(id=f"test/{i}", domain="tmdb", scores=Scores(arg_match_full=passed[i // 4]), cluster=f"s{i // 4}") for i in range(32)
    ]
    write_run(tmp_path / "run", results, meta={"bootstrap": 0})
    assert main(["report", str(tmp_path / "run"), "--power"]) == 0
    text = capsys.readouterr().out
    assert "mean size 4.00" in text and "intraclass correlation 1.00 (estimated)" in text and "weigh as 8 independent" in text


def test_power_of_a_samples_file_clusters_its_lines_by_program_skeleton(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = {"shape": "single"}
    lines = [  # skeletons: 3 GET_search with a literal, 1 GET_me, and a human line is its own cluster: m = (9 + 1 + 1) / 5
        *(
            {"domain": "spotify", "utterance": f"find {q}", "output": f'GET_search(q="{q}", type="artist")', "synthetic": labels}
            for q in "abc"
        ),
        {"domain": "spotify", "utterance": "who am I", "output": "GET_me()", "synthetic": labels},
        {"domain": "spotify", "utterance": "my profile", "output": "GET_me()"},
    ]
    samples = tmp_path / "test.jsonl"
    samples.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "power.json"
    assert main(["report", "--power", "--power-clusters", str(samples), "--json", str(out)]) == 0
    assert "the 5 samples weigh as 2 independent ones" in capsys.readouterr().out
    assert json.loads(out.read_text())["power_clustering"] == {
        "mean_size": (9 + 1 + 1) / 5,
        "icc": 1.0,
        "icc_source": "assumed",
        "design_effect": (9 + 1 + 1) / 5,
    }
    assert main(["report", "--power", "--power-clusters", str(samples), "--power-n", "9"]) == 2  # n comes from the file
