"""Back-instruction: a model writes a sample's request from its program and what the world answered it.

A template's text verbalises the program; a person names a thing and leaves
the steps implicit. So the paraphrase model (``--paraphrase-model``) never
sees the template: it is shown the gold program, the world's answers to its
calls (the entities the program looks up, named as the mock world names them,
and what the last call returns), and the literals the request must state,
and asked for the request a person would type (:func:`task_prompt`).

Its answer is checked mechanically (:func:`rewrite`): every literal stated
(:func:`gqlbench.synthetic.generate.missing_literals`), no entity the program
only looks up or that the last call returns named (the request would then
say "Pink Floyd" where the gold searches for "Money", or give the answer
away), no copy of a human or an earlier request, and the gold
still runs with it as the request. With a verifier (:mod:`.roundtrip`), a
second model then writes a program from the request alone, and the sample is
kept only if that program executes like the gold; without one, a rejected
request leaves the template's text in place. Each sample records the models
and the verdict (:meth:`Outcome.record`).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from gqlbench.generators.backends.backend import Backend, GenerationConfig, GenerationRequest
from gqlbench.mocks.sandbox.pool import Job, SandboxPool
from gqlbench.records import Message

__all__ = [
    "LABELS",
    "PROMPT",
    "Outcome",
    "Paraphrase",
    "Rewriter",
    "Task",
    "backend_paraphraser",
    "first_line",
    "rewrite",
    "task_prompt",
    "world_answers",
]

Literal = str | int


@dataclass(frozen=True)
class Task:
    """What the paraphrase model is told about one sample: its program, the world's answers, the literals to state."""

    domain: str
    code: str
    literals: tuple[Literal, ...]
    steps: tuple[str, ...] = ()  # one line per call: the call with its values, and the entities read from earlier answers
    answer: tuple[str, ...] = ()  # the names of what the last call returned
    looked_up: tuple[str, ...] = ()  # names of entities the program finds on the way (never to be named in the request)


Paraphrase = Callable[[Task], "str | None"]
"""A task in, the request the model wrote out (None when it gave nothing usable)."""

PROMPT = """\
A user asked an assistant for something, and the assistant answered by running this Python program against the {domain} API:

```python
{code}
```

What the API answered, call by call:
{steps}
The last call returned: {answer}

Write the user's request: one short sentence (at most 20 words) that a person would type, asking for what the program \
gets or does.
- State these values exactly as written: {literals}.
- Do not name {looked_up}: the assistant finds them on the way; do not name what the last call returned either.
- No function names, no steps, no code; say "the top result" or "their latest" where a person would.
Answer with the request only, on one line."""
MAX_NEW_TOKENS = 80
LABELS = ("name", "title", "display_name", "original_title", "original_name", "username")
"""Fields that name an entity, most telling first: what a person would call the thing."""
_MAX_NAMES = 5


def task_prompt(task: Task) -> str:
    """The paraphrase model's prompt for ``task``."""
    literals = ", ".join(json.dumps(v, ensure_ascii=False) for v in task.literals) or "(none)"
    looked_up = ", ".join(json.dumps(n, ensure_ascii=False) for n in task.looked_up) or "anything the program looks up"
    steps = "".join(f"{i}. {line}\n" for i, line in enumerate(task.steps, start=1)) or "(not recorded)\n"
    answer = ", ".join(json.dumps(n, ensure_ascii=False) for n in task.answer) or "(nothing with a name)"
    return PROMPT.format(domain=task.domain, code=task.code, steps=steps, answer=answer, literals=literals, looked_up=looked_up)


def first_line(text: str) -> str:
    """The request in a completion: its first non-empty line, without a ``Request:`` label or wrapping quotes."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    for label in ("Rewritten request:", "Request:", "Paraphrase:", "User:"):
        if line.lower().startswith(label.lower()):
            line = line[len(label) :].strip()
    if len(line) > 1 and line[0] == line[-1] and line[0] in "'`" or line.startswith("“") and line.endswith("”"):
        line = line[1:-1].strip()
    return line


def backend_paraphraser(backend: Backend, seed: int = 0) -> Paraphrase:
    """A :data:`Paraphrase` that asks ``backend`` (greedy decoding, ``seed``) once per task."""
    config = GenerationConfig(max_new_tokens=MAX_NEW_TOKENS, seed=seed)

    def paraphrase(task: Task) -> str | None:
        request = GenerationRequest(sample_id="paraphrase/0", messages=(Message(role="user", content=task_prompt(task)),))
        for completion in backend.generate([request], config):
            if completion.error is None and completion.text:
                return first_line(completion.text) or None
        return None

    return paraphrase


# -- what the world answered ------------------------------------------------------------------------------------------


def _label(value: Any) -> str | None:
    if isinstance(value, dict):
        return next((value[k] for k in LABELS if isinstance(value.get(k), str) and value[k].strip()), None)
    return None


def _objects(value: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    """Every object inside a JSON value, outermost first (bounded: a response is untrusted)."""
    if depth > 12:
        return
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _objects(item, depth + 1)
    elif isinstance(value, list):
        for item in value[:50]:
            yield from _objects(item, depth + 1)


def _named_by(value: Any, responses: Sequence[Any]) -> str | None:
    """The name of the entity an argument value was read from: the first named object holding it in an earlier answer."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    for response in responses:
        for obj in _objects(response):
            if value in obj.values() and _label(obj) is not None and _label(obj) != value:
                return _label(obj)
    return None


