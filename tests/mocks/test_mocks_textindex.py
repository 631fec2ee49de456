"""Term indexes: the same answers as a scan of the table, without scanning it."""

from __future__ import annotations

from typing import Any

import pytest

from gqlbench.mocks.engine.textindex import TermIndex, trigrams
from gqlbench.mocks.engine.world import World


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


def test_a_search_reads_each_candidates_text_once_however_many_words_it_has() -> None:
    # Reading the text once per word made a search of many words over a text named after it quadratic
    # (a 300 KB query held the mock server for 7.6 s).
    world = World.create("tmdb")
    words = [f"word{i}" for i in range(40)]
    for n in range(10):
        world.put("movie", {"id": 990000 + n, "title": " ".join(words)})
    reads: list[int] = []

    def text(record: dict[str, Any]) -> str:
        reads.append(record["id"])
        return str(record["title"])

    found = world.search("movie", words + words, text)
    assert [r["id"] for r in found] == [990000 + n for n in range(10)]
    indexed = len(world.table("movie"))
    assert len(reads) == indexed + 10  # each record once to index it, each candidate once to check it


def test_an_interrupted_index_update_goes_on_where_it_stopped(budget: Any) -> None:
    table = {str(i): {"id": i, "name": f"name {i}"} for i in range(100)}
    index = TermIndex(lambda r: trigrams(r["name"]))
    with pytest.raises(TimeoutError):
        index.candidates(table, trigrams("name 7"), budget(39))
    assert len(index.keys) == 39  # the records whose postings are all in
    fresh = TermIndex(lambda r: trigrams(r["name"]))
    for terms in (trigrams("name 7"), trigrams("e 99"), set()):
        assert index.candidates(table, terms) == fresh.candidates(table, terms)
    assert index.postings == fresh.postings


def test_a_world_interrupt_stops_a_search_and_leaves_it_answering_as_before(budget: Any) -> None:
    world = World.create("spotify")
    world.interrupt = budget(3)
    with pytest.raises(TimeoutError):
        world.search("artist", ["a"], lambda r: str(r["name"]))
    world.interrupt = None
    scanned = world.find("artist", lambda r: "a" in str(r["name"]).lower())
    assert world.search("artist", ["a"], lambda r: str(r["name"])) == scanned
