"""The transformers backend on the bundled model, on CPU (slow: loads the real model)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import Backend, GenerationConfig, GenerationRequest
from gqlbench.generators.backends.cpu import choose_dtype, cpu_flags
from gqlbench.generators.backends.factory import make_backend
from gqlbench.generators.backends.progress import BatchProgress, listening
from gqlbench.records import Message

pytestmark = pytest.mark.slow


def ask(sample_id: str, content: str, prefix: str = "") -> GenerationRequest:
    return GenerationRequest(sample_id, (Message(role="user", content=content),), prefix)


@pytest.fixture(scope="module")
def hf() -> Iterator[Backend]:
    backend = make_backend("hf", "smollm2")
    yield backend
    backend.close()


def test_answers_stops_and_continues_prefixes(hf: Backend) -> None:
    assert isinstance(hf, Backend) and hf.name == "hf"
    requests = [
        ask("capital", "What is the capital of France?"),
        ask("count", "Count from 1 to 20, separated by commas."),
        ask("code", "Write a Python function that adds two numbers.", prefix="def add("),
    ]
    out = {c.sample_id: c for c in hf.generate(requests, GenerationConfig(max_new_tokens=40, stop=("7",)))}
    assert set(out) == {"capital", "count", "code"} and all(c.error is None for c in out.values())
    assert "Paris" in out["capital"].text and out["capital"].finish_reason == "stop"  # ended on EOS
    assert "7" not in out["count"].text and "6" in out["count"].text and out["count"].finish_reason == "stop"
    assert not out["code"].text.lstrip().startswith("def ")  # it continued the prefix
    for request in requests:
        completion = out[request.sample_id]
        assert completion.tokens_in == hf.count_tokens(hf.render(request.messages, request.assistant_prefix))
        assert 0 < completion.tokens_out <= 40 and completion.latency_s > 0


def test_progress_is_told_each_step_and_each_finished_request(hf: Backend) -> None:
    told: list[BatchProgress] = []
    requests = [ask("a", "Count from 1 to 20, separated by commas."), ask("b", "Name three colours.")]
    with listening(hf, told.append):
        out = list(hf.generate(requests, GenerationConfig(max_new_tokens=12)))
    steps = [p.tokens_out for p in told if p.done == 0]
    assert len(steps) > 2 and steps == sorted(steps)  # tokens move before the first request is done
    assert (told[-1].done, told[-1].total) == (2, 2) and told[-1].tokens_out == sum(c.tokens_out for c in out)


def test_cot_stop_ends_generation_at_the_closing_fence(hf: Backend, check_cot_stop: Callable[[Backend], None]) -> None:
    check_cot_stop(hf)


def test_length_limit_and_overlong_prompt(hf: Backend) -> None:
    (cut,) = hf.generate([ask("long", "Write a long story about a dragon.")], GenerationConfig(max_new_tokens=5))
    assert cut.tokens_out == 5 and cut.finish_reason == "length"
    huge = ask("huge", "word " * hf.max_model_len)
    (refused,) = hf.generate([huge], GenerationConfig(max_new_tokens=8))
    assert refused.error and "exceeds max_model_len" in refused.error and refused.text == ""


def test_describe_records_what_reproduces_the_run(hf: Backend) -> None:
    info = hf.describe()
    assert info["weights_sha256"].startswith("sha256:") and info["chat_template_sha256"].startswith("sha256:")
    assert info["dtype"] == choose_dtype(cpu_flags()).dtype == info["dtype_choice"]["dtype"]  # by this CPU
    assert info["max_model_len"] == 8192
    assert {"torch", "transformers"} <= set(info["versions"])


def test_cpu_half_precision_batching_is_refused() -> None:
    with pytest.raises(GqlbenchError, match="batch_size=1, dtype=float32"):
        make_backend("hf", "smollm2", model_args={"batch_size": 4, "dtype": "bfloat16"})
    with pytest.raises(GqlbenchError, match="unknown model arg"):
        make_backend("hf", "smollm2", model_args={"tensor_parallel_size": 2})


def test_float32_batches_match_one_at_a_time() -> None:
    """Left padding must not change greedy answers (checked in float32, where CPU batching is allowed)."""
    requests = [ask("a", "What is the capital of France?"), ask("b", "Name three colors of the rainbow.")]
    config = GenerationConfig(max_new_tokens=16)
    batched = make_backend("hf", "smollm2", model_args={"dtype": "float32", "batch_size": 2})
    together = {c.sample_id: c.text for c in batched.generate(requests, config)}
    batched.batch_size = 1
    alone = {c.sample_id: c.text for c in batched.generate(requests, config)}
    batched.close()
    assert together == alone


@pytest.mark.parametrize("flags, expected", [(frozenset({"avx2"}), "float32"), (frozenset({"avx2", "avx512f", "avx512_bf16"}), "bfloat16")])
def test_dtype_follows_the_cpu(monkeypatch: pytest.MonkeyPatch, flags: frozenset[str], expected: str) -> None:
    from gqlbench.generators.backends import cpu

    monkeypatch.setattr(cpu, "cpu_flags", lambda: flags)
    backend = make_backend("hf", "smollm2")
    try:
        info = backend.describe()
        assert info["dtype"] == expected and info["dtype_choice"]["dtype"] == expected
    finally:
        backend.close()
