"""Few-shot chain-of-thought prompting, the paper's main setting.

The conversation is: an instruction block (system), then for each example a
user turn with the task and an assistant turn with a worked answer, then the
evaluated task. A worked answer names the calls in order and what flows
between them (derived from the gold code), then gives the gold code in a
```python block, which is the shape the model is asked to answer in.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence

from gqlbench.generators.backends.backend import Backend, GenerationConfig, GenerationRequest
from gqlbench.generators.budget import FULL_DETAIL, Detail
from gqlbench.generators.prompts import NEXT_TURN_STOP, PAPER_VIEW, Shown, abstain_rule, describe_calls, gold_calls, render_task
from gqlbench.records import Completion, Message, Sample

__all__ = [
    "COT_INSTRUCTIONS",
    "CLOSING_FENCE",
    "MAX_CONTINUATIONS",
    "cot_answer",
    "cot_instructions",
    "cot_messages",
    "cot_stop",
    "cot_generate",
    "CONTINUED",
]

# The end of a fenced block: a fence alone on its line. A bare opening fence
# (``` with no language) looks the same; cot_generate continues the answer when
# this stop fired on one.
CLOSING_FENCE = "\n```\n"
MAX_CONTINUATIONS = 3  # continuation requests per completion, should a model open several bare blocks
CONTINUED = "continued: the stop sequence had ended the answer on an opening code fence"
_FENCE_LINE = re.compile(r"^[ \t]*```", re.MULTILINE)  # as gqlbench.metrics.extract_code reads fences

_COT_TEMPLATE = """\
You write Python code that fulfils a user's request by calling REST API functions in sequence.
{given}
Rules:
- Call only the given functions, with keyword arguments.
- Read fields of a response {fields}, e.g. response_obj.results[0].id.
- Store a response in a variable (response_obj, response_obj1, ...) when a later call needs a value from it.
- Do not import modules, define functions or print.
First reason step by step: which calls are needed, in which order, and which value flows from one response into the next call.
Then write the whole call sequence in one ```python code block."""
COT_INSTRUCTIONS = _COT_TEMPLATE.format(given=PAPER_VIEW.given(), fields=PAPER_VIEW.fields())


def cot_answer(sample: Sample) -> str:
    """The worked answer for an example: the call plan, then the gold code."""
    steps = describe_calls(gold_calls(sample.gold_code))
    plan = "\n".join(steps) if steps else "No function call is needed."
    n = len(steps)
    lead = f"The request needs {n} call{'s' if n != 1 else ''}:"
    return f"{lead}\n{plan}\n\n```python\n{sample.gold_code.strip()}\n```"


def cot_instructions(abstain: bool = False, shown: Shown = PAPER_VIEW) -> str:
    """The system block, saying what ``shown`` shows; ``abstain`` (relevance runs) adds how to decline a request the functions cannot do."""
    instructions = _COT_TEMPLATE.format(given=shown.given(), fields=shown.fields())
    if not abstain:
        return instructions
    rule = abstain_rule("a ```python code block whose only line is")
    return instructions.replace("\nFirst reason", f"\n- {rule}\nFirst reason", 1)


def cot_messages(
    sample: Sample, shots: Sequence[Sample], detail: Detail = FULL_DETAIL, *, abstain: bool = False, shown: Shown = PAPER_VIEW
) -> list[Message]:
    """The chat messages of a CoT prompt (the context budget decides ``shots`` and ``detail``; ``shown`` what the run shows)."""
    messages = [Message(role="system", content=cot_instructions(abstain, shown))]
    for shot in shots:
        messages.append(Message(role="user", content=render_task(shot, schema=shown.schema)))
        messages.append(Message(role="assistant", content=cot_answer(shot)))
    task = render_task(sample, descriptions=detail.descriptions, parameter_descriptions=detail.parameter_descriptions, schema=shown.schema)
    messages.append(Message(role="user", content=task))
    return messages


