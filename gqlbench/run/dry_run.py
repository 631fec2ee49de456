"""``gqlbench run --dry-run``: the first sample's prompt and its size, without a model or a run folder.

The prompt is built exactly as a run builds it (prompt setting, few-shot
examples, context budget), but rendered and counted by the model's tokenizer
alone: the bundled model's prepared folder or a local Hugging Face folder
loads just its tokenizer, no engine. For anything else (a Hub id, which
would need a download; the openai backend; a backend of your own) the count
is an estimate of four characters per token, and the output says so.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from gqlbench.generators.backends.backend import Backend
from gqlbench.records import Message
from gqlbench.run.config import RunSettings

__all__ = ["TokenCounter", "token_counter", "dry_run"]

_CHARS_PER_TOKEN = 4
_DEFAULT_CONTEXT = 8192


@dataclass
class TokenCounter:
    """The parts of a backend the context budget reads: rendering, counting and the context window."""

    tokenizer: Any  # None: no local tokenizer, counts are estimates
    max_model_len: int
    how: str  # how tokens are counted, for the output
    name: str = "dry-run"

    def render(self, messages: Sequence[Message], assistant_prefix: str = "") -> str:
        from gqlbench.generators.backends.models import render_chat

        if self.tokenizer is None:
            return "".join(f"{m.role.capitalize()}: {m.content}\n\n" for m in messages) + "Assistant:" + assistant_prefix
        return render_chat(self.tokenizer, messages, assistant_prefix)

    def count_tokens(self, text: str) -> int:
        if self.tokenizer is None:
            return -(-len(text) // _CHARS_PER_TOKEN)
        from gqlbench.generators.backends.models import encode_prompt

        return len(encode_prompt(self.tokenizer, text))


def _local_folder(model: str) -> Path | None:
    """The model's folder when it is on this machine (a prepared bundled model or a local folder), else None."""
    from gqlbench.generators.backends.models import MARKER_FILE, REGISTRY, prepared_path

    path = Path(model).expanduser()
    if path.is_dir():
        return path
    if model in REGISTRY and (prepared_path(model) / MARKER_FILE).is_file():
        return prepared_path(model)
    return None


def _context(folder: Path, tokenizer: Any, model_args: dict[str, Any]) -> int:
    if "max_model_len" in model_args:
        return int(model_args["max_model_len"])
    config = folder / "config.json"
    if config.is_file():
        length = json.loads(config.read_text(encoding="utf-8")).get("max_position_embeddings")
        if isinstance(length, int):
            return length
    length = getattr(tokenizer, "model_max_length", 0)
    return length if isinstance(length, int) and 0 < length < 10**7 else _DEFAULT_CONTEXT


def token_counter(settings: RunSettings) -> TokenCounter:
    """The model's own tokenizer when it is local and the backend is a local one; otherwise an estimate."""
    folder = _local_folder(settings.model) if settings.backend in ("auto", "vllm", "hf") else None
    if folder is not None:
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(str(folder))
        return TokenCounter(tokenizer, _context(folder, tokenizer, settings.model_args), f"tokens of the model's tokenizer ({folder})")
    length = int(settings.model_args.get("max_model_len", _DEFAULT_CONTEXT))
    return TokenCounter(
        None,
        length,
        f"estimated tokens ({_CHARS_PER_TOKEN} characters per token; no local tokenizer for "
        f"{settings.model!r} with backend {settings.backend!r}), context assumed {length}",
    )


def dry_run(settings: RunSettings, counter: TokenCounter | None = None) -> str:
    """The rendered prompt of the run's first sample, then one line: its size and what the budget dropped."""
    from gqlbench.generators.budget import PromptTooLong
    from gqlbench.run.generate import Generator
    from gqlbench.run.presets import describe_preset
    from gqlbench.run.runner import _LazyPool, _observer, dropped_lines, plan_run

    plan = plan_run(settings)
    samples = plan.samples
    counter = counter or token_counter(settings)
    pool = _LazyPool()
    try:
        observer = _observer(settings, samples[:1], pool)
        # the budget reads render/count/max_model_len only
        generator = Generator(settings, cast(Backend, counter), observer, pool, offers=plan.offers)
        try:
            prompt = generator.prompt(samples[0])
        except PromptTooLong as exc:
            return f"{samples[0].id}: {exc}"
    finally:
        pool.close()
    offered = generator.presenter(samples[0]).offered
    dropped = f"; dropped: {', '.join(prompt.dropped)}" if prompt.dropped else ""
    preset = f"\n--- {describe_preset(settings.preset)}" if settings.preset else ""
    preset += "".join(f"\n--- {line}" for line in dropped_lines(plan.dropped))  # a relevance run's samples left out
    return (
        f"{prompt.text}\n\n--- {samples[0].id}: {prompt.n_tokens} {counter.how}; {len(offered)} functions offered; "
        f"shots: {', '.join(prompt.shots) or 'none'}{dropped}{preset}"
    )
