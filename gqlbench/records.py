"""Typed records, one per pipeline stage.

Data flows one way::

    Sample -> Prompt -> Completion -> Program -> Scores   (SampleResult)
                                         \\-> Trace -> exec scores

Every file a run writes is made of these records, so a run folder describes
itself and can be re-read with ``Model.model_validate_json``. The records are
plain data: no stage logic lives here, and this module imports nothing else
from gqlbench.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

__all__ = [
    "ParamSpec",
    "Parameters",
    "FunctionSpec",
    "Sample",
    "Message",
    "Prompt",
    "ReactStep",
    "Completion",
    "MAX_COMPLETION_CHARS",
    "escape_surrogates",
    "Program",
    "TraceCall",
    "ExecError",
    "Trace",
    "Scores",
    "ExecExplanation",
    "ShortenedResult",
    "Explanation",
    "SampleResult",
    "SkippedSample",
    "ResultsDocument",
    "Problem",
    "SPLITS",
    "ALL_SPLIT",
]

SPLITS: tuple[str, ...] = ("train", "valid", "test")
# ``--split all``: every split file's samples except the fixed few-shot examples (gqlbench.generators.shots.shot_set)
ALL_SPLIT = "all"


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ParamSpec(BaseModel):
    """One parameter of a function signature (JSON-schema-like; extra keys kept)."""

    model_config = ConfigDict(extra="allow")

    type: str
    description: str = ""


class Parameters(BaseModel):
    """The ``parameters`` object of a signature; property order is significant."""

    model_config = ConfigDict(extra="allow")

    type: str = "dict"
    properties: dict[str, ParamSpec] = Field(default_factory=dict)
    required: list[str] = Field(default_factory=list)


class FunctionSpec(BaseModel):
    """A REST endpoint as a Python function signature (BFCL/OpenAI style)."""

    model_config = ConfigDict(extra="allow")

    name: str
    description: str = ""
    parameters: Parameters = Field(default_factory=Parameters)

    @property
    def param_names(self) -> list[str]:
        """Parameter names in declaration order (used to map positional args)."""
        return list(self.parameters.properties)


class Sample(_Record):
    """One benchmark item: a user request and the gold call sequence."""

    id: str  # "<split>/<line index>", e.g. "test/0"
    split: str
    index: int
    benchmark: str = "graphqlrestbench"
    domain: str
    utterance: str
    gold_code: str
    function_specs: list[FunctionSpec]
    graphql_schema: str
    input: str = ""  # the dataset's ready-made zero-shot prompt text
    synthetic: dict[str, Any] | None = None  # how a generated sample was made (shape, calls, ...); None for human ones

    @property
    def function_names(self) -> list[str]:
        return [f.name for f in self.function_specs]


class Message(_Record):
    role: Literal["system", "user", "assistant"]
    content: str


class Prompt(_Record):
    """What is sent to the model for one sample."""

    sample_id: str
    style: str  # "cot", "react", ...
    messages: list[Message]
    text: str | None = None  # the rendered text, once a tokenizer's template was applied
    n_tokens: int | None = None
    shots: list[str] = Field(default_factory=list)  # ids of the few-shot examples used
    dropped: list[str] = Field(default_factory=list)  # what the context budget removed


class ReactStep(_Record):
    """One ReAct turn: what the model wrote, the action read from it, and what it was told back."""

    thought: str
    action: str | None  # None: the model wrote no action
    finished: bool  # the action was ``finish``, or there was none
    raw: str  # the model's text of this turn
    tokens_in: int = 0
    tokens_out: int = 0
    observation: str | None = None  # absent from the JSON when the step was not observed (a final step)

    @model_serializer(mode="wrap")
    def _leave_out_no_observation(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.observation is None:
            data.pop("observation", None)
        return data


# Characters of a completion's text that are kept: five times the largest program the analysis reads
# (gqlbench.metrics.Limits.max_chars), fifty times a 512-token answer. A server's 30 MB answer is not stored whole.
MAX_COMPLETION_CHARS = 100_000


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as its escape text (``\\ud800``): valid UTF-8, nothing else changed.

    JSON's ``\\ud800`` escape can carry a lone surrogate into a server's answer; UTF-8 cannot encode one, so a
    record holding it could not be written whole, nor sent to the server again. In a Python string literal the
    escape text means the same character, so a program keeps its meaning.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


class Completion(_Record):
    """The model's raw answer to one prompt (or the error that prevented it).

    Every backend's text is bounded here, in one place: beyond
    :data:`MAX_COMPLETION_CHARS` only the start is kept, ``text_chars`` keeps
    the full length and ``note`` says so; lone surrogates are escaped (:func:`escape_surrogates`).
    """

    sample_id: str
    text: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    finish_reason: str | None = None
    error: str | None = None
    steps: list[ReactStep] = Field(default_factory=list)  # ReAct: one entry per step
    index: int = 0  # which of a request's ``n`` completions this is (GenerationConfig.n)
    stop: str | None = None  # the stop sequence that ended the text, when the backend knows it (it is not in ``text``)
    note: str | None = None  # what was done to the text: cut to the bound, ends inside an unclosed code block, ...
    text_chars: int | None = None  # the text's full length, when it was cut
    explanation: Explanation = Field(default_factory=lambda: Explanation())  # added to the sample's (tools: argument provenance)

    @model_validator(mode="before")
    @classmethod
    def _bounded(cls, data: Any) -> Any:
        text = data.get("text") if isinstance(data, dict) else None
        if not isinstance(text, str):
            return data
        if len(text) <= MAX_COMPLETION_CHARS:
            kept = escape_surrogates(text)
            return data if kept is text else {**data, "text": kept}
        note = f"the completion had {len(text):,} characters; only the first {MAX_COMPLETION_CHARS:,} are kept"
        earlier = data.get("note")
        kept = escape_surrogates(text[:MAX_COMPLETION_CHARS])
        return {**data, "text": kept, "text_chars": len(text), "note": f"{earlier}; {note}" if earlier else note}


class Program(_Record):
    """The code extracted from a completion, as analysed and executed."""

    sample_id: str
    code: str
    parse_error: str | None = None


class TraceCall(_Record):
    """One endpoint call made while executing a program."""

    function: str
    arguments: dict[str, Any]
    response_ids: list[str] = Field(default_factory=list)
    error: str | None = None
    # arguments recorded as the cut start of their JSON text (a string with a note); left out of the JSON when none
    truncated: list[str] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _leave_out_nothing_truncated(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Calls recorded whole (nearly all) keep the keys they always had."""
        data: dict[str, Any] = handler(self)
        if not data.get("truncated"):
            data.pop("truncated", None)
        return data


