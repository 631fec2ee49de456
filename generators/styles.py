"""Prompt styles: the one place that says how a style prompts, generates and answers.

A prompt style is one object (:class:`PromptStyle`). It names itself, gives
its stop sequences and default token budget, says whether it reads the step
settings (``--max-steps``, ``--observe``), and starts a :class:`StyleRun` for
a run: the messages builder, the text the assistant turn starts with, how it
drives the backend (one batched call for CoT, a step loop for ReAct) and how
an answer is read from a completion.

``cot`` and ``react`` are registered here; ``gqlbench run --prompt`` lists
:data:`STYLES`. Outside code adds a style by :meth:`~gqlbench.plugins.Registry.register`,
an entry point in the ``gqlbench.prompt_styles`` group, or ``--prompt
module:object`` (an object, or a class called without arguments).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import Backend, GenerationConfig, GenerationRequest
from gqlbench.generators.budget import FULL_DETAIL, Detail
from gqlbench.generators.cot import cot_generate, cot_messages, cot_stop
from gqlbench.generators.prompts import PAPER_VIEW, Shown
from gqlbench.generators.react import DEFAULT_MAX_STEPS, THOUGHT, Observer, ReactPrompter, react_program, react_stop, run_react
from gqlbench.generators.tools import CallRunner, run_tools, tool_specs, tools_messages
from gqlbench.plugins import Registry
from gqlbench.records import Completion, Message, Prompt, Sample

__all__ = [
    "DEFAULT_STYLE",
    "STYLES",
    "Answer",
    "StyleOptions",
    "StyleRun",
    "PromptStyle",
    "get_style",
    "CotStyle",
    "ReactStyle",
    "ToolsStyle",
]

DEFAULT_STYLE = "cot"


@dataclass(frozen=True)
class StyleOptions:
    """What a run hands a style besides the samples; only a style with ``uses_steps`` reads these."""

    max_steps: int = DEFAULT_MAX_STEPS
    observer: Observer | None = None  # built by the run from --observe
    abstain: bool = False  # --relevance: the instructions explain how to decline (gqlbench.generators.prompts.abstain_rule)
    shown: Shown = PAPER_VIEW  # what the prompts show (--schema, --functions): instructions and headings promise only that
    tool_result_chars: int | None = None  # --prompt tools: the bound of a tool result (None: from the backend's context)


@dataclass(frozen=True)
class Answer:
    """What a completion answers.

    ``prediction`` is scored exactly as a line of a predictions file is;
    ``code`` is the program when the style reads it itself (None: the scorer's
    own extraction from ``prediction``, as ``gqlbench evaluate`` does).
    """

    prediction: str
    code: str | None = None


@runtime_checkable
class StyleRun(Protocol):
    """One run's use of a style: prompts, generation and answers."""

    @property
    def assistant_prefix(self) -> str:
        """The text the assistant turn starts with (counted by the context budget)."""
        ...

    def messages(self, sample: Sample, shots: Sequence[Sample], detail: Detail = FULL_DETAIL) -> list[Message]:
        """The chat messages for ``sample`` (the context budget picks ``shots`` and ``detail``)."""
        ...

    def generate(self, work: Sequence[tuple[Sample, Prompt]], backend: Backend, config: GenerationConfig) -> Iterator[Completion]:
        """Completions for a chunk of prompted samples; a failed one has ``error`` set and is never scored."""
        ...

    def answer(self, completion: Completion) -> Answer:
        """What is scored for a successful completion."""
        ...


@runtime_checkable
class PromptStyle(Protocol):
    """A prompt style, as ``--prompt`` names it."""

    @property
    def name(self) -> str:
        """Its name; the run folder is named after it."""
        ...

    @property
    def summary(self) -> str:
        """One line for the docs."""
        ...

    @property
    def default_max_new_tokens(self) -> int:
        """The generation budget per call when --max-new-tokens is not given."""
        ...

    @property
    def uses_steps(self) -> bool:
        """Whether it reads --max-steps and --observe (stored as null in config.json otherwise)."""
        ...

    def stop(self) -> tuple[str, ...]:
        """Stop sequences of every generation call."""
        ...

    def start(self, options: StyleOptions) -> StyleRun:
        """The style's state for one run (e.g. cached example transcripts)."""
        ...


STYLES: Registry[PromptStyle] = Registry("prompt style", "gqlbench.prompt_styles", "--prompt")


def get_style(name: str) -> PromptStyle:
    """The style ``name`` (registered, an entry point, or ``module:object``), checked to be a style."""
    style = STYLES.get(name)
    if isinstance(style, type):
        style = style()
    if not isinstance(style, PromptStyle):
        raise GqlbenchError(f"--prompt {name}: the object is not a prompt style (see gqlbench.generators.styles.PromptStyle)")
    return style


