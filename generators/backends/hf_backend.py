"""The transformers backend: ``model.generate`` in left-padded batches.

For models vLLM cannot serve, and as the baseline most peers' local paths
use. Runs on CPU, or spreads over the visible GPUs with ``device_map="auto"``.
Decoding is greedy unless the config asks for a temperature; stop sequences
end a row early (``stop_strings``) and the saved text is cut before the stop,
as vLLM and OpenAI servers do.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers import GenerationConfig as HFGenerationConfig
from transformers.generation.streamers import BaseStreamer

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import GenerationConfig, GenerationRequest
from gqlbench.generators.backends.cpu import resolve_dtype
from gqlbench.generators.backends.local_tools import HF_TOOL_PARSERS, LocalChat, ToolSetup, local_tool_turns
from gqlbench.generators.backends.models import (
    encode_requests,
    first_stop,
    model_identity,
    truncate_at_stop,
)
from gqlbench.generators.backends.progress import CallProgress, ProgressListener
from gqlbench.generators.tools import ToolReply, ToolRequest
from gqlbench.provenance import package_versions
from gqlbench.records import Completion

__all__ = ["HFBackend", "MODEL_ARGS"]

# model_args this backend understands, with their defaults
MODEL_ARGS: dict[str, Any] = {
    "dtype": None,  # None: by CPU capability (gqlbench.generators.backends.cpu), "auto" (the checkpoint's) on GPU;
    # or "auto", "bfloat16", "float16", "float32"
    "batch_size": None,  # prompts per generate() call; None: 8 on GPU, 1 on CPU (see _check_cpu_batching)
    "device_map": None,  # None: "auto" when CUDA is available, else CPU
    "trust_remote_code": False,
    "attn_implementation": None,  # e.g. "sdpa", "flash_attention_2"
    "tool_parser": None,  # --prompt tools: the model's tool-call format, one of HF_TOOL_PARSERS (hermes, json, pythonic)
    "chat_template": None,  # --prompt tools: a Jinja template file that renders `tools`, when the model's own does not
}
_DTYPES = {
    "auto": "auto",
    "bfloat16": torch.bfloat16,
    "bf16": torch.bfloat16,
    "float16": torch.float16,
    "fp16": torch.float16,
    "float32": torch.float32,
    "fp32": torch.float32,
}


class HFBackend(LocalChat):
    """Batched transformers generation with left padding."""

    name = "hf"

    def __init__(self, model_path: str | Path, *, max_model_len: int | None = None, **model_args: Any) -> None:
        unknown = set(model_args) - set(MODEL_ARGS)
        if unknown:
            raise GqlbenchError(f"hf backend: unknown model arg(s) {', '.join(sorted(unknown))}; known: {', '.join(MODEL_ARGS)}")
        self.args = {**MODEL_ARGS, **model_args}
        if self.args["dtype"] is not None and str(self.args["dtype"]) not in _DTYPES:
            raise GqlbenchError(f"hf backend: dtype={self.args['dtype']!r}; use one of {', '.join(_DTYPES)}")
        self.model_path = Path(model_path)
        self.on_progress: ProgressListener | None = None  # told each generation step and finished request (a run's progress bar)
        self.tools = ToolSetup(self.name, self.args["tool_parser"], self.args["chat_template"], list(HF_TOOL_PARSERS))
        if self.tools.tool_parser and self.tools.tool_parser not in HF_TOOL_PARSERS:
            raise GqlbenchError(f"hf backend: unknown tool_parser={self.tools.tool_parser!r}; use one of {', '.join(HF_TOOL_PARSERS)}")
        device_map = self.args["device_map"] or ("auto" if torch.cuda.is_available() else None)
        on_cpu = not torch.cuda.is_available() or str(device_map) == "cpu"
        self.dtype_choice = resolve_dtype(self.args, on_cpu=on_cpu)
        load_kwargs: dict[str, Any] = {
            "dtype": _DTYPES[self.dtype_choice.dtype],
            "trust_remote_code": _as_bool(self.args["trust_remote_code"]),
        }
        if device_map:
            load_kwargs["device_map"] = device_map
        if self.args["attn_implementation"]:
            load_kwargs["attn_implementation"] = self.args["attn_implementation"]
        self.tokenizer = AutoTokenizer.from_pretrained(self.model_path, trust_remote_code=load_kwargs["trust_remote_code"])
        self.tokenizer.padding_side = "left"
        self.model = AutoModelForCausalLM.from_pretrained(self.model_path, **load_kwargs).eval()
        self.device = next(self.model.parameters()).device
        default_batch = 8 if self.device.type == "cuda" else 1
        self.batch_size = default_batch if self.args["batch_size"] is None else int(self.args["batch_size"])
        if self.batch_size < 1:
            raise GqlbenchError(f"hf backend: batch_size must be >= 1, got {self.batch_size}")
        self._check_cpu_batching()
        config_len = getattr(self.model.config, "max_position_embeddings", None)
        self.max_model_len = int(max_model_len or config_len or 2048)
        gen = self.model.generation_config
        eos = gen.eos_token_id if gen.eos_token_id is not None else self.tokenizer.eos_token_id
        self._eos_ids = {eos} if isinstance(eos, int) else set(eos or ())
        pad = self.tokenizer.pad_token_id
        self._pad_id = pad if pad is not None else (gen.pad_token_id if gen.pad_token_id is not None else min(self._eos_ids))

    # -- the Backend protocol -------------------------------------------------------------------

    def generate(self, requests: Sequence[GenerationRequest], config: GenerationConfig) -> Iterator[Completion]:
        """Batches of ``batch_size`` prompts of similar length (less padding); yields each batch as it ends."""
        encoded, too_long = encode_requests(self.tokenizer, requests, config.max_new_tokens, self.max_model_len)
        yield from too_long
        yield from self._batches(encoded, config)

    def _batches(self, encoded: list[tuple[GenerationRequest, list[int]]], config: GenerationConfig) -> Iterator[Completion]:
        """Batches of ``batch_size`` prompts of similar length (less padding)."""
        encoded = sorted(encoded, key=lambda pair: len(pair[1]))
        call = CallProgress(self.on_progress, len(encoded)) if self.on_progress is not None and encoded else None
        for start in range(0, len(encoded), self.batch_size):
            yield from self._generate_batch(encoded[start : start + self.batch_size], config, call)

    def generate_tools(self, requests: Sequence[ToolRequest], config: GenerationConfig) -> Iterator[ToolReply]:
        """One assistant turn per request (``--prompt tools``): the chat template renders the tools, the
        ``tool_parser`` of :data:`HF_TOOL_PARSERS` reads the calls (see :mod:`gqlbench.generators.backends.local_tools`)."""
        self.tools.check(self.tokenizer, str(self.model_path))
        parse = HF_TOOL_PARSERS[str(self.tools.tool_parser)]

        yield from local_tool_turns(
            requests,
            config,
            tokenizer=self.tokenizer,
            chat_template=self.tools.template,
            max_model_len=self.max_model_len,
            generate=lambda batch: self._batches(batch, config),
            parse=parse,
        )

    def describe(self) -> dict[str, Any]:
        return model_identity(self.name, self.model_path, self.tokenizer, self.max_model_len) | {
            "device": str(self.device),
            "dtype": str(self.model.dtype).removeprefix("torch."),
            "dtype_choice": self.dtype_choice.to_dict(),
            "model_args": {k: v for k, v in self.args.items()},
            **({"tools": self.tools.describe()} if self.tools.tool_parser or self.tools.template else {}),
            "torch_threads": torch.get_num_threads(),
            "versions": package_versions("torch", "transformers", "accelerate", "tokenizers"),
        }

    def close(self) -> None:
        del self.model
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    # -- internals ------------------------------------------------------------------------------

    def _check_cpu_batching(self) -> None:
        """Refuse a setting known to produce wrong tokens rather than report its scores.

        Checked with torch 2.13 on CPU: with 16-bit weights and SDPA attention,
        a left-padded prompt decodes differently from the same prompt alone
        (SmolLM2 answers "L'Étoile..." instead of "The capital of France is
        Paris."); float32, or eager attention, agree with the unpadded run.
        """
        padded = self.batch_size > 1 and self.device.type == "cpu"
        half = self.model.dtype in (torch.bfloat16, torch.float16)
        if padded and half and self.model.config._attn_implementation == "sdpa":
            raise GqlbenchError(
                f"hf backend: batch_size={self.batch_size} with {str(self.model.dtype).removeprefix('torch.')} "
                "on CPU decodes padded prompts wrongly (torch SDPA); use batch_size=1, dtype=float32, "
                "or attn_implementation=eager"
            )

    def _generation_config(self, config: GenerationConfig) -> HFGenerationConfig:
        sampling = config.temperature > 0
        return HFGenerationConfig(
            max_new_tokens=config.max_new_tokens,
            do_sample=sampling,
            temperature=config.temperature if sampling else None,
            top_p=config.top_p if sampling else None,
            top_k=None,
            eos_token_id=sorted(self._eos_ids),
            pad_token_id=self._pad_id,
            stop_strings=list(config.stop) or None,
        )

    def _generate_batch(
        self, batch: list[tuple[GenerationRequest, list[int]]], config: GenerationConfig, call: CallProgress | None = None
    ) -> Iterator[Completion]:
        """One ``model.generate``; ``call`` is told each step's tokens, then the batch's exact count."""
        width = max(len(ids) for _, ids in batch)
        input_ids = torch.full((len(batch), width), self._pad_id, dtype=torch.long)
        attention = torch.zeros((len(batch), width), dtype=torch.long)
        for row, (_, ids) in enumerate(batch):  # left padding: prompts end where generation starts
            input_ids[row, width - len(ids) :] = torch.tensor(ids)
            attention[row, width - len(ids) :] = 1
        if config.temperature > 0:
            torch.manual_seed(config.seed)
        started = time.perf_counter()
        before = call.tokens_out if call is not None else 0
        try:
            with torch.inference_mode():
                output = self.model.generate(
                    input_ids=input_ids.to(self.device),
                    attention_mask=attention.to(self.device),
                    generation_config=self._generation_config(config),
                    tokenizer=self.tokenizer,
                    streamer=_StepCounter(call, self._eos_ids, self._pad_id) if call is not None else None,
                )
        except Exception as exc:  # one failed batch is recorded, never loses the run
            if call is not None:
                call.settle(call.done + len(batch), before)
            for request, ids in batch:
                yield Completion(sample_id=request.sample_id, tokens_in=len(ids), error=f"{type(exc).__name__}: {exc}")
            return
        latency = time.perf_counter() - started
        lengths = [self._generated_length(output[row, width:].tolist()) for row in range(len(batch))]
        if call is not None:  # the exact count replaces the steps' (a stop string ends a row the steps still count)
            call.settle(call.done + len(batch), before + sum(lengths))
        for row, (request, ids) in enumerate(batch):
            new = output[row, width:].tolist()
            n_out = lengths[row]
            text = self.tokenizer.decode(new[:n_out], skip_special_tokens=True)
            assert isinstance(text, str), "decoding one sequence of token ids gives one string"
            matched = first_stop(text, config.stop)
            text, stopped = truncate_at_stop(text, config.stop)
            hit_eos = n_out > 0 and new[n_out - 1] in self._eos_ids
            finish = "stop" if stopped or hit_eos or n_out < config.max_new_tokens else "length"
            yield Completion(
                sample_id=request.sample_id,
                text=text,
                tokens_in=len(ids),
                tokens_out=n_out,
                latency_s=latency,
                finish_reason=finish,
                stop=matched,
            )

    def _generated_length(self, tokens: list[int]) -> int:
        """Tokens the model actually produced: up to and including EOS; padding after an early stop excluded."""
        for i, token in enumerate(tokens):
            if token in self._eos_ids:
                return i + 1
            if token == self._pad_id:
                return i
        return len(tokens)


class _StepCounter(BaseStreamer):
    """A ``model.generate`` streamer counting each step's new tokens for a :class:`CallProgress`.

    It counts as :meth:`HFBackend._generated_length` does: a row's EOS counts
    and ends it, padding ends it uncounted. The first ``put`` is the prompts.
    """

    def __init__(self, call: CallProgress, eos_ids: set[int], pad_id: int) -> None:
        self.call, self.eos_ids, self.pad_id = call, eos_ids, pad_id
        self.prompts_seen = False
        self.ended: set[int] = set()

    def put(self, value: torch.Tensor) -> None:
        if not self.prompts_seen:
            self.prompts_seen = True
            return
        new = 0
        for row, token in enumerate(value.reshape(-1).tolist()):
            if row in self.ended:
                continue
            if token in self.eos_ids:
                self.ended.add(row)
                new += 1
            elif token == self.pad_id:
                self.ended.add(row)
            else:
                new += 1
        self.call.generated(new)

    def end(self) -> None:
        pass


def _as_bool(value: Any) -> bool:
    """Model args may arrive as strings from the command line (``trust_remote_code=false``)."""
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)
