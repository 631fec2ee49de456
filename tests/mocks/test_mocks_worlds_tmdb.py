"""TMDB's Python (``mocks/worlds/tmdb.py``): discover's filters and order, the trending list's checks, the template functions."""

from __future__ import annotations

import pytest

from gqlbench.mocks.endpoints import Runtime, make_runtime
from gqlbench.mocks.errors import BadArguments


@pytest.fixture
def tmdb() -> Runtime:
    return make_runtime("tmdb", 0)


def _discover(tmdb: Runtime, **args: object) -> dict:
    """One discover call on a fresh world: each call completes every movie, and a completed movie grows similar ones."""
    world = make_runtime("tmdb", 0).world
    return world.handler("GET_discover_movie")(world, args)  # type: ignore[misc]


def test_discover_filters_sorts_and_pages_every_movie(tmdb: Runtime) -> None:
    everything = _discover(tmdb)
    assert everything["page"] == 1 and everything["total_results"] >= 2
    popular = [m["popularity"] for m in everything["results"]]
    assert popular == sorted(popular, reverse=True)  # popularity.desc by default
    oldest = _discover(tmdb, sort_by="primary_release_date.asc")["results"]
    assert [m["release_date"] for m in oldest] == sorted(m["release_date"] for m in oldest)
    year = oldest[0]["release_date"][:4]
    assert {m["release_date"][:4] for m in _discover(tmdb, year=int(year))["results"]} == {year}
    good = _discover(tmdb, **{"vote_average.gte": 7})["results"]
    assert good and all(m["vote_average"] >= 7 for m in good)
    genre = everything["results"][0]["genre_ids"][0]
    assert all(genre in m["genre_ids"] for m in _discover(tmdb, with_genres=f"{genre}|not-a-number")["results"])
    with pytest.raises(BadArguments, match="^sort_by 'nonsense.desc' is not supported; use e.g. popularity.desc"):
        _discover(tmdb, sort_by="nonsense.desc")
    with pytest.raises(BadArguments, match="^page must be between 1 and 500, got 501$"):
        _discover(tmdb, page=501)


def test_the_trending_list_refuses_an_unknown_media_type_or_window(tmdb: Runtime) -> None:
    trending = tmdb.namespace["GET_trending__media_type___time_window_"]
    assert trending(media_type="tv", time_window="week").results
    with pytest.raises(BadArguments, match="^media_type must be all, movie, tv or person, got 'film'$"):
        trending(media_type="film", time_window="day")
    with pytest.raises(BadArguments, match="^time_window must be day or week, got 'year'$"):
        trending(media_type="tv", time_window="year")


def test_generated_text_reads_the_entity(tmdb: Runtime) -> None:
    from gqlbench.mocks.worlds.tmdb import biography, collection_base, homepage

    assert homepage(tmdb.world, "Warner Bros. Pictures") == "https://www.warnerbrospictures.example"
    assert collection_base(tmdb.world, "The Dark Knight Collection") == "The Dark Knight"
    assert biography(tmdb.world, "Ana", "Acting") == "Ana works in acting in the mock world."
