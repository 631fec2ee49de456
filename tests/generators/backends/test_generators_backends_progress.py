"""Progress inside one generate call (generators/backends/progress.py), and how vLLM and transformers report it,
with engines that load no model."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import SimpleNamespace
from typing import Any

import pytest
import torch

from gqlbench.generators.backends.backend import GenerationConfig, GenerationRequest
from gqlbench.generators.backends.progress import BatchProgress, CallProgress, listening
from gqlbench.records import Message


def ask(sample_id: str) -> GenerationRequest:
    return GenerationRequest(sample_id, (Message(role="user", content=sample_id),))


class FakeLLM:
    """``vllm.LLM.generate`` as it drives ``use_tqdm`` (vllm/entrypoints/common/offline.py, vLLM 0.19): a bar around
    the prompts it renders, then one for the engine loop, whose postfix gets the speeds (tokens so far over the bar's
    ``format_dict["elapsed"]``) before ``update(n)`` for each finished request. Request i answers ``lengths[i]`` tokens;
    ``seen`` keeps what the listener had been told when each request finished."""

    def __init__(self, lengths: Sequence[int], told: list[BatchProgress]) -> None:
        self.lengths, self.told = lengths, told
        self.use_tqdm: Any = None
        self.seen: list[list[BatchProgress]] = []

    def generate(self, prompts: Sequence[Any], params: Any, *, use_tqdm: Any = True) -> list[Any]:
        self.use_tqdm = use_tqdm
        rendered: Iterable[Any] = use_tqdm(prompts, desc="Rendering prompts") if callable(use_tqdm) else prompts
        rendered = list(rendered)
        assert len(rendered) == len(prompts)  # the prompts pass through the first bar untouched
        bar = None
        if use_tqdm:
            assert callable(use_tqdm), "a run never lets vLLM draw its own bar"
            postfix = f"est. speed input: {0:.2f} toks/s, output: {0:.2f} toks/s"
            bar = use_tqdm(total=len(prompts), desc="Processed prompts", dynamic_ncols=True, postfix=postfix)
        outputs, total_in, total_out = [], 0, 0
        for i in reversed(range(len(prompts))):  # finishing out of order, as an engine may
            best = SimpleNamespace(text=f"answer {i}", token_ids=[7] * self.lengths[i], finish_reason="stop", stop_reason=None)
            output = SimpleNamespace(request_id=str(i), prompt_token_ids=prompts[i]["prompt_token_ids"], outputs=[best])
            outputs.append(output)
            if bar is not None:
                total_in += len(output.prompt_token_ids)
                in_spd = total_in / bar.format_dict["elapsed"]
                total_out += len(best.token_ids)
                out_spd = total_out / bar.format_dict["elapsed"]
                bar.postfix = f"est. speed input: {in_spd:.2f} toks/s, output: {out_spd:.2f} toks/s"
                bar.update(1)
                if bar.n == len(prompts):
                    bar.refresh()
            self.seen.append(list(self.told))
        if bar is not None:
            bar.close()
        return sorted(outputs, key=lambda o: int(o.request_id))


def fake_vllm(llm: FakeLLM) -> Any:
    pytest.importorskip("vllm")  # _generate_ids builds vLLM's SamplingParams and TokensPrompt
    from gqlbench.generators.backends.vllm_backend import VLLMBackend

    backend = VLLMBackend.__new__(VLLMBackend)  # no engine: the fake stands in for vllm.LLM
    backend.llm, backend.progress, backend.warm_prefixes, backend.on_progress = llm, False, False, None
    return backend


def test_vllm_tells_each_finished_request_and_its_tokens_while_the_batch_runs() -> None:
    told: list[BatchProgress] = []
    lengths = [5, 11, 17, 23]
    llm = FakeLLM(lengths, told)
    backend = fake_vllm(llm)
    batch = [(ask(f"test/{i}"), [1] * (10 + i)) for i in range(4)]
    with listening(backend, told.append):
        completions = list(backend._generate_ids(batch, GenerationConfig(max_new_tokens=32)))
    assert backend.on_progress is None  # set back: later library use shows nothing
    assert [c.tokens_out for c in completions] == lengths
    # while the engine ran: one more request finished each time, with the tokens of the requests finished so far
    during = [(p.done, p.total, p.tokens_out) for p in llm.seen[-1]]
    assert during == [(0, 4, 0), (1, 4, 23), (2, 4, 40), (3, 4, 51), (4, 4, 56)]
    assert [len(seen) for seen in llm.seen] == [2, 3, 4, 5]  # told before the next request finished, not at the end
    assert (told[-1].done, told[-1].tokens_out) == (4, 56)  # the exact count once the call returned
    assert len({p.started for p in told}) == 1


def test_vllm_with_no_one_listening_shows_nothing() -> None:
    llm = FakeLLM([3], [])
    backend = fake_vllm(llm)
    list(backend._generate_ids([(ask("test/0"), [1, 2])], GenerationConfig()))
    assert llm.use_tqdm is False


def test_a_failed_engine_call_still_ends_the_batch() -> None:
    told: list[BatchProgress] = []

    class Broken(FakeLLM):
        def generate(self, prompts: Sequence[Any], params: Any, *, use_tqdm: Any = True) -> list[Any]:
            raise RuntimeError("engine died")

    backend = fake_vllm(Broken([], told))
    backend.on_progress = told.append
    completions = list(backend._generate_ids([(ask("test/0"), [1]), (ask("test/1"), [2])], GenerationConfig()))
    assert all(c.error for c in completions) and (told[-1].done, told[-1].total) == (2, 2)


class FakeModel:
    """``model.generate`` for two prompts: the prompts to the streamer, then one step at a time; row 0 stops at EOS
    (id 2) after 2 tokens, row 1 runs 4 tokens. Pad is 0."""

    steps = [[5, 6], [2, 7], [0, 8], [0, 9]]

    def __init__(self) -> None:
        self.told_at_step: list[int] = []

    def generate(self, input_ids: torch.Tensor, streamer: Any = None, **_: Any) -> torch.Tensor:
        if streamer is not None:
            streamer.put(input_ids)
        for step in self.steps:
            if streamer is not None:
                streamer.put(torch.tensor(step))
                self.told_at_step.append(streamer.call.tokens_out)
        if streamer is not None:
            streamer.end()
        return torch.cat([input_ids, torch.tensor(self.steps).T], dim=1)


def fake_hf(model: FakeModel, batch_size: int) -> Any:
    from gqlbench.generators.backends.hf_backend import HFBackend

    backend = HFBackend.__new__(HFBackend)  # no weights: the fake stands in for the model
    backend.model, backend.batch_size, backend.device = model, batch_size, torch.device("cpu")
    backend._eos_ids, backend._pad_id, backend.on_progress = {2}, 0, None
    backend.tokenizer = SimpleNamespace(decode=lambda ids, skip_special_tokens=True: "x" * len(ids))
    return backend


def test_transformers_tells_each_step_then_each_finished_request() -> None:
    told: list[BatchProgress] = []
    model = FakeModel()
    backend = fake_hf(model, batch_size=2)
    batch = [(ask("test/0"), [1, 1]), (ask("test/1"), [1, 1, 1])]
    with listening(backend, told.append):
        completions = list(backend._batches(batch, GenerationConfig(max_new_tokens=4)))
    assert sorted(c.tokens_out for c in completions) == [2, 4]
    assert model.told_at_step == [2, 4, 5, 6]  # both rows, then row 0's EOS and row 1, then row 1 alone
    assert [(p.done, p.tokens_out) for p in told] == [(0, 0), (0, 2), (0, 4), (0, 5), (0, 6), (2, 6)]


def test_transformers_counts_requests_across_its_batches() -> None:
    told: list[BatchProgress] = []
    backend = fake_hf(FakeModel(), batch_size=1)
    backend.model.steps = [[5], [2], [0], [0]]
    backend.on_progress = told.append
    list(backend._batches([(ask("test/0"), [1]), (ask("test/1"), [1, 1])], GenerationConfig(max_new_tokens=4)))
    finished = [(p.done, p.total, p.tokens_out) for before, p in zip(told, told[1:], strict=False) if p.done > before.done]
    assert finished == [(1, 2, 2), (2, 2, 4)]  # one request per model.generate, each told when it ends
    assert (1, 2, 3) in [(p.done, p.total, p.tokens_out) for p in told]  # the second's steps add to the first's tokens


def test_a_backend_without_progress_is_left_alone() -> None:
    plain = SimpleNamespace()
    with listening(plain, lambda p: None) as reports:
        assert reports is False and not hasattr(plain, "on_progress")
    reporting = SimpleNamespace(on_progress=None)
    with listening(reporting, None) as reports:
        assert reports is False and reporting.on_progress is None


def test_call_progress_counts_and_is_silent_without_a_listener() -> None:
    ticks = iter(range(100))
    told: list[BatchProgress] = []
    call = CallProgress(told.append, 3, clock=lambda: float(next(ticks)))
    call.generated(4)
    call.finished(2, 1)
    call.finished(5)  # never more than the call's requests
    assert [(p.done, p.tokens_out) for p in told] == [(0, 0), (0, 4), (2, 5), (3, 5)]
    assert told[-1].tokens_per_s == pytest.approx(5 / told[-1].elapsed_s)
    quiet = CallProgress(None, 2)
    quiet.finished(2, 9)
    assert (quiet.done, quiet.tokens_out) == (2, 9)