@dataclass(frozen=True)
class _CotRun:
    assistant_prefix: str = ""
    abstain: bool = False
    shown: Shown = PAPER_VIEW

    def messages(self, sample: Sample, shots: Sequence[Sample], detail: Detail = FULL_DETAIL) -> list[Message]:
        return cot_messages(sample, shots, detail, abstain=self.abstain, shown=self.shown)

    def generate(self, work: Sequence[tuple[Sample, Prompt]], backend: Backend, config: GenerationConfig) -> Iterator[Completion]:
        return cot_generate(backend, [GenerationRequest(s.id, tuple(p.messages)) for s, p in work], config)

    def answer(self, completion: Completion) -> Answer:
        return Answer(completion.text)


@dataclass(frozen=True)
class CotStyle:
    """Few-shot chain of thought: reasoning, then the whole program in one code block, in one call."""

    name: str = "cot"
    summary: str = "chain of thought: reason, then write the whole program in one call"
    default_max_new_tokens: int = 512  # the reasoning and the whole program at once
    uses_steps: bool = False

    def stop(self) -> tuple[str, ...]:
        return cot_stop()

    def start(self, options: StyleOptions) -> StyleRun:
        return _CotRun(abstain=options.abstain, shown=options.shown)


def _steps_answer(completion: Completion) -> Answer:
    """The program of a step loop (ReAct, tools): its actions, one per line; the style reads it itself."""
    program = react_program(completion)
    return Answer(program, program)


@dataclass
class _ReactRun:
    prompter: ReactPrompter
    observer: Observer
    max_steps: int
    assistant_prefix: str = THOUGHT

    def messages(self, sample: Sample, shots: Sequence[Sample], detail: Detail = FULL_DETAIL) -> list[Message]:
        return self.prompter(sample, shots, detail)

    def generate(self, work: Sequence[tuple[Sample, Prompt]], backend: Backend, config: GenerationConfig) -> Iterator[Completion]:
        return run_react(work, backend, config, self.observer, self.max_steps)

    def answer(self, completion: Completion) -> Answer:
        return _steps_answer(completion)


@dataclass(frozen=True)
class ReactStyle:
    """ReAct: one thought and one call per step, each followed by an observation."""

    name: str = "react"
    summary: str = "ReAct: one call per step, each answered by an observation (--observe, --max-steps)"
    default_max_new_tokens: int = 192  # one thought and one line per step
    uses_steps: bool = True

    def stop(self) -> tuple[str, ...]:
        return react_stop()

    def start(self, options: StyleOptions) -> StyleRun:
        if options.observer is None:
            raise GqlbenchError("the react prompt style needs an observer (--observe)")
        return _ReactRun(ReactPrompter(options.observer, options.abstain, options.shown), options.observer, options.max_steps)


@dataclass
class _ToolsRun:
    runner: CallRunner
    max_steps: int
    abstain: bool = False
    result_chars: int | None = None
    assistant_prefix: str = ""

    def messages(self, sample: Sample, shots: Sequence[Sample], detail: Detail = FULL_DETAIL) -> list[Message]:
        return tools_messages(sample, self.abstain)  # the tools carry the signatures; no examples (they would need tool transcripts)

    def tools(self, sample: Sample, detail: Detail = FULL_DETAIL) -> list[dict[str, Any]]:
        """The tools offered with the messages; the context budget counts them and may drop their descriptions."""
        return tool_specs(sample, detail)

    def generate(self, work: Sequence[tuple[Sample, Prompt]], backend: Backend, config: GenerationConfig) -> Iterator[Completion]:
        return run_tools(work, backend, config, self.runner, self.max_steps, self.result_chars)

    def answer(self, completion: Completion) -> Answer:
        return _steps_answer(completion)


@dataclass(frozen=True)
class ToolsStyle:
    """Native tool calling (FC mode): the model calls the endpoints as tools, each call answered by the mock world."""

    name: str = "tools"
    summary: str = "native tool calling (FC mode): each tool call runs on the mock world (--max-steps turns; vllm and hf need tool_parser)"
    default_max_new_tokens: int = 512  # one turn's text and tool calls
    uses_steps: bool = True
    executes_calls: bool = True  # the run observes with the mock world whatever --observe says

    def stop(self) -> tuple[str, ...]:
        return ()

    def start(self, options: StyleOptions) -> StyleRun:
        if not isinstance(options.observer, CallRunner):
            raise GqlbenchError("the tools prompt style runs each call on the mock world: it needs the mock observer (--observe mock)")
        return _ToolsRun(options.observer, options.max_steps, options.abstain, options.tool_result_chars)


STYLES.register("cot", CotStyle())
STYLES.register("react", ReactStyle())
STYLES.register("tools", ToolsStyle())
