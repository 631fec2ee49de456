"""Tools from signatures, the openai backend's reading of tool calls, and the tool results the loop sends."""

from __future__ import annotations

import json
from typing import Any

from gqlbench.dataset import get_sample
from gqlbench.generators.backends.backend import GenerationConfig
from gqlbench.generators.backends.openai_backend import OpenAIBackend
from gqlbench.generators.shorten import result_chars
from gqlbench.generators.tools import CallOutcome, ToolCall, ToolReply, ToolRequest, run_tools, tool_specs
from gqlbench.records import Completion, Message, Prompt
from tests.tool_server import ToolServer, reply


def test_one_tool_per_function_with_the_signature_as_json_schema_and_the_response_fields() -> None:
    sample = get_sample("test/3")
    tools = tool_specs(sample)
    assert [t["function"]["name"] for t in tools] == sample.function_names
    for tool, spec in zip(tools, sample.function_specs, strict=True):
        params = tool["function"]["parameters"]
        assert params["type"] == "object" and set(params["properties"]) == set(spec.parameters.properties)
        assert params["required"] == spec.parameters.required
        assert all(p["type"] in {"string", "integer", "number", "boolean", "array", "object"} for p in params["properties"].values())
    track = next(t for t in tools if t["function"]["name"] == "GET_tracks__id_")["function"]["description"]
    assert "Returns GET_tracks__id_" in track and "artists: [" in track  # the fields the response will have
    no_schema = tool_specs(sample.model_copy(update={"graphql_schema": ""}))
    assert all("Returns" not in t["function"]["description"] for t in no_schema)


def _ask(script: Any) -> Any:
    srv = ToolServer(script=script)
    try:
        backend = OpenAIBackend("m", base_url=srv.url)
        request = ToolRequest("a", ({"role": "user", "content": "q"},), tuple(tool_specs(get_sample("test/3"))))
        return list(backend.generate_tools([request], GenerationConfig())), srv.bodies
    finally:
        srv.close()


def test_tool_calls_are_read_with_their_ids_and_raw_arguments() -> None:
    replies, bodies = _ask(lambda n, body: reply("calling", [("GET_me", {"a": 1}), ("GET_x", "{bad")]))
    (answer,) = replies
    assert answer.error is None and answer.content == "calling"
    assert [(c.id, c.name, c.arguments) for c in answer.tool_calls] == [("call_0", "GET_me", '{"a": 1}'), ("call_1", "GET_x", "{bad")]
    assert bodies[0]["tool_choice"] == "auto" and len(bodies[0]["tools"]) == 3 and "stop" not in bodies[0]


def test_a_malformed_tool_call_list_is_that_request_s_error_naming_the_field() -> None:
    def script(n: int, body: dict[str, Any]) -> dict[str, Any]:
        answer = reply("x")
        answer["choices"][0]["message"]["tool_calls"] = "lots"
        return answer

    (answer,) = _ask(script)[0]
    assert answer.error is not None and "tool_calls" in answer.error and not answer.tool_calls


class _OneCallBackend:
    """Calls GET_me_playlists once, then answers; ``max_model_len`` is the context it reports."""

    name = "scripted"

    def __init__(self, max_model_len: int) -> None:
        self.max_model_len = max_model_len

    def generate_tools(self, requests: Any, config: GenerationConfig) -> Any:
        for request in requests:
            called = any(m["role"] == "tool" for m in request.messages)
            calls = () if called else (ToolCall("c0", "GET_me_playlists", "{}"),)
            yield ToolReply(request.sample_id, "done" if called else "", calls)


class _Runner:
    """A mock world whose every call returns ``value``."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def run_calls(self, requests: Any) -> list[CallOutcome]:
        return [CallOutcome(value=self.value) for _ in requests]


LONG = {"items": [{"id": f"playlist{i:03d}", "name": "x" * 40} for i in range(300)], "total": 300}  # 20,000 characters


def _tool_run(value: Any, context: int, max_chars: int | None = None) -> tuple[str, Completion]:
    sample = get_sample("test/5")
    prompt = Prompt(sample_id=sample.id, style="tools", messages=[Message(role="user", content=sample.utterance)])
    (completion,) = run_tools([(sample, prompt)], _OneCallBackend(context), GenerationConfig(), _Runner(value), 3, max_chars)
    (message,) = [s.observation for s in completion.steps if s.observation is not None]
    return message, completion


def test_a_long_tool_result_is_sent_as_valid_json_and_its_shortening_is_recorded() -> None:
    message, completion = _tool_run(LONG, context=2048)
    decoded = json.loads(message)  # the whole tool message: no note after the JSON
    kept = len(decoded["items"]) - 1
    assert kept > 0 and decoded["items"][:kept] == LONG["items"][:kept]
    assert decoded["items"][-1] == f"... {300 - kept} of 300 items not shown"
    (record,) = completion.explanation.shortened_tool_results or []
    assert (record.step, record.call, record.function) == (1, 1, "GET_me_playlists")
    assert record.chars == len(json.dumps(LONG, separators=(",", ":"))) and record.shown_chars == len(message)
    assert record.items_left_out == 300 - kept


def test_the_bound_follows_the_context_the_backend_reports_or_the_setting() -> None:
    small, _ = _tool_run(LONG, context=2048)
    large, completion = _tool_run(LONG, context=65536)
    assert len(small) <= result_chars(2048) < len(large) <= result_chars(65536)
    assert large == json.dumps(LONG, separators=(",", ":")) and completion.explanation.shortened_tool_results is None
    set_, _ = _tool_run(LONG, context=32768, max_chars=1000)
    assert len(set_) <= 1000 and json.loads(set_)
