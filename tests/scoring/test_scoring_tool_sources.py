"""Choosing among an ambiguous tool-call argument's candidates at scoring (gqlbench.scoring.tool_sources)."""

from __future__ import annotations

from gqlbench.dataset import load_split
from gqlbench.scoring.tool_sources import CHOSEN_BECAUSE, choose_gold_candidates

SAMPLE = next(s for s in load_split("test") if s.id == "test/3")  # gold: GET_tracks__id_(id=response_obj.item.id)
CODE = (
    "response_obj = GET_me_player_currently_playing()\n"
    "response_obj1 = GET_me_player_currently_playing()\n"
    "response_obj2 = GET_tracks__id_(id={})"
)


def _entry(candidates: list[str]) -> dict[str, object]:
    return {"call": 3, "function": "GET_tracks__id_", "argument": "id", "value": "t1", "source": candidates[0], "candidates": candidates}


def test_the_candidate_that_is_gold_s_source_replaces_the_first() -> None:
    candidates = ["response_obj1.item.id", "response_obj.item.album.id", "response_obj.item.id"]
    code, entries = choose_gold_candidates(SAMPLE, CODE.format(candidates[0]), [_entry(candidates)])
    assert code == CODE.format("response_obj.item.id")
    assert entries[0]["source"] == "response_obj.item.id" and entries[0]["chosen_because"] == CHOSEN_BECAUSE
    assert entries[0]["candidates"] == candidates


def test_without_gold_s_source_among_the_candidates_the_first_stays_and_nothing_is_invented() -> None:
    candidates = ["response_obj1.item.id", "response_obj1.item.album.id"]  # gold reads the first call, not the second
    code, entries = choose_gold_candidates(SAMPLE, CODE.format(candidates[0]), [_entry(candidates)])
    assert code == CODE.format(candidates[0]) and entries == [_entry(candidates)]


def test_a_single_source_is_left_alone_without_analysing_anything() -> None:
    entry = {"call": 3, "function": "GET_tracks__id_", "argument": "id", "value": "t1", "source": "response_obj1.item.id"}
    assert choose_gold_candidates(SAMPLE, CODE.format("response_obj1.item.id"), [entry]) == (CODE.format("response_obj1.item.id"), [entry])


def test_text_before_the_argument_that_is_not_ascii_keeps_the_splice_in_place() -> None:
    candidates = ["response_obj.item.artists[0].id", "response_obj2.artists[0].id"]
    line = "DELETE_me_following(type='ärtist — ✓', ids={})"
    entries = [
        {"call": 4, "function": "DELETE_me_following", "argument": "type", "value": "ärtist — ✓", "source": "literal"},
        {"call": 4, "function": "DELETE_me_following", "argument": "ids", "value": "a1", "source": candidates[0], "candidates": candidates},
    ]
    code, chosen = choose_gold_candidates(SAMPLE, f"{CODE.format('response_obj.item.id')}\n{line.format(candidates[0])}", entries)
    assert code.splitlines()[3] == line.format("response_obj2.artists[0].id") and chosen[1]["chosen_because"] == CHOSEN_BECAUSE
