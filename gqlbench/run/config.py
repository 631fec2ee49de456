"""What a run is: its settings (compared on resume), how it runs, and its config.json record."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gqlbench.dataset import data_hash
from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import GenerationConfig
from gqlbench.generators.present import PromptSetting
from gqlbench.generators.react import DEFAULT_MAX_STEPS
from gqlbench.generators.shorten import CHARS_PER_TOKEN, CONTEXT_SHARE, result_chars
from gqlbench.generators.shots import DEFAULT_SHOT_RULE, DEFAULT_SHOTS, SHOT_RULE_ALIASES, SHOT_SPLIT, shot_rule_name
from gqlbench.generators.styles import DEFAULT_STYLE, PromptStyle, get_style
from gqlbench.provenance import git_commit, redact_url, redact_urls, run_versions
from gqlbench.records import ALL_SPLIT, Sample
from gqlbench.run.catalog_record import catalog_differences, catalog_record
from gqlbench.run.usage import Prices

__all__ = [
    "OBSERVE_MODES",
    "DEFAULT_BATCH_SIZE",
    "MIN_TOOL_RESULT_CHARS",
    "LEGACY_TOOL_RESULT_CHARS",
    "SETTING_DEFAULTS",
    "RunSettings",
    "setting_default",
    "RunOptions",
    "RunConfig",
    "tool_result_bound",
]

OBSERVE_MODES: tuple[str, ...] = ("schema", "mock")
DEFAULT_BATCH_SIZE = 16
MIN_TOOL_RESULT_CHARS = 100  # --tool-result-chars below it could not show one id with its note
LEGACY_TOOL_RESULT_CHARS = 4000  # the fixed bound before --tool-result-chars: a run folder begun then is finished with it


@dataclass(frozen=True)
class RunSettings:
    """Everything that decides a run's outputs; a run is resumed only under equal settings."""

    model: str
    backend: str = "auto"
    prompt: str = DEFAULT_STYLE
    split: str = "test"
    ids: tuple[str, ...] = ()
    limit: int | None = None
    shots: int = DEFAULT_SHOTS
    shot_rule: str = DEFAULT_SHOT_RULE  # an alias (diverse) is stored by its canonical name (fixed)
    max_steps: int = DEFAULT_MAX_STEPS
    observe: str = "schema"
    execute: bool = True  # also run gold and predicted programs in the sandbox (Exec Success, Exec Match)
    model_args: dict[str, Any] = field(default_factory=dict)
    temperature: float = 0.0
    top_p: float = 1.0
    max_new_tokens: int | None = None  # None: the prompt style's default
    seed: int = 0
    base_url: str | None = None
    api_key_env: str | None = None
    data: str | None = None
    functions: str = "gold"  # --functions gold | domain | distractors:K[:connected]
    obfuscate: str = "none"  # --obfuscate none | names | params | descriptions | all
    schema: str = "full"  # --schema full | types-only | none
    relevance: bool = False  # run the relevance set of the split (gqlbench.scoring.relevance): possible and impossible cases
    samples: int = 1  # completions per sample (--samples K); stored only when K > 1, so older folders resume
    preset: dict[str, Any] | None = None  # --preset: {"name": ..., "overrides": {...}} (gqlbench.run.presets); stored only when set
    tool_result_chars: int | None = None  # --prompt tools: characters of a tool result shown (None: from the model's context)

    def __post_init__(self) -> None:
        get_style(self.prompt)  # an unknown prompt style is an error now, before any work
        self.prompt_setting  # noqa: B018 - an unknown --functions/--obfuscate/--schema value too
        if self.samples < 1 or (self.samples > 1 and self.temperature <= 0):
            raise GqlbenchError(
                f"--samples {self.samples}: needs K >= 1, and K > 1 needs --temperature > 0 (greedy decoding repeats one answer)"
            )
        object.__setattr__(self, "shot_rule", shot_rule_name(self.shot_rule))
        if getattr(self.style, "executes_calls", False):  # --prompt tools: every call runs on the mock world
            if self.backend in ("auto", "vllm", "hf") and not self.model_args.get("tool_parser"):  # before any model loads
                from gqlbench.generators.backends.local_tools import missing_parser

                raise missing_parser("vllm or hf" if self.backend == "auto" else self.backend)
            object.__setattr__(self, "observe", "mock")
            object.__setattr__(self, "shots", 0)  # the tools carry the signatures; there are no tool-call examples
        if self.observe not in OBSERVE_MODES:
            raise GqlbenchError(f"unknown observation mode {self.observe!r}; choose one of {', '.join(OBSERVE_MODES)}")
        if self.shots < 0 or self.max_steps < 1 or (self.limit is not None and self.limit < 1):
            raise GqlbenchError("--shots must be >= 0, --max-steps >= 1 and --limit >= 1")
        if self.tool_result_chars is not None and self.tool_result_chars < MIN_TOOL_RESULT_CHARS:
            raise GqlbenchError(
                f"--tool-result-chars {self.tool_result_chars}: a result needs at least {MIN_TOOL_RESULT_CHARS} characters to show an id"
            )
        if self.split == SHOT_SPLIT and self.shots:
            raise GqlbenchError(f"few-shot examples come from the {SHOT_SPLIT} split, so evaluating it needs --shots 0")
        if self.split == ALL_SPLIT and (self.relevance or (self.shots and self.shot_rule != DEFAULT_SHOT_RULE)):
            raise GqlbenchError(
                f"--split {ALL_SPLIT} leaves out one fixed set of few-shot examples, so it takes --shot-rule "
                f"{DEFAULT_SHOT_RULE} (or --shots 0) and no --relevance"
            )

    @staticmethod
    def refuse_tool_shots(prompt: str, shots: int) -> None:
        """``--shots N`` asked for with ``--prompt tools`` (otherwise 0 there): a clear refusal, not a silent 0.

        An example would be a gold trajectory: each gold call as an assistant tool call with its argument values,
        and the world's response as the tool message. The mock world reports responses, not the values gold's
        arguments took, so these examples are not built.
        """
        if shots and getattr(get_style(prompt), "executes_calls", False):
            raise GqlbenchError(
                f"--shots {shots} with --prompt {prompt}: tool-calling examples (gold trajectories) are not "
                "built; the tools carry the signatures, so run it with --shots 0"
            )

    @property
    def prompt_setting(self) -> PromptSetting:
        return PromptSetting(self.functions, self.obfuscate, self.schema)

    @property
    def style(self) -> PromptStyle:
        return get_style(self.prompt)

    @property
    def new_tokens(self) -> int:
        return self.max_new_tokens or self.style.default_max_new_tokens

    def generation_config(self) -> GenerationConfig:
        return GenerationConfig(self.temperature, self.top_p, self.new_tokens, self.style.stop(), self.seed)

    def to_json(self) -> dict[str, Any]:
        """Settings as stored in config.json and compared on resume (step settings are null for a style without steps)."""
        settings = {**dataclasses.asdict(self), "max_new_tokens": self.new_tokens}
        if not self.style.uses_steps:
            settings.update(max_steps=None, observe=None)
        if self.tool_result_chars is None or not getattr(self.style, "executes_calls", False):  # stored only when it bounds results
            del settings["tool_result_chars"]
        if not self.relevance:  # absent unless set, so folders of earlier versions still resume
            del settings["relevance"]
        if self.samples == 1:
            del settings["samples"]
        if self.base_url:  # a shared folder never holds a password (resuming compares the redacted forms)
            settings["base_url"] = redact_url(self.base_url)
        if self.preset is None:
            del settings["preset"]
        loaded: dict[str, Any] = json.loads(json.dumps(settings))
        return loaded


