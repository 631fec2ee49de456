"""From tool-call values to program references: provenance order, literals, nested values."""

from __future__ import annotations

import time

from gqlbench.generators.tool_program import MAX_CANDIDATES, Earlier, argument_source, argument_text, value_paths


def test_a_value_found_at_two_paths_keeps_both_candidates_shortest_path_first() -> None:
    response = {"items": [{"album": {"id": "A1"}}, {"id": "A1"}]}
    assert value_paths("A1", response, "response_obj") == ["response_obj.items[1].id", "response_obj.items[0].album.id"]
    assert argument_source("A1", [Earlier("response_obj", response)], "play it") == [
        "response_obj.items[1].id",
        "response_obj.items[0].album.id",
    ]


def test_the_latest_response_comes_first_but_a_response_that_echoes_its_own_input_comes_last() -> None:
    first = Earlier("response_obj", {"items": [{"id": "P"}], "artist": {"id": "R"}})
    echo = Earlier("response_obj1", {"id": "P", "artists": [{"id": "R"}]}, arguments=("P",))
    assert argument_source("R", [first, echo], "")[0] == "response_obj1.artists[0].id"  # latest first
    assert argument_source("P", [first, echo], "") == ["response_obj.items[0].id", "response_obj1.id"]  # the echo last


def test_values_from_the_request_booleans_and_small_numbers_stay_literals() -> None:
    earlier = [Earlier("response_obj", {"name": "Adele", "page": 1, "total": 1, "adult": False, "id": 55012})]
    assert argument_source("Adele", earlier, "songs by adele") == []  # the user typed it
    assert argument_source(1, earlier, "") == [] and argument_source(False, earlier, "") == []
    assert argument_source(55012, earlier, "") == ["response_obj.id"]
    assert argument_source("55012", earlier, "") == []  # a string is not the number


def test_nested_values_are_referenced_element_by_element() -> None:
    earlier = [Earlier("response_obj", {"items": [{"track": {"uri": "spotify:track:x"}}]})]
    text, candidates = argument_text([{"uri": "spotify:track:x"}, {"uri": "spotify:track:typed"}], earlier, "")
    assert text == "[{'uri': response_obj.items[0].track.uri}, {'uri': 'spotify:track:typed'}]" and candidates == []


def test_a_key_that_is_no_identifier_is_never_a_path() -> None:
    assert value_paths("v", {"not-a-name": "v", "class": "v"}, "response_obj") == []


def test_the_elements_of_a_long_list_argument_are_looked_up_in_one_walk_of_each_response() -> None:
    """A model's list of thousands of ids once walked every response once per element (2,000 x 4,000 leaves: 13 s)."""
    response = {"items": [{"id": f"id{i:06d}", "name": f"track {i}"} for i in range(2000)]}
    value = [f"id{i:06d}" for i in range(0, 2000, 2)] + [f"other{i}" for i in range(1000)]
    started = time.perf_counter()
    text, _ = argument_text(value, [Earlier("response_obj", response)], "play them")
    assert time.perf_counter() - started < 3.0  # about 0.05 s; a walk per element takes seconds
    assert text.startswith("[response_obj.items[0].id, response_obj.items[2].id, ") and text.endswith("'other999']")


def test_numbers_of_equal_value_are_one_value_and_booleans_none() -> None:
    response = {"a": 1500.0, "b": True, "c": "1500", "d": [1500]}
    assert value_paths(1500, response, "r") == ["r.a", "r.d[0]"]
    assert value_paths(True, response, "r") == [] and value_paths("1500", response, "r") == ["r.c"]


def test_a_value_at_thousands_of_paths_keeps_the_best_candidates_and_costs_one_lookup_per_element() -> None:
    """3,000 copies of a value found at 3,000 paths once listed 9 million paths; each element needs only its best one."""
    response = {"items": [{"type": "album_group_x"} for _ in range(3000)]}
    earlier = [Earlier("response_obj", response)]
    started = time.perf_counter()
    text, _ = argument_text(["album_group_x"] * 3000, earlier, "")
    assert time.perf_counter() - started < 3.0
    assert text.count("response_obj.items[0].type") == 3000
    single, candidates = argument_text("album_group_x", earlier, "")
    assert single == "response_obj.items[0].type" and len(candidates) == MAX_CANDIDATES
