"""Prompt parts: the task block matches the dataset, worked answers come from gold code."""

from __future__ import annotations

import json

import pytest

from gqlbench.dataset import get_sample, load_errata, load_samples, load_split
from gqlbench.generators.budget import Detail
from gqlbench.generators.cot import COT_INSTRUCTIONS, cot_answer, cot_messages
from gqlbench.generators.prompts import describe_calls, gold_calls, render_signatures, render_task


def test_render_task_reproduces_the_dataset_input_for_every_sample() -> None:
    samples = load_samples()
    assert len(samples) == 155
    for sample in samples:
        assert render_task(sample) == sample.input, sample.id


def test_stripping_descriptions_removes_them_and_keeps_names_and_parameters() -> None:
    sample = get_sample("test/0")
    full = json.loads(render_signatures(sample.function_specs))
    bare = json.loads(render_signatures(sample.function_specs, descriptions=False, parameter_descriptions=False))
    assert [f["name"] for f in bare] == [f["name"] for f in full]
    assert all("description" not in f for f in bare)
    for f_full, f_bare in zip(full, bare, strict=True):
        assert list(f_bare["parameters"]["properties"]) == list(f_full["parameters"]["properties"])
        assert all("description" not in p for p in f_bare["parameters"]["properties"].values())
    assert len(render_task(sample, descriptions=False)) < len(render_task(sample))


def test_gold_calls_reads_calls_targets_and_dataflow() -> None:
    code = 'r = GET_a(q="x")\nr1 = GET_b(id=r.items[0].id)\nPUT_c(ids=",".join([i.id for i in r1.items]), k=r.n)\n'
    calls = gold_calls(code)
    assert [c.function for c in calls] == ["GET_a", "GET_b", "PUT_c"]
    assert [c.target for c in calls] == ["r", "r1", None]
    assert [c.sources for c in calls] == [(), ("r",), ("r", "r1")]
    assert calls[1].line == "r1 = GET_b(id=r.items[0].id)"


def test_describe_calls_names_each_call_and_where_its_values_come_from() -> None:
    code = 'response_obj = GET_a(q="x")\nresponse_obj1 = GET_b(id=response_obj.items[0].id)\nPUT_c(v=response_obj1.x)\n'
    sentences = describe_calls(gold_calls(code))
    assert sentences == [
        '1. Call GET_a with q="x"; keep the response as response_obj.',
        "2. Call GET_b with id taken from response_obj.items[0].id; keep the response as response_obj1.",
        "3. Call PUT_c with v taken from response_obj1.x.",
    ]


def test_a_variable_is_not_mistaken_for_another_with_the_same_prefix() -> None:
    code = (
        "response_obj = GET_a()\nresponse_obj1 = GET_b()\n"
        "PUT_c(v=',' .join([x.id for x in response_obj1.items if x.name == 'some long name here'][:3]))\n"
    )
    last = describe_calls(gold_calls(code))[-1]
    assert "built from response_obj1" in last and "response_obj," not in last


def test_cot_answer_ends_with_the_gold_code_in_a_python_block() -> None:
    errata = load_errata()
    for sample in load_samples(splits=("train",)):
        if sample.id in errata.invalid_gold:
            with pytest.raises(SyntaxError):
                cot_answer(sample)
            continue
        answer = cot_answer(sample)
        assert answer.endswith(f"```python\n{sample.gold_code.strip()}\n```")
        n = len(gold_calls(sample.gold_code))
        assert all(f"{i}. Call " in answer for i in range(1, n + 1))


def test_cot_messages_alternate_examples_then_the_task() -> None:
    sample, shots = get_sample("test/4"), [get_sample("train/3"), get_sample("train/7")]
    messages = cot_messages(sample, shots)
    assert [m.role for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert messages[0].content == COT_INSTRUCTIONS
    assert messages[1].content == shots[0].input and messages[3].content == shots[1].input
    assert messages[-1].content == sample.input
    stripped = cot_messages(sample, [], Detail(descriptions=False))
    assert len(stripped) == 2 and stripped[-1].content == render_task(sample, descriptions=False)


def test_cot_stops_after_the_answer_block_without_changing_the_scored_program() -> None:
    from gqlbench.generators.backends.models import truncate_at_stop
    from gqlbench.generators.cot import cot_stop
    from gqlbench.metrics import extract_code

    for sample in load_split("test")[:40]:
        answer = cot_answer(sample)  # the shape the model is shown: plan, then one ```python block
        rambling = answer + "\n\nThis code first finds the item, then uses its id.\n\n```python\nprint('extra')\n```\n"
        cut, stopped = truncate_at_stop(rambling, cot_stop())
        assert stopped and not cut.endswith("```") and "This code" not in cut, sample.id
        assert extract_code(cut) == extract_code(answer), sample.id  # what is scored is unchanged
        assert extract_code(cut).strip() == sample.gold_code.strip(), sample.id
