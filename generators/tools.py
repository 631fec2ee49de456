"""Native tool calling (``--prompt tools``): the model calls endpoints as tools, the mock world answers.

Each offered endpoint of the (presented) sample becomes one tool: the JSON
schema of its parameters from the signature, its description, and a short
field list of the GraphQL type it returns (when the run shows a schema). The
loop sends the chat with the tools; every tool call is turned into one line
of the benchmark's Python (arguments that equal a field of an earlier
response become references to it, :mod:`gqlbench.generators.tool_program`)
and run on the sample's mock world through the run's executing observer
(the sandbox path of ``--observe mock``); the tool message carries the
response as JSON, shortened to the run's bound and still JSON
(:mod:`gqlbench.generators.shorten`; each shortening is recorded in the
explanation's ``shortened_tool_results``), or the world's error. The calls of
one turn run in order, together: the runner gets a sample's turn at once
(:meth:`CallRunner.run_turns`; the mock observer runs it as one sandbox job
that replays the sample's earlier calls once), so a turn's work grows with
its calls, not with their square. The loop ends at an assistant message without tool
calls or after ``max_steps`` model turns; the scored program is the lines of
every call that can be written as Python, as in ReAct (a call the world
refused stays in the program and is scored as the model made it; one that
cannot be written, e.g. arguments that are not JSON, is only recorded; a call
of a tool not offered is in the program but never run, nor replayed before later calls).

Each reply is bounded and escaped as it enters the loop (:mod:`gqlbench.generators.tool_input`):
nothing a server or model sends ends the run; what it can cost is bounded per turn.
"""

from __future__ import annotations

import dataclasses
import json
import keyword
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import Backend, GenerationConfig
from gqlbench.generators.budget import FULL_DETAIL, Detail, detail_of
from gqlbench.generators.prompts import abstain_rule
from gqlbench.generators.react import _response_types
from gqlbench.generators.shorten import result_chars, shorten
from gqlbench.generators.tool_input import (
    MAX_ARGUMENTS_CHARS,
    MAX_CALLS_PER_SAMPLE,
    MAX_CALLS_PER_TURN,
    MAX_NAME_CHARS,
    MAX_TURN_CHARS,
    RefusedArguments,
    bounded,
    read_arguments,
)
from gqlbench.generators.tool_program import Earlier, argument_text, call_line, literal, variable_name
from gqlbench.records import Completion, Explanation, FunctionSpec, Message, Prompt, ReactStep, Sample, ShortenedResult

__all__ = [
    "CallOutcome",
    "CallRunner",
    "ToolCall",
    "ToolReply",
    "ToolRequest",
    "ToolBackend",
    "tool_specs",
    "tools_instructions",
    "run_tools",
]

MAX_SUMMARY_CHARS = 600
_DECLINE = re.compile(r"raise\s+NotSupported\([^\n]*\)")
_CONTEXT = re.compile(
    r"^(BadRequestError.*(context length|context window|maximum context|max_model_len|too long)"
    r"|prompt of \d+ tokens .*exceeds max_model_len)",
    re.I,
)  # a server's refusal, or a local backend's
_JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object"}


@dataclass(frozen=True)
class CallOutcome:
    """What running one call on the mock world gave: its JSON value, or the world's error text."""

    value: Any = None
    error: str | None = None


@runtime_checkable
class CallRunner(Protocol):
    """An observer that runs calls and returns their values (``gqlbench.run.observers.MockObserver``)."""

    def run_turns(self, requests: Sequence[tuple[Sample, list[str], list[str]]]) -> list[list[CallOutcome]]:
        """Per ``(sample, lines that ran before, the turn's new lines)``: one outcome per new line, the lines run in order in one world."""
        ...


@dataclass(frozen=True)
class ToolCall:
    """One call as the model sent it: the arguments are the raw JSON text."""

    id: str
    name: str
    arguments: str
    arguments_chars: int | None = None  # the arguments' full length, when they were cut (:mod:`~gqlbench.generators.tool_input`)


