"""``gqlbench samples measure``'s figures on hand-written files where each is known (issue #32)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.synthetic.quality import constructs, measure_files, mechanical_patterns, quality_table, read_items

SEARCH = 'r = GET_search_movie(query="{}")\n'
ITEMS = [
    # 9 words; copies "get the cast and" from GET_movie__movie_id__credits's description; skeleton S
    ('Get the cast and crew of the movie "Heat".', SEARCH.format("Heat") + "GET_movie__movie_id__credits(movie_id=r.results[0].id)"),
    # 3 words; a filter by a field value
    (
        'Who directed "Alien"?',
        SEARCH.format("Alien")
        + 'c = GET_movie__movie_id__credits(movie_id=r.results[0].id)\n[p.name for p in c.crew if p.job == "Director"]',
    ),
    # 15 words; "the first of the", "(limited to", "(at most", stacked parentheticals; skeleton S again
    (
        "Show the credits of the first of the movies (limited to 2) (at most 3).",
        SEARCH.format("Up") + "GET_movie__movie_id__credits(movie_id=r.results[1].id)",
    ),
    # 13 words; four "of the" links; two independent calls
    ("Credits of the cast of the crew of the movie of the year.", "GET_movie_popular()\nGET_tv_popular()"),
]
HUMAN = [("Who is popular?", "GET_person_popular()"), ("Find Heat.", 'GET_search_movie(query="Heat")')]


def write(path: Path, items: list[tuple[str, str]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"domain": "tmdb", "utterance": u, "output": o}) + "\n" for u, o in items))
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    test = write(tmp_path / "set" / "test.jsonl", ITEMS)
    jaws = SEARCH.format("Jaws") + "GET_movie__movie_id__credits(movie_id=r.results[3].id)"
    train = write(tmp_path / "set" / "train.jsonl", [("Credits of Jaws.", jaws)])
    return test, train, write(tmp_path / "human.jsonl", HUMAN)


def test_each_figure_of_a_hand_written_file(files: tuple[Path, Path, Path]) -> None:
    test, train, human = files
    quality, train_quality = measure_files([test, train], human)
    assert quality.items == 4 and quality.mean_words == (9 + 3 + 15 + 13) / 4
    assert quality.mechanical == 2 / 4
    assert quality.patterns == {
        "the first of the": 1,
        "(limited to": 1,
        "(at most": 1,
        "(only N of them)": 0,
        "stacked parentheticals": 1,
        "4+ 'of the' links": 1,
    }
    assert quality.description_copy == 1 / 4
    assert (quality.skeletons, quality.skeleton_max, quality.skeleton_mean) == (3, 2, 4 / 3)
    assert quality.skeleton_weighted_mean == (4 + 1 + 1) / 4 and quality.crowded == 0
    assert quality.shared_with_train == 2 and train_quality.shared_with_train is None  # items 1 and 3 have train's skeleton
    assert quality.distinct_trigrams == 29 / 32  # "crew of the", "of the movie", "credits of the" come twice
    assert (quality.mean_calls, quality.single_calls) == (2.0, 0.0)
    assert quality.constructs == {"filter": 0.25, "slice": 0.0, "combine": 0.0, "reads_write": 0.0, "independent_parts": 0.25}
    assert (quality.missing_functions, quality.missing_function_items) == (["GET_person_popular"], 1)
    table = quality_table([quality])
    assert "| words per utterance (mean)" in table and "| 50%" in table


def test_crowded_skeletons_are_the_share_of_items_in_skeletons_of_more_than_three(tmp_path: Path) -> None:
    same = [(f"Credits of movie {i}.", SEARCH.format(i) + "GET_movie__movie_id__credits(movie_id=r.results[0].id)") for i in range(4)]
    (quality,) = measure_files([write(tmp_path / "a.jsonl", [*same, ITEMS[3]])], write(tmp_path / "h.jsonl", HUMAN))
    assert (quality.skeleton_max, quality.crowded) == (4, 4 / 5)


def test_constructs_of_the_human_split_are_recognised() -> None:
    assert constructs('r = GET_search_track(q="x")\nPOST_tracks(uris=[t.uri for t in r.items[:3]])') == {"slice"}
    assert constructs("a = GET_me()\nb = GET_search(q=1)\nPOST_x(user=a.id, uri=b.items[0].uri)") == {"combine"}
    assert constructs("p = POST_playlists(name=1)\nPOST_tracks(playlist_id=p.id)") == {"reads_write"}
    assert constructs("GET_me()\nGET_me_player()") == {"independent_parts"}
    assert constructs("r = GET_me()\nGET_x(id=r.id)") == set() and constructs("f(") == set()


def test_mechanical_patterns_need_their_count() -> None:
    assert mechanical_patterns("the album of the artist of the track of the year") == []  # three "of the"
    assert mechanical_patterns("Songs (only 5 of them)") == ["(only N of them)"]


def test_a_bad_line_names_its_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"domain": "tmdb", "utterance": "x", "output": "GET_me()"}\n{"domain": "tmdb"}\n')
    with pytest.raises(GqlbenchError, match=r"bad.jsonl:2: each line needs string fields domain, utterance and output"):
        read_items(bad)
