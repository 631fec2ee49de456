"""The OpenAI-compatible backend: retries, concurrency and prefix continuation against a tiny local
fake server (fast), then the real thing against `vllm serve` on the bundled model (slow)."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import GenerationConfig, GenerationRequest
from gqlbench.generators.backends.openai_backend import OpenAIBackend
from gqlbench.generators.backends.progress import BatchProgress
from gqlbench.records import Message
from tests.vllm_serve import vllm_serve

# -- a fake server: each POST is answered by `script(n, body)` -> (status, json, headers) -----------

Reply = tuple[int, dict[str, Any], dict[str, str]]


def ok(text: str, prompt_tokens: int = 5, completion_tokens: int = 3) -> Reply:
    body = {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
    return 200, body, {}


def fail(status: int, headers: dict[str, str] | None = None) -> Reply:
    return status, {"error": {"message": f"status {status}", "type": "error", "code": status}}, headers or {}


class FakeServer:
    def __init__(
        self, script: Callable[[int, dict[str, Any]], Reply], delay_s: float = 0.0, max_model_len: int | None = 4096, gather: int = 0
    ) -> None:
        """``gather``: each request waits (up to 10 s) until that many have been in flight at once, so a test of the
        client's concurrency does not depend on how fast the machine starts its threads."""
        self.script, self.delay_s, self.max_model_len, self.gather = script, delay_s, max_model_len, gather
        self.bodies: list[dict[str, Any]] = []
        self.in_flight = self.max_in_flight = 0
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: dict[str, Any], headers: dict[str, str]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # /v1/models
                card = {"id": "m", "object": "model", "created": 0, "owned_by": "test"}
                if server.max_model_len:
                    card["max_model_len"] = server.max_model_len
                self._send(200, {"object": "list", "data": [card]}, {})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                with server.arrived:
                    n = len(server.bodies)
                    server.bodies.append(body)
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    server.arrived.notify_all()
                    server.arrived.wait_for(lambda: server.max_in_flight >= server.gather, timeout=10)
                try:
                    time.sleep(server.delay_s)
                    self._send(*server.script(n, body))
                finally:
                    with server.lock:
                        server.in_flight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def serve() -> Iterator[Callable[..., FakeServer]]:
    servers: list[FakeServer] = []

    def start(script: Callable[[int, dict[str, Any]], Reply], **kw: Any) -> FakeServer:
        servers.append(FakeServer(script, **kw))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def request(sample_id: str, prefix: str = "") -> GenerationRequest:
    return GenerationRequest(sample_id, (Message(role="user", content=f"question {sample_id}"),), prefix)


def backend(server: FakeServer, sleeps: list[float] | None = None, **options: Any) -> OpenAIBackend:
    record = sleeps.append if sleeps is not None else (lambda s: None)
    return OpenAIBackend("m", base_url=server.url, sleep=record, **options)


# -- fast tests ----------------------------------------------------------------------------------


def test_transient_errors_are_retried_with_growing_backoff(serve: Callable[..., FakeServer]) -> None:
    server = serve(lambda n, body: [fail(503), fail(429), fail(500)][n] if n < 3 else ok("done"))
    sleeps: list[float] = []
    (completion,) = backend(server, sleeps, backoff_s=1.0).generate([request("a")], GenerationConfig())
    assert completion.error is None and completion.text == "done"
    assert (completion.tokens_in, completion.tokens_out, completion.finish_reason) == (5, 3, "stop")
    assert len(server.bodies) == 4 and len(sleeps) == 3
    assert 0.5 <= sleeps[0] <= 1.0 and 1.0 <= sleeps[1] <= 2.0 and 2.0 <= sleeps[2] <= 4.0


def test_retry_after_header_is_honoured(serve: Callable[..., FakeServer]) -> None:
    server = serve(lambda n, body: fail(429, {"retry-after": "7"}) if n == 0 else ok("late"))
    sleeps: list[float] = []
    (completion,) = backend(server, sleeps, backoff_s=0.01).generate([request("a")], GenerationConfig())
    assert completion.text == "late" and sleeps == [7.0]


def test_retries_are_bounded_and_failure_is_recorded(serve: Callable[..., FakeServer]) -> None:
    server = serve(lambda n, body: fail(502))
    sleeps: list[float] = []
    (completion,) = backend(server, sleeps, max_retries=2).generate([request("a")], GenerationConfig())
    assert completion.error and "after 3 attempts" in completion.error and completion.text == ""
    assert len(server.bodies) == 3 and len(sleeps) == 2


