"""Drafts render as the human gold writes programs, and paths resolve only where the response has a value."""

from __future__ import annotations

import random

from gqlbench.synthetic.graph import build_graph
from gqlbench.synthetic.sampler import Call, Draft, Ref, Sampler, _fresh_path, resolve


def test_a_draft_renders_numbered_responses_and_leaves_the_last_call_unassigned() -> None:
    draft = Draft(
        "fan_out",
        [
            Call("GET_a", (("q", 'say "hi"'),)),
            Call("GET_b", (("id", Ref(0, ("items", 0, "id"))),)),
            Call("GET_c", (("c_id", Ref(0, ("items", 0, "c_id"))), ("limit", 5))),
        ],
    )
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


def test_a_value_already_passed_is_skipped_for_the_next_element_of_the_list() -> None:
    response = {"results": [{"id": 5}, {"id": 6}, {"id": 7}]}
    assert _fresh_path(response, ("results", 0, "id"), {5}) == ("results", 1, "id")  # similar movies start with the movie
    assert _fresh_path(response, ("results", 0, "id"), set()) == ("results", 0, "id")
    assert _fresh_path(response, ("results", 0, "id"), {5, 6, 7}) is None
    assert _fresh_path({"id": 5}, ("id",), {5}) is None  # a sub-resource's own id read back


def test_a_lookup_feeds_on_only_with_what_the_list_it_was_picked_from_lacked() -> None:
    sampler = Sampler(build_graph("spotify"), pool=None, rng=random.Random(0))  # type: ignore[arg-type]  # no run here
    top = {"tracks": [{"id": "t1", "album": {"id": "a1"}}]}
    track = {"id": "t1", "album": {"id": "a1"}, "artists": [{"id": "r1"}]}
    draft = Draft(
        "chain",
        [Call("GET_artists__id__top_tracks", (("id", "x"),)), Call("GET_tracks__id_", (("id", Ref(0, ("tracks", 0, "id"))),))],
        [top, track],
    )
    paths = {e.path for e in sampler._candidates(draft, 1)}
    assert ("artists", 0, "id") in paths
    assert ("album", "id") not in paths  # the top tracks already gave the album: the lookup would be a detour
