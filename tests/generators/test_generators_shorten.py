"""What a model is shown of a long response (gqlbench.generators.shorten): still JSON, saying inside it what is missing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gqlbench.generators import shorten as shorten_module
from gqlbench.generators.shorten import MIN_RESULT_CHARS, NOT_SHOWN_KEY, result_chars, shorten


def _playlist(tracks: int) -> dict[str, Any]:
    """A response shaped like Spotify's playlist: the items a later call reads, each with a long list of its own."""
    items = [{"track": {"uri": f"spotify:track:{i:05d}", "name": f"Song {i}", "markets": ["US", "GB", "DE"] * 10}} for i in range(tracks)]
    return {"id": "p1", "name": "My first playlist", "tracks": {"items": items, "total": tracks}}


def test_a_long_response_is_valid_json_within_the_bound_and_says_in_the_json_what_it_left_out() -> None:
    value = _playlist(100)
    shown = shorten(value, 4000)
    decoded = json.loads(shown.text)  # the whole text: no note after the JSON
    assert len(shown.text) <= 4000 < shown.chars == len(json.dumps(value, separators=(",", ":")))
    items = decoded["tracks"]["items"]
    kept = [i for i in items if isinstance(i, dict)]
    assert kept and items[-1] == f"... {100 - len(kept)} of 100 items not shown"
    assert kept[0]["track"]["uri"] == value["tracks"]["items"][0]["track"]["uri"]  # kept fields keep their paths
    assert decoded["id"] == "p1" and decoded["tracks"]["total"] == 100
    markets = kept[0]["track"]["markets"]
    assert (
        markets[-1].endswith("of 30 items not shown")
        and markets[:-1] == value["tracks"]["items"][0]["track"]["markets"][: len(markets) - 1]
    )
    assert shown.items_left_out == (100 - len(kept)) + sum(31 - len(i["track"]["markets"]) for i in kept) and shown.shortened


def test_the_list_keeps_as_many_items_as_fit() -> None:
    ids = [f"id{i:04d}" for i in range(1000)]
    kept = json.loads(shorten({"ids": ids}, 2000).text)["ids"][:-1]
    assert kept == ids[: len(kept)]
    one_more = {"ids": [*ids[: len(kept) + 1], f"... {1000 - len(kept) - 1} of 1000 items not shown"]}
    assert len(json.dumps(one_more, separators=(",", ":"))) > 2000


def test_a_response_that_fits_is_its_compact_json_unchanged() -> None:
    shown = shorten({"a": [1, 2], "b": "é"}, 4000)
    assert shown.text == '{"a":[1,2],"b":"é"}' and not shown.shortened and shown.chars == len(shown.text)


def test_a_huge_string_is_cut_inside_the_json_and_short_strings_are_never_lengthened() -> None:
    shown = shorten({"lyrics": "la " * 5000, "id": "x1", "name": "a name of thirty characters..."}, 1000)
    decoded = json.loads(shown.text)
    assert decoded["id"] == "x1" and decoded["name"] == "a name of thirty characters..."
    assert decoded["lyrics"].startswith("la la") and decoded["lyrics"].endswith("more characters not shown)")
    assert shown.chars_left_out > 0 and shown.items_left_out == 0
    text = shorten("y" * 10_000, 1000)
    assert len(text.text) <= 1000 and json.loads(text.text).startswith("yyy") and "more characters not shown" in text.text


def test_an_object_with_too_many_fields_keeps_its_first_ones_and_a_field_saying_how_many_are_missing() -> None:
    value = {f"field{i}": i for i in range(500)}
    decoded = json.loads(shorten(value, 300).text)
    assert decoded["field0"] == 0 and decoded[NOT_SHOWN_KEY] == f"{500 - len(decoded) + 1} of 500 fields not shown"


@pytest.mark.parametrize("bound", [50, 60, 100, 333])
def test_any_value_at_any_bound_from_50_up_is_valid_json_within_the_bound(bound: int) -> None:
    for value in (_playlist(40), {"a": [[["x" * 80] * 5] * 5] * 5}, '"quoted" ' * 200, [{"k": "v" * 300}] * 20):
        text = shorten(value, bound).text
        json.loads(text)
        assert len(text) <= bound


def test_an_item_too_large_to_show_whole_keeps_its_fields_and_notes_in_place_of_what_is_nested_deeper() -> None:
    value = {"items": [{"id": f"t{i}", "album": {"images": [{"url": "u" * 150}] * 40}} for i in range(3)], "total": 3}
    decoded = json.loads(shorten(value, 160).text)
    item = decoded["items"][0]
    assert item["id"] == "t0" and decoded["total"] == 3 and decoded["items"][1] == "... 2 of 3 items not shown"
    assert item["album"] == {"images": ["{1 fields not shown}", "... 39 of 40 items not shown"]}  # the deepest nesting that fits


def test_the_work_is_a_few_dozen_passes_over_the_value_not_one_per_item(monkeypatch: pytest.MonkeyPatch) -> None:
    passes = []
    real = shorten_module._capped
    monkeypatch.setattr(shorten_module, "_capped", lambda value, caps: passes.append(caps) or real(value, caps))
    shorten({"ids": [f"id{i}" for i in range(20_000)]}, 1000)
    assert len(passes) <= 20  # bisection over 20,000 items: about 15 passes
    passes.clear()
    shorten({"items": [{"a": {"b": {"c": {"d": ["x" * 30] * 50}}}} for _ in range(2000)]}, 120)
    assert len(passes) <= 40


def test_the_default_bound_is_a_quarter_of_the_context_at_two_characters_per_token_with_a_floor() -> None:
    assert result_chars(32768) == 16384 and result_chars(8192) == 4096
    assert result_chars(512) == MIN_RESULT_CHARS
