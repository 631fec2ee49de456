"""Tools from signatures, and the openai backend's reading of tool calls."""

from __future__ import annotations

from typing import Any

from gqlbench.dataset import get_sample
from gqlbench.generators.backends.backend import GenerationConfig
from gqlbench.generators.backends.openai_backend import OpenAIBackend
from gqlbench.generators.tools import ToolRequest, tool_specs
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
