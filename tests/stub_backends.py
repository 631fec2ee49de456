"""Test doubles for the Backend protocol (tests only; never a user-facing backend).

Selectable from the CLI as ``--backend tests/stub_backends.py:StubBackend``.
The stub answers with the sample's gold program (so the scoring path is
exercised with known answers), counts tokens as whitespace-separated words,
and can be slowed down or made to fail through model args:

- ``delay``: seconds per generated sample;
- ``fail``: sample ids joined by ``+`` whose generation fails;
- ``fail_while``: a file path; while it exists every generation fails;
- ``max_model_len``: the context window in words;
- ``log``: a file that gets one line per ``generate`` call (its batch's ids);
- ``surrogate``: any non-empty value puts a lone surrogate (as a JSON ``"\\ud800"``
  escape would decode to) into the prose around the code;
- ``noise``: any non-empty value makes loading chatter like a real engine: a line on
  stdout, a Python warning, and a line on stderr from a child process;
- ``noisy_close``: any non-empty value makes closing chatter like vLLM's shutdown: a WARNING through
  ``logging`` and a line on stderr;
- ``broken``: any non-empty value makes loading fail with a GqlbenchError, as an engine error;
- ``obfuscate``: answer in the names ``--obfuscate <value>`` shows (with ``functions`` and ``seed`` as the run's),
  as a model that read the prompt would.
- ``unoffered``: with ``obfuscate``, any non-empty value appends a call of the first (by real name) domain
  function the prompt did not offer, in its opaque name (what a model copying a few-shot example may write);
- ``loads``: a file that gets one line per construction (an engine load);
- ``decline``: any non-empty value answers ``raise NotSupported(...)`` when the prompt does not offer
  every function the gold program calls (a relevance run's impossible case), as a careful model would.
- ``wrong``: ``ID@SEED`` or ``@SEED`` tokens joined by ``+``: a completion of that sample (any sample) drawn
  with that seed answers prose without a program (scored 0), so repeated sampling has something to count;
- ``n``: any non-empty value makes the stub honour ``GenerationConfig.n`` (``supports_n``), completion j of a
  request drawn with seed ``seed + j``; without it the run asks once per completion index.
- ``data``: the benchmark folder the run reads (its ``--data``), whose gold the stub answers [default: the bundled one].
- ``engine``: any non-empty value makes a batch finish whole before any completion is handed over, as vLLM's
  engine does, telling each finished request to ``on_progress`` (what a run's bar shows inside a batch);
- ``guarded``: any non-empty value waits out ``delay`` inside ``except Exception`` that records the exception as the
  request's error, as the real backends guard their engine calls (a signal must pass through it).

An impossible relevance case (``test-impossible/3``) is answered from its sample's (``test/3``) gold.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from gqlbench.dataset import get_sample
from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import GenerationConfig, GenerationRequest
from gqlbench.generators.backends.progress import CallProgress, ProgressListener
from gqlbench.records import Completion, Message

STUB = f"{Path(__file__).resolve()}:StubBackend"
"""The ``--backend`` value that selects :class:`StubBackend`, wherever the tests are run from."""
STUB_RUN = ("run", "--model", "stub", "--backend", STUB)
"""``gqlbench run`` on the stub backend: the arguments every stub run starts with."""
STUB_PARAPHRASER = f"{Path(__file__).resolve()}:StubParaphraser"
"""The ``--paraphrase-backend`` value that selects :class:`StubParaphraser`."""
STUB_VERIFIER = f"{Path(__file__).resolve()}:StubVerifier"
"""The ``--verify-backend`` value that selects :class:`StubVerifier`."""


class StubBackend:
    name = "stub"

    def __init__(
        self,
        model: str = "stub",
        *,
        max_model_len: int = 1_000_000,
        delay: float = 0.0,
        fail: str = "",
        fail_while: str = "",
        log: str = "",
        surrogate: str = "",
        noise: str = "",
        broken: str = "",
        obfuscate: str = "",
        functions: str = "gold",
        seed: int = 0,
        loads: str = "",
        decline: str = "",
        wrong: str = "",
        n: str = "",
        noisy_close: str = "",
        unoffered: str = "",
        guarded: str = "",
        data: str = "",
        engine: str = "",
    ) -> None:
        if loads:
            with open(loads, "a", encoding="utf-8") as fh:
                fh.write(f"{model}\n")
        if noise:
            print("STUB-ENGINE stdout chatter", flush=True)
            warnings.warn("STUB-ENGINE python warning", stacklevel=1)
            subprocess.run([sys.executable, "-c", "import sys; sys.stderr.write('STUB-ENGINE child stderr\\n')"], check=True)
        if broken:
            print("STUB-ENGINE: the details of the failure", file=sys.stderr)  # a real engine logs them first
            raise GqlbenchError("stub engine failed to start")
        self.model = model
        self.max_model_len = int(max_model_len)
        self.delay = float(delay)
        self.fail = {i for i in str(fail).split("+") if i}
        self.fail_while = fail_while
        self.log = log
        self.surrogate = "\ud800" if surrogate else ""
        self.decline = bool(decline)
        self.wrong = {w for w in str(wrong).split("+") if w}
        self.supports_n = bool(n)
        self.closed = False
        self.noisy_close = bool(noisy_close)
        self.shown = (obfuscate, functions, int(seed)) if obfuscate else None
        self.unoffered = bool(unoffered)
        self.guarded = bool(guarded)
        self.data = data or None
        self.engine = bool(engine)
        self.on_progress: ProgressListener | None = None

    def render(self, messages: Sequence[Message], assistant_prefix: str = "") -> str:
        return "".join(f"<{m.role}> {m.content}\n" for m in messages) + "<assistant> " + assistant_prefix

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def answer(self, request: GenerationRequest) -> str:
        split, _, index = request.sample_id.partition("/")
        sample = get_sample(f"{split.removesuffix('-impossible')}/{index}", self.data)
        offered = request.messages[-1].content
        declines = self.decline and any(f'"name": "{f.name}"' not in offered for f in sample.function_specs if f.name in sample.gold_code)
        if self.shown is not None:
            from gqlbench.generators.present import PromptSetting, present

            obfuscate, functions, seed = self.shown
            presented = present(sample, PromptSetting(functions, obfuscate), seed)
            sample = presented.sample
            if self.unoffered:  # a name of the domain's numbering this prompt did not offer, as a few-shot example shows it
                extra = presented.names.others[min(presented.names.others)]
                sample = sample.model_copy(update={"gold_code": f"{sample.gold_code.rstrip()}\nextra = {extra}()\n"})
        gold = sample.gold_code.strip()
        if declines:
            gold = 'raise NotSupported("a needed function is not offered")'
            if request.assistant_prefix:
                return f" A function is missing.\nAction: {gold}"
        if not request.assistant_prefix:
            return f"I make the calls in order{self.surrogate}.\n```python\n{gold}\n```"
        done = request.assistant_prefix.count("\nAction:") + request.assistant_prefix.startswith("Action:")
        lines = gold.splitlines()
        if done < len(lines):
            return f" I call the next function.\nAction: {lines[done]}\nObservation: invented by the model"
        return " All done.\nAction: finish"

    def generate(self, requests: Sequence[GenerationRequest], config: GenerationConfig) -> Iterator[Completion]:
        if self.log:
            with open(self.log, "a", encoding="utf-8") as fh:
                sampling = f" seed={config.seed} n={config.n}" if self.wrong or self.supports_n else ""
                fh.write(" ".join(r.sample_id for r in requests) + sampling + "\n")
        if not self.engine:
            for request in requests:
                yield from self._request(request, config)
            return
        call = CallProgress(self.on_progress, len(requests))
        finished: list[Completion] = []
        for request in requests:
            answers = list(self._request(request, config))
            call.finished(1, sum(c.tokens_out or 0 for c in answers))
            finished += answers
        yield from finished

    def _request(self, request: GenerationRequest, config: GenerationConfig) -> Iterator[Completion]:
        """The completions of one request."""
        if self.delay and self.guarded:
            try:
                time.sleep(self.delay)
            except Exception as exc:  # the real backends' guard around an engine call
                yield Completion(sample_id=request.sample_id, error=f"{type(exc).__name__}: {exc}")
                return
        elif self.delay:
            time.sleep(self.delay)
        prompt_tokens = self.count_tokens(self.render(request.messages, request.assistant_prefix))
        if request.sample_id in self.fail or (self.fail_while and Path(self.fail_while).exists()):
            yield Completion(sample_id=request.sample_id, tokens_in=prompt_tokens, error="stub failure")
            return
        for index in range(config.n if self.supports_n else 1):
            seed = config.seed + index
            wrong = {f"{request.sample_id}@{seed}", f"@{seed}"} & self.wrong
            text = "I do not know how to answer this." if wrong else self.answer(request)
            yield Completion(
                sample_id=request.sample_id,
                text=text,
                tokens_in=prompt_tokens,
                tokens_out=self.count_tokens(text),
                latency_s=self.delay,
                finish_reason="stop",
                index=index,
            )

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "max_model_len": self.max_model_len}

    def close(self) -> None:
        self.closed = True
        if self.noisy_close:
            logging.getLogger("stub.engine").warning("STUB-ENGINE shutdown warning")
            print("STUB-ENGINE shutdown stderr", file=sys.stderr, flush=True)


class StubParaphraser(StubBackend):
    """A paraphrasing model for ``samples generate --paraphrase-model``: it writes a numbered request stating the literals
    its prompt lists; every ``drop``-th answer (model arg, default 2; 0: never) states none of them. ``log`` gets one
    JSON line per request: the request it wrote and the program its prompt showed (what :class:`StubVerifier` reads)."""

    name = "stub-paraphraser"

    def __init__(self, model: str = "stub", *, drop: int = 2, log: str = "", **args: Any) -> None:
        super().__init__(model, **args)
        self.drop = int(drop)
        self.asked = 0
        self.answers_log = log

    def generate(self, requests: Sequence[GenerationRequest], config: GenerationConfig) -> Iterator[Completion]:
        for request in requests:
            self.asked += 1
            prompt = request.messages[-1].content
            code = prompt.split("```python\n", 1)[1].split("\n```", 1)[0]
            listed = prompt.split("State these values exactly as written: ", 1)[1].split(".\n", 1)[0]
            values = "that one" if self.drop and self.asked % self.drop == 0 or listed == "(none)" else listed
            answer = f"Hi! Number {self.asked}, please: {values}. Thanks."
            if self.answers_log:
                with open(self.answers_log, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps({"request": answer, "code": code}) + "\n")
            yield Completion(sample_id=request.sample_id, text=f"Request: {answer}\n", finish_reason="stop")


class StubVerifier(StubBackend):
    """A verifying model for ``samples generate --verify-model``: it answers a request :class:`StubParaphraser` wrote
    (its ``log``, model arg ``answers``) with the program the paraphraser was shown, except every ``miss``-th answer
    (0: never), which writes a program that calls nothing; a request it does not know gets prose without code."""

    name = "stub-verifier"

    def __init__(self, model: str = "stub", *, answers: str = "", miss: int = 0, **args: Any) -> None:
        super().__init__(model, **args)
        self.answers = answers
        self.miss = int(miss)
        self.asked = 0

    def answer(self, request: GenerationRequest) -> str:
        self.asked += 1
        task = request.messages[-1].content
        known = [json.loads(line) for line in Path(self.answers).read_text(encoding="utf-8").splitlines()] if self.answers else []
        code = next((k["code"] for k in reversed(known) if k["request"] in task), None)
        if code is None:
            return "I cannot tell what to call."
        if self.miss and self.asked % self.miss == 0:
            code = "nothing = 1"
        return f"The calls follow.\n```python\n{code}\n```"