_DEFAULTS: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(RunSettings) if f.default is not dataclasses.MISSING}


def setting_default(name: str) -> Any:
    """The default of run setting ``name`` as :class:`RunSettings` declares it: the one source the CLI's options read."""
    return _DEFAULTS[name]


# Prompt settings added after the first runs: a config.json without one ran at its default, so it still
# resumes; non-default values name the run folder and get a column in `gqlbench report`.
SETTING_DEFAULTS: dict[str, Any] = {name: setting_default(name) for name in ("functions", "obfuscate", "schema")}


@dataclass(frozen=True)
class RunOptions:
    """How to run, not what: these never stop a run from being resumed."""

    out: Path | None = None
    runs_root: Path = Path("runs")
    overwrite: bool = False
    quiet: bool = False
    batch_size: int = DEFAULT_BATCH_SIZE
    verbose: bool = False  # engine logs live on the console instead of only in engine.log
    bootstrap: int | None = None  # resamples of results.json's intervals (None: the default)
    prices: Prices = Prices()  # for the cost estimate; prices change no output, so they are no setting
    # where the run's one-line notices go (resuming, --overwrite removing files, the engine): the CLI shows them;
    # library code never prints (None: nobody is told)
    notify: Callable[[str], None] | None = None

    def say(self, message: str) -> None:
        """Pass ``message`` to :attr:`notify`, when there is one."""
        if self.notify is not None:
            self.notify(message)


