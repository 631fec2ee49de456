"""Entities a fixture makes from readable entries (``entities`` by ``make``, then ``load``), on a small world of novels nobody bundled.

The ``library`` domain gets a fixture whose writers, novels and chapters are
written by name, as a person would write them; what is asserted is that the
engine makes them as declared: references resolve, ids follow the seed,
children sit inside their parent, and a mistake stops the load with one line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared.make import invent, scope_of
from gqlbench.mocks.engine.world import World

MAKE: dict[str, Any] = {
    "writer": {
        "id": {"$token": ["writer", "$name"], "length": 8},
        "complete": False,
        "defaults": {"born": {"$int": ["$id", "born"], "lo": 1800, "hi": 1990}},
        "invent": {"$make": "writer", "entry": {"name": "$query"}},
    },
    "novel": {
        "refs": {"writers": "writer"},
        "id": {"$token": {"$add": [["novel", "$name"], "$writers"]}, "length": 8},
        "children": {"chapters": "chapter"},
        "defaults": {
            "pages": {"$int": ["$id", "pages"], "lo": 100, "hi": 900},
            "form": {"$if": {"$eq": [{"$count": "$chapters"}, 1]}, "then": "story", "else": "novel"},
        },
    },
    "chapter": {
        "id": {"$token": ["chapter", "$parent.id", "$name"], "length": 8},
        "defaults": {"novel": "$parent.id", "number": "$position", "pages": 20},
    },
}
GROW = {  # a writer with no novel gets one on first lookup (a referring step over plain ids: declared.growth)
    "fill": {
        "writer": [
            {
                "referring": {"kind": "novel", "in": "writers"},
                "to": 1,
                "add": {"$make": "novel", "entry": {"name": "{name}'s First", "writers": ["$id"], "chapters": ["Opening"]}},
            }
        ]
    }
}
LOAD = [
    {"refer": "novel", "from": "shelf", "state": "novels"},
    {"refer": "novel", "from": "reading", "state": "lists.reading", "as": {"id": "$it", "added_at": {"$tick": None}}},
]
WRITERS: list[Any] = [{"name": "Ursula Le Guin", "born": 1929}, "Frank Herbert", "Mary Shelley"]
NOVELS = [
    {"name": "Dune", "writers": ["Frank Herbert"], "chapters": ["Book One", {"name": "Book Two", "pages": 3}]},
    {"name": "The Dispossessed", "writers": ["Ursula Le Guin"], "chapters": ["Shevek"]},
]


def write(tmp_path: Path, writers: list[Any] = WRITERS, novels: list[Any] = NOVELS, **changes: Any) -> Path:
    """The fixture, its entities being ``writers`` and ``novels`` (made by the recipes in this order)."""
    fixture = {
        "make": MAKE,
        "grow": GROW,
        "entities": {"writer": writers, "novel": novels},
        "load": LOAD,
        "shelf": [n["name"] for n in novels if isinstance(n, dict) and isinstance(n.get("name"), str)],
        "reading": ["The Dispossessed", "Dune"] if novels is NOVELS else [],
        **changes,
    }
    path = tmp_path / f"library{len(list(tmp_path.iterdir()))}.json"  # a new file: models are cached per file version
    path.write_text(json.dumps(fixture), encoding="utf-8")
    return path


def named(world: World, kind: str, name: str) -> dict[str, Any]:
    found = world.find(kind, lambda r: r["name"] == name)
    assert len(found) == 1
    return found[0]


def test_entries_written_by_name_become_records_with_their_references_and_children(tmp_path: Path) -> None:
    world = World.create("library", fixture=write(tmp_path))
    herbert, le_guin = named(world, "writer", "Frank Herbert"), named(world, "writer", "Ursula Le Guin")
    dune = named(world, "novel", "Dune")
    assert dune["writers"] == [herbert["id"]]
    assert le_guin["born"] == 1929  # a value the entry gives wins over the default
    chapters = [world.table("chapter")[c] for c in dune["chapters"]]
    assert [(c["name"], c["number"], c["novel"], c["pages"]) for c in chapters] == [
        ("Book One", 1, dune["id"], 20),
        ("Book Two", 2, dune["id"], 3),
    ]
    assert (dune["form"], named(world, "novel", "The Dispossessed")["form"]) == ("novel", "story")  # defaults see the children
    dispossessed = named(world, "novel", "The Dispossessed")["id"]
    assert world.state["novels"] == [dune["id"], dispossessed]
    reading = world.state["lists"]["reading"]
    assert [e["id"] for e in reading] == [dispossessed, dune["id"]]
    assert reading[0]["added_at"] < reading[1]["added_at"]  # one clock tick each, in order


def test_ids_follow_the_declared_template_and_the_seed(tmp_path: Path) -> None:
    path = write(tmp_path)
    ids = {seed: sorted(World.create("library", seed=seed, fixture=path).table("novel")) for seed in (1, 2)}
    again = World.create("library", seed=1, fixture=path)
    assert sorted(again.table("novel")) == ids[1]
    assert ids[1] != ids[2]  # each seed its own catalogue
    herbert = named(again, "writer", "Frank Herbert")["id"]
    assert herbert == again.token("writer", "Frank Herbert", length=8)
    assert named(again, "novel", "Dune")["id"] == again.token("novel", "Dune", herbert, length=8)


def test_a_writer_grows_a_novel_on_first_lookup_and_a_search_invents_one(tmp_path: Path) -> None:
    world = World.create("library", fixture=write(tmp_path))
    shelley = named(world, "writer", "Mary Shelley")
    assert not world.find("novel", lambda r: shelley["id"] in r["writers"])
    world.get("writer", shelley["id"])  # her first lookup completes her: she has no novel, so one is made
    made = world.find("novel", lambda r: shelley["id"] in r["writers"])
    assert [n["name"] for n in made] == ["Mary Shelley's First"]
    world.get("writer", named(world, "writer", "Frank Herbert")["id"])
    assert len(world.table("novel")) == 3  # Herbert has Dune: nothing grows
    invent(scope_of(world), "writer", "Octavia Butler")
    assert named(world, "writer", "Octavia Butler")["id"] == world.token("writer", "Octavia Butler", length=8)


def test_a_template_makes_an_entity_on_demand(tmp_path: Path) -> None:
    made = {"$make": "novel", "entry": {"name": "$q", "writers": ["Frank Herbert"], "chapters": ["One", "Two", "Three"]}}
    path = write(tmp_path, endpoints={"GET_search_books": {"respond": made}})
    world = World.create("library", fixture=path)
    handler = world.handler("GET_search_books")
    assert handler is not None
    novel_id = handler(world, {"q": "Children of Dune"})
    novel = world.table("novel")[novel_id]
    assert (novel["name"], novel["form"], len(novel["chapters"])) == ("Children of Dune", "novel", 3)
    assert handler(world, {"q": "Children of Dune"}) == novel_id  # made once: the same entry is the same entity


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"novels": [{"name": "X", "writers": ["Nobody"]}]}, r"entities\.novel\[0\]\.writers: no writer named 'Nobody'; refer to a writer"),
        (
            {"writers": ["Frank Herbert", {"name": "Frank Herbert", "id": "fh2"}]},
            r"entities\.novel\[0\]\.writers: 2 writer named 'Frank Herbert'",
        ),
        (
            {"novels": [{"name": "X", "writers": [], "chapters": [7]}]},
            r"entities\.novel\[0\]\.chapters\[0\]: an entry of chapter must be a name",
        ),
        (
            {"make": {**MAKE, "chapter": {**MAKE["chapter"], "defaults": {"n": "$nmae"}}}},
            r"entities\.novel\[0\]\.chapters\[0\]: world template: unknown name 'nmae'",
        ),
        (
            {"make": {**MAKE, "writer": {**MAKE["writer"], "defaults": {"born": {"$nope": 1}}}}},
            r"make\.writer\.defaults\.born: unknown operation",
        ),
        ({"make": {**MAKE, "novel": {**MAKE["novel"], "children": {"chapters": "page"}}}}, r"make\.novel\.children\.chapters: kind 'page'"),
        ({"make": {**MAKE, "writer": {**MAKE["writer"], "colour": 1}}}, r"make\.writer: unknown key 'colour'"),
        ({"load": [{"refer": "writer"}]}, r"load\[0\]: 'from' is missing"),
        ({"load": [*LOAD, {"refer": "writer", "from": "shelf"}]}, r"shelf\[0\]: no writer named 'Dune'"),
        ({"writers": ["Frank Herbert", "Frank Herbert"]}, r"entities\.writer\[1\]: the writer '\w+' is already defined"),
    ],
)
def test_a_mistake_stops_the_load_with_one_line_naming_the_file_and_entry(tmp_path: Path, changes: dict[str, Any], message: str) -> None:
    path = write(tmp_path, **changes)
    with pytest.raises(GqlbenchError) as caught:
        World.create("library", fixture=path)
    _one_line_says(caught.value, path, message)


def test_a_recipe_sees_only_its_entry_not_the_names_of_the_template_that_makes_it(tmp_path: Path) -> None:
    recipes = {**MAKE, "chapter": {**MAKE["chapter"], "defaults": {"title": "$q"}}}  # q is the caller's, not the chapter's
    made = {"$make": "novel", "entry": {"name": "$q", "writers": [], "chapters": ["One"]}}
    world = World.create("library", fixture=write(tmp_path, make=recipes, novels=[], endpoints={"GET_search_books": {"respond": made}}))
    handler = world.handler("GET_search_books")
    assert handler is not None
    with pytest.raises(GqlbenchError, match=r"chapters\[0\]: world template: unknown name 'q'"):
        handler(world, {"q": "Children of Dune"})


def test_a_key_gives_a_recipe_with_references_and_children_one_collision_free_id(tmp_path: Path) -> None:
    sequel = {"name": "Dune Messiah", "writers": ["Frank Herbert"], "chapters": ["One"]}
    made = {"$make": "novel", "key": ["sequel", "$q"], "entry": sequel}
    recipes = {**MAKE, "novel": {**MAKE["novel"], "ids": {"lo": 10, "hi": 99}}}
    world = World.create("library", fixture=write(tmp_path, make=recipes, endpoints={"GET_search_books": {"respond": made}}))
    handler = world.handler("GET_search_books")
    assert handler is not None
    novel_id = handler(world, {"q": 1})
    assert isinstance(novel_id, int) and 10 <= novel_id <= 99  # the key's id in the recipe's range, not its id template
    novel = world.table("novel")[str(novel_id)]
    assert novel["writers"] == [named(world, "writer", "Frank Herbert")["id"]] and len(novel["chapters"]) == 1
    assert handler(world, {"q": 1}) == novel_id and handler(world, {"q": 2}) != novel_id  # the same key, the same id
    assert world.state["generated_ids"]  # kept in the world, so a key's id survives a snapshot


FILMS: dict[str, Any] = {  # a world whose people, series and films are named by the films that mention them
    "make": {
        "person": {"key": ["$name"], "complete": False},
        "series": {"key": ["$name"], "defaults": {"parts": []}},
        "film": {
            "name": "title",
            "key": ["$title"],
            "defaults": {"cast": []},
            "refs": {
                "cast": {
                    "kind": "person",
                    "create": True,
                    "by": {"$at": "$it", "index": 0},
                    "as": {"person": "$it", "role": {"$at": "$item", "index": 1}},
                },
                "series": {"kind": "series", "create": True, "back": "parts"},
            },
        },
    },
    "entities": {
        "person": [{"name": "Ann", "born": 1970}],
        "series": ["Saga", "Empty"],
        "film": [
            {"title": "One", "cast": [["Ann", "Lead"], ["Bob", "Friend"]], "series": "Saga"},
            {"title": "Two", "series": "Saga"},
            {"title": "Zed", "series": "Other"},
        ],
    },
}


def entities(**changes: Any) -> dict[str, Any]:
    """FILMS' entities with some kinds' entries changed."""
    return {**FILMS["entities"], **changes}


def films(tmp_path: Path, **changes: Any) -> Path:
    path = tmp_path / f"library{len(list(tmp_path.iterdir()))}.json"
    path.write_text(json.dumps({**FILMS, **changes}), encoding="utf-8")
    return path


def test_a_ref_creates_what_it_names_reads_pairs_and_links_back(tmp_path: Path) -> None:
    world = World.create("library", fixture=films(tmp_path))
    ann, bob = named(world, "person", "Ann"), named(world, "person", "Bob")
    assert bob == {"id": bob["id"], "name": "Bob"}  # made on first mention, from its name alone
    registry = world.state["generated_ids"]
    assert (ann["id"], bob["id"]) == (registry['["person", "Ann"]'], registry['["person", "Bob"]'])  # the recipe's key
    one, two, zed = (world.find("film", lambda r, t=t: r["title"] == t)[0] for t in ("One", "Two", "Zed"))
    assert one["cast"] == [{"person": ann["id"], "role": "Lead"}, {"person": bob["id"], "role": "Friend"}]
    assert two["cast"] == []  # the recipe's default: what an entry lacks
    assert named(world, "series", "Saga")["parts"] == [one["id"], two["id"]]  # "back": the series lists its films
    assert named(world, "series", "Other")["parts"] == [zed["id"]] and named(world, "series", "Empty")["parts"] == []
    assert isinstance(one["id"], int) and one["series"] == named(world, "series", "Saga")["id"]  # ids as stored, not text
    again = World.create("library", fixture=films(tmp_path))
    assert named(again, "person", "Bob")["id"] == bob["id"]  # the same key, the same id


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"entities": entities(film=[{"title": "One", "cast": ["Ann"]}])},
            r"entities\.film\[0\]\.cast: write each item as a list or an object here",
        ),
        (
            {"entities": entities(film=[{"title": "One", "cast": [["Ann"]]}])},
            r"entities\.film\[0\]\.cast: cannot read \['Ann'\] \(IndexError",
        ),
        (
            {"entities": entities(person=[{"name": "Ann"}, {"name": "Ann", "born": 1970}])},
            r"entities\.person\[1\]: the person \d+ is already defined \(two entries",
        ),
        (
            {"make": {**FILMS["make"], "film": {"refs": {"cast": {"kind": "person", "creat": True}}}}},
            r"make\.film\.refs\.cast: unknown key 'creat'; did you mean 'create'\?",
        ),
        ({"make": {"film": {"refs": {"cast": {"kind": "person", "create": True}}}}}, r"make\.film\.refs\.cast: kind 'person' has no entry"),
        (
            {"make": {**FILMS["make"], "film": {"refs": {"series": {"kind": "series", "back": ["parts"]}}}}},
            r"make\.film\.refs\.series\.back: input should be a valid string",
        ),
    ],
)
def test_a_bad_written_item_or_ref_is_one_line_naming_it(tmp_path: Path, changes: dict[str, Any], message: str) -> None:
    path = films(tmp_path, **changes)
    with pytest.raises(GqlbenchError) as caught:
        World.create("library", fixture=path)
    _one_line_says(caught.value, path, message)


def _one_line_says(error: GqlbenchError, path: Path, message: str) -> None:
    """Each problem is a line naming the file (and the line, when it is found on load); one of them is ``message``."""
    lines = str(error).splitlines()
    assert all(line.startswith(f"{path}:") for line in lines), lines
    assert any(re.match(f"{re.escape(str(path))}(:\\d+)?: {message}", line) for line in lines), lines


def test_the_files_entities_are_made_in_file_order_and_a_kind_without_a_recipe_is_stored_as_written(tmp_path: Path) -> None:
    world = World.create("library", fixture=films(tmp_path))
    registry = list(world.state["generated_ids"])  # the keys in the order their ids were drawn
    assert registry.index('["person", "Ann"]') < registry.index('["series", "Saga"]') < registry.index('["film", "One"]')
    assert registry.index('["person", "Bob"]') == registry.index('["film", "One"]') - 1  # made by One's ref, just before One
    assert named(world, "person", "Ann")["born"] == 1970  # written before the films, so made from its own entry
    stored = {"book": [{"book_id": "B1", "title": "Dune", "pages": "412"}]}
    mixed = World.create("library", fixture=films(tmp_path, entities={**stored, **FILMS["entities"]}))
    assert mixed.table("book") == {"B1": {"title": "Dune", "pages": "412"}}  # no recipe: stored as written, keyed by its key
    assert len(mixed.table("film")) == 3


def test_a_file_that_names_an_entity_before_its_own_entry_is_refused(tmp_path: Path) -> None:
    later = {"film": FILMS["entities"]["film"], "person": FILMS["entities"]["person"]}  # Ann is made by One's cast first
    path = films(tmp_path, entities=later)
    with pytest.raises(GqlbenchError) as caught:
        World.create("library", fixture=path)
    _one_line_says(caught.value, path, r"entities\.person\[0\]: the person \d+ is already defined")
