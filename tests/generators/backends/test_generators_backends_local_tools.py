"""Tool calling of the in-process backends: the parsers of the hf backend, the template check and its one-line errors."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import jinja2
import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import GenerationConfig, GenerationRequest
from gqlbench.generators.backends.local_tools import (
    ToolSetup,
    check_declares_tools,
    local_tool_turns,
    parse_hermes,
    parse_json_calls,
    parse_pythonic,
    read_chat_template,
    render_tools,
)
from gqlbench.generators.tools import _CONTEXT, ToolRequest
from gqlbench.records import Completion

TOOLS_TEMPLATE = Path(__file__).parents[2] / "data" / "chatml_tools.jinja"
PLAIN_TEMPLATE = (
    "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}{% endfor %}{% if add_generation_prompt %}<assistant>{% endif %}"
)


class JinjaTokenizer:
    """A tokenizer's chat-template side (``apply_chat_template``) and one token per character, without a model."""

    def __init__(self, chat_template: str | None) -> None:
        self.chat_template = chat_template
        self.rendered: list[str] = []

    def apply_chat_template(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tokenize: bool = True,
        add_generation_prompt: bool = False,
        chat_template: str | None = None,
    ) -> str:
        source = chat_template or self.chat_template
        assert source is not None
        env = jinja2.Environment()
        env.filters["tojson"] = lambda value: json.dumps(value)
        text = env.from_string(source).render(messages=messages, tools=tools, add_generation_prompt=add_generation_prompt)
        self.rendered.append(text)
        return text

    def __call__(self, text: str, add_special_tokens: bool = False) -> dict[str, list[int]]:
        return {"input_ids": [ord(c) for c in text]}


def _request(*messages: dict[str, Any]) -> ToolRequest:
    tool = {"type": "function", "function": {"name": "GET_me", "description": "d", "parameters": {"type": "object", "properties": {}}}}
    return ToolRequest("s1", tuple(messages), (tool,))


# -- parsers ------------------------------------------------------------------------------------


def test_hermes_reads_every_call_block_and_keeps_the_text_before() -> None:
    text = (
        'Let me look.\n<tool_call>\n{"name": "GET_me", "arguments": {}}\n</tool_call>\n'
        '<tool_call>{"name": "GET_search", "arguments": {"q": "Évora", "limit": 2}}</tool_call>'
    )
    content, calls = parse_hermes(text)
    assert content == "Let me look."
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("GET_me", {}), ("GET_search", {"q": "Évora", "limit": 2})]
    assert len({c.id for c in calls}) == 2


def test_hermes_unclosed_block_at_the_end_still_counts() -> None:  # generation cut at max_new_tokens after the JSON
    _, calls = parse_hermes('<tool_call>{"name": "GET_me", "arguments": {"a": 1}}')
    assert [(c.name, c.arguments) for c in calls] == [("GET_me", '{"a": 1}')]


@pytest.mark.parametrize(
    "text",
    [
        "no call here",
        '<tool_call>{"name": "GET_me", "arguments": </tool_call>',  # broken JSON: the whole answer is text
        '<tool_call>{"arguments": {}}</tool_call>',  # no name
        '<tool_call>["GET_me"]</tool_call>',
    ],
)
def test_hermes_without_a_readable_call_is_text(text: str) -> None:
    assert parse_hermes(text) == (text, ())


@pytest.mark.parametrize(
    "text,expected",
    [
        ('{"name": "GET_me", "parameters": {"a": 1}}', [("GET_me", {"a": 1})]),
        ('<|python_tag|>{"name": "GET_me", "arguments": {}}', [("GET_me", {})]),
        ('[{"name": "A", "arguments": {}}, {"name": "B", "arguments": {"x": "y"}}]', [("A", {}), ("B", {"x": "y"})]),
        ('{"name": "A", "parameters": {}}; {"name": "B", "parameters": {"n": 2}}', [("A", {}), ("B", {"n": 2})]),
        ('```json\n{"name": "A", "arguments": {}}\n```', [("A", {})]),
    ],
)
def test_bare_json_calls(text: str, expected: list[tuple[str, dict[str, Any]]]) -> None:
    content, calls = parse_json_calls(text)
    assert content == "" and [(c.name, json.loads(c.arguments)) for c in calls] == expected