def test_client_errors_are_not_retried(serve: Callable[..., FakeServer]) -> None:
    server = serve(lambda n, body: fail(400))
    (completion,) = backend(server).generate([request("a")], GenerationConfig())
    assert completion.error and completion.error.startswith("BadRequestError")
    assert len(server.bodies) == 1


def test_bad_credentials_stop_the_run(serve: Callable[..., FakeServer]) -> None:
    server = serve(lambda n, body: fail(401))
    with pytest.raises(GqlbenchError, match="OPENAI_API_KEY"):
        list(backend(server).generate([request("a"), request("b")], GenerationConfig()))


def test_timeouts_are_transient(serve: Callable[..., FakeServer]) -> None:
    server = serve(lambda n, body: ok("slow"), delay_s=0.5)
    (completion,) = backend(server, timeout_s=0.1, max_retries=1).generate([request("a")], GenerationConfig())
    assert completion.error and completion.error.startswith("APITimeoutError after 2 attempts")


def test_concurrency_is_bounded(serve: Callable[..., FakeServer]) -> None:
    server = serve(lambda n, body: ok(body["messages"][0]["content"]), delay_s=0.1, gather=3)
    out = list(backend(server, concurrency=3).generate([request(str(i)) for i in range(9)], GenerationConfig()))
    assert sorted(c.sample_id for c in out) == [str(i) for i in range(9)]
    assert all(c.text == f"question {c.sample_id}" for c in out)  # answers are matched to their requests
    assert server.max_in_flight == 3


def test_each_finished_request_is_told_with_its_tokens_before_it_is_handed_over(serve: Callable[..., FakeServer]) -> None:
    server = serve(lambda n, body: ok("x", completion_tokens=int(body["messages"][0]["content"].split()[-1])))
    told: list[BatchProgress] = []
    client = backend(server, concurrency=2)
    client.on_progress = told.append
    handed = []
    for completion in client.generate([request(str(i)) for i in (4, 6, 9)], GenerationConfig()):
        handed.append((completion.tokens_out, told[-1].done, told[-1].tokens_out))
    assert [(p.done, p.total) for p in told] == [(0, 3), (1, 3), (2, 3), (3, 3)]
    assert told[-1].tokens_out == 19
    running = 0
    for number, (tokens, done, total_tokens) in enumerate(handed, 1):
        running += tokens
        assert (done, total_tokens) == (number, running)  # told as it finished, in the order it was handed over


def test_request_carries_sampling_config_and_prefix_continuation(serve: Callable[..., FakeServer]) -> None:
    server = serve(lambda n, body: ok("x"))
    config = GenerationConfig(temperature=0.05, top_p=0.9, max_new_tokens=77, stop=("Observation:",), seed=3)
    list(backend(server).generate([request("a", prefix="Thought: ")], config))
    body = server.bodies[0]
    assert (body["temperature"], body["top_p"], body["max_tokens"], body["stop"], body["seed"]) == (0.05, 0.9, 77, ["Observation:"], 3)
    assert body["messages"][-1] == {"role": "assistant", "content": "Thought: "}
    assert body["continue_final_message"] is True and body["add_generation_prompt"] is False
    list(backend(server, continue_final_message=False).generate([request("b", prefix="Thought: ")], config))
    assert "continue_final_message" not in server.bodies[1]  # hosted APIs reject vLLM's extension


def test_context_length_and_token_estimate_are_labelled(serve: Callable[..., FakeServer]) -> None:
    described = backend(serve(lambda n, body: ok("x"))).describe()
    assert described["max_model_len"] == 4096 and described["max_model_len_source"] == "server"
    silent = backend(serve(lambda n, body: ok("x"), max_model_len=None))
    assert silent.max_model_len == 8192 and silent.describe()["max_model_len_source"].startswith("assumed")
    assert silent.describe()["token_counting"].startswith("estimate")
    assert silent.count_tokens("x" * 30) == 10