@dataclass(frozen=True)
class ToolRequest:
    """A chat (OpenAI message dicts) and the tools offered with it."""

    sample_id: str
    messages: tuple[dict[str, Any], ...]
    tools: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class ToolReply:
    """One assistant turn: its text and tool calls, or the error of the request."""

    sample_id: str
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    error: str | None = None
    parse_error: str | None = None  # a local tool parser failed on the text: no calls were read from it
    content_chars: int | None = None  # the text's full length, when it was cut


@runtime_checkable
class ToolBackend(Protocol):
    """A backend that speaks native tool calling."""

    def generate_tools(self, requests: Sequence[ToolRequest], config: GenerationConfig) -> Iterator[ToolReply]:
        """One assistant turn per request; a failed request yields a reply with ``error`` set."""
        ...


def _parameter_schema(spec: FunctionSpec, descriptions: bool = True) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for name, param in spec.parameters.properties.items():
        kind = "object" if param.type == "dict" else param.type
        entry: dict[str, Any] = {"type": kind if kind in _JSON_TYPES else "string"}
        if descriptions and param.description.strip():
            entry["description"] = param.description.strip()
        properties[name] = entry
    return {"type": "object", "properties": properties, "required": list(spec.parameters.required)}


def response_summary(sample: Sample, function: str) -> str:
    """``Returns <Type> with fields: a: T, b: [U], ...`` from the sample's (shown) schema; empty when none is shown."""
    try:
        root, sdl = _response_types(sample.graphql_schema, function)
    except Exception:  # a schema the run shows in a form graphql cannot parse: describe no response
        return ""
    if root is None:
        return ""
    block = sdl.split("\n\n", 1)[0]
    fields = [line.strip() for line in block.splitlines()[1:-1] if line.strip()]
    text = f"Returns {root} with fields: {', '.join(fields)}" if fields else f"Returns {root}."
    return text if len(text) <= MAX_SUMMARY_CHARS else text[: MAX_SUMMARY_CHARS - 4] + " ..."


def tool_specs(sample: Sample, detail: Detail = FULL_DETAIL) -> list[dict[str, Any]]:
    """One OpenAI tool per function the sample offers, in the names the prompt shows.

    ``detail`` is the context budget's: without descriptions a tool keeps its response summary (it is the schema,
    which ``--schema`` rules), as the text prompt keeps the schema.
    """
    tools = []
    for spec in sample.function_specs:
        own = spec.description.strip() if detail.descriptions else ""
        description = "\n".join(part for part in (own, response_summary(sample, spec.name)) if part)
        tools.append(
            {
                "type": "function",
                "function": {
                    "name": spec.name,
                    "description": description,
                    "parameters": _parameter_schema(spec, detail.parameter_descriptions),
                },
            }
        )
    return tools


def tools_instructions(abstain: bool = False) -> str:
    """The system message of a tools run; ``abstain`` (relevance runs) adds how to decline, as the other styles say it."""
    rule = f"\n{abstain_rule('as your final answer, with no tool call')}" if abstain else ""
    return (
        "You fulfil a user's request by calling the given tools (REST API endpoints), in the order the request needs. "
        "Each tool result is the endpoint's JSON response; pass values from earlier results as arguments of later calls. "
        f"When every needed call has been made, answer with a short final message and no tool call.{rule}"
    )


def tools_messages(sample: Sample, abstain: bool = False) -> list[Message]:
    """The chat of a tools run: the instructions and the request (the tools carry the signatures)."""
    return [Message(role="system", content=tools_instructions(abstain)), Message(role="user", content=sample.utterance)]