@pytest.mark.parametrize("text", ["The answer is 4.", '{"answer": 4}', "[1, 2]", "{not json", "[]"])
def test_bare_json_that_is_not_a_call_is_text(text: str) -> None:
    assert parse_json_calls(text) == (text, ())


def test_pythonic_calls_become_json_arguments() -> None:
    content, calls = parse_pythonic('[GET_search(q="Évora", limit=2, tags=["a"]), GET_me()]')
    assert content == ""
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("GET_search", {"q": "Évora", "limit": 2, "tags": ["a"]}), ("GET_me", {})]


@pytest.mark.parametrize(
    "text",
    [
        "print(1)",
        "[GET_me(x)]",
        "[GET_me(a=b)]",
        "[obj.GET_me()]",
        "[1, 2]",
        "[GET_me(a=1]",
        "[__import__('os').system('x')]",
    ],
)
def test_pythonic_that_is_not_literal_calls_is_text(text: str) -> None:
    assert parse_pythonic(text) == (text, ())  # never evaluated: only literal keyword values are read


def test_hermes_blocks_are_found_in_linear_time() -> None:
    """``<tool_call>\\s*(.*?)\\s*`` backtracked over blanks: two runs of 30,000 spaces took seconds."""
    text = "<tool_call>" + " " * 30_000 + "x" + " " * 30_000 + "y"
    started = time.perf_counter()
    assert parse_hermes(text) == (text, ())
    assert time.perf_counter() - started < 2.0  # about a millisecond


@pytest.mark.parametrize(
    ("parse", "text"),
    [
        (parse_pythonic, '[GET_search(q="Mariah Carey", type={"track"})]'),  # a set literal has no JSON form
        (parse_hermes, "<tool_call>" + "[" * 100_000 + "]" * 100_000 + "</tool_call>"),
        (parse_json_calls, "[" * 100_000 + "]" * 100_000),
    ],
)
def test_a_parser_failure_is_the_turn_s_parse_error_and_its_text_the_answer(parse: Any, text: str) -> None:
    def generate(batch: Sequence[tuple[GenerationRequest, list[int]]]) -> Iterator[Completion]:
        for request, ids in batch:
            yield Completion(sample_id=request.sample_id, text=text, tokens_in=len(ids), tokens_out=5)

    (reply,) = local_tool_turns(
        [_request({"role": "user", "content": "hi"})],
        GenerationConfig(),
        tokenizer=JinjaTokenizer(read_chat_template(str(TOOLS_TEMPLATE))),
        chat_template=None,
        max_model_len=10**6,
        generate=generate,
        parse=parse,
    )
    assert reply.error is None and not reply.tool_calls and reply.content == text[: len(reply.content)]
    assert reply.parse_error is not None and reply.parse_error.startswith("the tool-call parser failed: ")


# -- the template ------------------------------------------------------------------------------


def test_a_template_without_tools_is_refused_naming_chat_template() -> None:
    with pytest.raises(
        GqlbenchError,
        match=r"hf backend: the chat template of m1 does not declare tools; pass --model-args "
        r"chat_template=FILE",
    ):
        check_declares_tools(JinjaTokenizer(PLAIN_TEMPLATE), None, "hf", "m1")


def test_no_template_at_all_is_refused() -> None:
    with pytest.raises(GqlbenchError, match="m1 has no chat template.*chat_template=FILE"):
        check_declares_tools(JinjaTokenizer(None), None, "vllm", "m1")


def test_a_template_that_breaks_on_tools_is_one_line() -> None:
    broken = "{{ tools[0]['function']['nope']['x'] }}"
    with pytest.raises(GqlbenchError, match="fails with tools") as info:
        check_declares_tools(JinjaTokenizer(broken), None, "hf", "m1")
    assert "\n" not in str(info.value)


