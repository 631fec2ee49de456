"""Shared prompt parts: the task block, worked answers and plain-text rendering.

Every prompt style shows a sample the same way the benchmark's own ``input``
field does (function signatures as JSON, the GraphQL schema of their
responses, the utterance), so :func:`render_task` reproduces that field byte
for byte and a zero-shot prompt is exactly the dataset's prompt. Worked
answers for few-shot examples are derived from the gold code by
:func:`describe_calls`, never written by hand per sample.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gqlbench.program import read_program
from gqlbench.records import FunctionSpec, Sample

__all__ = [
    "NEXT_TURN_STOP",
    "ABSTAIN_MARKER",
    "abstain_rule",
    "Shown",
    "PAPER_VIEW",
    "GoldCall",
    "render_signatures",
    "render_task",
    "gold_calls",
    "describe_calls",
]

# Base models without a chat template get a plain ``Role: content`` transcript
# (gqlbench.generators.backends.models.render_chat). One that starts inventing the next
# task writes this, so it is a stop sequence for every prompt style.
NEXT_TURN_STOP = "\nUser:"

# The documented way to say that the offered functions cannot do what is asked
# (relevance runs, ``gqlbench run --relevance``; read by gqlbench.metrics.abstention).
ABSTAIN_MARKER = 'raise NotSupported("<what is missing>")'


def abstain_rule(where: str) -> str:
    """The instruction line of a relevance run; ``where`` says where the marker goes in the style's answer."""
    return (
        "If the given functions cannot fulfil the request (a function it needs is not given), call no function "
        f"and write {where}: {ABSTAIN_MARKER}"
    )


@dataclass(frozen=True)
class Shown:
    """What a run's prompts show, so that instructions and headings promise only that.

    The default is the paper's prompt (the needed functions and their response
    schema). ``--schema none`` shows no schema, so the prompt neither mentions
    one nor prints an empty heading; a wider ``--functions`` offer says that
    not every given function is needed.
    """

    schema: bool = True
    every_function_needed: bool = True

    def given(self) -> str:
        """The instructions' sentence saying what the prompt gives."""
        functions = (
            "the functions' signatures (JSON)"
            if self.every_function_needed
            else "the signatures (JSON) of the functions you may call (not every one of them is needed)"
        )
        if self.schema:
            return f"You are given {functions}, the GraphQL schema of the responses they return, and the request (the utterance)."
        return f"You are given {functions} and the request (the utterance); the schema of their responses is not shown."

    def fields(self) -> str:
        """How a program reads a response's fields: as the schema names them, or (no schema) as the response does."""
        return "exactly as the GraphQL schema names them" if self.schema else "by name (no schema of the responses is shown)"


PAPER_VIEW = Shown()  # the paper's prompt: the needed functions and their response schema


def render_signatures(specs: Sequence[FunctionSpec], *, descriptions: bool = True, parameter_descriptions: bool = True) -> str:
    """Signatures as the dataset's JSON list; the context budget can strip descriptions."""
    rendered = []
    for spec in specs:
        raw = spec.model_dump(mode="json", exclude_unset=True)
        if not descriptions:
            raw.pop("description", None)
        if not parameter_descriptions:
            for param in raw.get("parameters", {}).get("properties", {}).values():
                param.pop("description", None)
        rendered.append(raw)
    return json.dumps(rendered)


def render_task(sample: Sample, *, descriptions: bool = True, parameter_descriptions: bool = True, schema: bool = True) -> str:
    """One sample as the benchmark states it: signatures, GraphQL schema, utterance.

    With all descriptions kept this equals the dataset's ``input`` field (an
    empty schema keeps its heading there). ``schema=False`` (``--schema none``)
    leaves the heading out: the prompt shows no schema, so it names none.
    """
    signatures = render_signatures(sample.function_specs, descriptions=descriptions, parameter_descriptions=parameter_descriptions)
    shown = f"GraphQL schema:\n\n{sample.graphql_schema}\n" if schema else ""
    return f"Function Signatures:\n\n{signatures}\n\n{shown}Utterance: {sample.utterance}"


@dataclass(frozen=True)
class GoldCall:
    """One line of a gold program, read structurally (:mod:`gqlbench.program`; nothing is run)."""

    line: str  # the source line, as written
    function: str
    target: str | None  # the variable the response is stored in
    arguments: tuple[tuple[str, str], ...]  # (name or "#i" for positional, source text)
    sources: tuple[str, ...]  # earlier response variables this call reads


def gold_calls(code: str) -> list[GoldCall]:
    """The top-level calls of a (valid) gold program, in order.

    Raises ``SyntaxError`` for invalid code: callers exclude errata samples first.
    """
    program = read_program(code)
    if program.tree is None:
        assert program.problem is not None
        raise SyntaxError(program.problem.message, ("<unknown>", program.problem.line, None, None))
    calls: list[GoldCall] = []
    stored: list[str] = []
    for call in program.top_level_calls:
        sources = tuple(v for v in stored if v in call.reads)
        calls.append(GoldCall(call.text, call.function, call.target, call.arguments, sources))
        if call.target:
            stored.append(call.target)
    return calls


def _describe_argument(name: str, source: str, stored: Sequence[str]) -> str:
    label = f"positional argument {name[1:]}" if name.startswith("#") else name
    readers = [v for v in stored if re.search(rf"\b{re.escape(v)}\b", source)]
    if not readers:
        return f"{label}={source}"
    if len(source) <= 60:
        return f"{label} taken from {source}"
    return f"{label} built from {', '.join(readers)}"


def describe_calls(calls: Sequence[GoldCall]) -> list[str]:
    """One sentence per call: what is called, with what, and where its result goes.

    Only facts read off the code (names, literal values, which earlier response
    a value comes from), so the worked answers carry no invented reasoning.
    """
    sentences = []
    stored: list[str] = []
    for i, call in enumerate(calls, 1):
        args = [_describe_argument(n, s, stored) for n, s in call.arguments]
        with_args = f" with {', '.join(args)}" if args else " (no arguments)"
        keep = f"; keep the response as {call.target}" if call.target else ""
        sentences.append(f"{i}. Call {call.function}{with_args}{keep}.")
        if call.target:
            stored.append(call.target)
    return sentences
