"""The OpenAI-compatible backend: any server speaking ``/v1/chat/completions``.

This is how runs scale past one machine: ``vllm serve`` with tensor or
pipeline parallelism (one node or a Ray cluster), several replicas behind
one URL, llama.cpp's server, or a hosted API. Requests go out on a bounded
thread pool; transient failures (429, 5xx, timeouts, dropped connections)
are retried with exponential backoff, and a request that still fails
becomes a Completion with ``error`` set so the run records it and a resume
retries it. Misconfiguration (bad key, unknown model) stops the run at once.

ReAct continues a partial assistant turn (``assistant_prefix``). It is sent
as a final assistant message with vLLM's ``continue_final_message``;
servers without that extension (hosted APIs) treat the prefix as a finished
turn, so set ``continue_final_message=false`` for them and expect the model
to start a new turn rather than continue the text.

Scaling out (exact commands; model names are examples)::

    # one node, 4 GPUs, tensor parallel
    vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4 --port 8000
    # two nodes x 4 GPUs: `ray start --head` on node 1, `ray start --address=NODE1:6379` on node 2, then on node 1
    vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4 --pipeline-parallel-size 2 \
        --distributed-executor-backend ray --port 8000
    gqlbench run --backend openai --base-url http://NODE1:8000/v1 --model meta-llama/Llama-3.1-70B-Instruct \
        --model-args concurrency=64,tokenizer=/path/to/local/copy

Replicas behind a load balancer work the same way: one ``--base-url``, a
``concurrency`` large enough to keep every replica busy.

Token counting (for the context budget) uses the model's Hugging Face
tokenizer when one is given (``tokenizer=PATH``, or a local folder as the
model name); otherwise it is an estimate, labelled as such in ``describe()``.
"""

from __future__ import annotations

import dataclasses
import math
import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlparse

import openai

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import GenerationConfig, GenerationRequest
from gqlbench.generators.backends.models import encode_prompt, render_chat, text_sha256
from gqlbench.generators.backends.progress import CallProgress, ProgressListener
from gqlbench.generators.tools import ToolCall, ToolReply, ToolRequest
from gqlbench.provenance import package_versions, redact_url, redact_urls
from gqlbench.records import Completion, Message

__all__ = ["OpenAIBackend", "MODEL_ARGS", "CHARS_PER_TOKEN_ESTIMATE", "is_transient", "looks_like_tool_text"]

R = TypeVar("R")  # a request (GenerationRequest, ToolRequest)
T = TypeVar("T")  # what one request gives back

# model_args this backend understands, with their defaults
MODEL_ARGS: dict[str, Any] = {
    "tokenizer": None,  # local HF folder for exact rendering and token counts
    "concurrency": 8,  # requests in flight at once
    "timeout_s": 600.0,  # per attempt
    "max_retries": 6,  # after the first attempt, transient errors only
    "backoff_s": 1.0,  # first retry delay; doubles each time, capped at 60 s, with jitter
    "continue_final_message": True,  # vLLM extension for assistant_prefix (see module docs)
}
# Without a tokenizer: code and GraphQL SDL run at ~3-4 characters per token
# for common BPE vocabularies, so dividing by 3 overestimates on purpose
# (the context budget then drops shots too early rather than overflow).
CHARS_PER_TOKEN_ESTIMATE = 3
DEFAULT_CONTEXT = 8192
MAX_BACKOFF_S = 60.0
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}


def is_transient(exc: BaseException) -> bool:
    """Errors worth retrying: rate limits, server errors, timeouts, dropped connections."""
    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError)):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 425, 429) or exc.status_code >= 500
    return False