@dataclass
class _State:
    sample: Sample
    messages: list[dict[str, Any]]
    tools: tuple[dict[str, Any], ...]
    lines: list[str] = field(default_factory=list)  # the program: the lines of the calls, as the model made them
    ran: list[str] = field(default_factory=list)  # the lines that were run (a call of a tool not offered never is)
    earlier: list[Earlier] = field(default_factory=list)
    steps: list[ReactStep] = field(default_factory=list)
    provenance: list[dict[str, Any]] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    shortened: list[ShortenedResult] = field(default_factory=list)  # results shown shortened to the bound
    final: str = ""
    notes: list[str] = field(default_factory=list)  # what was cut or refused of the model's turns
    calls: int = 0  # tool calls made so far, run or not
    parse_error: str | None = None
    turn: int = 0  # model turns answered so far
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0

    def completion(self, finish_reason: str, error: str | None = None) -> Completion:
        explanation = Explanation(tool_arguments=self.provenance)
        if self.refused:
            explanation = explanation.with_parts({"refused_tool_calls": self.refused})
        if self.parse_error is not None:
            explanation = explanation.with_parts({"tool_parse_error": self.parse_error})
        if self.shortened:
            explanation = explanation.with_parts({"shortened_tool_results": [r.model_dump(mode="json") for r in self.shortened]})
        return Completion(
            sample_id=self.sample.id,
            text=self.final,
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            latency_s=self.latency_s,
            finish_reason=finish_reason,
            error=error,
            steps=self.steps,
            explanation=explanation,
            note="; ".join(self.notes) or None,
        )

    def end_turn(self, reply: ToolReply) -> None:
        """Record ``reply`` as the last step: the model's final answer, or a turn that ends the sample without running."""
        self.final = reply.content
        decline = _DECLINE.search(reply.content)  # the abstention marker, kept in the program as ReAct keeps it
        self.steps.append(
            ReactStep(
                thought=reply.content,
                action=decline.group(0) if decline else None,
                finished=True,
                raw=reply.content,
                tokens_in=reply.tokens_in,
                tokens_out=reply.tokens_out,
            )
        )


@dataclass(frozen=True)
class _Prepared:
    """A tool call made ready to run: its line, or the harness's error for it."""

    call: ToolCall
    line: str | None
    error: str | None
    arguments: list[dict[str, Any]]


def _prepare(state: _State, call: ToolCall, number: int) -> _Prepared:
    """The call's program line (None: it cannot be written as Python), the ``number``-th, and the harness's error for it, if any."""
    if not call.name.isidentifier() or keyword.iskeyword(call.name):
        return _Prepared(call, None, f"Error (unknown_function): {call.name!r} is not one of the tools ({_names(state)})", [])
    try:
        if call.arguments_chars is not None:
            raise RefusedArguments(
                f"the arguments are {call.arguments_chars:,} characters of JSON; at most {MAX_ARGUMENTS_CHARS:,} are read"
            )
        arguments = read_arguments(call.arguments)
    except RefusedArguments as exc:
        return _Prepared(call, None, f"Error (bad_arguments): {exc}", [])
    bad = [k for k in arguments if not k.isidentifier() or keyword.iskeyword(k)]
    if bad:
        return _Prepared(call, None, f"Error (bad_arguments): {', '.join(map(repr, bad))} cannot be a parameter name", [])
    texts: list[tuple[str, str]] = []
    record: list[dict[str, Any]] = []
    for name, value in arguments.items():
        seen = [e for e in state.earlier if e.turn < state.turn]  # a parallel call was made before its turn's results came
        text, candidates = argument_text(value, seen, state.sample.utterance)
        texts.append((name, text))
        entry: dict[str, Any] = {"argument": name, "value": value, "source": "literal" if text == literal(value) else text}
        if len(candidates) > 1:
            entry["candidates"] = candidates
        record.append(entry)
    line = call_line(variable_name(number), call.name, texts)
    if call.name not in {t["function"]["name"] for t in state.tools}:  # never run: the world may know an endpoint not offered
        return _Prepared(call, line, f"Error (unknown_function): {call.name!r} is not one of the tools ({_names(state)})", record)
    return _Prepared(call, line, None, record)