@dataclass
class RunConfig:
    """A run folder's config.json: the settings, the data, the software and the backend that made it.

    ``settings`` is :meth:`RunSettings.to_json` as stored, compared key by key on
    resume (so a folder made with other settings, or by a gqlbench with other
    settings, is never reused silently). Keys a newer gqlbench wrote are kept in ``extra``.
    """

    model: str
    prompt: str
    split: str
    settings: dict[str, Any]
    generation: dict[str, Any]
    sample_ids: list[str]
    data_hash: str | None
    versions: dict[str, str]
    git: dict[str, Any] | None
    command: list[str]
    created: str
    backend: dict[str, Any] | None = None  # filled in once the model is loaded
    resumed_with: list[dict[str, Any]] = field(default_factory=list)  # other backend descriptions of later sessions
    catalog: dict[str, Any] = field(default_factory=dict)  # per domain: its specs file and a hash of its catalog files
    excluded_shots: list[str] = field(default_factory=list)  # --split all: the few-shot examples it leaves out
    tool_results: dict[str, Any] | None = None  # --prompt tools: the bound of a tool result and its source (tool_result_bound)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def new(cls, settings: RunSettings, samples: Sequence[Sample], excluded_shots: Sequence[str] = ()) -> RunConfig:
        return cls(
            model=settings.model,
            prompt=settings.prompt,
            split=settings.split,
            settings=settings.to_json(),
            generation=settings.generation_config().to_dict(),
            sample_ids=[s.id for s in samples],
            data_hash=data_hash(settings.data),
            versions=run_versions(),
            git=git_commit(),
            command=[redact_urls(arg) for arg in sys.argv],
            created=datetime.now(UTC).isoformat(timespec="seconds"),
            catalog=catalog_record(s.domain for s in samples),
            excluded_shots=list(excluded_shots),
        )

    @classmethod
    def from_json(cls, data: object, path: Path) -> RunConfig:
        """A config.json as read back; ``path`` names the file in errors."""
        if not isinstance(data, dict):
            raise GqlbenchError(f"{path}: not a JSON object; fix it or use --overwrite")
        settings = data.get("settings", {})
        if not isinstance(settings, dict):  # read as a mapping by the labels, the ablation and the viewer
            raise GqlbenchError(f"{path}: settings: {str(settings)[:60]} is not an object of run settings; fix or remove it")
        if not isinstance(settings.get("data"), (str, type(None))):  # the benchmark folder the viewer reads the samples from
            raise GqlbenchError(f"{path}: settings.data: {str(settings['data'])[:60]} is not a folder path; fix or remove it")
        names = [f.name for f in dataclasses.fields(cls) if f.name != "extra"]
        known = {k: data[k] for k in names if k in data}
        for key in ("model", "prompt", "split"):  # a hand-written config for the reports may leave some out ("")
            if not isinstance(known.get(key, ""), str):
                raise GqlbenchError(f"{path}: {key!r} is not a string; fix it or use --overwrite")
        defaults: dict[str, Any] = {
            "model": "",
            "prompt": "",
            "split": "",
            "settings": {},
            "generation": {},
            "sample_ids": [],
            "data_hash": None,
            "versions": {},
            "git": None,
            "command": [],
            "created": "",
        }
        return cls(**{**defaults, **known}, extra={k: v for k, v in data.items() if k not in names})

    def to_json(self) -> dict[str, Any]:
        """The config.json object, keys in their usual order; ``resumed_with``, ``excluded_shots`` and ``tool_results`` only once set."""
        optional = ("resumed_with", "excluded_shots", "tool_results")
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in (*optional, "extra")}
        data.update({name: getattr(self, name) for name in optional if getattr(self, name)})
        return {**data, **self.extra}

    def differences(self, settings: dict[str, Any], digest: str) -> list[str]:
        """Why this folder cannot continue a run with ``settings`` on data ``digest`` (empty: it can)."""
        keys = sorted(set(self.settings) | set(settings))
        stored = {**SETTING_DEFAULTS, **self.settings}
        if isinstance(stored.get("shot_rule"), str):  # a folder that recorded an alias (diverse) ran the same rule
            stored["shot_rule"] = SHOT_RULE_ALIASES.get(stored["shot_rule"], stored["shot_rule"])
        found = [f"{k}: {stored.get(k)!r} in the folder, {settings.get(k)!r} now" for k in keys if stored.get(k) != settings.get(k)]
        if self.data_hash != digest:
            found.append(f"data_hash: {self.data_hash} in the folder, {digest} now (the benchmark files changed)")
        return found + catalog_differences(self.catalog)

    def record_backend(self, description: dict[str, Any]) -> None:
        """Keep the loaded backend's description; a different one on resume (e.g. a newer engine) stays visible."""
        if self.backend not in (None, description):
            self.resumed_with.append(description)
        else:
            self.backend = description


def tool_result_bound(settings: RunSettings, config: RunConfig, max_model_len: int, *, resumed: bool) -> dict[str, Any] | None:
    """The characters a tool result may take and where that number comes from, as config.json's ``tool_results`` records it.

    None for a style that runs no tool calls. ``--tool-result-chars`` when
    given; otherwise the bound the folder recorded, so a resumed run shows
    every sample results of one bound (even on a backend with another
    context); otherwise, for a folder with completions but no record (begun
    by a gqlbench before the setting), the fixed bound it used
    (:data:`LEGACY_TOOL_RESULT_CHARS`); otherwise the default for the
    backend's context (:func:`gqlbench.generators.shorten.result_chars`).
    """
    if not getattr(settings.style, "executes_calls", False):
        return None
    if settings.tool_result_chars is not None:
        return {"max_chars": settings.tool_result_chars, "source": "--tool-result-chars"}
    if config.tool_results is not None:
        return config.tool_results
    if resumed:
        return {"max_chars": LEGACY_TOOL_RESULT_CHARS, "source": "the fixed bound of the gqlbench that began this run"}
    return {
        "max_chars": result_chars(max_model_len),
        "source": f"max_model_len {max_model_len} x {CHARS_PER_TOKEN} characters per token / {CONTEXT_SHARE}",
    }
