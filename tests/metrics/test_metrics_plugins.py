"""Metrics registered from outside the package run end to end through ``gqlbench evaluate`` and ``report``.

A toy module written to a temporary folder (on ``PYTHONPATH`` of a
subprocess) is named by ``GQLBENCH_METRICS``; another is found through an
entry point of the ``gqlbench.metrics`` group, declared by a distribution's
metadata in that folder. Their values are checked against what the samples'
explanations and traces say, and the built-in scores against the saved run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "regression"
GQLBENCH = str(Path(sys.executable).parent / "gqlbench")

TOY_MODULE = """
from gqlbench.metrics import register_metric


@register_metric("toy_no_extra_calls", title="Toy: no extra calls", reads="analyses")
def no_extra_calls(gold, predicted):
    return len(predicted.calls) <= len(gold.calls)


@register_metric("toy_clean_calls", title="Toy: clean calls", reads="traces", aggregation="ratio", optional=True)
def clean_calls(gold, predicted):
    return sum(call.error is None for call in predicted.calls), len(gold.calls)
"""

ENTRY_POINT_MODULE = """
from gqlbench.metrics import Metric

metric = Metric(
    name="toy_stdout_silent",
    title="Toy: silent",
    reads="traces",
    compute=lambda gold, predicted: int(predicted.stdout == ""),
    optional=True,
)
"""


def _site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    (site / "toy_metrics.py").write_text(textwrap.dedent(TOY_MODULE))
    (site / "toy_ep_metric.py").write_text(textwrap.dedent(ENTRY_POINT_MODULE))
    dist = site / "toy_ep-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-ep\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[gqlbench.metrics]\nsilent = toy_ep_metric:metric\n")
    return site


def _gqlbench(site: Path, metrics: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "GQLBENCH_METRICS": metrics}
    return subprocess.run([GQLBENCH, *args], capture_output=True, text=True, env=env, cwd=site, timeout=600)


@pytest.fixture(scope="module")
def plugin_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp_path = tmp_path_factory.mktemp("plugins")
    site, out = _site(tmp_path), tmp_path / "run"
    for _ in range(2):  # once more when the machine was too loaded for the sandbox's wall clock
        args = ["evaluate", str(FIXTURE / "predictions.jsonl"), "--out", str(out), "--overwrite"]
        done = _gqlbench(site, "toy_metrics:no_extra_calls,toy_metrics:clean_calls", *args)
        assert done.returncode == 0, done.stderr
        if '"kind":"timeout"' not in (out / "samples.jsonl").read_text():
            return site, out
    pytest.fail("programs hit the sandbox's wall clock in two runs; rerun on a quieter machine")


def test_outside_metrics_are_scored_per_sample_from_what_they_read(plugin_run: tuple[Path, Path]) -> None:
    _, out = plugin_run
    lines = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(lines) == 32
    for line in lines:
        scores, explanation = line["scores"], line["explanation"]
        if "predicted_sequence" in explanation:  # the prediction parsed: the metric was computed
            expected = int(len(explanation["predicted_sequence"]) <= len(explanation["gold_sequence"]))
        else:  # missing or unparsable: not scored, 0
            expected = 0
        assert scores["toy_no_extra_calls"] == expected, line["id"]
        gold_trace, pred_trace = explanation["exec"]["gold_trace"], explanation["exec"]["pred_trace"]
        clean = 0 if "pred_not_run" in explanation["exec"] else sum(c["error"] is None for c in pred_trace["calls"])
        assert scores["toy_clean_calls_numerator"] == clean, line["id"]
        assert scores["toy_clean_calls_denominator"] == len(gold_trace["calls"]), line["id"]
        assert scores["toy_stdout_silent"] == (0 if "pred_not_run" in explanation["exec"] else int(pred_trace["stdout"] == ""))


def test_outside_metrics_are_aggregated_and_the_built_in_ones_unchanged(plugin_run: tuple[Path, Path]) -> None:
    _, out = plugin_run
    lines = [json.loads(line)["scores"] for line in (out / "samples.jsonl").read_text().splitlines()]
    overall = json.loads((out / "results.json").read_text())["metrics"]["overall"]
    assert overall["toy_no_extra_calls"] == sum(s["toy_no_extra_calls"] for s in lines) / len(lines)
    assert overall["toy_clean_calls"] == sum(s["toy_clean_calls_numerator"] for s in lines) / sum(
        s["toy_clean_calls_denominator"] for s in lines
    )
    assert overall["n_toy_clean_calls"] == 32 and overall["n_toy_stdout_silent"] == 32
    saved = json.loads((FIXTURE / "test-exec" / "results.json").read_text())["metrics"]
    new = json.loads((out / "results.json").read_text())["metrics"]
    for group, metrics in saved.items():  # every built-in key, in the same order, with the same value
        assert [(k, v) for k, v in new[group].items() if k in metrics] == list(metrics.items())
    keys = list(new["overall"])  # an outside metric comes after the built-in ones, before the counts
    assert keys[:4] == ["arg_match_full", "arg_match_functions", "seq_match_full", "seq_match_conn"]
    assert keys.index("seq_match_conn") < keys.index("toy_no_extra_calls") < keys.index("n_samples")


def test_outside_metrics_are_columns_of_the_report_and_of_gqlbench_report(plugin_run: tuple[Path, Path]) -> None:
    site, out = plugin_run
    header = (out / "report.md").read_text().splitlines()[2]
    titles = [cell.strip() for cell in header.strip("|").split("|")]
    assert titles[1:5] == ["Arg Match (full)", "Arg Match (functions)", "Seq Match (full)", "Seq Match (connected subsequences)"]
    assert titles[-3:] == ["Toy: no extra calls", "Toy: clean calls", "Toy: silent"]  # after every built-in column
    assert {"Exec Success", "Exec Match"} <= set(titles[5:-3])
    compared = _gqlbench(site, "toy_metrics:no_extra_calls", "report", str(out))
    assert compared.returncode == 0, compared.stderr
    assert "Toy: no extra calls" in compared.stdout and "Toy: silent" in compared.stdout
    paper = _gqlbench(site, "toy_metrics", "report", str(out), "--table2")
    assert "Toy" not in paper.stdout and "Exec" not in paper.stdout and "Seq Match (full)" in paper.stdout


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module:metric", "GQLBENCH_METRICS entry no_such_module:metric: cannot import 'no_such_module'"),
        ("toy_metrics:nothing", "GQLBENCH_METRICS entry toy_metrics:nothing: module 'toy_metrics' has no 'nothing'"),
        ("json:dumps", "GQLBENCH_METRICS entry json:dumps: is a function, not a Metric"),
        ("toy_clash:metric", "GQLBENCH_METRICS entry toy_clash:metric: metric 'exec_match' is already registered"),
    ],
)
def test_a_bad_spec_is_a_one_line_error_naming_it(spec: str, message: str, tmp_path: Path) -> None:
    site = _site(tmp_path)
    (site / "toy_clash.py").write_text(ENTRY_POINT_MODULE.replace('"toy_stdout_silent"', '"exec_match"'))
    (site / "p.jsonl").write_text('{"id": "test/0", "prediction": "GET_me()"}\n')
    done = _gqlbench(site, spec, "evaluate", str(site / "p.jsonl"), "--no-exec")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip().count("\n") == 0 and message in done.stderr


def test_the_same_definition_named_twice_is_registered_once(tmp_path: Path) -> None:
    site = _site(tmp_path)  # toy_ep_metric:metric is also its entry point
    (site / "p.jsonl").write_text('{"id": "test/0", "prediction": "GET_me()"}\n')
    done = _gqlbench(site, "toy_ep_metric:metric,toy_ep_metric:metric,toy_metrics", "evaluate", str(site / "p.jsonl"), "--no-exec")
    assert done.returncode == 0, done.stderr
    assert "Toy: no extra calls" in done.stdout


def test_the_readme_recipe_works_as_written(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Add a metric", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    command = next(line for line in section.splitlines() if line.startswith("GQLBENCH_METRICS="))
    spec = command.split()[0].partition("=")[2]
    (tmp_path / "my_metrics.py").write_text(code)
    out = tmp_path / "run"
    done = _gqlbench(tmp_path, spec, "evaluate", str(ROOT / "examples" / "predictions_example.jsonl"), "--no-exec", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "No extra calls" in (out / "report.md").read_text()
    assert "no_extra_calls" in json.loads((out / "results.json").read_text())["metrics"]["overall"]
    reported = _gqlbench(tmp_path, spec, "report", str(out))
    assert reported.returncode == 0 and "No extra calls" in reported.stdout, reported.stderr
    viewed = _gqlbench(tmp_path, spec, "view", str(out), "--out", str(tmp_path / "page.html"))
    assert viewed.returncode == 0, viewed.stderr  # was KeyError: 'no_extra_calls' (the viewer's own list of metrics)
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    lines = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert page.count('title="no_extra_calls">No extra calls</span>') == len(lines)  # a badge on every sample
    assert '<tr data-row="no_extra_calls"><th>No extra calls</th>' in page  # a row of the run's metrics table