def _fatal(exc: BaseException) -> bool:
    """Errors no retry or resume can fix: the whole run is misconfigured."""
    return isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError))


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class OpenAIBackend:
    """Chat completions against ``base_url`` with bounded concurrency and retries."""

    name = "openai"
    supports_n = True  # asks the server for ``n`` choices, and falls back to one request per completion

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        api_key_env: str = "OPENAI_API_KEY",
        max_model_len: int | None = None,
        client: openai.OpenAI | None = None,
        sleep: Callable[[float], None] = time.sleep,
        **options: Any,
    ) -> None:
        unknown = set(options) - set(MODEL_ARGS)
        if unknown:
            raise GqlbenchError(f"openai backend: unknown option(s) {', '.join(sorted(unknown))}; known: {', '.join(MODEL_ARGS)}")
        self.options = {**MODEL_ARGS, **options}
        self.model = model
        self.base_url = redact_url(base_url)  # as recorded and shown; only the client gets the credentials
        self.api_key_env = api_key_env
        self._sleep = sleep
        self.concurrency = int(self.options["concurrency"])
        self.max_retries = int(self.options["max_retries"])
        if self.concurrency < 1 or self.max_retries < 0:
            raise GqlbenchError("openai backend: concurrency must be >= 1 and max_retries >= 0")
        self.client = client or openai.OpenAI(
            base_url=base_url, api_key=self._api_key(), timeout=float(self.options["timeout_s"]), max_retries=0
        )
        tokenizer_path = self.options["tokenizer"] or (model if Path(model).is_dir() else None)
        self.tokenizer = self._load_tokenizer(tokenizer_path) if tokenizer_path else None
        self.tokenizer_path = tokenizer_path
        self._served = self._served_model_card()
        self.max_model_len, self.max_model_len_source = self._context_length(max_model_len)
        self.n_supported: bool | None = None  # whether the server honours `n` (None: not asked yet)
        self.on_progress: ProgressListener | None = None  # told each finished request of a batch (a run's progress bar)
        self.tool_call_turns = 0  # answers with tool_calls, and answers without whose text looks like a call (warnings())
        self.tool_text_turns = 0
        self._lock = threading.Lock()  # the counters are updated from the pool's threads

    # -- the Backend protocol -------------------------------------------------------------------

    def render(self, messages: Sequence[Message], assistant_prefix: str = "") -> str:
        """With a tokenizer: the chat template as the server applies it; else a plain transcript (approximate)."""
        return render_chat(self.tokenizer, messages, assistant_prefix)

    def count_tokens(self, text: str) -> int:
        if self.tokenizer is not None:
            return len(encode_prompt(self.tokenizer, text))
        return math.ceil(len(text) / CHARS_PER_TOKEN_ESTIMATE)

    def generate(self, requests: Sequence[GenerationRequest], config: GenerationConfig) -> Iterator[Completion]:
        """All requests on a pool of ``concurrency`` threads; completions are yielded as they finish."""
        for completions in self._pooled(self._complete_n, requests, config, lambda done: sum(c.tokens_out or 0 for c in done)):
            yield from completions

    def _pooled(
        self, task: Callable[[R, GenerationConfig], T], requests: Sequence[R], config: GenerationConfig, tokens: Callable[[T], int]
    ) -> Iterator[T]:
        """``task`` for every request on a pool of ``concurrency`` threads, each result as it finishes.

        Each finished request, with its ``tokens`` out, is told to ``on_progress`` from this thread.
        """
        if not requests:
            return
        call = CallProgress(self.on_progress, len(requests)) if self.on_progress is not None else None
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(requests))) as pool:
            futures = [pool.submit(task, request, config) for request in requests]
            try:
                for future in as_completed(futures):
                    result = future.result()
                    if call is not None:
                        call.finished(1, tokens(result))
                    yield result
            finally:  # the consumer stopped early, or a fatal error: do not start what is still queued
                for future in futures:
                    future.cancel()

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "served_model": self._served,
            "max_model_len": self.max_model_len,
            "max_model_len_source": self.max_model_len_source,
            "tokenizer": str(self.tokenizer_path) if self.tokenizer_path else None,
            "token_counting": "tokenizer"
            if self.tokenizer is not None
            else f"estimate: ceil(characters / {CHARS_PER_TOKEN_ESTIMATE}), no tokenizer given",
            "chat_template_sha256": text_sha256(getattr(self.tokenizer, "chat_template", None)),
            "options": dict(self.options),
            "n_supported": self.n_supported,
            "versions": package_versions("openai"),
        }

    def close(self) -> None:
        self.client.close()

    # -- one request ----------------------------------------------------------------------------

    def _messages(self, request: GenerationRequest) -> list[dict[str, str]]:
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        if request.assistant_prefix:
            messages.append({"role": "assistant", "content": request.assistant_prefix})
        return messages

    def _complete_n(self, request: GenerationRequest, config: GenerationConfig) -> list[Completion]:
        """``config.n`` completions of one request: one request with ``n`` while the server honours it, else n requests.

        A server that answers ``n`` with an error or with fewer choices is asked once per completion from then
        on (seed ``seed + index``, as a backend without ``n`` is); ``describe()["n_supported"]`` says which.
        """
        if config.n == 1:
            return self._complete(request, config)
        if self.n_supported is not False:
            answer = self._complete(request, config, n=config.n)
            if len(answer) == config.n:
                self.n_supported = True
                return answer
            error = answer[0].error or ""
            if not error.startswith("BadRequestError"):  # a failure that retrying later may fix: every completion failed
                return [answer[0].model_copy(update={"index": i}) for i in range(config.n)]
            self.n_supported = False  # an error the server has for `n` (or the request): ask per completion
        return [
            self._complete(request, dataclasses.replace(config, n=1, seed=config.seed + i))[0].model_copy(update={"index": i})
            for i in range(config.n)
        ]

    def _complete(self, request: GenerationRequest, config: GenerationConfig, n: int = 1) -> list[Completion]:
        """One request: its ``n`` completions, or one Completion with the error (too few choices count as one)."""
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": self._messages(request),
            "temperature": config.temperature,
            "top_p": config.top_p,
            "max_tokens": config.max_new_tokens,
            "seed": config.seed,
        }
        if n > 1:
            kwargs["n"] = n
        if config.stop:
            kwargs["stop"] = list(config.stop)
        if request.assistant_prefix and self.options["continue_final_message"]:
            kwargs["extra_body"] = {"continue_final_message": True, "add_generation_prompt": False}
        sent = self._send(kwargs, request.sample_id)
        if isinstance(sent, Completion):
            return [sent]
        response, latency = sent
        try:
            choices, tokens_in, out = _read_response(response)
        except _BadResponse as exc:  # the server's fault, for this request only
            return [Completion(sample_id=request.sample_id, error=f"bad response: {exc}")]
        if n > 1 and len(choices) < n:
            return [Completion(sample_id=request.sample_id, error=f"BadRequestError: {len(choices)} choices for n={n}")]
        return [
            Completion(
                sample_id=request.sample_id,
                text=text,
                tokens_in=tokens_in,
                tokens_out=out // n + (1 if i < out % n else 0),  # the usage of n choices, split evenly
                latency_s=latency,
                finish_reason=finish,
                index=i,
                stop=stop,
            )
            for i, (text, finish, stop) in enumerate(choices[:n])
        ]

    def _send(
        self, kwargs: dict[str, Any], sample_id: str, refused: Callable[[Exception], str | None] | None = None
    ) -> tuple[Any, float] | Completion:
        """(response, latency) of one request, retried while its failure is transient; else a Completion with the error.

        ``refused`` turns an error the whole run cannot get past (e.g. a server without tool calling) into a
        one-line message; it is raised as a GqlbenchError.
        """
        for attempt in range(self.max_retries + 1):
            started = time.perf_counter()
            try:
                response = self.client.chat.completions.create(**kwargs)
            except Exception as exc:
                if _fatal(exc):
                    raise GqlbenchError(
                        f"{self.base_url}: {type(exc).__name__} for model {self.model!r}: "
                        f"{_short(exc)}; check --base-url, --model and ${self.api_key_env}"
                    ) from None
                reason = refused(exc) if refused is not None else None
                if reason:
                    raise GqlbenchError(reason) from None
                if not is_transient(exc) or attempt == self.max_retries:
                    tries = f" after {attempt + 1} attempts" if attempt else ""
                    return Completion(sample_id=sample_id, error=f"{type(exc).__name__}{tries}: {_short(exc)}")
                self._sleep(self._backoff(attempt, exc))
                continue
            return response, time.perf_counter() - started
        raise AssertionError("unreachable: the loop returns on its last attempt")

    # -- native tool calling (--prompt tools) ----------------------------------------------------

    def generate_tools(self, requests: Sequence[ToolRequest], config: GenerationConfig) -> Iterator[ToolReply]:
        """One assistant turn per request, with ``tools`` and ``tool_choice: auto``, on the thread pool."""
        return self._pooled(self._tool_turn, requests, config, lambda reply: reply.tokens_out or 0)

    def _tool_turn(self, request: ToolRequest, config: GenerationConfig) -> ToolReply:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": list(request.messages),
            "tools": list(request.tools),
            "tool_choice": "auto",
            "temperature": config.temperature,
            "top_p": config.top_p,
            "max_tokens": config.max_new_tokens,
            "seed": config.seed,
        }
        # a refusal of the first turn is the server's (the chat is ours); of a later one, maybe of what the model sent
        first = not any(m.get("role") == "tool" for m in request.messages)
        sent = self._send(kwargs, request.sample_id, refused=self._no_tools if first else None)
        if isinstance(sent, Completion):
            return ToolReply(sample_id=request.sample_id, error=sent.error)
        response, latency = sent
        try:
            content, calls, tokens_in, tokens_out = _read_tool_response(response)
        except _BadResponse as exc:
            return ToolReply(sample_id=request.sample_id, error=f"bad response: {exc}")
        with self._lock:
            if calls:
                self.tool_call_turns += 1
            elif looks_like_tool_text(content):
                self.tool_text_turns += 1
        return ToolReply(
            sample_id=request.sample_id, content=content, tool_calls=calls, tokens_in=tokens_in, tokens_out=tokens_out, latency_s=latency
        )

    def warnings(self) -> list[str]:
        """What the run should be told once it is over: a server that never returned tool_calls but wrote calls as text.

        Never an error during the run: one model's answer that looks like a call (a final answer quoting JSON)
        must not stop a run or lose its finished samples; a server that returned no tool_calls in any turn is misconfigured.
        """
        if self.tool_text_turns and not self.tool_call_turns:
            return [
                f"{self.base_url}: model {self.model!r} wrote tool calls as text instead of returning tool_calls "
                f"({self.tool_text_turns} answers, and no turn with tool_calls); {_TOOL_HINT}"
            ]
        return []

    def _no_tools(self, exc: Exception) -> str | None:
        """The one-line error for a server that refuses ``tools`` (None: another error)."""
        if isinstance(exc, openai.BadRequestError) and "tool" in str(exc).lower():
            return f"{self.base_url}: the server refused tool calling for model {self.model!r} ({_short(exc)}); {_TOOL_HINT}"
        return None

    def _backoff(self, attempt: int, exc: BaseException) -> float:
        """Exponential with full jitter; a server's Retry-After wins when it asks for longer."""
        base = min(MAX_BACKOFF_S, float(self.options["backoff_s"]) * 2**attempt)
        delay = random.uniform(base / 2, base)
        return max(delay, min(MAX_BACKOFF_S, _retry_after(exc) or 0.0))

    # -- setup ----------------------------------------------------------------------------------

    def _api_key(self) -> str:
        key = os.environ.get(self.api_key_env)
        if key:
            return key
        if urlparse(self.base_url).hostname in _LOCAL_HOSTS:
            return "EMPTY"  # local servers (vllm serve, llama.cpp) accept any key
        raise GqlbenchError(f"set ${self.api_key_env} to the API key of {self.base_url} (or name another variable with --api-key-env)")

    @staticmethod
    def _load_tokenizer(path: str | Path) -> Any:
        from transformers import AutoTokenizer

        try:
            return AutoTokenizer.from_pretrained(str(path))
        except (OSError, ValueError) as exc:
            raise GqlbenchError(f"tokenizer {path}: cannot load a Hugging Face tokenizer ({_short(exc)})") from None

    def _served_model_card(self) -> dict[str, Any] | None:
        """The server's entry for our model (vLLM reports ``max_model_len``); None if the server lists none."""
        try:
            cards = list(self.client.models.list())
        except Exception:  # listing is optional for OpenAI-compatible servers
            return None
        for card in cards:
            if card.id == self.model:
                return card.model_dump()
        served = ", ".join(card.id for card in cards[:10])
        raise GqlbenchError(
            f"{self.base_url} does not serve model {self.model!r} (it serves: {served}); pass one of those names as --model"
        )

    def _context_length(self, explicit: int | None) -> tuple[int, str]:
        if explicit:
            return int(explicit), "argument"
        reported = (self._served or {}).get("max_model_len")
        if reported:
            return int(reported), "server"
        return DEFAULT_CONTEXT, f"assumed {DEFAULT_CONTEXT} (server did not report it; pass max_model_len)"


