"""From tool-call values to program references: provenance order, literals, nested values."""

from __future__ import annotations

from gqlbench.generators.tool_program import Earlier, argument_source, argument_text, value_paths


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