def cot_stop() -> tuple[str, ...]:
    """Stop once the answer's code block has closed, or when a model starts inventing the next task.

    Only code blocks are scored, and the answer is asked for in one block, so
    whatever follows its closing fence is never used: generating it was the
    main waste on CPU (4 of the first 16 test samples ran on to the 512-token
    limit). Like every stop sequence the fence itself is not kept; the scored
    program is unchanged because a final block left open runs to the end of
    the text (:func:`gqlbench.metrics.extract_code`). A bare ``` fence that
    opens a block matches too: :func:`cot_generate` continues such an answer.
    """
    return (NEXT_TURN_STOP, CLOSING_FENCE)


def _continuation(completion: Completion) -> str | None:
    """The assistant text to continue from when the stop ended ``completion`` on an opening fence (None: it is done).

    Two ways a bare opening fence stops an answer: the backend reports that
    the fence stop fired while no block was open (it opened one, and was cut
    from the text); or the text ends right after an opening fence with nothing
    in the block (transformers matches stop strings across the prompt's last
    newline, so an answer starting with ``` stops at once, the fence kept).
    """
    if completion.error or completion.finish_reason != "stop":
        return None
    text = completion.text
    fences = _FENCE_LINE.findall(text)
    if len(fences) % 2 == 1 and _FENCE_LINE.match(text.rstrip().rpartition("\n")[2]):
        return text if text.endswith("\n") else text + "\n"
    if completion.stop == CLOSING_FENCE and len(fences) % 2 == 0:
        return text + CLOSING_FENCE
    return None


def _unclosed(completion: Completion) -> str | None:
    """The note for a completion cut by its token budget inside a code block (None: it is not)."""
    if completion.error or completion.finish_reason != "length" or len(_FENCE_LINE.findall(completion.text)) % 2 == 0:
        return None
    return f"ends inside an unclosed code block: the token budget ran out after {completion.tokens_out} tokens (--max-new-tokens)"


def _noted(completion: Completion, note: str | None) -> Completion:
    if not note or note in (completion.note or ""):
        return completion
    return completion.model_copy(update={"note": f"{completion.note}; {note}" if completion.note else note})


def cot_generate(backend: Backend, requests: Sequence[GenerationRequest], config: GenerationConfig) -> Iterator[Completion]:
    """Completions of CoT requests, each continued while the fence stop fired on an opening fence.

    A continuation is a request with the answer so far as the assistant text
    (``assistant_prefix``, which every backend continues), seed ``seed +
    index`` and the tokens left of the budget; its text is appended, tokens
    and latency add up, and the completion's ``note`` says it was continued. A
    completion cut by its budget inside a block says so in its ``note``.
    """
    by_id = {request.sample_id: request for request in requests}
    waiting: list[tuple[Completion, str]] = []
    for completion in backend.generate(requests, config):
        prefix = _continuation(completion)
        if prefix is None:
            yield _noted(completion, _unclosed(completion))
        else:
            waiting.append((completion, prefix))
    for completion, prefix in waiting:  # rare, so one at a time
        yield _continued(backend, by_id[completion.sample_id], config, completion, prefix)


def _continued(backend: Backend, request: GenerationRequest, config: GenerationConfig, completion: Completion, prefix: str) -> Completion:
    for _ in range(MAX_CONTINUATIONS):
        left = config.max_new_tokens - completion.tokens_out
        if left <= 0:
            return _noted(completion.model_copy(update={"text": prefix}), "stopped on an opening code fence with no tokens left")
        asked = dataclasses.replace(config, n=1, seed=config.seed + completion.index, max_new_tokens=left)
        answers = list(backend.generate([dataclasses.replace(request, assistant_prefix=prefix)], asked))
        more = answers[0] if answers else Completion(sample_id=request.sample_id, error="no completion for a continuation")
        completion = Completion.model_validate(
            {  # validated again: the joined text is bounded like any other
                **more.model_dump(),
                "text": prefix + more.text,
                "tokens_in": completion.tokens_in,
                "tokens_out": completion.tokens_out + more.tokens_out,
                "latency_s": completion.latency_s + more.latency_s,
                "index": completion.index,
                "note": _noted(completion, CONTINUED).note,
            }
        )
        following = _continuation(completion)
        if following is None:
            return _noted(completion, _unclosed(completion))
        prefix = following
    return _noted(completion, f"still on an opening code fence after {MAX_CONTINUATIONS} continuations")
