"""The generic world: any domain is coherent from its specs, SDL and an optional fixture."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.endpoints import Runtime
from gqlbench.mocks.engine.generic import domain_schema
from gqlbench.mocks.engine.responses import unwrap
from gqlbench.mocks.engine.rules import infer_rules
from gqlbench.mocks.errors import NotFound
from gqlbench.specs import load_specs
from tests.mocks.library_catalog import library_catalog


def library() -> Runtime:
    return Runtime("library", 0)


def test_a_lookup_shows_what_an_earlier_response_showed() -> None:
    api = library().namespace
    found = api["GET_search_books"](q="The Dispossessed")
    doc = found.docs[0]
    assert doc.title == "The Dispossessed"  # an unknown query makes a book named after it
    book = api["GET_books__book_id_"](book_id=doc.book_id)
    assert (book.title, book.first_publish_year) == (doc.title, doc.first_publish_year)
    assert unwrap(book.authors) == unwrap(doc.authors)
    assert api["GET_search_books"](q="dispossessed").docs[0].book_id == doc.book_id  # found again, not made again


def test_an_unknown_or_wrong_kind_of_id_is_not_found() -> None:
    api = library().namespace
    doc = api["GET_search_books"](q="Dune").docs[0]
    with pytest.raises(NotFound, match="no book with id"):
        api["GET_books__book_id_"](book_id="OL0000W")
    with pytest.raises(NotFound, match="no book with id"):
        api["GET_books__book_id_"](book_id=doc.authors[0].author_id)  # an author's id is not a book's


def test_child_collections_agree_with_their_parent() -> None:
    api = library().namespace
    book = api["GET_search_books"](q="Kindred").docs[0]
    author_id = book.authors[0].author_id
    books = api["GET_authors__author_id__books"](author_id=author_id)
    assert book.book_id in [b.book_id for b in books.entries] and books.total == len(books.entries)
    for entry in books.entries:  # and each child names the parent back
        assert author_id in [a.author_id for a in api["GET_books__book_id_"](book_id=entry.book_id).authors]
    editions = api["GET_books__book_id__editions"](book_id=book.book_id)
    assert editions.book_id == book.book_id and len(editions.entries) == 2
    assert api["GET_books__book_id__editions"](book_id=book.book_id, limit=1).entries[0].edition_id == editions.entries[0].edition_id


def test_post_and_delete_change_what_later_calls_see() -> None:
    runtime = library()
    api = runtime.namespace
    before = [loan.loan_id for loan in api["GET_me_loans"]().loans]
    edition = api["GET_books__book_id__editions"](book_id=api["GET_search_books"](q="Dune").docs[0].book_id).entries[0]
    loan = api["POST_loans"](edition_id=edition.edition_id)
    assert loan.edition_id == edition.edition_id
    assert [x.loan_id for x in api["GET_me_loans"]().loans] == [*before, loan.loan_id]
    api["DELETE_loans__loan_id_"](loan_id=loan.loan_id)
    assert [x.loan_id for x in api["GET_me_loans"]().loans] == before
    with pytest.raises(NotFound):
        api["DELETE_loans__loan_id_"](loan_id=loan.loan_id)
    with pytest.raises(NotFound, match="no edition"):
        api["POST_loans"](edition_id="no-such-edition")


def _catalog_copy(tmp_path: Path, fixture: dict) -> Path:
    """The bundled library domain in a user catalog folder, with ``fixture`` as its world."""
    return library_catalog(tmp_path, json.dumps(fixture))


def test_fixture_entities_are_found_and_rules_can_be_overridden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fixture = {
        "entities": {
            "book": [
                {
                    "book_id": "OL1W",
                    "title": "The Left Hand of Darkness",
                    "first_publish_year": 1969,
                    "authors": [{"author_id": "OL2A", "name": "Ursula K. Le Guin"}],
                }
            ]
        },
        "endpoints": {"GET_subjects__subject_": {"open": False}},
    }
    monkeypatch.setenv("GQLBENCH_CATALOG", str(_catalog_copy(tmp_path, fixture)))
    api = library().namespace
    doc = api["GET_search_books"](q="left hand darkness").docs[0]
    assert (doc.book_id, doc.first_publish_year, doc.authors[0].name) == ("OL1W", 1969, "Ursula K. Le Guin")
    assert api["GET_search_books"](q="darkness", author="Le Guin").docs[0].book_id == "OL1W"
    assert [b.book_id for b in api["GET_authors__author_id__books"](author_id="OL2A").entries] == ["OL1W"]
    with pytest.raises(NotFound, match="no subject"):  # overridden: subjects must exist now
        api["GET_subjects__subject_"](subject="poetry")


@pytest.mark.parametrize(
    ("fixture", "message"),
    [
        ({"entities": {"book": [{"title": "x"}]}}, "entities.book[0]: no key (book_id, id"),
        ({"endpoints": {"GET_nothing": {}}}, "endpoints.GET_nothing: the domain has no function 'GET_nothing'; did you mean"),
        ({"endpoints": {"GET_me_loans": {"action": "fly"}}}, "endpoints.GET_me_loans.action: input should be 'lookup', 'children', "),
        ({"artists": []}, "unknown key 'artists'"),
        ({"behaviour": "no_such_module_xyz:THING"}, "cannot import 'no_such_module_xyz'"),
    ],
)
def test_a_bad_fixture_is_a_one_line_error_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fixture: dict, message: str
) -> None:
    monkeypatch.setenv("GQLBENCH_CATALOG", str(_catalog_copy(tmp_path, fixture)))
    with pytest.raises(GqlbenchError, match=re.escape(message)) as error:
        library()
    assert "worlds/library.json" in str(error.value) and "\n" not in str(error.value)


PET_SDL = {
    "GET_pets__pet_id_": """
