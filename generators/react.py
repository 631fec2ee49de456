"""ReAct prompting: one API call per step, each followed by an observation.

The model writes ``Thought: ...`` and ``Action: <one line of Python>``; the
harness stops it at ``Observation:``, appends what an :class:`Observer` says
about that action, and lets it continue, until it writes ``Action: finish``,
stops writing actions, runs out of context or reaches ``max_steps``. The
program that is scored is the sequence of actions.

Generation is step-synchronous: every unfinished sample advances one step per
batched ``backend.generate`` call, so a batch of N samples costs at most
``max_steps`` calls, not N times as many. The scratchpad is continued through
``GenerationRequest.assistant_prefix``.

Observers are pluggable. ``schema`` (here) answers with the GraphQL type of
the value the action returned, so the model learns which fields exist; the
``mock`` observer (:mod:`gqlbench.run.observers`) executes the action in the
sandbox. An observer that also has ``observe_many`` (:class:`BatchObserver`)
gets the observations of one step of all samples as one call, so it can run
them as one batch.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import Backend, GenerationConfig, GenerationRequest
from gqlbench.generators.budget import FULL_DETAIL, Detail
from gqlbench.generators.prompts import NEXT_TURN_STOP, PAPER_VIEW, Shown, abstain_rule, describe_calls, gold_calls, render_task
from gqlbench.records import Completion, Message, Prompt, ReactStep, Sample

__all__ = [
    "FINISH",
    "DEFAULT_MAX_STEPS",
    "Observer",
    "BatchObserver",
    "SchemaObserver",
    "Step",
    "parse_step",
    "react_instructions",
    "react_transcript",
    "ReactPrompter",
    "react_stop",
    "react_program",
    "run_react",
]

FINISH = "finish"
DEFAULT_MAX_STEPS = 8
THOUGHT = "Thought:"
ACTION = "Action:"
OBSERVATION = "Observation:"


@runtime_checkable
class Observer(Protocol):
    """Says what happened when an action ran; ``explains`` goes into the instructions."""

    name: str
    explains: str

    def observe(self, sample: Sample, actions_so_far: list[str], action: str) -> str:
        """The observation for ``action``, given the actions already taken for ``sample``."""
        ...


@runtime_checkable
class BatchObserver(Observer, Protocol):
    """An observer that answers one step of many samples at once (e.g. one sandbox batch)."""

    def observe_many(self, requests: Sequence[tuple[Sample, list[str], str]]) -> list[str]:
        """One observation per ``(sample, actions_so_far, action)``, in order."""
        ...


def _observe_step(observer: Observer, requests: Sequence[tuple[Sample, list[str], str]]) -> list[str]:
    """The observations of one step, batched when the observer can batch."""
    if not requests:
        return []
    if isinstance(observer, BatchObserver):
        return list(observer.observe_many(requests))
    return [observer.observe(sample, actions, action) for sample, actions, action in requests]


def _unwrap(type_node: Any) -> str:
    while not hasattr(type_node, "name"):
        type_node = type_node.type
    return type_node.name.value


def _response_types(sdl: str, function: str) -> tuple[str | None, str]:
    """(root type of ``function``, SDL of the types reachable from it) in an SDL text.

    The ``Query`` block (with its REST directives) is left out: the model
    needs the shape of the value, not how it was fetched.
    """
    from graphql import parse, print_ast
    from graphql.language import ObjectTypeDefinitionNode

    if not sdl.strip():
        return None, ""
    document = parse(sdl, no_location=True)
    objects = [d for d in document.definitions if isinstance(d, ObjectTypeDefinitionNode)]
    types = {d.name.value: d for d in objects if d.name.value != "Query"}
    root = next(
        (_unwrap(f.type) for d in objects if d.name.value == "Query" for f in d.fields or () if f.name.value == function),
        None,
    )
    order: list[str] = []
    queue = [root] if root else []
    while queue:
        name = queue.pop(0)
        if name in order or name not in types:
            continue
        order.append(name)
        queue.extend(_unwrap(f.type) for f in types[name].fields or ())
    return root, "\n\n".join(print_ast(types[n]) for n in order)


@dataclass
class SchemaObserver:
    """Observation = the GraphQL type of the value the action's call returned.

    Types come from the catalog's SDL of the endpoint; for a domain or
    function the catalog does not know, from the sample's own schema. Long
    type listings are cut at ``max_chars`` with an explicit note.
    """

    max_chars: int = 3000
    name: str = "schema"
    explains: str = "the GraphQL type of the value your call returned (so you know which fields you can read)"

    def _type_of(self, sample: Sample, function: str) -> tuple[str | None, str]:
        from gqlbench.schemas import endpoint_sdl

        try:
            root, types = _response_types(endpoint_sdl(sample.domain, function) or "", function)
        except GqlbenchError:  # a domain the catalog does not know (e.g. --data of your own)
            root, types = None, ""
        return (root, types) if root else _response_types(sample.graphql_schema, function)

    def observe(self, sample: Sample, actions_so_far: list[str], action: str) -> str:
        try:
            tree = ast.parse(action)
        except SyntaxError as exc:
            return f"SyntaxError: {exc.msg}. Write the action as one line of valid Python."
        stmt = tree.body[0] if len(tree.body) == 1 else None
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.Expr)) else None
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
            return "No API function was called."
        function = value.func.id
        if function not in sample.function_names:
            return f"{function} is not one of the given functions ({', '.join(sample.function_names)})."
        root, sdl = self._type_of(sample, function)
        if root is None:
            return f"{function} returns no data to read."
        target = stmt.targets[0].id if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name) else None
        head = f"{target} has type {root}" if target else f"The response (not stored in a variable) has type {root}"
        text = f"{head}:\n{sdl}" if sdl else f"{head}."
        if len(text) > self.max_chars:
            text = f"{text[: self.max_chars]}\n... ({len(text) - self.max_chars} more characters of the schema not shown)"
        return text


def react_instructions(observer: Observer, abstain: bool = False, shown: Shown = PAPER_VIEW) -> str:
    """The system block, saying what ``shown`` shows; ``abstain`` (relevance runs) adds how to decline a request the functions cannot do."""
    rule = f"\n{abstain_rule(f'as your only action ({ACTION} ...)')}" if abstain else ""
    return f"""\
