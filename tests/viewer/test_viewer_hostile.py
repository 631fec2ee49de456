"""A run folder is passed between people: every value in it is text, never markup, and a bad one is a one-line error."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from gqlbench.cli import main
from gqlbench.errors import GqlbenchError
from gqlbench.viewer.assets import CSS, JS
from gqlbench.viewer.data import load_run_view
from gqlbench.viewer.graph import dataflow_svg
from gqlbench.viewer.page import render_report
from gqlbench.viewer.runpage import metric_cell
from gqlbench.viewer.sample import sample_comparison
from gqlbench.viewer.text import CELL_CHARS, TEXT_CHARS

INJECTED = ("<img", 'onerror="document')  # either one raw in the page means the data became markup
MARKUP = "\"'><img src=x onerror=\"document.title='pwned'\">"
BIG = "@BIG@"  # written as a 5,000-digit number (see conftest.edited_copy)


def report(*runs: Path) -> str:
    return render_report([load_run_view(run) for run in runs])


def csp(html: str) -> str:
    found = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', html)
    assert found is not None
    return found.group(1)


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def test_a_string_where_a_metric_belongs_is_shown_as_text(executed_run: Path, tmp_path: Path, hostile: SimpleNamespace) -> None:
    run = hostile.edit(executed_run, tmp_path / "run", results=lambda d: d["metrics"]["overall"].update(arg_match_full=MARKUP))
    html = report(run)
    assert not any(marker in html for marker in INJECTED)
    assert '<td class="text" data-metric="arg_match_full">&quot;&#x27;&gt;&lt;img src=x onerror=' in html


def test_only_the_reports_own_script_and_style_are_allowed(executed_run: Path) -> None:
    html = report(executed_run)
    policy = csp(html)
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    script_src = re.search(r"script-src ([^;]*)", policy)
    style_src = re.search(r"style-src ([^;]*)", policy)
    assert script_src is not None and script_src.group(1).strip() == sha256(JS)
    assert style_src is not None and style_src.group(1).strip() == sha256(CSS)
    assert html.count("<script>") == 1 and f"<script>{JS}</script>" in html and f"<style>{CSS}</style>" in html
    assert re.search(r"<[^>]*\son[a-z]+\s*=", html) is None  # no inline event handler anywhere
    assert re.search(r"<[^>]*\sstyle\s*=", html) is None  # nor a style attribute (the policy would block it)


def test_every_value_of_a_hostile_run_folder_is_escaped(hostile_run: Path, tmp_path: Path, hostile: SimpleNamespace) -> None:
    second = hostile.edit(hostile_run, tmp_path / "second")
    html = report(hostile_run, second)  # the run pages, the sample pages and the comparison
    assert not any(marker in html for marker in INJECTED)
    assert html.count("&lt;img src=x onerror=") > 40  # the values are shown, as text
    assert 'id="compare/t&quot;&gt;&lt;img' in html  # the hostile sample id has a comparison page


def test_svg_ids_never_come_from_a_sample_ids_text(hostile_run: Path, tmp_path: Path, hostile: SimpleNamespace) -> None:
    second = hostile.edit(hostile_run, tmp_path / "second")
    html = report(hostile_run, second)
    markers = re.findall(r'<marker id="([^"]*)"', html)
    references = re.findall(r"url\(#([^)]*)\)", html)
    assert markers and references
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", name) for name in markers + references)
    assert set(references) <= set(markers) and len(set(markers)) == len(markers)  # each arrowhead found, none defined twice
    pages = [m.start() for m in re.finditer(r'<section class="page[^"]*" id="(r0|r1|compare)/t&quot;', html)]
    assert len(pages) == 3  # the hostile id's sample page in both runs and its comparison page all draw graphs
    run = load_run_view(hostile_run)
    comparison = sample_comparison(run.results[0], None)
    assert run.results[0].id == hostile.bad_id and comparison is not None and comparison.gold.nodes
    with pytest.raises(ValueError, match="not a plain name"):
        dataflow_svg(comparison.gold, "gold", f"g0-{hostile.bad_id}")


@pytest.mark.parametrize(
    "value",
    [float("nan"), float("inf"), -1.0, 10**4000, "0.5", True, [1, 2], {"a": MARKUP}],
    ids=["nan", "inf", "negative", "4000 digits", "string", "bool", "list", "map"],
)
def test_a_metric_of_any_json_value_renders_escaped(value: object) -> None:
    cell = metric_cell({"arg_match_full": value, "ci": {"arg_match_full": [10**400, float("nan")]}}, "arg_match_full")
    assert "<img" not in cell and cell.startswith("<td") and cell.endswith("</td>")


def test_non_finite_and_odd_values_draw_no_broken_bars(executed_run: Path, tmp_path: Path, hostile: SimpleNamespace) -> None:
    def edit(doc: dict) -> None:
        doc["metrics"]["overall"] |= {"arg_match_full": float("nan"), "seq_match_full": float("inf"), "exec_match": 10**400}
        doc["metrics"]["overall"]["errors"]["parse_error"] = 10**30

    second = hostile.edit(executed_run, tmp_path / "second", results=edit)
    html = report(executed_run, second)
    widths = re.findall(r'<rect [^>]*width="([^"]*)"', html)
    assert widths and all(re.fullmatch(r"\d+(\.\d+)?", w) for w in widths)  # no nan, inf or negative width


def test_a_huge_trace_is_embedded_once_and_cut_with_a_note(executed_run: Path, tmp_path: Path, hostile: SimpleNamespace) -> None:
    big = "a" * 10**6

    def edit(lines: list[dict]) -> None:
        line = next(x for x in lines if isinstance(x["explanation"].get("exec", {}).get("pred_trace"), dict))
        line["id"] = "test/999"  # not a benchmark sample: no utterance, gold from the explanation
        trace = line["explanation"]["exec"]["pred_trace"]
        trace["calls"] = [{"function": "PUT_me_player_play", "arguments": {"uris": [big] * 55}}] * 3 + [
            {"function": "GET_me", "arguments": {}, "response_ids": ["x" * 5000] * 10}
        ] * 300
        trace["stdout"] = big
        line |= {"raw_output": big, "explanation": {**line["explanation"], "code": "x = 1\n" * 200_000, "parse_error": big}}

    plain = report(hostile.edit(executed_run, tmp_path / "plain"))
    html = report(hostile.edit(executed_run, tmp_path / "huge", samples=edit))
    page = re.search(r'<section class="page sample" id="r0/test/999">.*?</section>', html, re.S)
    assert page is not None
    assert len(page.group()) < 10 * TEXT_CHARS  # the trace alone is 165 MB of arguments
    assert len(html) - len(plain) < 10 * TEXT_CHARS
    assert "a" * (TEXT_CHARS + 1) not in html and ("a" * (CELL_CHARS + 1)) not in page.group().split("stdout")[0]
    notes = re.findall(r"\[truncated: [^]]*\]", page.group())
    assert any("of 303 calls shown" in note for note in notes)
    assert any("of 1,000,000 characters shown" in note for note in notes)  # stdout, raw text, parse error
    assert any("of 1,200,000 characters shown" in note for note in notes)  # the program


BAD_FOLDERS = {  # what was edited -> the field the error must name
    "error counts as strings": (
        {"results": lambda d: d["metrics"]["overall"]["errors"].update(parse_error="2")},
        "metrics.overall.errors.parse_error",
    ),
    "a 5,000-digit number": ({"results": lambda d: d["metrics"]["overall"].update(n_samples=BIG)}, "metrics.overall.n_samples"),
    "a 5,000-digit number in config.json": ({"config": lambda c: c.update(seed=BIG)}, "config.json: seed"),
    "settings as a number": ({"config": lambda c: c.update(settings=5)}, "config.json: settings: 5"),
    "a data folder as a list": ({"config": lambda c: c.update(settings={"data": [1]})}, "config.json: settings.data"),
    "an interval of strings": (
        {"results": lambda d: d["metrics"]["overall"]["ci"].update(arg_match_full=["a", "b"])},
        "metrics.overall.ci.arg_match_full",
    ),
    "explanation.exec as a list": ({"samples": lambda lines: lines[0]["explanation"].update(exec=[1, 2])}, "explanation.exec"),
    "trace calls as ints": (
        {"samples": lambda lines: lines[0]["explanation"]["exec"]["pred_trace"].update(calls=[1, 2])},
        "explanation.exec.pred_trace.calls.0",
    ),
    "a divergence index as text": (
        {"samples": lambda lines: lines[0]["explanation"]["exec"].update(divergence={"index": "first"})},
        "explanation.exec.divergence.index",
    ),
    "tokens as text": ({"samples": lambda lines: lines[0].update(tokens_in="many", tokens_out=3)}, "'test/0': tokens_in"),
    "a latency of NaN": ({"samples": lambda lines: lines[0].update(latency_s=float("nan"))}, "'test/0': latency_s"),
}


@pytest.mark.parametrize("case", list(BAD_FOLDERS))
def test_a_hand_edited_run_folder_is_a_one_line_error_for_view(
    case: str, executed_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], hostile: SimpleNamespace
) -> None:
    edits, field = BAD_FOLDERS[case]
    run = hostile.edit(executed_run, tmp_path / "run", **edits)
    assert main(["view", str(run), "--out", str(tmp_path / "out.html")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {run}") and field in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out.html").exists()


@pytest.mark.parametrize("case", [c for c, (edits, _) in BAD_FOLDERS.items() if "samples" not in edits])
def test_a_hand_edited_run_folder_is_a_one_line_error_for_report(
    case: str, executed_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], hostile: SimpleNamespace
) -> None:
    edits, field = BAD_FOLDERS[case]
    run = hostile.edit(executed_run, tmp_path / "run", **edits)
    assert main(["report", str(executed_run), str(run), "--bootstrap", "10"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {run}") and field in err and err.count("\n") == 1


def test_a_cost_block_of_the_wrong_type_is_a_one_line_error(
    executed_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], hostile: SimpleNamespace
) -> None:
    cost = {"prompt_tokens": "lots", "completion_tokens": 1}
    latency = {"samples": 1, "completions": 1, "per_completion_s": {}, "attribution": "request"}
    run = hostile.edit(executed_run, tmp_path / "run", results=lambda d: d.update(cost=cost, latency=latency))
    assert main(["report", str(run)]) == 2
    assert "results.json: cost.prompt_tokens: Input should be a valid integer" in capsys.readouterr().err
    with pytest.raises(GqlbenchError, match="cost.prompt_tokens"):
        load_run_view(run)


def test_plots_draw_a_hostile_run_folder(executed_run: Path, tmp_path: Path, hostile: SimpleNamespace) -> None:
    """matplotlib reads ``$...$`` in a label as mathtext (a model name ``a$\\frac$`` fails to draw); a string metric gets no bar."""
    pytest.importorskip("matplotlib")
    from gqlbench.viewer.plots import write_plots

    def edit(doc: dict) -> None:
        doc["metrics"]["overall"]["arg_match_full"] = MARKUP
        doc["metrics"]["overall"]["errors"]["a$\\frac$"] = 1

    run = hostile.edit(executed_run, tmp_path / "run", results=edit, config=lambda c: c.update(model="m$\\frac{$x", prompt="cot"))
    written = write_plots([load_run_view(run)], tmp_path / "plots")
    assert sorted(p.name for p in written) == ["errors-0.png", "errors-0.svg", "metrics.png", "metrics.svg"]
