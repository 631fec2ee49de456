"""The viewer shows a tools run's calls, their results and each argument's provenance, escaped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gqlbench.dataset import get_sample
from gqlbench.run.runner import RunOptions, RunSettings, run
from gqlbench.viewer.data import load_run_view
from gqlbench.viewer.page import render_report
from tests.tool_server import ToolServer, reply


def test_a_tools_run_shows_tool_calls_and_argument_sources_escaped(tmp_path: Path) -> None:
    def script(n: int, body: dict[str, Any]) -> dict[str, Any] | None:
        if ToolServer.request(body) != get_sample("test/3").utterance or any(m["role"] == "tool" for m in body["messages"]):
            return None  # test/5 and test/7 follow gold
        return reply("", [("GET_me_player_currently_playing", {"market": "<script>alert(1)</script>"})])

    srv = ToolServer(script=script)
    try:
        settings = RunSettings(
            model="m",
            backend="openai",
            base_url=srv.url,
            prompt="tools",
            ids=("test/3", "test/5", "test/7"),
            execute=False,
            tool_result_chars=2000,
        )
        run_dir = run(settings, RunOptions(runs_root=tmp_path, quiet=True)).run_dir
    finally:
        srv.close()
    html = render_report([load_run_view(run_dir)])
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html
    hostile = html[html.index('id="r0/test/3"') :]
    assert "Tool calls" in hostile and "Tool-call arguments" in hostile and "ReAct steps" not in hostile.split("</section>")[0]
    ambiguous = html[html.index('id="r0/test/5"') :].split("</section>")[0]
    assert "response_obj.items[0].id" in ambiguous and "response_obj1.id" in ambiguous  # the chosen source and the other candidate
    assert "Tool results shown shortened" in ambiguous and "of 9,136 characters shown" in ambiguous
    by_name = html[html.index('id="r0/test/7"') :].split("</section>")[0]  # the device picked by name, credited as gold's filter
    assert "its value equals gold&#x27;s argument&#x27;s on the same world (read from response_obj.devices[" in by_name
