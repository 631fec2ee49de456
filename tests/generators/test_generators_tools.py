"""Tools from signatures, the openai backend's reading of tool calls, what the loop keeps of a turn, and the tool results it sends."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator, Sequence
from typing import Any, cast

import pytest

from gqlbench.dataset import get_sample
from gqlbench.generators.backends.backend import Backend, GenerationConfig
from gqlbench.generators.backends.openai_backend import OpenAIBackend, looks_like_tool_text
from gqlbench.generators.shorten import result_chars
from gqlbench.generators.tool_input import MAX_CALLS_PER_SAMPLE, MAX_CALLS_PER_TURN, MAX_TURN_CHARS
from gqlbench.generators.tools import CallOutcome, ToolCall, ToolReply, ToolRequest, run_tools, tool_specs, tools_messages
from gqlbench.records import Completion, Message, Prompt, Sample
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


def test_an_answer_of_blank_lines_is_searched_in_linear_time() -> None:
    """The tool-text pattern backtracked on blank lines: 2,000 newlines took 12 s, 5,000 about 3 minutes."""
    started = time.perf_counter()
    (answer,) = _ask(lambda n, body: reply("\n" * 3000 + "Done."))[0]
    assert time.perf_counter() - started < 5.0  # a fraction of a second with the server's round trip
    assert answer.error is None and answer.content.endswith("Done.")


@pytest.mark.parametrize(
    ("text", "looks"),
    [
        ('<tool_call>{"name": "GET_me"}</tool_call>', True),
        ('  [ {"name": "GET_me", "arguments": {}}]', True),
        ('{\n  "function" : "GET_me"}', True),
        ("[TOOL_CALLS] x", True),
        ("\n" * 50_000 + " " * 50_000, False),
        ('The track is:\n  "name": "Love Mariah"', False),
        ("x" * 20_000 + '\n{"name": "a"}', False),  # only the start of an answer is searched
    ],
)
def test_tool_text_is_the_markers_at_the_start_of_an_answer(text: str, looks: bool) -> None:
    assert looks_like_tool_text(text) is looks


class _Replies:
    """A tool backend that answers every turn with the given reply (its sample id set)."""

    name = "replies"
    max_model_len = 8192

    def __init__(self, reply: ToolReply) -> None:
        self.reply = reply

    def generate_tools(self, requests: Sequence[ToolRequest], config: GenerationConfig) -> Iterator[ToolReply]:
        for request in requests:
            yield dataclasses.replace(self.reply, sample_id=request.sample_id)


class _NoCalls:
    def run_turns(self, requests: Sequence[tuple[Sample, list[str], list[str]]]) -> list[list[CallOutcome]]:
        raise AssertionError("no call should run")


def _one_turn(answer: ToolReply) -> Completion:
    sample = get_sample("test/3")
    prompt = Prompt(sample_id=sample.id, style="tools", messages=tools_messages(sample))
    (completion,) = run_tools([(sample, prompt)], cast(Backend, _Replies(answer)), GenerationConfig(), _NoCalls(), max_steps=3)
    return completion


def test_a_parse_error_of_the_turn_is_the_sample_s_and_its_text_the_final_answer() -> None:
    """Recorded as ``tool_parse_error``: ``parse_error`` is the analysis' verdict on the scored program (the calls made), which parses."""
    completion = _one_turn(ToolReply("", content="[f(a={1})]", parse_error="the tool-call parser failed: ValueError: set"))
    assert completion.error is None and completion.finish_reason == "no_calls" and completion.text == "[f(a={1})]"
    assert completion.explanation.tool_parse_error == "the tool-call parser failed: ValueError: set"
    assert completion.explanation.parse_error is None


def test_a_turn_s_text_is_stored_cut_with_its_length_noted() -> None:
    completion = _one_turn(ToolReply("", content="\ud800" + "x" * (2 * MAX_TURN_CHARS)))
    assert len(completion.steps[0].raw) <= MAX_TURN_CHARS + 6 and completion.steps[0].raw.startswith("\\ud800x")
    assert completion.note is not None and f"{2 * MAX_TURN_CHARS + 1:,} characters" in completion.note


class _Scripted:
    """A tool backend that answers turn ``i`` of every sample with ``turns[i]``."""

    name = "scripted"
    max_model_len = 8192

    def __init__(self, *turns: ToolReply) -> None:
        self.turns, self.asked = turns, 0

    def generate_tools(self, requests: Sequence[ToolRequest], config: GenerationConfig) -> Iterator[ToolReply]:
        turn = self.turns[min(self.asked, len(self.turns) - 1)]
        self.asked += 1
        for request in requests:
            yield dataclasses.replace(turn, sample_id=request.sample_id)


class _Recording:
    """A call runner that answers every call with ``{}`` and records, per turn, the lines it was told ran before and the new ones."""

    def __init__(self) -> None:
        self.before: list[list[str]] = []
        self.new: list[list[str]] = []

    def run_turns(self, requests: Sequence[tuple[Sample, list[str], list[str]]]) -> list[list[CallOutcome]]:
        self.before += [list(lines) for _, lines, _ in requests]
        self.new += [list(lines) for _, _, lines in requests]
        return [[CallOutcome(value={}) for _ in lines] for _, _, lines in requests]


def test_a_call_of_a_tool_not_offered_is_in_the_program_but_never_replayed_before_later_calls() -> None:
    """It was passed as a line that ran, so the observer ran it (the world may know the endpoint) to replay it."""
    sample = get_sample("test/3")
    offered = sample.function_names[0]
    unoffered = ToolCall("c0", "GET_artists__id_", '{"id": "x"}')  # the world knows it; test/3 does not offer it
    backend = _Scripted(
        ToolReply("", tool_calls=(unoffered,) * 3),
        ToolReply("", tool_calls=(ToolCall("c1", offered, "{}"),)),
        ToolReply("", content="Done."),
    )
    runner = _Recording()
    prompt = Prompt(sample_id=sample.id, style="tools", messages=tools_messages(sample))
    (completion,) = run_tools([(sample, prompt)], cast(Backend, backend), GenerationConfig(), runner, max_steps=5)
    assert runner.before == [[]]  # the offered call is the only one run, with nothing before it
    assert completion.finish_reason == "final" and len([s for s in completion.steps if s.action]) == 4


def test_a_sample_runs_at_most_the_bound_of_calls_over_all_its_turns() -> None:
    """Each turn replays the sample's earlier calls, so the calls a sample may make are bounded over all its turns."""
    sample = get_sample("test/3")
    backend = _Scripted(ToolReply("", tool_calls=(ToolCall("c", sample.function_names[0], "{}"),) * MAX_CALLS_PER_TURN))
    runner = _Recording()
    prompt = Prompt(sample_id=sample.id, style="tools", messages=tools_messages(sample))
    (completion,) = run_tools([(sample, prompt)], cast(Backend, backend), GenerationConfig(), runner, max_steps=8)
    assert sum(map(len, runner.new)) == MAX_CALLS_PER_SAMPLE and completion.finish_reason == "too_many_calls"
    assert completion.note is not None and f"at most {MAX_CALLS_PER_SAMPLE} are run in one sample" in completion.note


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

    def run_turns(self, requests: Any) -> list[list[CallOutcome]]:
        return [[CallOutcome(value=self.value) for _ in lines] for _, _, lines in requests]


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
