"""Paraphrasing utterances with a model, keeping a paraphrase only if every literal survives.

A template utterance is stiff; a model can say the same thing in other
words. It can also drop or change a name, which would turn a verified
sample into one whose gold no reader could write, so a paraphrase is kept
only when :func:`gqlbench.synthetic.generate.missing_literals` finds every
literal of the program in it; otherwise the sample keeps its template text.
Any backend the CLI knows can paraphrase (``--paraphrase-model``).
"""

from __future__ import annotations

from collections.abc import Callable

from gqlbench.generators.backends.backend import Backend, GenerationConfig, GenerationRequest
from gqlbench.records import Message

__all__ = ["PROMPT", "Paraphrase", "backend_paraphraser", "first_line"]

Paraphrase = Callable[[str], "str | None"]
"""Text in, its paraphrase out (None when the model gave nothing usable)."""

PROMPT = (
    "Rewrite the following request in your own words, the way a person would type it to an assistant. "
    "Keep every name and title in double quotes, and every number, exactly as written. "
    "Answer with the rewritten request only, on one line.\n\nRequest: {text}"
)
MAX_NEW_TOKENS = 160


def first_line(text: str) -> str:
    """The paraphrase in a completion: its first non-empty line, without a ``Request:`` label or wrapping quotes."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    for label in ("Rewritten request:", "Request:", "Paraphrase:"):
        if line.lower().startswith(label.lower()):
            line = line[len(label) :].strip()
    if len(line) > 1 and line[0] == line[-1] and line[0] in "'`" or line.startswith("“") and line.endswith("”"):
        line = line[1:-1].strip()
    return line


def backend_paraphraser(backend: Backend, seed: int = 0) -> Paraphrase:
    """A :data:`Paraphrase` that asks ``backend`` (greedy decoding, ``seed``) once per utterance."""
    config = GenerationConfig(max_new_tokens=MAX_NEW_TOKENS, seed=seed)

    def paraphrase(text: str) -> str | None:
        request = GenerationRequest(sample_id="paraphrase/0", messages=(Message(role="user", content=PROMPT.format(text=text)),))
        for completion in backend.generate([request], config):
            if completion.error is None and completion.text:
                return first_line(completion.text) or None
        return None

    return paraphrase