type GET_pets__pet_id__Root {
  id: Int
  name: String
  owner: GET_pets__pet_id__Owner
}
type GET_pets__pet_id__Owner {
  owner_id: Int
  name: String
}
type Query {
  GET_pets__pet_id_(pet_id: Int!): GET_pets__pet_id__Root @rest(endpoint: "https://pets.example/pets/$pet_id;")
}
""",
    "GET_pets": """
type GET_pets_Root {
  pets: [GET_pets_PetsEntry]
  count: Int
}
type GET_pets_PetsEntry {
  id: Int
  name: String
}
type Query {
  GET_pets(name: String): GET_pets_Root @rest(endpoint: "https://pets.example/pets")
}
""",
    "POST_pets": """
type POST_pets_Root {
  id: Int
  name: String
}
type Query {
  POST_pets(name: String!): POST_pets_Root @rest(method: POST, endpoint: "https://pets.example/pets")
}
""",
}
PET_PARAMS = {
    "GET_pets__pet_id_": {"pet_id": "integer"},
    "GET_pets": {"name": "string"},
    "POST_pets": {"name": "string"},
    "PUT_pets__pet_id_": {"pet_id": "integer", "name": "string"},
    "DELETE_pets__pet_id_": {"pet_id": "integer"},
}


def test_an_api_with_integer_ids_and_bare_id_fields(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    functions = [
        {
            "name": n,
            "description": n,
            "parameters": {"type": "dict", "required": list(p)[:1], "properties": {k: {"type": t, "description": k} for k, t in p.items()}},
        }
        for n, p in PET_PARAMS.items()
    ]
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "pets.json").write_text(json.dumps({"domain": "pets", "functions": functions}))
    (tmp_path / "schemas" / "pets").mkdir(parents=True)
    for name, sdl in PET_SDL.items():
        (tmp_path / "schemas" / "pets" / f"{name}.graphql").write_text(sdl)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    api = Runtime("pets").namespace
    rex = api["GET_pets"](name="Rex").pets[0]  # `name` makes GET /pets a search
    assert isinstance(rex.id, int) and rex.name == "Rex"
    pet = api["GET_pets__pet_id_"](pet_id=rex.id)
    assert pet.name == "Rex" and isinstance(pet.owner.owner_id, int)
    assert api["GET_pets__pet_id_"](pet_id=rex.id).owner.owner_id == pet.owner.owner_id
    new = api["POST_pets"](name="Tom")
    assert isinstance(new.id, int) and api["GET_pets__pet_id_"](pet_id=new.id).name == "Tom"
    api["PUT_pets__pet_id_"](pet_id=new.id, name="Thomas")
    assert api["GET_pets__pet_id_"](pet_id=new.id).name == "Thomas"
    assert api["GET_pets"](name="Thomas").pets[0].id == new.id
    api["DELETE_pets__pet_id_"](pet_id=new.id)
    with pytest.raises(NotFound, match="no pet with id"):
        api["GET_pets__pet_id_"](pet_id=new.id)


HERD_OPENAPI = {
    "openapi": "3.0.0",
    "info": {"title": "Herd", "version": "1"},
    "paths": {
        "/goats": {
            "get": {
                "parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer"}}],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Goat"}}}},
                    }
                },
            }
        },
        "/goats/search": {
            "get": {
                "parameters": [{"name": "q", "in": "query", "schema": {"type": "string"}}],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Goat"}}}},
                    }
                },
            }
        },
        "/goats/{goat_id}": {
            "get": {
                "parameters": [{"name": "goat_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "responses": {
                    "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Goat"}}}}
                },
            }
        },
    },
    "components": {"schemas": {"Goat": {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}}},
}


def test_endpoints_that_answer_with_a_bare_list_list_and_search_entities(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # An OpenAPI list endpoint often answers `[Goat]`, not an object holding the list; once answered {}.
    from gqlbench.schemas.domain_import import import_openapi_domain

    openapi = tmp_path / "herd.json"
    openapi.write_text(json.dumps(HERD_OPENAPI))
    import_openapi_domain(openapi, "herd", tmp_path / "catalog")
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path / "catalog"))
    rules = infer_rules(domain_schema("herd"), load_specs("herd"))
    assert (rules["GET_goats"].action, rules["GET_goats"].kind, rules["GET_goats"].list_field) == ("list", "goat", None)
    assert (rules["GET_goats_search"].action, rules["GET_goats_search"].kind) == ("search", "goat")
    api = Runtime("herd").namespace
    goats = api["GET_goats"](limit=2)
    assert len(goats) == 2 and all(isinstance(goat.id, int) for goat in goats)
    assert api["GET_goats__goat_id_"](goat_id=goats[1].id).name == goats[1].name
    (found,) = api["GET_goats_search"](q="Billy")  # an unknown name makes one goat named after it
    assert found.name == "Billy" and api["GET_goats__goat_id_"](goat_id=found.id).name == "Billy"