def test_unknown_model_and_missing_key(serve: Callable[..., FakeServer], monkeypatch: pytest.MonkeyPatch) -> None:
    server = serve(lambda n, body: ok("x"))
    with pytest.raises(GqlbenchError, match="does not serve model 'other'"):
        OpenAIBackend("other", base_url=server.url)
    monkeypatch.delenv("GQLBENCH_TEST_KEY", raising=False)
    with pytest.raises(GqlbenchError, match=r"set \$GQLBENCH_TEST_KEY"):
        OpenAIBackend("m", base_url="https://api.example.com/v1", api_key_env="GQLBENCH_TEST_KEY")


def test_credentials_in_the_base_url_reach_no_file_of_the_run(
    serve: Callable[..., FakeServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gqlbench.cli import main

    server = serve(lambda n, body: ok("```python\nGET_me()\n```"))
    url = server.url.replace("http://", "http://user:hunter2@") + "?api_key=sekrit&x=1"
    out = tmp_path / "run"
    args = ["run", "--backend", "openai", "--model", "m", "--base-url", url, "--ids", "test/0", "--no-exec", "--html", "--out", str(out)]
    monkeypatch.setattr(sys, "argv", ["gqlbench", *args])  # the command line is recorded too
    assert main(args) == 0
    written = {path.name: path.read_text() for path in out.iterdir() if path.is_file()}
    assert {"config.json", "results.json", "report.md", "report.html", "samples.jsonl"} <= set(written)
    assert not [name for name, text in written.items() if "hunter2" in text or "sekrit" in text]
    assert "http://***@127.0.0.1" in written["config.json"] and "x=1" in written["config.json"]  # still says which server


def test_a_response_field_of_the_wrong_type_is_that_samples_error(serve: Callable[..., FakeServer]) -> None:
    def lots(n: int, body: dict[str, Any]) -> Reply:
        status, reply, headers = ok("x")
        reply["usage"]["completion_tokens"] = "lots"
        return status, reply, headers

    (completion,) = backend(serve(lots)).generate([request("a")], GenerationConfig())
    assert completion.error == "bad response: usage.completion_tokens is 'lots', not a count" and completion.text == ""
    server = serve(lambda n, body: (200, {"choices": [{"index": 0, "message": {"content": 5}}]}, {}))
    (completion,) = backend(server).generate([request("b")], GenerationConfig())
    assert completion.error == "bad response: choices[0].message.content is 5, not text"


def test_a_huge_completion_is_stored_bounded_with_its_length(serve: Callable[..., FakeServer]) -> None:
    from gqlbench.records import MAX_COMPLETION_CHARS

    text = "x" * (3 * MAX_COMPLETION_CHARS)
    (completion,) = backend(serve(lambda n, body: ok(text))).generate([request("a")], GenerationConfig())
    assert len(completion.text) == MAX_COMPLETION_CHARS and completion.text_chars == len(text)
    assert completion.note and f"{len(text):,}" in completion.note
    assert len(completion.model_dump_json()) < 2 * MAX_COMPLETION_CHARS


def test_a_run_records_the_length_and_a_note_of_a_cut_completion(
    serve: Callable[..., FakeServer], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gqlbench.cli import main
    from gqlbench.records import MAX_COMPLETION_CHARS

    text = "```python\nGET_me()\n```\n" + "y" * (10 * MAX_COMPLETION_CHARS)
    server = serve(lambda n, body: ok(text))
    out = tmp_path / "run"
    assert (
        main(["run", "--backend", "openai", "--model", "m", "--base-url", server.url, "--ids", "test/0", "--no-exec", "--out", str(out)])
        == 0
    )
    line = json.loads((out / "samples.jsonl").read_text())
    assert line["raw_output_chars"] == len(text) and f"{len(text):,} characters" in line["generation_note"]
    assert (out / "samples.jsonl").stat().st_size < 5 * MAX_COMPLETION_CHARS  # the text is stored a few times, each bounded
    assert "note: 1 completions have a generation_note in samples.jsonl: test/0" in capsys.readouterr().err


def test_a_lone_surrogate_in_a_completion_is_stored_as_its_escape_and_the_program_keeps_its_meaning(
    serve: Callable[..., FakeServer], tmp_path: Path
) -> None:
    """It was written as U+FFFD (the stored program was not the one scored) and the sandbox could not run it."""
    from gqlbench.cli import main

    server = serve(lambda n, body: ok("```python\nresponse_obj = GET_me_player_currently_playing(market='\ud800US')\n```"))
    out = tmp_path / "run"
    assert main(["run", "--backend", "openai", "--model", "m", "--base-url", server.url, "--ids", "test/3", "--out", str(out)]) == 0
    line = json.loads((out / "samples.jsonl").read_text())
    assert line["code"].strip() == r"response_obj = GET_me_player_currently_playing(market='\ud800US')"  # the escape text
    assert line["scores"]["exec_success"] == 1


# -- slow: a real `vllm serve` on the bundled model -----------------------------------------------


@pytest.fixture(scope="module")
def vllm_server() -> Iterator[tuple[str, Path]]:
    with vllm_serve(max_model_len=4096) as served:
        yield served


@pytest.mark.slow
def test_real_vllm_server(vllm_server: tuple[str, Path]) -> None:
    url, model = vllm_server
    served = OpenAIBackend("smollm2", base_url=url, tokenizer=str(model), concurrency=2)
    assert served.max_model_len == 4096 and served.describe()["token_counting"] == "tokenizer"
    requests = [
        GenerationRequest("capital", (Message(role="user", content="What is the capital of France?"),)),
        GenerationRequest("count", (Message(role="user", content="Count from 1 to 20, separated by commas."),)),
        GenerationRequest(
            "code", (Message(role="user", content="Write a Python function that adds two numbers."),), assistant_prefix="def add("
        ),
    ]
    config = GenerationConfig(max_new_tokens=40, stop=("7",))
    out = {c.sample_id: c for c in served.generate(requests, config)}
    assert all(c.error is None for c in out.values()), out
    assert "Paris" in out["capital"].text
    assert "7" not in out["count"].text and out["count"].finish_reason == "stop" and "6" in out["count"].text
    assert not out["code"].text.lstrip().startswith("def ")  # it continued the prefix instead of restarting
    rendered = served.render(requests[0].messages)
    assert out["capital"].tokens_in == served.count_tokens(rendered)  # our rendering is what the server saw
    served.close()


# -- n completions per request (run --samples K) ---------------------------------------------------


def choices(body: dict[str, Any], count: int | None = None) -> Reply:
    """`count` choices (default: as many as the body asks for), the usage summed over them."""
    n = body.get("n", 1) if count is None else count
    status, reply, headers = ok("x", completion_tokens=3 * n + 1)
    reply["choices"] = [
        {"index": i, "message": {"role": "assistant", "content": f"seed {body['seed']} choice {i}"}, "finish_reason": "stop"}
        for i in range(n)
    ]
    return status, reply, headers


def test_a_server_with_n_answers_k_completions_in_one_request(serve: Callable[..., FakeServer]) -> None:
    server = serve(lambda n, body: choices(body))
    client = backend(server)
    out = list(client.generate([request("a")], GenerationConfig(temperature=0.7, n=3, seed=5)))
    assert [(c.index, c.text) for c in out] == [(i, f"seed 5 choice {i}") for i in range(3)]
    assert [c.tokens_out for c in out] == [4, 3, 3] and all(c.tokens_in == 5 for c in out)  # usage split over choices
    assert [b.get("n") for b in server.bodies] == [3] and client.describe()["n_supported"] is True


@pytest.mark.parametrize("reply", ["ignores n", "refuses n"])
def test_a_server_without_n_gets_one_request_per_completion(serve: Callable[..., FakeServer], reply: str) -> None:
    def script(n: int, body: dict[str, Any]) -> Reply:
        if "n" in body:
            return choices(body, 1) if reply == "ignores n" else fail(400)
        return choices(body)

    server = serve(script)
    client = backend(server, concurrency=1)
    config = GenerationConfig(temperature=0.7, n=3, seed=5)
    out = list(client.generate([request("a"), request("b")], config))
    assert sorted((c.sample_id, c.index, c.text) for c in out) == [(s, i, f"seed {5 + i} choice 0") for s in "ab" for i in range(3)]
    assert all(c.error is None for c in out) and client.describe()["n_supported"] is False
    assert [b.get("n") for b in server.bodies] == [3, None, None, None, None, None, None]  # asked with n once only


def test_a_transient_failure_with_n_fails_every_completion(serve: Callable[..., FakeServer]) -> None:
    server = serve(lambda n, body: fail(503))
    out = list(backend(server, max_retries=0).generate([request("a")], GenerationConfig(temperature=0.7, n=2)))
    assert [c.index for c in out] == [0, 1] and all(c.error and c.error.startswith("InternalServerError") for c in out)
