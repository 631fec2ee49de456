"""One right program: alternative readings are run, limits and writes must matter, no call repeats; labels read from the program."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gqlbench.mocks.sandbox.pool import Job, SandboxPool
from gqlbench.synthetic.by_intent import idle_write, one_right_program, program_labels, repeated_call
from gqlbench.synthetic.intents import Ask, Composed, Noun, Part, call, render, utterance

MOVIE = Noun("movie", ("<name>",), {"id": "<@0>.results[0].id"}, (call("GET_search_movie", query="<name>"),), names="movie")
PHOTOS = Ask(("person",), ("Show me photos of <x>.",), (call("GET_person__person_id__images", person_id="<x.id>"),))


def _lead(alternative: str) -> Noun:
    return Noun(
        "person",
        ("the lead actor of <x>",),
        {"id": "<@0>.cast[0].id"},
        (call("GET_movie__movie_id__credits", movie_id="<x.id>"),),
        base="movie",
        alternatives=({"id": alternative},),
    )


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    with SandboxPool(workers=1, max_result_chars=2_000_000) as shared:
        yield shared


def _check(composed: Composed, pool: SandboxPool, domain: str = "tmdb") -> str | None:
    code, text = render(composed), utterance(composed)
    gold = pool.run(Job(code=code, domain=domain, seed=0, request=text))
    assert gold.error is None
    return one_right_program(composed, gold, text, domain, pool, 0)[0]


def _photos_of_lead(alternative: str) -> Composed:
    return Composed(
        (Part(PHOTOS, ((MOVIE, _lead(alternative)),), {"x0.name": "Inception"}, PHOTOS.phrases[0], (("<name>", "the lead actor of <x>"),)),)
    )


def test_a_reading_that_picks_another_person_is_ambiguous_and_one_that_fails_or_agrees_is_not(pool: SandboxPool) -> None:
    assert _check(_photos_of_lead("<@0>.cast[1].id"), pool) == "ambiguous"  # the second actor: other photos
    assert _check(_photos_of_lead("<@0>.cast[99].id"), pool) is None  # no 100th actor: the words exclude it
    assert _check(_photos_of_lead("[c for c in <@0>.cast if c.order == 0][0].id"), pool) is None  # the same person


def test_a_limit_that_cuts_nothing_is_refused_and_one_that_cuts_is_kept(pool: SandboxPool) -> None:
    artist = Noun(
        "artist", ("<name>",), {"id": "<@0>.artists.items[0].id"}, (call("GET_search", q="<name>", type='"artist"'),), names="artist"
    )
    albums = Ask(("artist",), ("Show me <k> albums by <x>.",), (call("GET_artists__id__albums", id="<x.id>", limit="<k>"),), limit="k")

    def composed(k: int) -> Composed:
        return Composed((Part(albums, ((artist,),), {"x0.name": "Taylor Swift", "k": k}, albums.phrases[0], (("<name>",),)),))

    assert _check(composed(50), pool, "spotify") == "limit_changes_nothing"
    assert _check(composed(1), pool, "spotify") is None


RENAME = 'p = GET_me_playlists()\nPUT_playlists__playlist_id_(playlist_id=p.items[0].id, name="Never Named Before")'
FOLLOW = 'a = GET_search(q="Queen", type="artist")\nPUT_me_following(type="artist", ids=a.artists.items[0].id)'


def test_a_write_that_leaves_the_world_as_it_was_is_idle_whatever_the_clock_says(pool: SandboxPool) -> None:
    assert idle_write(RENAME, "", "spotify", pool, 0) == (False, 2)
    assert idle_write(RENAME + "\n" + RENAME.splitlines()[1], "", "spotify", pool, 0)[0]  # the same name again
    assert idle_write(FOLLOW + "\n" + FOLLOW.splitlines()[1], "", "spotify", pool, 0)[0]  # following twice: the clock ticks
    assert idle_write("GET_me_playlists()", "", "spotify", pool, 0) == (False, 0)  # no write, no run


def test_a_sample_whose_write_changes_nothing_is_refused(pool: SandboxPool) -> None:
    playing = Ask((), ("Play some music.",), (call("PUT_me_player_play"),))
    pause = Ask((), ("Pause the music.",), (call("PUT_me_player_pause"),))
    assert _check(Composed((Part(playing, (), {}, playing.phrases[0], ()),)), pool, "spotify") == "write_changes_nothing"  # already on
    assert _check(Composed((Part(pause, (), {}, pause.phrases[0], ()),)), pool, "spotify") is None


def test_a_call_made_twice_is_found_and_labels_count_the_dataflow() -> None:
    assert repeated_call("response_obj = GET_me_albums()\nresponse_obj1 = GET_me_albums()\nGET_me()")
    assert not repeated_call("response_obj = GET_me_albums()\nGET_me()")
    code = (
        'response_obj = GET_search_movie(query="Heat")\n'
        "response_obj1 = GET_movie__movie_id__credits(movie_id=response_obj.results[0].id)\n"
        "GET_movie_popular()"
    )
    assert program_labels(code) == {"calls": 3, "edges": 1, "depth": 2}