You fulfil a user's request by calling REST API functions one at a time, in Python.
{shown.given()}
Work in steps. Each step is exactly:
{THOUGHT} what to do next and which value from an earlier response it needs
{ACTION} ONE line of Python that calls one of the given functions with keyword arguments, storing the response in a variable (response_obj, response_obj1, ...) when a later step needs it
Then you receive "{OBSERVATION}" with {observer.explains}.
Read fields {shown.fields()}, e.g. response_obj.results[0].id. Do not import modules, define functions or print.
When every needed call has been made, write "{ACTION} {FINISH}".{rule}"""


def _format_step(thought: str, action: str, observation: str | None) -> str:
    text = f"{THOUGHT} {thought}\n{ACTION} {action}\n"
    return text + (f"{OBSERVATION} {observation}\n" if observation is not None else "")


def react_transcript(sample: Sample, observer: Observer) -> str:
    """A worked ReAct answer built from the gold code: one step per gold call.

    Each thought is the call's sentence from :func:`describe_calls` (what is
    called, with what, where the result goes), as in the CoT examples.
    """
    calls = gold_calls(sample.gold_code)
    actions: list[str] = []
    text = ""
    for call, sentence in zip(calls, describe_calls(calls), strict=True):
        thought = sentence.split(" ", 1)[1]  # drop the "1." numbering
        text += _format_step(thought, call.line, observer.observe(sample, list(actions), call.line))
        actions.append(call.line)
    return text + _format_step("Every needed call has been made.", FINISH, None)


@dataclass
class ReactPrompter:
    """Builds ReAct messages for the context budget; shot transcripts are cached."""

    observer: Observer
    abstain: bool = False  # relevance runs: the instructions say how to decline
    shown: Shown = PAPER_VIEW  # what the run's prompts show (--schema none: no schema heading, no promise of one)
    _transcripts: dict[str, str] = field(default_factory=dict)

    def transcript(self, shot: Sample) -> str:
        if shot.id not in self._transcripts:
            self._transcripts[shot.id] = react_transcript(shot, self.observer)
        return self._transcripts[shot.id]

    def __call__(self, sample: Sample, shots: Sequence[Sample], detail: Detail = FULL_DETAIL) -> list[Message]:
        messages = [Message(role="system", content=react_instructions(self.observer, self.abstain, self.shown))]
        for shot in shots:
            messages.append(Message(role="user", content=render_task(shot, schema=self.shown.schema)))
            messages.append(Message(role="assistant", content=self.transcript(shot).rstrip("\n")))
        task = render_task(
            sample, descriptions=detail.descriptions, parameter_descriptions=detail.parameter_descriptions, schema=self.shown.schema
        )
        messages.append(Message(role="user", content=task))
        return messages


def react_stop() -> tuple[str, ...]:
    return (f"\n{OBSERVATION}", NEXT_TURN_STOP)


@dataclass(frozen=True)
class Step:
    """One parsed model turn."""

    thought: str
    action: str | None  # None: the model wrote no action
    finished: bool


_FINISH_RE = re.compile(rf"^{FINISH}\b|^{FINISH}\[\]", re.IGNORECASE)
_DECLINE_RE = re.compile(r"^raise\s+NotSupported\b")  # the abstention marker ends the episode, and is kept in the program


def parse_step(text: str) -> Step:
    """Read ``Thought: ... Action: ...`` (``text`` includes the leading ``Thought:``).

    Only the first action line counts; anything the model wrote after it (an
    invented observation, further steps) is discarded.
    """
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if line.strip().startswith(ACTION)), None)
    head = "\n".join(lines if at is None else lines[:at]).strip()
    thought = " ".join(head.removeprefix(THOUGHT).split())
    if at is None:
        return Step(thought, None, True)
    action = lines[at].strip()[len(ACTION) :].strip()
    if not action or action.startswith("```"):  # the line may follow, possibly fenced
        rest = [ln.strip() for ln in lines[at + 1 :] if ln.strip() and not ln.strip().startswith("```")]
        action = rest[0] if rest else ""
    action = action.strip("`").strip()
    if not action:
        return Step(thought, None, True)
    return Step(thought, action, bool(_FINISH_RE.match(action) or _DECLINE_RE.match(action)))


def react_program(completion: Completion) -> str:
    """The scored program: the actions, one per line, without the final ``finish`` (a final ``raise NotSupported`` stays)."""
    return "\n".join(s.action for s in completion.steps if s.action and not (s.finished and _FINISH_RE.match(s.action)))


@dataclass
class _State:
    sample: Sample
    prompt: Prompt
    scratchpad: str = ""
    actions: list[str] = field(default_factory=list)
    steps: list[ReactStep] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0

    def completion(self, finish_reason: str, error: str | None = None) -> Completion:
        return Completion(
            sample_id=self.sample.id,
            text=self.scratchpad,
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            latency_s=self.latency_s,
            finish_reason=finish_reason,
            error=error,
            steps=self.steps,
        )


def run_react(
    work: Sequence[tuple[Sample, Prompt]],
    backend: Backend,
    config: GenerationConfig,
    observer: Observer,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> Iterator[Completion]:
    """Advance all samples one step per batched call; yield each as it finishes.

    The step's observations are made together after the call (one
    ``observe_many`` when the observer is a :class:`BatchObserver`).

    ``finish_reason`` is ``finish`` (the model said so), ``no_action``,
    ``max_steps`` or ``context`` (the next step would not fit). A backend
    error ends the sample with ``error`` set, to be retried, never scored.
    """
    active = {sample.id: _State(sample, prompt) for sample, prompt in work}
    for step_index in range(max_steps):
        if step_index:
            for sid in [sid for sid, s in active.items() if _out_of_context(backend, s, config)]:
                yield active.pop(sid).completion("context")
        if not active:
            return
        requests = [GenerationRequest(sid, tuple(s.prompt.messages), assistant_prefix=s.scratchpad + THOUGHT) for sid, s in active.items()]
        acted: list[tuple[_State, str, str, ReactStep]] = []  # state, thought, action, step record
        for done in backend.generate(requests, config):
            state = active.get(done.sample_id)
            if state is None:
                continue
            state.tokens_in += done.tokens_in
            state.tokens_out += done.tokens_out
            state.latency_s += done.latency_s
            if done.error:
                del active[done.sample_id]
                yield state.completion("error", done.error)
                continue
            step = parse_step(THOUGHT + done.text)
            record = ReactStep(
                thought=step.thought,
                action=step.action,
                finished=step.finished,
                raw=done.text,
                tokens_in=done.tokens_in,
                tokens_out=done.tokens_out,
            )
            state.steps.append(record)
            if step.finished:
                if step.action is not None:
                    state.scratchpad += _format_step(step.thought, step.action, None)
                del active[done.sample_id]
                yield state.completion(FINISH if step.action is not None else "no_action")
                continue
            assert step.action is not None
            acted.append((state, step.thought, step.action, record))
        observations = _observe_step(observer, [(s.sample, list(s.actions), action) for s, _, action, _ in acted])
        for (state, thought, action, record), observation in zip(acted, observations, strict=True):
            record.observation = observation
            state.actions.append(action)
            state.scratchpad += _format_step(thought, action, observation)
    for state in active.values():
        yield state.completion("max_steps")


def _out_of_context(backend: Backend, state: _State, config: GenerationConfig) -> bool:
    text = backend.render(state.prompt.messages, state.scratchpad + THOUGHT)
    return backend.count_tokens(text) + config.max_new_tokens > backend.max_model_len