def _answer_names(response: Any, depth: int = 0) -> list[str]:
    """What a response is about: its own name, else the names of the items of its first list of named things."""
    own = _label(response)
    if own is not None or depth > 12:
        return [own] if own is not None else []
    if isinstance(response, list):
        names = [n for n in map(_label, response[:50]) if n is not None]
        if names:
            return list(dict.fromkeys(names))[:_MAX_NAMES]
    children = response.values() if isinstance(response, dict) else response[:50] if isinstance(response, list) else []
    return next((found for child in children if (found := _answer_names(child, depth + 1))), [])


def _observed(code: str) -> tuple[str, int] | None:
    """``code`` with every top-level call's value kept and a last line listing them, and how many there are."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    names: list[str] = []
    for index, statement in enumerate(tree.body):
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            name = f"response_seen{index}"
            tree.body[index] = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=statement.value, lineno=statement.lineno)
        elif isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call) and len(statement.targets) == 1:
            target = statement.targets[0]
            if not isinstance(target, ast.Name):
                return None
            name = target.id
        else:
            return None  # not a plain call chain: the calls cannot be paired with statements
        names.append(name)
    listing = ast.Expr(value=ast.List(elts=[ast.Name(id=n, ctx=ast.Load()) for n in names], ctx=ast.Load()))
    tree.body.append(listing)
    return ast.unparse(ast.fix_missing_locations(tree)), len(names)


def _names(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` as a whole word or phrase ("Time" is not named by "Timeless")."""
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def _stated(name: str, literals: Sequence[Literal]) -> bool:
    """Whether a literal the request must state holds ``name`` (naming it is then no leak)."""
    return any(isinstance(literal, str) and name in literal for literal in literals)


def world_answers(task: Task, pool: SandboxPool, world_seed: int) -> Task:
    """``task`` with the world's answers filled in, from one run of its program with every call's value observed.

    A program that is not a plain chain of calls, or whose run fails, gets
    the calls with their values only (from the trace), without names.
    """
    observed = _observed(task.code)
    request = " ".join(json.dumps(v, ensure_ascii=False) for v in task.literals)
    code = observed[0] if observed else task.code
    trace = pool.run(Job(code=code, domain=task.domain, seed=world_seed, request=request, observe_last=observed is not None))
    try:
        responses = json.loads(trace.result) if isinstance(trace.result, str) else None
    except json.JSONDecodeError:
        responses = None
    if not isinstance(responses, list) or observed is None or len(responses) != observed[1] or len(trace.calls) != len(responses):
        responses = []
    steps, looked_up = [], []
    for index, call in enumerate(trace.calls):
        args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in call.arguments.items())
        read = [(v, _named_by(v, responses[:index])) for v in call.arguments.values() if v not in task.literals]
        names = [f"{json.dumps(v, ensure_ascii=False, default=str)} is {json.dumps(n, ensure_ascii=False)}" for v, n in read if n]
        looked_up += [n for _, n in read if n and not _stated(n, task.literals)]
        steps.append(f"{call.function}({args})" + (f"  where {'; '.join(names)}" if names else ""))
    answer = _answer_names(responses[-1]) if responses else []
    return Task(task.domain, task.code, task.literals, tuple(steps), tuple(answer), tuple(dict.fromkeys(looked_up)))


# -- one sample's rewrite and its verdict -----------------------------------------------------------------------------

RoundTrip = Callable[[str, str, str, SandboxPool, int], "str | None"]
"""(domain, gold code, request, pool, world seed) -> why the request fails the round trip (None: it passes)."""


@dataclass(frozen=True)
class Rewriter:
    """The paraphrase model and, optionally, the verifier's round trip; their names are recorded on each sample."""

    paraphrase: Paraphrase
    model: str
    round_trip: RoundTrip | None = None
    verify_model: str | None = None


@dataclass(frozen=True)
class Outcome:
    """One sample's rewrite: the new request (None: not used), the verdict, whether the sample is dropped, runs spent."""

    text: str | None
    verdict: str  # "kept", or the reason the request was rejected
    dropped: bool
    runs: int
    model: str
    verify_model: str | None
    written: str | None = None  # what the model wrote, kept or not (for reading the rejected ones)

    def record(self) -> dict[str, Any]:
        """The sample's ``synthetic.paraphrase`` block."""
        return {"model": self.model, "verify_model": self.verify_model, "verdict": self.verdict}


def rewrite(rewriter: Rewriter, task: Task, pool: SandboxPool, world_seed: int, taken: set[str]) -> Outcome:
    """Ask for ``task``'s request and judge it (see the module docstring); ``taken``: normalised requests already used.

    Without a verifier a rejected request is not dropped (the caller keeps
    the template's text); with one, every rejection drops the sample.
    """
    from gqlbench.synthetic.generate import missing_literals, verify  # generate calls this module
    from gqlbench.synthetic.human import human_utterances, normalize

    task = world_answers(task, pool, world_seed)
    runs = 1
    new = rewriter.paraphrase(task)
    reason = (
        "no_answer"
        if not new
        else "dropped_literal"
        if missing_literals(task.literals, new)
        else "names_looked_up"
        if any(_names(new, name) for name in task.looked_up)
        else "names_the_answer"
        if any(_names(new, name) for name in task.answer if not _stated(name, task.literals))
        else "copies_human"
        if normalize(new) in human_utterances()
        else "duplicate"
        if normalize(new) in taken
        else None
    )
    if reason is None and new is not None:
        runs += 1
        reason = "gold_fails_with_it" if verify(task.domain, task.code, new, pool, world_seed) is not None else None
    if reason is None and new is not None and rewriter.round_trip is not None:
        runs += 2
        reason = rewriter.round_trip(task.domain, task.code, new, pool, world_seed)
    dropped = reason is not None and rewriter.round_trip is not None
    return Outcome(new if reason is None else None, reason or "kept", dropped, runs, rewriter.model, rewriter.verify_model, new)