class _BadResponse(Exception):
    """A response whose field has the wrong type; the message names the field."""


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _count(value: object, field: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _BadResponse(f"{field} is {_shown(value)}, not a count")
    return value


def _text(value: object, field: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise _BadResponse(f"{field} is {_shown(value)}, not text")
    return value


def _read_response(response: Any) -> tuple[list[tuple[str, str | None, str | None]], int, int]:
    """(text, finish reason, stop sequence) of each choice in index order, prompt and completion tokens, each checked.

    The stop sequence is vLLM's ``stop_reason`` extension (None from servers without it, or for a stop token).

    The client builds its response objects without validating them, so a
    server's ``"completion_tokens": "lots"`` would surface as a TypeError far
    from here; :class:`_BadResponse` names the field instead.
    """
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list):
        raise _BadResponse(f"choices is {_shown(choices)}, not a list")
    read = []
    for i, choice in enumerate(choices):
        index = _count(getattr(choice, "index", None), f"choices[{i}].index")
        content = _text(getattr(getattr(choice, "message", None), "content", None), f"choices[{i}].message.content")
        finish = _text(getattr(choice, "finish_reason", None), f"choices[{i}].finish_reason")
        stop = getattr(choice, "stop_reason", None)
        read.append((index, content or "", finish, stop if isinstance(stop, str) else None))
    usage = getattr(response, "usage", None)
    tokens_in = _count(getattr(usage, "prompt_tokens", None), "usage.prompt_tokens")
    tokens_out = _count(getattr(usage, "completion_tokens", None), "usage.completion_tokens")
    return [(text, finish, stop) for _, text, finish, stop in sorted(read, key=lambda c: c[0])], tokens_in, tokens_out


# possessive quantifiers: no backtracking, so a search is linear in the text (``\s*`` here took minutes on blank lines)
_TOOL_TEXT = re.compile(r'<tool_call>|\[TOOL_CALLS\]|<\|python_tag\|>|^[ \t]*+\[?[ \t]*+\{\s*+"(?:name|function)"\s*+:', re.MULTILINE)
_TOOL_TEXT_CHARS = 10_000  # a call written as text starts the answer; only this much of it is searched


def looks_like_tool_text(content: str) -> bool:
    """Whether an answer without tool_calls starts like a tool call written as text (the markers of the common formats)."""
    return _TOOL_TEXT.search(content, 0, _TOOL_TEXT_CHARS) is not None


_TOOL_HINT = (
    "--prompt tools needs a server that returns tool_calls: start vLLM with --enable-auto-tool-choice "
    "--tool-call-parser <hermes|llama3_json|mistral|pythonic|granite> for the model's family "
    "(see docs/prompt-styles-and-backends.md)"
)


def _read_tool_response(response: Any) -> tuple[str, tuple[ToolCall, ...], int, int]:
    """(text, tool calls, prompt tokens, completion tokens) of the first choice, each field checked."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise _BadResponse(f"choices is {_shown(choices)}, not a non-empty list")
    message = getattr(choices[0], "message", None)
    content = _text(getattr(message, "content", None), "choices[0].message.content") or ""
    raw_calls = getattr(message, "tool_calls", None) or []
    if not isinstance(raw_calls, list):
        raise _BadResponse(f"choices[0].message.tool_calls is {_shown(raw_calls)}, not a list")
    calls = []
    for i, call in enumerate(raw_calls):
        function = getattr(call, "function", None)
        name = _text(getattr(function, "name", None), f"tool_calls[{i}].function.name") or ""
        arguments = _text(getattr(function, "arguments", None), f"tool_calls[{i}].function.arguments") or ""
        call_id = _text(getattr(call, "id", None), f"tool_calls[{i}].id") or f"call_{i}"
        calls.append(ToolCall(id=call_id, name=name, arguments=arguments))
    usage = getattr(response, "usage", None)
    tokens_in = _count(getattr(usage, "prompt_tokens", None), "usage.prompt_tokens")
    tokens_out = _count(getattr(usage, "completion_tokens", None), "usage.completion_tokens")
    return content, tuple(calls), tokens_in, tokens_out


def _short(exc: BaseException) -> str:
    text = redact_urls(" ".join(str(exc).split()))
    return text if len(text) <= 300 else text[:297] + "..."