def _admitted(reply: ToolReply) -> ToolReply:
    """``reply`` as the loop keeps it: its text, names, ids and arguments bounded and escaped (:mod:`~gqlbench.generators.tool_input`)."""
    content, content_chars = bounded(reply.content, MAX_TURN_CHARS)
    calls = tuple(
        ToolCall(bounded(c.id, MAX_NAME_CHARS)[0], bounded(c.name, MAX_NAME_CHARS)[0], *bounded(c.arguments, MAX_ARGUMENTS_CHARS))
        for c in reply.tool_calls
    )
    parse_error = bounded(reply.parse_error, MAX_NAME_CHARS * 2)[0] if reply.parse_error is not None else None
    return dataclasses.replace(reply, content=content, content_chars=content_chars, tool_calls=calls, parse_error=parse_error)


def _too_many(state: _State, calls: int) -> str | None:
    """Why a turn of ``calls`` calls is not run (the note of a ``too_many_calls`` sample), or None."""
    if calls > MAX_CALLS_PER_TURN:
        return f"turn {state.turn + 1} made {calls:,} tool calls; at most {MAX_CALLS_PER_TURN} are run in one turn, so none of them ran"
    if state.calls + calls > MAX_CALLS_PER_SAMPLE:
        return (
            f"turn {state.turn + 1} made {calls} tool calls after {state.calls}; at most {MAX_CALLS_PER_SAMPLE} are run in one sample, "
            "so none of them ran"
        )
    return None


def _names(state: _State) -> str:
    return ", ".join(t["function"]["name"] for t in state.tools)


def _shown(state: _State, function: str, value: Any, max_chars: int) -> str:
    """The tool message of a call that ran (the program's last line): its response, shortened to fit; a shortening is recorded."""
    shown = shorten(value, max_chars)
    if shown.shortened:
        state.shortened.append(
            ShortenedResult(
                step=len(state.steps) + 1,
                call=len(state.lines),
                function=function,
                chars=shown.chars,
                shown_chars=len(shown.text),
                items_left_out=shown.items_left_out,
                chars_left_out=shown.chars_left_out,
            )
        )
    return shown.text


def _prepare_turn(state: _State, reply: ToolReply) -> list[_Prepared]:
    """The turn's calls made ready to run, numbered on from the program's lines (calls of one turn cannot read each other's results)."""
    prepared: list[_Prepared] = []
    for call in reply.tool_calls:
        prepared.append(_prepare(state, call, len(state.lines) + sum(p.line is not None for p in prepared)))
    return prepared


def _runs(prepared: _Prepared) -> bool:
    return prepared.line is not None and prepared.error is None


def _run_turn(runner: CallRunner, turns: Sequence[tuple[_State, ToolReply]], max_chars: int) -> None:
    """Run the calls of one turn of every sample (one sandbox job per sample's turn), appending steps and tool messages."""
    ready = [(state, reply, _prepare_turn(state, reply)) for state, reply in turns]
    asked = [
        (state.sample, list(state.ran), [p.line for p in prepared if p.line is not None and p.error is None])
        for state, _, prepared in ready
    ]
    running = [turn for turn in asked if turn[2]]
    answers = iter(runner.run_turns(running) if running else [])
    for (state, reply, prepared), (_, _, lines) in zip(ready, asked, strict=True):
        outcomes = iter(next(answers) if lines else [])
        for number, p in enumerate(prepared):
            outcome = next(outcomes) if _runs(p) else CallOutcome(error=p.error)
            _record_call(state, reply, p, outcome, first=number == 0, max_chars=max_chars)
        state.turn += 1


def _record_call(state: _State, reply: ToolReply, p: _Prepared, outcome: CallOutcome, first: bool, max_chars: int) -> None:
    """Append a call's line, step and tool message to the sample's state."""
    raw = json.dumps({"name": p.call.name, "arguments": p.call.arguments}, ensure_ascii=False)
    if p.line is not None:  # in the program, as the model called it, whatever the world answered
        if outcome.error is None:
            given = tuple(a["value"] for a in p.arguments)
            state.earlier.append(Earlier(variable_name(len(state.lines)), outcome.value, given, state.turn))
        state.lines.append(p.line)
        if p.error is None:
            state.ran.append(p.line)
        state.provenance += [{"call": len(state.lines), "function": p.call.name, **a} for a in p.arguments]
    result = _shown(state, p.call.name, outcome.value, max_chars) if outcome.error is None else outcome.error
    if outcome.error is not None:
        refused = {"name": p.call.name, "arguments": p.call.arguments, "error": result, "in_program": p.line is not None}
        if p.call.arguments_chars is not None:
            refused["arguments_chars"] = p.call.arguments_chars
        state.refused.append(refused)
    state.steps.append(
        ReactStep(
            thought=reply.content if first else "",
            action=p.line,
            finished=False,
            raw=raw,
            tokens_in=reply.tokens_in if first else 0,
            tokens_out=reply.tokens_out if first else 0,
            observation=result,
        )
    )
    state.messages.append({"role": "tool", "tool_call_id": p.call.id, "content": result})


