"""The report in a real headless Chromium, driven over the DevTools protocol, opened from file://.

Needs Debian's ``chromium`` at /usr/bin/chromium (scripts/install.sh installs it
when run as root) and the ``websockets`` client (the dev extra). Screenshots are
saved in the test's tmp folder, and also copied to ``$GQLBENCH_SCREENSHOTS`` when
that is set (CI uploads them as artifacts).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gqlbench.metrics import analyze, functions_for
from gqlbench.results import read_samples
from gqlbench.viewer.data import load_run_view, shared_ids
from gqlbench.viewer.page import write_report

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--remote-debugging-port=0", "--remote-allow-origins=*",
]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is missing: run scripts/install.sh as root (apt-get install chromium)"),
]


class Browser:
    """One headless Chromium page over the DevTools protocol; records console errors and requests."""

    def __init__(self, profile: Path) -> None:
        from websockets.sync.client import connect

        self.process = subprocess.Popen([str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.is_file() and port_file.read_text().count("\n") >= 1):
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.close()
                raise RuntimeError("chromium did not open its DevTools port within 60 s")
            time.sleep(0.1)
        port, path = port_file.read_text().split("\n")[:2]
        self.stack = contextlib.ExitStack()
        self.ws = self.stack.enter_context(connect(f"ws://127.0.0.1:{port}{path}", max_size=None, open_timeout=30))
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"}, session=None)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True}, session=None)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", {"width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": False})

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None | bool = True) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session is True:
            message["sessionId"] = self.session
        self.ws.send(json.dumps(message))
        while True:
            reply = json.loads(self.ws.recv(timeout=60))
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, timeout: float = 30) -> None:
        seen = len([e for e in self.events if e.get("method") == method])
        deadline = time.monotonic() + timeout
        while len([e for e in self.events if e.get("method") == method]) <= seen:
            if time.monotonic() > deadline:
                raise TimeoutError(method)
            self.events.append(json.loads(self.ws.recv(timeout=timeout)))

    def open(self, url: str) -> None:
        self.call("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")

    def go(self, fragment: str) -> None:
        """Follow a link within the open report (a new fragment: no page load, a hashchange)."""
        self.js(
            "new Promise(done => {window.addEventListener('hashchange', () => setTimeout(done, 0), {once: true});"
            f"location.hash = {json.dumps(fragment)};}})"
        )

    def js(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def until(self, expression: str, timeout: float = 10) -> bool:
        """Whether ``expression`` becomes true within ``timeout`` seconds (events are handled asynchronously)."""
        deadline = time.monotonic() + timeout
        while not self.js(expression):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def key(self, key: str) -> None:
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", {"type": kind, "key": key, "text": key if kind == "keyDown" else ""})

    def screenshot(self, path: Path) -> Path:
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"]))
        return path

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions, and any request that is not the report file itself."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(f"console: {params.get('args')}")
            elif method == "Runtime.exceptionThrown":
                found.append(f"exception: {params.get('exceptionDetails')}")
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(f"log: {params['entry'].get('text')}")
            elif method == "Network.requestWillBeSent" and not params.get("request", {}).get("url", "").startswith("file://"):
                found.append(f"request: {params['request']['url']}")
        return found

    def close(self) -> None:
        if getattr(self, "stack", None) is not None:
            self.stack.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    pytest.importorskip("websockets", reason="the browser test drives chromium with the websockets client (dev extra)")
    page = Browser(tmp_path / "profile")
    try:
        yield page
    finally:
        page.close()


def keep(shot: Path) -> None:
    target = os.environ.get("GQLBENCH_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(target) / shot.name)


VISIBLE = "Array.from(document.querySelectorAll('.run.shown aside li:not(.hidden)'))"


def choose(browser: Browser, name: str, value: str) -> int:
    """Pick a filter value as a user would (change event); returns the number of samples listed."""
    browser.js(
        f"(() => {{const s = document.querySelector('.run.shown select[data-filter=\"{name}\"]'); s.value = {json.dumps(value)};"
        "s.dispatchEvent(new Event('change')); return true;})()"
    )
    return browser.js(f"{VISIBLE}.length")


def test_run_report_in_chromium(browser: Browser, executed_run: Path, tmp_path: Path) -> None:
    run = load_run_view(executed_run)
    report = tmp_path / "report.html"
    write_report([run], report)
    browser.open(report.as_uri() + "#r0")
    assert browser.js("document.querySelector('section.page.shown').id") == "r0"
    keep(browser.screenshot(tmp_path / "run-page.png"))

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
    pred = analyze(str(run.result("test/17").explanation["code"]), functions_for(sample))  # type: ignore[union-attr]
    for name, analysis in (("gold", gold), ("predicted", pred)):
        figure = f"document.querySelector('section.page.shown figure[data-program=\"{name}\"] svg')"
        assert browser.js(f"{figure}.querySelectorAll('g.node').length") == len(analysis.calls) > 0
        assert browser.js(f"{figure}.querySelectorAll('g.edge').length") == len(analysis.edges)
        assert browser.js(f"{figure}.getBoundingClientRect().height") > 50  # drawn, not collapsed
    diverging = "document.querySelectorAll('section.page.shown tr.diverge').length"
    assert browser.js(diverging) == 0  # its execution matched the gold's
    keep(browser.screenshot(tmp_path / "sample-page.png"))
    browser.go("#test/11")  # same calls until the second, which differs: marked in both traces
    assert browser.js(diverging) == 2
    browser.go("#test/17")

    browser.key("j")
    assert browser.until("location.hash === '#r0/test/18'")
    assert browser.until("document.querySelector('section.page.shown').id === 'r0/test/18'")
    browser.key("k")
    assert browser.until("document.querySelector('section.page.shown').id === 'r0/test/17'")
    assert browser.problems() == []


def test_comparison_and_awkward_runs_in_chromium(browser: Browser, executed_run: Path, gold_run: Path, awkward_run: Path, tmp_path: Path) -> None:
    runs = [load_run_view(d) for d in (executed_run, gold_run, awkward_run)]
    report = tmp_path / "compare.html"
    write_report(runs, report)
    browser.open(report.as_uri() + "#compare")
    assert browser.js("document.querySelector('section.page.shown').id") == "compare"
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
