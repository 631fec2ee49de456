"""Mock worlds: fixtures load, state is deterministic, searches and mutations behave."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.world import _FRESH, FRESH_KEPT, MAX_SEARCH_CHARS, World, load_fixture, stable_int, stable_token
from gqlbench.mocks.errors import BadArguments, NotFound
from gqlbench.mocks.server.resolvers import answer


def test_stable_values_do_not_depend_on_the_process() -> None:
    code = "from gqlbench.mocks.engine.world import stable_int, stable_token; print(stable_int('a', 1), stable_token('a', 1))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"PYTHONHASHSEED": "123"}
    ).stdout.split()
    assert out == [str(stable_int("a", 1)), stable_token("a", 1)]


@pytest.mark.parametrize("domain", ["spotify", "tmdb"])
def test_fresh_worlds_with_one_seed_are_identical(domain: str) -> None:
    assert World.create(domain, 0).digest() == World.create(domain, 0).digest()


def test_fixture_entities_are_there() -> None:
    world = World.create("spotify")
    names = [world.table("playlist")[p]["name"] for p in world.state["playlists"]]
    assert names[:2] == ["My Rock", "My R&B"]
    assert "My PC" in [d["name"] for d in world.state["devices"]]
    assert len(world.state["lists"]["saved_tracks"]) >= 3  # saved lists live where mocks/engine/declared/lists.py keeps them


def test_lookup_of_an_unknown_id_is_not_found() -> None:
    world = World.create("tmdb")
    with pytest.raises(NotFound, match="no movie with id 424242"):
        world.get("movie", 424242)


def test_search_creates_entities_that_later_lookups_find() -> None:
    world = World.create("tmdb")
    search = world.handler("GET_search_movie")
    first = search(world, {"query": "A Film Nobody Made"})["results"]
    assert [r["title"] for r in first] == ["A Film Nobody Made"]
    again = search(world, {"query": "A Film Nobody Made"})["results"]
    assert again == first  # the same entity, not a new one
    credits = world.handler("GET_movie__movie_id__credits")(world, {"movie_id": first[0]["id"]})
    assert any(c["job"] == "Director" for c in credits["crew"])


def test_different_seeds_invent_different_entities() -> None:
    ids = []
    for seed in (0, 1):
        world = World.create("tmdb", seed)
        ids.append(world.handler("GET_search_person")(world, {"query": "Nobody Known"})["results"][0]["id"])
    assert ids[0] != ids[1]


def test_mutations_change_the_state_and_its_digest() -> None:
    world = World.create("spotify")
    before = world.digest()
    world.handler("PUT_me_player_volume")(world, {"volume_percent": 80})
    assert world.digest() != before
    active = [d for d in world.state["devices"] if d["is_active"]]
    assert active[0]["volume_percent"] == 80


def test_lazy_completion_does_not_depend_on_call_order() -> None:
    def run(order: list[str]) -> str:
        world = World.create("tmdb")
        movie = world.handler("GET_search_movie")(world, {"query": "Titanic"})["results"][0]["id"]
        person = world.handler("GET_search_person")(world, {"query": "Kate Winslet"})["results"][0]["id"]
        calls = {
            "credits": lambda: world.handler("GET_movie__movie_id__credits")(world, {"movie_id": movie}),
            "person": lambda: world.handler("GET_person__person_id__movie_credits")(world, {"person_id": person}),
        }
        for name in order:
            calls[name]()
        return world.digest()

    assert run(["credits", "person"]) == run(["person", "credits"])


def test_a_fixture_reference_to_nothing_is_a_clear_error(tmp_path) -> None:
    fixture = load_fixture("spotify")
    fixture["entities"]["playlist"] = [{"name": "Broken", "tracks": ["No Such Song"]}]
    fixture["playlists"] = ["Broken"]
    path = tmp_path / "spotify.json"
    path.write_text(json.dumps(fixture))
    with pytest.raises(GqlbenchError, match="no track named 'No Such Song'"):
        World.create("spotify", fixture=path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"lists": {"movie_popular": ["No Such Film"]}}, r"tmdb\.json: lists\.movie_popular: no movie named 'No Such Film'"),
        (
            {"entities": {**load_fixture("tmdb")["entities"], "movie": [{"id": 1, "title": "Solo", "cast": ["Just A Name"]}]}},
            r"tmdb\.json: entities\.movie\[0\]\.cast: write each item as a list",
        ),
    ],
)
def test_a_tmdb_fixture_mistake_is_one_line_naming_the_entry(tmp_path, change: dict[str, Any], message: str) -> None:
    fixture = {**load_fixture("tmdb"), "lists": {}, **change}  # a cast entry is [person, character]; a list names defined titles
    path = tmp_path / "tmdb.json"
    path.write_text(json.dumps(fixture))
    with pytest.raises(GqlbenchError, match=message) as caught:
        World.create("tmdb", fixture=path)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("domain", "function", "param"),
    [("tmdb", "GET_search_movie", "query"), ("spotify", "GET_search", "q"), ("library", "GET_search_books", "q")],
)
def test_a_search_text_over_the_limit_is_bad_arguments_naming_the_parameter(domain: str, function: str, param: str) -> None:
    world = World.create(domain)
    extra = {"type": "artist"} if domain == "spotify" else {}
    before = world.digest()
    with pytest.raises(BadArguments, match=rf"^{param} is 299,999 characters long, over the mock's limit of 1,000 "):
        answer(world, function, {param: "ab " * 100_000, **extra})  # stripped: 299,999
    assert world.digest() == before  # refused before anything was made for it
    assert answer(world, function, {param: "x" * MAX_SEARCH_CHARS, **extra})  # the longest text that is taken


def test_resets_with_ever_new_seeds_keep_a_bounded_number_of_fresh_worlds() -> None:
    for seed in range(1000, 1000 + FRESH_KEPT + 5):
        World.create("library", seed)
    assert len(_FRESH) <= FRESH_KEPT
    assert World.create("library", 1000).digest() == World.create("library", 1000).digest()


def test_an_interrupt_never_stops_a_record_half_completed(budget: Any) -> None:
    # Completion marks the record complete first; stopped inside it (a Spotify artist made by a search looks up
    # its albums there), the record would stay half-filled for good: an artist without albums.
    world = World.create("spotify")
    found = world.put("artist", {"id": "QuokkaParade", "name": "Quokka Parade", "genres": [], "popularity": 1, "followers": 1})
    world.interrupt = checks = budget(1)  # the lookup's own check passes, any inside its completion would not
    world.get("artist", found["id"])
    world.interrupt = None
    assert checks.calls == 1 and len(world.referring("album", "artists", found["id"])) == 2
