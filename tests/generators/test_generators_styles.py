"""The prompt-style registry: cot and react as objects, and what a style must be."""

from __future__ import annotations

import pytest

from gqlbench.dataset import get_sample
from gqlbench.errors import GqlbenchError
from gqlbench.generators.cot import cot_messages, cot_stop
from gqlbench.generators.react import SchemaObserver, react_stop
from gqlbench.generators.styles import DEFAULT_STYLE, STYLES, CotStyle, StyleOptions, get_style
from gqlbench.records import Completion, ReactStep


def test_cot_and_react_are_registered_with_their_budgets_and_stops() -> None:
    assert STYLES.names()[:2] == ["cot", "react"] and DEFAULT_STYLE == "cot"
    cot, react = get_style("cot"), get_style("react")
    assert (cot.default_max_new_tokens, cot.uses_steps, cot.stop()) == (512, False, cot_stop())
    assert (react.default_max_new_tokens, react.uses_steps, react.stop()) == (192, True, react_stop())


def test_cot_prompts_as_before_and_answers_with_the_raw_text() -> None:
    sample = get_sample("test/0")
    run = get_style("cot").start(StyleOptions())
    assert run.messages(sample, []) == cot_messages(sample, []) and run.assistant_prefix == ""
    answer = run.answer(Completion(sample_id="test/0", text="Plan.\n```python\nx = f()\n```"))
    assert answer.prediction.startswith("Plan.") and answer.code is None  # the scorer's own extraction


def test_react_needs_an_observer_and_answers_with_its_actions() -> None:
    with pytest.raises(GqlbenchError, match="needs an observer"):
        get_style("react").start(StyleOptions())
    run = get_style("react").start(StyleOptions(max_steps=3, observer=SchemaObserver()))
    assert run.assistant_prefix == "Thought:"
    steps = [
        ReactStep(thought="t", action="a = GET_a()", finished=False, raw="", observation="o"),
        ReactStep(thought="t", action="finish", finished=True, raw=""),
    ]
    answer = run.answer(Completion(sample_id="test/0", steps=steps))
    assert answer.prediction == answer.code == "a = GET_a()"


def test_a_style_may_be_a_class_and_anything_else_is_refused() -> None:
    assert isinstance(get_style("gqlbench.generators.styles:CotStyle"), CotStyle)
    with pytest.raises(GqlbenchError, match="json:dumps: the object is not a prompt style"):
        get_style("json:dumps")
    with pytest.raises(GqlbenchError, match="unknown prompt style; choose one of cot, react"):
        get_style("socratic")


@pytest.mark.parametrize("name", ["cot", "react"])
def test_the_abstention_instruction_appears_only_in_relevance_runs(name: str) -> None:
    sample = get_sample("test/0")
    plain = get_style(name).start(StyleOptions(observer=SchemaObserver())).messages(sample, [])
    relevance = get_style(name).start(StyleOptions(observer=SchemaObserver(), abstain=True)).messages(sample, [])
    assert "NotSupported" not in plain[0].content
    assert 'raise NotSupported("<what is missing>")' in relevance[0].content
    assert relevance[0].content.startswith(plain[0].content.split("\n")[0]) and relevance[1:] == plain[1:]


def test_the_default_cot_instructions_are_unchanged_by_the_relevance_rule() -> None:
    from gqlbench.generators.cot import COT_INSTRUCTIONS, cot_instructions

    assert cot_instructions() == COT_INSTRUCTIONS
    assert cot_instructions(True).replace(cot_instructions(True).splitlines()[-3] + "\n", "") == COT_INSTRUCTIONS


def test_react_ends_on_the_abstention_marker_and_keeps_it_in_the_program() -> None:
    from gqlbench.generators.react import parse_step, react_program

    step = parse_step('Thought: nothing queues a track.\nAction: raise NotSupported("no queue endpoint")')
    assert step.finished and step.action == 'raise NotSupported("no queue endpoint")'
    finish = ReactStep(thought="done", action="finish", finished=True, raw="")
    call = ReactStep(thought="t", action="r = GET_me()", finished=False, raw="")
    decline = ReactStep(thought="t", action=step.action, finished=True, raw="")
    assert react_program(Completion(sample_id="test/0", steps=[call, finish])) == "r = GET_me()"
    assert react_program(Completion(sample_id="test/0", steps=[call, decline])) == f"r = GET_me()\n{step.action}"