def run_tools(
    work: Sequence[tuple[Sample, Prompt]],
    backend: Backend,
    config: GenerationConfig,
    runner: CallRunner,
    max_steps: int,
    max_chars: int | None = None,
) -> Iterator[Completion]:
    """Advance every sample one model turn per batched call; yield each as it finishes.

    ``max_chars`` bounds each tool result (:func:`gqlbench.generators.shorten.shorten`); None: the default for the
    backend's context (:func:`gqlbench.generators.shorten.result_chars`).

    ``finish_reason``: ``final`` (an answer without tool calls after some),
    ``no_calls`` (the first answer called no tool), ``max_steps``,
    ``context`` (the server refused a later turn as longer than its context:
    the calls made so far are scored), or ``error`` (the request failed:
    recorded, retried by a resume, never scored).
    """
    if not isinstance(backend, ToolBackend):
        raise GqlbenchError(
            f"--prompt tools needs a backend with native tool calling; the {backend.name} backend has none "
            "(use --backend openai, vllm or hf with --model-args tool_parser=NAME)"
        )
    bound = max_chars if max_chars is not None else result_chars(backend.max_model_len)
    active: dict[str, _State] = {}
    for sample, prompt in work:
        messages = [{"role": m.role, "content": m.content} for m in prompt.messages]
        active[sample.id] = _State(sample, messages, tuple(tool_specs(sample, detail_of(prompt))))  # the tools the budget fitted
    for _ in range(max_steps):
        if not active:
            return
        requests = [ToolRequest(sid, tuple(s.messages), s.tools) for sid, s in active.items()]
        turns: list[tuple[_State, ToolReply]] = []
        for reply in backend.generate_tools(requests, config):
            state = active.get(reply.sample_id)
            if state is None:
                continue
            reply = _admitted(reply)
            if reply.content_chars is not None:
                state.notes.append(
                    f"turn {state.turn + 1}'s text had {reply.content_chars:,} characters; the first {MAX_TURN_CHARS:,} are kept"
                )
            if reply.parse_error is not None:
                state.parse_error = reply.parse_error
            state.tokens_in += reply.tokens_in
            state.tokens_out += reply.tokens_out
            state.latency_s += reply.latency_s
            if reply.error:
                del active[reply.sample_id]
                if state.steps and _CONTEXT.search(reply.error):  # the trajectory outgrew the context: score what it did
                    yield state.completion("context")
                else:
                    yield state.completion("error", reply.error)
                continue
            if not reply.tool_calls:
                state.end_turn(reply)
                del active[reply.sample_id]
                yield state.completion("final" if state.steps[:-1] else "no_calls")
                continue
            too_many = _too_many(state, len(reply.tool_calls))
            if too_many is not None:  # not run: the sample is scored on the calls made before
                state.notes.append(too_many)
                state.end_turn(dataclasses.replace(reply, tool_calls=()))
                del active[reply.sample_id]
                yield state.completion("too_many_calls")
                continue
            state.messages.append(
                {
                    "role": "assistant",
                    "content": reply.content or None,
                    "tool_calls": [
                        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in reply.tool_calls
                    ],
                }
            )
            state.calls += len(reply.tool_calls)
            turns.append((state, reply))
        _run_turn(runner, turns, bound)
    for state in active.values():
        yield state.completion("max_steps")
