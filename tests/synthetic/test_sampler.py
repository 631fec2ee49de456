"""Drafts render as the human gold writes programs, and paths resolve only where the response has a value."""

from __future__ import annotations

from gqlbench.synthetic.sampler import Call, Draft, Ref, resolve


def test_a_draft_renders_numbered_responses_and_leaves_the_last_call_unassigned() -> None:
    draft = Draft("fan_out", [Call("GET_a", (("q", 'say "hi"'),)), Call("GET_b", (("id", Ref(0, ("items", 0, "id"))),)),
                              Call("GET_c", (("c_id", Ref(0, ("items", 0, "c_id"))), ("limit", 5)))])
    assert draft.code().splitlines() == [
        'response_obj = GET_a(q="say \\"hi\\"")',
        "response_obj1 = GET_b(id=response_obj.items[0].id)",
        "GET_c(c_id=response_obj.items[0].c_id, limit=5)",
    ]
    assert (draft.edges(), draft.depth(), draft.literals()) == (2, 2, ['say "hi"', 5])


def test_resolve_follows_fields_and_indices_and_misses_cleanly() -> None:
    response = {"items": [{"id": "x", "album": None}], "total": 1}
    assert resolve(response, ("items", 0, "id")) == "x"
    assert resolve(response, ("items", 1, "id")) is None
    assert resolve(response, ("items", 0, "album", "id")) is None
    assert resolve(response, ("total", "id")) is None
