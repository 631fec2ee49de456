"""The report in a real headless Chromium, driven over the DevTools protocol, opened from file://.

The ``browser`` fixture (tests/conftest.py) needs Debian's ``chromium`` and the
``websockets`` client, and skips with the reason without them. Screenshots are
saved in the test's tmp folder, and also copied to ``$GQLBENCH_SCREENSHOTS`` when
that is set (CI uploads them as artifacts).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from gqlbench.metrics import analyze, functions_for
from gqlbench.results.files import read_samples
from gqlbench.viewer.data import load_run_view, shared_ids
from gqlbench.viewer.page import write_report

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow  # the `browser` fixture (tests/conftest.py) skips when chromium is missing


def keep(shot: Path) -> None:
    target = os.environ.get("GQLBENCH_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(target) / shot.name)


VISIBLE = "Array.from(document.querySelectorAll('.run.shown aside li:not(.hidden)'))"

FITS = (  # every metrics table on the shown page: no sideways scrolling of the table, its container or the page
    "Array.from(document.querySelectorAll('section.page.shown table.metrics')).map(t => [t.scrollWidth <= t.clientWidth,"
    " t.parentElement.scrollWidth <= t.parentElement.clientWidth,"
    " t.getBoundingClientRect().right <= t.parentElement.getBoundingClientRect().right,"
    " document.documentElement.scrollWidth <= document.documentElement.clientWidth])"
)


def narrow(browser: Any, width: int = 1280) -> None:
    browser.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": 1000, "deviceScaleFactor": 1, "mobile": False})


def choose(browser: Any, name: str, value: str) -> int:
    """Pick a filter value as a user would (change event); returns the number of samples listed."""
    browser.js(
        f"(() => {{const s = document.querySelector('.run.shown select[data-filter=\"{name}\"]'); s.value = {json.dumps(value)};"
        "s.dispatchEvent(new Event('change')); return true;})()"
    )
    return browser.js(f"{VISIBLE}.length")


def test_run_report_in_chromium(browser: Any, executed_run: Path, tmp_path: Path) -> None:
    with contextlib.chdir(executed_run.parent):  # as `gqlbench view results --out report.html` reads it
        run = load_run_view(Path(executed_run.name))
    report = tmp_path / "report.html"
    write_report([run], report)
    narrow(browser)
    browser.open(report.as_uri() + "#r0")
    assert browser.js("document.querySelector('section.page.shown').id") == "r0"
    configuration = browser.js("document.querySelector('section.page.shown table').innerText")
    assert executed_run.name in configuration  # the folder as given, and the command as typed:
    assert str(executed_run.parent) not in configuration and str(ROOT) not in configuration  # no machine's folders
    keep(browser.screenshot(tmp_path / "run-page.png"))  # docs/img/report-run.png
    rows = "Array.from(document.querySelectorAll('section.page.shown table.metrics tbody tr[data-row]')).map(r => r.dataset.row)"
    assert {"arg_match_full", "exec_match", "dataflow_f1", "argument_f1", "n_samples"} <= set(browser.js(rows))
    assert browser.js(FITS) == [[True] * 4]

    results = read_samples(executed_run / "samples.jsonl")
    assert browser.js(f"{VISIBLE}.length") == len(results)
    assert choose(browser, "domain", "tmdb") == sum(r.domain == "tmdb" for r in results)
    assert choose(browser, "domain", "") == len(results)
    choose(browser, "metric", "arg_match_full")
    assert choose(browser, "outcome", "1") == sum(r.scores.arg_match_full for r in results)
    assert choose(browser, "outcome", "0") == sum(1 - r.scores.arg_match_full for r in results)
    choose(browser, "outcome", "")
    assert choose(browser, "error", "parse_error") == 2
    assert choose(browser, "error", "") == len(results)

    browser.go("#test/17")  # a sample's link; short form of #r0/test/17
    assert browser.js("document.querySelector('section.page.shown').id") == "r0/test/17"
    sample = run.samples["test/17"]
    gold = analyze(sample.gold_code, functions_for(sample), limits=None)
    pred = analyze(str(run.result("test/17").explanation.code), functions_for(sample))  # type: ignore[union-attr]
    for name, analysis in (("gold", gold), ("predicted", pred)):
        figure = f"document.querySelector('section.page.shown figure[data-program=\"{name}\"] svg')"
        assert browser.js(f"{figure}.querySelectorAll('g.node').length") == len(analysis.calls) > 0
        assert browser.js(f"{figure}.querySelectorAll('g.edge').length") == len(analysis.edges)
        assert browser.js(f"{figure}.getBoundingClientRect().height") > 50  # drawn, not collapsed
    diverging = "document.querySelectorAll('section.page.shown tr.diverge').length"
    assert browser.js(diverging) == 0  # its execution matched the gold's
    keep(browser.screenshot(tmp_path / "sample-page.png"))  # docs/img/report-sample.png
    browser.go("#test/11")  # same calls until the second, which differs: marked in both traces
    assert browser.js(diverging) == 2
    browser.go("#test/17")

    browser.key("j")
    assert browser.until("location.hash === '#r0/test/18'")
    assert browser.until("document.querySelector('section.page.shown').id === 'r0/test/18'")
    browser.key("k")
    assert browser.until("document.querySelector('section.page.shown').id === 'r0/test/17'")
    assert browser.problems() == []


def test_comparison_and_awkward_runs_in_chromium(
    browser: Any, executed_run: Path, gold_run: Path, awkward_run: Path, tmp_path: Path
) -> None:
    runs = [load_run_view(d) for d in (executed_run, gold_run, awkward_run)]
    report = tmp_path / "compare.html"
    write_report(runs, report)
    narrow(browser)
    browser.open(report.as_uri() + "#compare")
    assert browser.js("document.querySelector('section.page.shown').id") == "compare"
    fits = browser.js(FITS)
    paired = len(runs) - 1  # a table of paired differences for each run against the first
    assert len(fits) == len({d for run in runs for d in run.metrics}) + paired and all(all(f) for f in fits)
    rows = "document.querySelectorAll('table.grid tbody tr')"
    assert browser.js(f"{rows}.length") == len(shared_ids(runs)) == 6
    assert browser.js(f"Array.from({rows}).every(r => r.querySelectorAll('td.cell.pass, td.cell.fail, td.cell.na').length === 3)")
    browser.js("document.getElementById('sort-disagree').click()")
    flags = browser.js(f"Array.from({rows}).map(r => r.classList.contains('disagree'))")
    assert any(flags) and flags == sorted(flags, reverse=True)
    keep(browser.screenshot(tmp_path / "compare-page.png"))

    browser.go("#compare/test/3")
    assert browser.js("document.querySelectorAll('section.page.shown .run-col').length") == 3
    for sample_id in [r.id for r in runs[2].results]:  # parse errors, empty output, ReAct, no traces, hostile text
        browser.go(f"#r2/{sample_id}")
        assert browser.js("document.querySelector('section.page.shown').id") == f"r2/{sample_id}"
        assert browser.js("document.querySelectorAll('section.page.shown svg.dataflow').length") == 2
    assert browser.js("document.querySelector('section.page.shown h1').textContent").startswith("test/5")
    assert browser.problems() == []


def test_a_hostile_run_folder_runs_no_script_and_the_page_still_works(
    browser: Any, hostile_run: Path, hostile: Any, tmp_path: Path
) -> None:
    """Markup in every value of two shared run folders (hostile_copy in conftest): none of it runs, the report's own script does."""
    runs = [load_run_view(hostile_run), load_run_view(hostile.edit(hostile_run, tmp_path / "second"))]
    report = tmp_path / "hostile.html"
    write_report(runs, report)
    browser.open(report.as_uri() + "#r0")
    assert browser.js("document.querySelector('section.page.shown').id") == "r0"  # the report's script ran
    ran = "[document.title, typeof window.pwned, document.querySelectorAll('img').length]"
    assert browser.js(ran) == ["gqlbench report", "undefined", 0]
    assert browser.js(f"{VISIBLE}.length") == len(runs[0].results)
    domains = {r.domain for r in runs[0].results}
    assert hostile.xss in domains and choose(browser, "domain", hostile.xss) == 1  # the filter reads the data as text
    choose(browser, "domain", "")
    for sample_id in (hostile.bad_id, hostile.percent_id):  # followed from the sample list, as a user clicks it
        items = "Array.from(document.querySelectorAll('.run.shown aside li'))"
        browser.js(f"{items}.find(li => li.dataset.page === {json.dumps('r0/' + sample_id)}).querySelector('a').click()")
        assert browser.until(f"document.querySelector('section.page.shown').id === {json.dumps('r0/' + sample_id)}")
    assert browser.js("document.querySelectorAll('section.page.shown svg.dataflow g.node').length") == 0  # percent_id: no gold
    browser.go(f"#compare/{hostile.bad_id}")
    assert browser.js("document.querySelector('section.page.shown').id") == f"compare/{hostile.bad_id}"
    arrows = "Array.from(document.querySelectorAll('section.page.shown svg.dataflow line')).map(l => l.getAttribute('marker-end'))"
    ends = browser.js(arrows)
    assert ends and all(browser.js(f"!!document.querySelector({json.dumps(e[4:-1])})") for e in ends)  # each arrowhead exists
    keep(browser.screenshot(tmp_path / "hostile-compare.png"))
    assert browser.js(ran) == ["gqlbench report", "undefined", 0]
    assert browser.problems() == []
