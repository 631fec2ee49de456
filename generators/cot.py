"""Few-shot chain-of-thought prompting, the paper's main setting.

The conversation is: an instruction block (system), then for each example a
user turn with the task and an assistant turn with a worked answer, then the
evaluated task. A worked answer names the calls in order and what flows
between them (derived from the gold code), then gives the gold code in a
```python block, which is the shape the model is asked to answer in.
"""

from __future__ import annotations

from collections.abc import Sequence

from gqlbench.generators.budget import FULL_DETAIL, Detail
from gqlbench.generators.prompts import NEXT_TURN_STOP, PAPER_VIEW, Shown, abstain_rule, describe_calls, gold_calls, render_task
from gqlbench.records import Message, Sample

__all__ = ["COT_INSTRUCTIONS", "CLOSING_FENCE", "cot_answer", "cot_instructions", "cot_messages", "cot_stop"]

# The end of a fenced block: a fence alone on its line. An opening fence carries
# the language (```python), so this does not match it.
CLOSING_FENCE = "\n```\n"

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
    task = render_task(sample, descriptions=detail.descriptions, parameter_descriptions=detail.parameter_descriptions,
                       schema=shown.schema)
    messages.append(Message(role="user", content=task))
    return messages


def cot_stop() -> tuple[str, ...]:
    """Stop once the answer's code block has closed, or when a model starts inventing the next task.

    Only code blocks are scored, and the answer is asked for in one block, so
    whatever follows its closing fence is never used: generating it was the
    main waste on CPU (4 of the first 16 test samples ran on to the 512-token
    limit). Like every stop sequence the fence itself is not kept; the scored
    program is unchanged because a final block left open runs to the end of
    the text (:func:`gqlbench.metrics.extract_code`). A model that opens its
    block with a bare ``` fence (no language) would be stopped there; the
    instructions and every worked example open with ```python.
    """
    return (NEXT_TURN_STOP, CLOSING_FENCE)
