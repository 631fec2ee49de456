"""A scripted OpenAI-compatible server that calls tools as a sample's gold program does (tests only).

It serves ``/v1/models`` and ``/v1/chat/completions`` on 127.0.0.1. The
sample is found by the chat's user message (the request). Each turn it
makes the next gold call(s) as tool calls, computing every argument the
gold program reads from an earlier response out of the tool results it was
sent (the JSON at the start of the tool message), then answers without a
tool call. Modes:

- ``gold``: one call per turn;
- ``parallel``: every next call whose inputs are already known, in one turn;
- ``constant``: like ``gold``, but an argument gold reads from an earlier response is the constant ``"CONST"``.

``script`` (optional) answers a request itself: ``script(n, body)`` returns a
reply body, ``(status, body)``, or None to follow gold. ``fail`` is a set of requests (utterances)
answered with HTTP 400 and ``fail_message``, to leave samples unfinished for a resume.
"""

from __future__ import annotations

import ast
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import Any

from gqlbench.dataset import load_split
from gqlbench.records import Sample

CONST = "CONST"


def reply(content: str = "", calls: list[tuple[str, dict[str, Any] | str]] | None = None, start: int = 0) -> dict[str, Any]:
    """A chat completion body: ``content`` and tool calls ``(name, arguments)``, ids numbered from ``start``."""
    message: dict[str, Any] = {"role": "assistant", "content": content or None}
    if calls:
        message["tool_calls"] = [
            {
                "id": f"call_{start + i}",
                "type": "function",
                "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
            }
            for i, (name, args) in enumerate(calls)
        ]
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
    }


def gold_steps(sample: Sample) -> list[tuple[str | None, str, dict[str, ast.expr]]]:
    """(variable, function, argument expressions) of each call of the gold program."""
    steps = []
    for stmt in ast.parse(sample.gold_code).body:
        target = stmt.targets[0].id if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name) else None
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.Expr)) else None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            steps.append((target, value.func.id, {k.arg: k.value for k in value.keywords if k.arg}))
    return steps


def _reads(node: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _wrap(value: Any) -> Any:
    if isinstance(value, dict):
        return SimpleNamespace(**{k: _wrap(v) for k, v in value.items()})
    return [_wrap(v) for v in value] if isinstance(value, list) else value


def _unwrap(value: Any) -> Any:
    if isinstance(value, SimpleNamespace):
        return {k: _unwrap(v) for k, v in vars(value).items()}
    return [_unwrap(v) for v in value] if isinstance(value, list) else value


def _evaluate(node: ast.expr, values: dict[str, Any]) -> Any:
    """The gold expression's value on the responses received (as a model computing it in its head would type it)."""
    code = compile(ast.Expression(node), "<gold>", "eval")
    return _unwrap(eval(code, {"__builtins__": {"len": len, "str": str, "int": int}}, {k: _wrap(v) for k, v in values.items()}))


def _responses(messages: list[dict[str, Any]]) -> list[Any]:
    """The decoded response of each tool message, in order (None for an error)."""
    out = []
    for message in messages:
        if message["role"] == "tool":
            try:
                out.append(json.JSONDecoder().raw_decode(message["content"])[0])
            except ValueError:
                out.append(None)
    return out


class ToolServer:
    def __init__(
        self,
        mode: str = "gold",
        script: Callable[[int, dict[str, Any]], Any] | None = None,
        fail: set[str] | None = None,
        split: str = "test",
        fail_message: str = "scripted failure",
    ) -> None:
        self.mode, self.script, self.fail, self.fail_message = mode, script, fail or set(), fail_message
        self.samples = {s.utterance: s for s in reversed(load_split(split))}
        self.bodies: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send(
                    200, {"object": "list", "data": [{"id": "m", "object": "model", "created": 0, "owned_by": "t", "max_model_len": 32768}]}
                )

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                with server.lock:
                    n = len(server.bodies)
                    server.bodies.append(body)
                if server.request(body) in server.fail:
                    self._send(400, {"error": {"message": server.fail_message, "type": "error", "code": 400}})
                    return
                answer = server.script(n, body) if server.script else None
                if isinstance(answer, tuple):  # (status, body)
                    self._send(*answer)
                    return
                self._send(200, answer if answer is not None else server.follow(body))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @staticmethod
    def request(body: dict[str, Any]) -> str:
        return next(m["content"] for m in body["messages"] if m["role"] == "user")

    def follow(self, body: dict[str, Any]) -> dict[str, Any]:
        """The next gold call(s) of the sample the chat is about, or a final answer."""
        messages = body["messages"]
        steps = gold_steps(self.samples[self.request(body)])
        made = sum(len(m.get("tool_calls") or []) for m in messages if m["role"] == "assistant")
        values = {var: value for (var, _, _), value in zip(steps, _responses(messages), strict=False) if var}
        known = {var for var, _, _ in steps[:made] if var}
        calls: list[tuple[str, dict[str, Any]]] = []
        shown = [t["function"]["name"] for t in body.get("tools") or []]
        real = [f.name for f in self.samples[self.request(body)].function_specs]
        rename = dict(zip(real, shown, strict=False)) if shown and not set(real) & set(shown) else {}  # --obfuscate names
        for _, function, arguments in steps[made:]:
            function = rename.get(function, function)
            needs = {name for node in arguments.values() for name in _reads(node)} & {v for v, _, _ in steps if v}
            if calls and (self.mode != "parallel" or needs - known):
                break
            args = {}
            for name, node in arguments.items():
                if self.mode == "constant" and _reads(node):
                    args[name] = CONST
                    continue
                try:
                    args[name] = _evaluate(node, values)
                except Exception:
                    args[name] = CONST  # the response it reads was an error: nothing to read
            calls.append((function, args))
        return reply("Calling the API." if calls else "Done.", calls, start=made)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
