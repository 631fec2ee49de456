"""Native tool calling for the in-process backends (``vllm``, ``hf``): the chat template renders the tools, a parser reads the calls.

What ``vllm serve --enable-auto-tool-choice --tool-call-parser NAME
--chat-template FILE`` does for the ``openai`` backend is done here in the
process: the chat is rendered by the model's chat template (or
``chat_template=FILE``) with ``tools=``, generated as token ids like every
other prompt of these backends (so the tokens counted are the tokens the
engine sees), and the answer is split into text and tool calls by a parser
named with ``tool_parser=NAME``. The vllm backend uses vLLM's own parsers
(``ToolParserManager``: hermes, llama3_json, mistral, pythonic, granite,
...); the hf backend uses :data:`HF_TOOL_PARSERS` below. The turns then go
through the same loop as the openai backend's (:func:`gqlbench.generators.tools.run_tools`).

Both settings are backend options (``--model-args tool_parser=hermes,chat_template=FILE``);
a model whose template does not render ``tools`` is refused with a line
naming them, since a model that never sees the tools cannot call them.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import GenerationConfig, GenerationRequest
from gqlbench.generators.backends.models import encode_prompt, render_chat
from gqlbench.generators.tool_input import RefusedArguments, read_arguments
from gqlbench.generators.tools import ToolCall, ToolReply, ToolRequest
from gqlbench.records import Completion, Message

__all__ = [
    "HF_TOOL_PARSERS",
    "ParseTools",
    "ToolSetup",
    "parse_hermes",
    "parse_json_calls",
    "parse_pythonic",
    "read_chat_template",
    "render_tools",
    "check_declares_tools",
    "local_tool_turns",
    "missing_parser",
]

# (model text, the request) -> (the text outside the calls, the calls)
ParseTools = Callable[[str, ToolRequest], tuple[str, tuple[ToolCall, ...]]]

_PROBE_TOOL = "gqlbench_probe_tool"
_HERMES = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)  # no \s* around the lazy group: it backtracked on blanks


def read_chat_template(value: str | None) -> str | None:
    """The template text of ``chat_template=FILE`` (None: the model's own); a missing file is a one-line error."""
    if value is None:
        return None
    path = Path(value)
    if not path.is_file():
        raise GqlbenchError(f"chat_template={value}: no such file; pass the path of a Jinja chat template that renders `tools`")
    return path.read_text(encoding="utf-8")


def _template_messages(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI messages as Hugging Face templates expect them: a tool call's arguments as a dict, not JSON text.

    Templates write ``arguments | tojson``; text there would be quoted twice. Arguments that are not a JSON
    object stay text (the template shows what the model wrote).
    """
    out = []
    for message in messages:
        calls = message.get("tool_calls")
        if not calls:
            out.append(dict(message))
            continue
        converted = []
        for call in calls:
            function = dict(call["function"])
            try:
                function["arguments"] = read_arguments(function.get("arguments") or "{}")
            except RefusedArguments:
                pass
            converted.append({**call, "function": function})
        out.append({**message, "tool_calls": converted})
    return out


def render_tools(
    tokenizer: Any, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]], chat_template: str | None = None
) -> str:
    """The prompt text: the chat template applied to ``messages`` with ``tools``, ending in the generation prompt."""
    kwargs = {"chat_template": chat_template} if chat_template is not None else {}
    text = tokenizer.apply_chat_template(
        _template_messages(messages), tools=list(tools), tokenize=False, add_generation_prompt=True, **kwargs
    )
    assert isinstance(text, str), "tokenize=False renders one string"
    return text


def check_declares_tools(tokenizer: Any, chat_template: str | None, backend: str, model: str) -> None:
    """Refuse a template that does not render ``tools`` (the model would never see them), naming what to pass."""
    hint = (
        "pass --model-args chat_template=FILE with a template that renders `tools` "
        "(the model family's tool-calling template; tests/data/chatml_tools.jinja is a ChatML one)"
    )
    if chat_template is None and not getattr(tokenizer, "chat_template", None):
        raise GqlbenchError(f"{backend} backend: {model} has no chat template, so it cannot be shown tools; {hint}")
    probe = {"type": "function", "function": {"name": _PROBE_TOOL, "description": "", "parameters": {"type": "object", "properties": {}}}}
    try:
        text = render_tools(tokenizer, [{"role": "user", "content": "hi"}], [probe], chat_template)
    except Exception as exc:  # a template that breaks on tools (jinja errors come in many types)
        raise GqlbenchError(
            f"{backend} backend: the chat template of {model} fails with tools ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}); {hint}"
        ) from None
    if _PROBE_TOOL not in text:
        raise GqlbenchError(f"{backend} backend: the chat template of {model} does not declare tools; {hint}")


def _call(index: int, name: Any, arguments: Any) -> ToolCall | None:
    """The call, None when ``name`` is no name; raises ValueError for arguments that have no JSON form (a set, say)."""
    if not isinstance(name, str) or not name:
        return None
    try:
        text = arguments if isinstance(arguments, str) else json.dumps({} if arguments is None else arguments, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValueError(f"the arguments of {name[:100]!r} have no JSON form ({exc})") from None
    return ToolCall(id=f"call_{index}", name=name, arguments=text)


def _from_objects(values: Sequence[Any]) -> tuple[ToolCall, ...] | None:
    """Calls from ``{"name": ..., "arguments"|"parameters": ...}`` objects; None when any is not one."""
    calls: list[ToolCall] = []
    for value in values:
        if not isinstance(value, dict) or "name" not in value:
            return None
        call = _call(len(calls), value.get("name"), value.get("arguments", value.get("parameters")))
        if call is None:
            return None
        calls.append(call)
    return tuple(calls)


def parse_hermes(text: str, request: ToolRequest | None = None) -> tuple[str, tuple[ToolCall, ...]]:
    """Hermes / Qwen style: each call is ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``.

    A block whose JSON does not parse makes the whole answer text (no calls), as vLLM's hermes parser does;
    the model's turn then ends the loop as a final answer and the program keeps the calls made before.
    """
    if "<tool_call>" not in text:
        return text, ()
    values = []
    for block in _HERMES.findall(text):
        try:
            values.append(json.loads(block.strip()))
        except ValueError:
            return text, ()
    calls = _from_objects(values)
    return (text, ()) if calls is None else (text[: text.find("<tool_call>")].strip(), calls)


def parse_json_calls(text: str, request: ToolRequest | None = None) -> tuple[str, tuple[ToolCall, ...]]:
    """Bare JSON (Llama 3.x JSON style): the answer is one call object or a list of them, optionally after ``<|python_tag|>``."""
    body = text.strip().removeprefix("<|python_tag|>").strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    if not body.startswith(("{", "[")):
        return text, ()
    try:
        value = json.loads(body)
    except ValueError:
        parts = [p for p in body.split(";") if p.strip()]  # Llama 3.1 separates parallel calls with ';'
        try:
            value = [json.loads(p) for p in parts]
        except ValueError:
            return text, ()
    calls = _from_objects(value if isinstance(value, list) else [value])
    return (text, ()) if not calls else ("", calls)


def parse_pythonic(text: str, request: ToolRequest | None = None) -> tuple[str, tuple[ToolCall, ...]]:
    """Pythonic (Llama 3.2/4 style): the answer is ``[f(a=1), g(b="x")]``, keyword arguments with literal values."""
    body = text.strip().removeprefix("<|python_start|>").removesuffix("<|python_end|>").strip()
    if not body.startswith("["):
        return text, ()
    try:
        tree = ast.parse(body, mode="eval").body
    except SyntaxError:
        return text, ()
    if not isinstance(tree, ast.List) or not tree.elts:
        return text, ()
    calls: list[ToolCall] = []
    for node in tree.elts:
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.args:
            return text, ()
        try:
            arguments = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg is not None}
        except ValueError:
            return text, ()
        call = _call(len(calls), node.func.id, arguments)
        if call is None:
            return text, ()
        calls.append(call)
    return "", tuple(calls)


HF_TOOL_PARSERS: dict[str, ParseTools] = {"hermes": parse_hermes, "json": parse_json_calls, "pythonic": parse_pythonic}


# the parsers named when none is given: vLLM's for the common families (it has many more), gqlbench's for hf
COMMON_PARSERS = {"vllm": ("hermes", "llama3_json", "mistral", "pythonic", "granite", "..."), "hf": tuple(HF_TOOL_PARSERS)}


def missing_parser(backend: str, names: Sequence[str] | None = None) -> GqlbenchError:
    """The one-line error for ``--prompt tools`` on an in-process backend without ``tool_parser``."""
    shown = names if names is not None else COMMON_PARSERS.get(backend, COMMON_PARSERS["vllm"])
    return GqlbenchError(
        f"--prompt tools on the {backend} backend needs a tool-call parser for the model's format: "
        f"pass --model-args tool_parser=NAME ({', '.join(shown)}), and chat_template=FILE when the model's "
        "template does not declare tools"
    )


class ToolSetup:
    """A backend's tool settings (``tool_parser``, ``chat_template``), checked once when the first tool turn is asked for."""

    def __init__(self, backend: str, tool_parser: str | None, chat_template: str | None, parsers: Sequence[str]) -> None:
        self.backend, self.tool_parser, self.chat_template_path = backend, tool_parser, chat_template
        self.template = read_chat_template(chat_template)
        self.parsers = parsers
        self.checked = False

    def check(self, tokenizer: Any, model: str) -> None:
        """One-line errors for a missing parser or a template without tools, before anything is generated."""
        if self.checked:
            return
        if not self.tool_parser:
            raise missing_parser(self.backend, self.parsers)
        check_declares_tools(tokenizer, self.template, self.backend, model)
        self.checked = True

    def describe(self) -> dict[str, Any]:
        from gqlbench.generators.backends.models import text_sha256

        return {
            "tool_parser": self.tool_parser,
            "chat_template": self.chat_template_path,
            "chat_template_file_sha256": text_sha256(self.template),
        }


class LocalChat:
    """The prompt side the in-process backends share: the model's own tokenizer and chat template render and count.

    A subclass sets ``tokenizer``, ``tools`` (its :class:`ToolSetup`) and ``model_path``.
    """

    tokenizer: Any
    tools: ToolSetup
    model_path: Path

    def render(self, messages: Sequence[Message], assistant_prefix: str = "") -> str:
        return render_chat(self.tokenizer, messages, assistant_prefix)

    def count_tokens(self, text: str) -> int:
        return len(encode_prompt(self.tokenizer, text))

    def render_tools(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]) -> str:
        """The prompt of a ``--prompt tools`` turn as the model sees it (what the context budget counts)."""
        self.tools.check(self.tokenizer, str(self.model_path))
        return render_tools(self.tokenizer, [m.model_dump() for m in messages], tools, self.tools.template)


def local_tool_turns(
    requests: Sequence[ToolRequest],
    config: GenerationConfig,
    *,
    tokenizer: Any,
    chat_template: str | None,
    max_model_len: int,
    generate: Callable[[list[tuple[GenerationRequest, list[int]]]], Iterator[Completion]],
    parse: ParseTools,
) -> Iterator[ToolReply]:
    """One assistant turn per request: render with tools, generate from token ids, parse the calls.

    A prompt that leaves no room for ``max_new_tokens`` is a reply whose error names ``max_model_len``
    (the loop scores the calls made so far, as for a server's context error).
    """
    batch: list[tuple[GenerationRequest, list[int]]] = []
    by_id = {r.sample_id: r for r in requests}
    for request in requests:
        ids = encode_prompt(tokenizer, render_tools(tokenizer, request.messages, request.tools, chat_template))
        if len(ids) + config.max_new_tokens > max_model_len:
            yield ToolReply(
                sample_id=request.sample_id,
                tokens_in=len(ids),
                error=(f"prompt of {len(ids)} tokens + {config.max_new_tokens} new tokens exceeds max_model_len={max_model_len}"),
            )
        else:
            batch.append((GenerationRequest(request.sample_id, ()), ids))
    if not batch:
        return
    for completion in generate(batch):
        reply = ToolReply(
            sample_id=completion.sample_id,
            tokens_in=completion.tokens_in,
            tokens_out=completion.tokens_out,
            latency_s=completion.latency_s,
            error=completion.error,
        )
        if completion.error:
            yield reply
            continue
        try:
            content, calls = parse(completion.text, by_id[completion.sample_id])
        except Exception as exc:  # ours or vLLM's, on text a model wrote: the sample's tool_parse_error, the text its final answer
            yield dataclasses.replace(
                reply,
                content=completion.text,
                parse_error=f"the tool-call parser failed: {type(exc).__name__}: {' '.join(str(exc).split())}",
            )
            continue
        yield dataclasses.replace(reply, content=content, tool_calls=calls)