def test_chat_template_file_declares_tools() -> None:
    template = read_chat_template(str(TOOLS_TEMPLATE))
    check_declares_tools(JinjaTokenizer(PLAIN_TEMPLATE), template, "hf", "m1")  # the file replaces the model's template


def test_a_missing_template_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(GqlbenchError, match=r"chat_template=.*nope.jinja: no such file"):
        read_chat_template(str(tmp_path / "nope.jinja"))


def test_no_tool_parser_is_refused_naming_the_option() -> None:
    setup = ToolSetup("hf", None, None, ["hermes", "json", "pythonic"])
    with pytest.raises(GqlbenchError, match=r"needs a tool-call parser.*--model-args tool_parser=NAME \(hermes, json, pythonic\)"):
        setup.check(JinjaTokenizer(read_chat_template(str(TOOLS_TEMPLATE))), "m1")


def test_tool_call_arguments_reach_the_template_as_objects() -> None:
    """Templates write ``arguments | tojson``: JSON text there would be quoted twice."""
    tokenizer = JinjaTokenizer(read_chat_template(str(TOOLS_TEMPLATE)))
    call = {"id": "c0", "type": "function", "function": {"name": "GET_me", "arguments": '{"q": "x"}'}}
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c0", "content": '{"id": 1}'},
    ]
    text = render_tools(tokenizer, messages, _request().tools)
    assert '{"name": "GET_me", "arguments": {"q": "x"}}' in text and '"{\\"q' not in text
    assert '<tool_response>\n{"id": 1}\n</tool_response>' in text and text.endswith("<|im_start|>assistant\n")
    assert messages[1]["tool_calls"][0]["function"]["arguments"] == '{"q": "x"}'  # the loop's own messages are unchanged


# -- one turn ----------------------------------------------------------------------------------


def test_turns_render_generate_and_parse_and_refuse_an_overlong_prompt() -> None:
    tokenizer = JinjaTokenizer(read_chat_template(str(TOOLS_TEMPLATE)))
    asked: list[list[int]] = []

    def generate(batch: list[tuple[GenerationRequest, list[int]]]) -> Iterator[Completion]:
        for request, ids in batch:
            asked.append(ids)
            yield Completion(
                sample_id=request.sample_id,
                text='<tool_call>{"name": "GET_me", "arguments": {}}</tool_call>',
                tokens_in=len(ids),
                tokens_out=7,
            )

    short = _request({"role": "user", "content": "hi"})
    long = ToolRequest("s2", ({"role": "user", "content": "x" * 5000},), short.tools)
    replies = {
        r.sample_id: r
        for r in local_tool_turns(
            [short, long],
            GenerationConfig(max_new_tokens=100),
            tokenizer=tokenizer,
            chat_template=None,
            max_model_len=2000,
            generate=generate,
            parse=parse_hermes,
        )
    }
    assert len(asked) == 1 and replies["s1"].tokens_in == len(asked[0]) and replies["s1"].tokens_out == 7
    assert [c.name for c in replies["s1"].tool_calls] == ["GET_me"] and replies["s1"].error is None
    assert replies["s2"].error is not None and _CONTEXT.search(replies["s2"].error)  # scored as a context stop, as a server's


def test_an_engine_error_is_a_reply_error() -> None:
    def generate(batch: Sequence[tuple[GenerationRequest, list[int]]]) -> Iterator[Completion]:
        for request, ids in batch:
            yield Completion(sample_id=request.sample_id, tokens_in=len(ids), error="RuntimeError: engine died")

    tokenizer = JinjaTokenizer(read_chat_template(str(TOOLS_TEMPLATE)))
    (reply,) = local_tool_turns(
        [_request({"role": "user", "content": "hi"})],
        GenerationConfig(),
        tokenizer=tokenizer,
        chat_template=None,
        max_model_len=10_000,
        generate=generate,
        parse=parse_hermes,
    )
    assert reply.error == "RuntimeError: engine died" and not reply.tool_calls