class ExecError(_Record):
    kind: str  # parse_error, refused, unknown_function, bad_arguments, unknown_field, ...
    message: str
    line: int | None = None


class Trace(_Record):
    """What happened when a program ran in the sandbox against a mock world."""

    sample_id: str | None = None
    domain: str
    seed: int = 0
    calls: list[TraceCall] = Field(default_factory=list)
    calls_left_out: int = 0  # calls made after the recorded ones reached the sandbox's size bound: counted only
    error: ExecError | None = None
    world_digest: str | None = None
    stdout: str = ""
    elapsed_s: float = 0.0
    # with Job.observe_last: the last statement's value as JSON text (cut, with a note, at the pool's cap)
    result: Any = None


class Scores(BaseModel):
    """Per-sample scores, one field per registered metric (``gqlbench.metrics.registry``).

    The built-in metrics' fields are declared for their types; a metric
    registered from outside adds its own as extra fields, after these.
    The split-level metrics are aggregates of these.
    """

    model_config = ConfigDict(extra="allow")

    arg_match_full: int = 0
    matched_calls: int = 0
    gold_calls: int = 0
    seq_match_full: int = 0
    seq_match_conn: int = 0
    exec_success: int | None = None
    exec_match: int | None = None


class _Part(BaseModel):
    """A part of a sample's explanation as ``samples.jsonl`` holds it.

    Only the keys a stage set are written (an unset field is absent from the
    JSON, not null), so every line keeps the keys it always had. Keys this
    version does not know (a newer gqlbench's, an outside metric's, a hand
    edit's) are kept as they are; a known key of the wrong shape is an error
    naming the field when the line is read.
    """

    model_config = ConfigDict(extra="allow")

    @model_serializer(mode="wrap")
    def _only_what_was_set(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        kept = self.model_fields_set | set(self.model_extra or ())
        return {k: v for k, v in data.items() if k in kept}

    def to_json(self) -> dict[str, Any]:
        """The part as it is written: JSON-ready, only the keys that were set."""
        return self.model_dump(mode="json")


class _Divergence(_Part):
    index: int | None = None  # the first call where the two traces differ (older folders also stored the calls)


class ExecExplanation(_Part):
    """``explanation.exec``: the two sandbox runs and why Exec Success / Exec Match are what they are.

    Written by :func:`gqlbench.metrics.traces.trace_scores` (every metric that
    reads traces adds its value first: an outside one's is an extra key), or
    just ``not_run`` when the sample's domain has no mock world.
    """

    exec_success: int | None = None
    exec_match: int | None = None
    divergence: _Divergence | None = None
    error: ExecError | None = None  # the predicted program's run
    gold_error: ExecError | None = None  # the gold program's run (then the comparisons are left out)
    same_calls: bool | None = None
    same_final_state: bool | None = None
    gold_trace: Trace | None = None
    pred_trace: Trace | None = None
    pred_not_run: str | None = None  # "no program" or "too large to analyse": scored 0 without running
    not_run: str | None = None  # why nothing ran (no mock world for the domain)


class ShortenedResult(_Record):
    """A tool result the model was shown shortened (``--prompt tools``): which, and what was left out of it.

    The text the model saw is the step's ``observation``; it says in its JSON
    where items, fields or characters are missing (:mod:`gqlbench.generators.shorten`).
    """

    step: int  # 1-based, in the sample's ``steps``
    call: int  # 1-based line of the program the call is
    function: str  # as the model called it (the shown name)
    chars: int  # characters of the whole response as compact JSON
    shown_chars: int  # characters the model was shown (at most the run's bound)
    items_left_out: int = 0  # list items and object fields not shown
    chars_left_out: int = 0  # characters cut from strings


class Explanation(_Part):
    """``explanation`` of a ``samples.jsonl`` line: why the scores are what they are, one typed part per stage.

    Every writer and reader goes through this record; the JSON keys are the
    ones ``samples.jsonl`` has always had. A new part (a stage's provenance,
    say) is a new field in its section here, optional so older lines still read.
    """

    # static analysis (gqlbench.metrics.scores): the programs compared call by call
    code: str | None = None  # the predicted program as extracted
    parse_error: str | None = None
    too_large: str | None = None  # which bound of the analysis the program passed (not analysed, not run)
    missing: str | None = None  # no prediction for this sample
    gold_code: str | None = None  # a skipped sample's gold (it does not parse)
    gold_calls: list[dict[str, Any]] | None = None  # each gold call and the predicted call matched to it, or why none
    predicted_calls: list[str] | None = None
    gold_sequence: list[str] | None = None
    predicted_sequence: list[str] | None = None
    gold_components: list[list[str]] | None = None
    predicted_components: list[list[str]] | None = None
    # diagnosis (gqlbench.metrics.diagnose): the error taxonomy (docs/errors.md) and the F1 counts
    errors: list[dict[str, Any]] | None = None
    f1_counts: dict[str, list[int]] | None = None
    # tool provenance (--prompt tools, gqlbench.generators.tools): where each argument came from
    tool_arguments: list[dict[str, Any]] | None = None
    refused_tool_calls: list[dict[str, Any]] | None = None
    tool_parse_error: str | None = None  # a local tool parser failed on a turn: no calls were read from it (it ended the loop)
    shortened_tool_results: list[ShortenedResult] | None = None  # results shown shortened to the run's bound
    # execution (gqlbench.scoring.join): added last, after the sandbox ran both programs
    exec: ExecExplanation | None = None

    def with_parts(self, parts: Explanation | Mapping[str, Any]) -> Explanation:
        """This explanation with ``parts`` set over it (each key of ``parts`` replaces the one here)."""
        update = parts.to_json() if isinstance(parts, Explanation) else parts
        return Explanation.model_validate({**self.to_json(), **update})

    def error_list(self) -> list[dict[str, Any]]:
        """The error records (none for a line written before the taxonomy)."""
        return list(self.errors or [])


class SampleResult(_Record):
    """One line of ``samples.jsonl``: the scores and why they are what they are."""

    model_config = ConfigDict(extra="allow")

    id: str
    domain: str
    scores: Scores
    skipped: str | None = None  # why the sample is not scored (invalid gold), never silent
    explanation: Explanation = Field(default_factory=Explanation)
    # the few-shot examples the prompt showed once it fit the context (a run asks for --shots, the budget may keep
    # fewer); None: not recorded (evaluate's lines, and run lines written before it was)
    shots: list[str] | None = None
    # samples of one cluster (a generated sample's program skeleton) are resampled together; not written when None
    cluster: str | None = None

    @model_serializer(mode="wrap")
    def _leave_out_unrecorded_shots(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Lines without a prompt (evaluate's) or a cluster (human samples) keep the keys they always had."""
        data: dict[str, Any] = handler(self)
        for optional in ("shots", "cluster"):
            if data.get(optional) is None:
                data.pop(optional, None)
        return data


class SkippedSample(_Record):
    """A sample left out of every metric, and why (its gold program does not parse)."""

    id: str
    reason: str


class ResultsDocument(_Record):
    """``results.json``: the split-level metrics of a scored run and what they leave out.

    ``metrics`` maps ``"overall"`` and then each domain to its aggregate, whose
    keys come from the metric registry (``gqlbench.metrics.aggregate``);
    ``missing`` lists the samples without a prediction (scored 0); ``meta``
    ties the file to the code, data and command that produced it.
    ``relevance`` is the block of a relevance run (``gqlbench.scoring.relevance_scores``;
    absent from the file otherwise), never mixed into ``metrics``.
    """

    metrics: dict[str, dict[str, Any]]  # numbers, and (with intervals) ci lists, stderr and error-count maps
    skipped: list[SkippedSample] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict)
    relevance: dict[str, Any] | None = None  # only a relevance run's (gqlbench.scoring.relevance_scores)
    cost: dict[str, Any] | None = None  # a run's tokens and USD estimate (gqlbench.run.usage); absent from evaluate's
    latency: dict[str, Any] | None = None  # a run's latency and throughput (gqlbench.run.usage)
    timings: dict[str, Any] | None = None  # gqlbench run: seconds per stage of the invocation (gqlbench.run.timings)
    difficulty: dict[str, Any] | None = None  # metrics by synthetic label (gqlbench.results.difficulty); only for labelled samples
    # sample id -> why its gold program fails on the mock world (left out of Exec Match); shown in report.md and by
    # evaluate, not written to results.json (samples.jsonl has each one as explanation.exec.gold_error)
    gold_failures: dict[str, str] | None = Field(default=None, exclude=True)

    @model_serializer(mode="wrap")
    def _leave_out_absent_blocks(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Blocks only some runs have are left out, so other files (evaluate's) keep the keys they always had."""
        data: dict[str, Any] = handler(self)
        for key in ("relevance", "cost", "latency", "timings", "difficulty"):
            if data.get(key) is None:
                data.pop(key, None)
        return data


class Problem(BaseModel):
    """One problem a domain check found, printed as one line ``<where>: <message>``.

    ``subject`` is what the benchmark's errata are keyed by (a sample id such
    as ``test/12`` or a function name such as ``GET_search``), or None when
    the problem is about no single sample or function; the errata match a
    problem by its subject, never by parsing the line.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    subject: str | None
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message
