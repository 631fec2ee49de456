"""Term indexes: the same answers as a scan of the table, without scanning it."""

from __future__ import annotations

from typing import Any

import pytest

from gqlbench.mocks.textindex import TermIndex, trigrams
from gqlbench.mocks.world import World


def test_trigrams() -> None:
    assert trigrams("abcd") == {"abc", "bcd"}
    assert trigrams("ab") == set()


@pytest.mark.parametrize(("domain", "kind", "key"), [("tmdb", "movie", "title"), ("spotify", "artist", "name")])
@pytest.mark.parametrize("words", [["the"], ["o"], ["of", "the"], ["ring"], ["zzzq"], ["a", "an"], ["e", "lord"]])
def test_search_answers_what_a_scan_answers(domain: str, kind: str, key: str, words: list[str]) -> None:
    world = World.create(domain)
    scanned = world.find(kind, lambda r: all(w in str(r[key]).lower() for w in words))
    assert world.search(kind, words, lambda r: str(r[key])) == scanned


def test_records_appended_after_a_search_are_found_and_a_mutation_drops_the_index() -> None:
    world = World.create("tmdb")
    assert world.search("movie", ["quokka"], lambda r: str(r["title"])) == []
    world.put("movie", {"id": 990001, "title": "The Quokka Saga"})
    assert [r["id"] for r in world.search("movie", ["quokka"], lambda r: str(r["title"]))] == [990001]
    world.table("movie")["990001"]["title"] = "Renamed"  # what a PUT handler could do ...
    assert world.search("movie", ["renamed"], lambda r: str(r["title"])) == []  # ... unseen until
    world.handler("DELETE_movie__movie_id__rating")  # a non-GET endpoint runs
    assert [r["id"] for r in world.search("movie", ["renamed"], lambda r: str(r["title"]))] == [990001]


def test_a_search_reads_only_candidates_not_the_whole_table() -> None:
    table = {str(i): {"id": i, "name": f"name {i}"} for i in range(5000)}
    reads: list[int] = []

    def terms(record: dict[str, Any]) -> set[str]:
        reads.append(record["id"])
        return trigrams(record["name"])

    index = TermIndex(terms)
    assert [r["id"] for r in index.candidates(table, trigrams("4321"))] == [4321]
    assert len(reads) == 5000  # indexed once
    table["5000"] = {"id": 5000, "name": "name 5000"}
    assert [r["id"] for r in index.candidates(table, trigrams("5000"))] == [5000]
    assert len(reads) == 5001  # only the new record is read


def test_referring_matches_a_scan() -> None:
    world = World.create("spotify")
    for artist in list(world.table("artist"))[:5]:
        assert world.referring("album", "artists", artist) == world.find("album", lambda a, artist=artist: artist in a["artists"])
