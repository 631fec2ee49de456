"""Shared test fixtures: a real headless Chromium driven over the DevTools protocol.

Tests that use ``browser`` are skipped, with the reason, when /usr/bin/chromium
(Debian's ``chromium``; scripts/install.sh installs it when run as root) or the
``websockets`` client (dev extra) is missing.
"""

from __future__ import annotations

import base64
import contextlib
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
    "--remote-allow-origins=*",
]


class Browser:
    """One headless Chromium page over the DevTools protocol; records console errors and requests."""

    def __init__(self, profile: Path) -> None:
        from websockets.sync.client import connect

        self.process = subprocess.Popen(
            [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
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
    """A fresh headless Chromium page with its own profile in ``tmp_path``."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is missing: run scripts/install.sh as root (apt-get install chromium)")
    pytest.importorskip("websockets", reason="the browser tests drive chromium with the websockets client (dev extra)")
    page = Browser(tmp_path / "profile")
    try:
        yield page
    finally:
        page.close()
