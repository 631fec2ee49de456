"""World behaviours: found by fixture key, registration, entry point or bundle; handlers answer real endpoints."""

from __future__ import annotations

import ast
import inspect

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.registry import BUILTIN, find_behaviour, register_world, resolve, unregister_world
from gqlbench.mocks.engine.world import World
from gqlbench.mocks.worlds import spotify, tmdb
from gqlbench.specs import list_domains, load_specs


@pytest.mark.parametrize("module", [spotify, tmdb], ids=lambda m: m.__name__)
def test_every_handler_answers_an_endpoint_of_the_catalog(module) -> None:
    model = module.MODEL
    assert set(model.handlers) <= set(load_specs(model.domain)), sorted(set(model.handlers) - set(load_specs(model.domain)))
    # and no method is left over from a removed handler's naming convention
    names = {n.name for n in ast.walk(ast.parse(inspect.getsource(module))) if isinstance(n, ast.FunctionDef)}
    assert {n[len("h_") :] for n in names if n.startswith("h_")} == set(model.handlers)


def test_tmdb_endpoints_but_discover_are_answered_from_its_fixture_not_by_python_handlers() -> None:
    world = World.create("tmdb")
    rules = world.model.generic.rules  # type: ignore[union-attr]
    assert set(tmdb.MODEL.handlers) == {"GET_discover_movie"} and set(world.model.handlers) == set(load_specs("tmdb"))  # type: ignore[union-attr]
    assert {f for f in load_specs("tmdb") if f.startswith("GET_search_")} <= {f for f, r in rules.items() if r.respond}


@pytest.mark.parametrize("domain", sorted(BUILTIN))
def test_bundled_behaviours_are_found_for_their_domains(domain: str) -> None:
    assert domain in list_domains()
    behaviour = find_behaviour(domain, {}, None)
    assert behaviour is not None and behaviour.domain == domain  # type: ignore[attr-defined]


def test_a_domain_without_behaviour_is_data_only_and_every_endpoint_has_a_rule() -> None:
    assert find_behaviour("library", {}, None) is None
    world = World.create("library")
    assert set(world.model.handlers) == set(load_specs("library"))  # type: ignore[union-attr]


class _Toy:
    handlers = {"GET_me_loans": lambda world, args: {"loans": []}}


def test_register_world_puts_its_handlers_over_the_rules() -> None:
    register_world("library", _Toy())
    try:
        world = World.create("library")
        assert world.handler("GET_me_loans")(world, {}) == {"loans": []}
        assert world.handler("GET_books__book_id_") is not None  # the rest keep the generic rules
    finally:
        unregister_world("library")
    assert World.create("library").handler("GET_me_loans")(World.create("library"), {}) != {"loans": []}


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("no-colon", "no-colon: write module:object or path/to/file.py:object, naming the object with the handlers"),
        ("gqlbench.mocks.worlds.spotify:NOPE", "has no 'NOPE'"),
        ("gqlbench.mocks.worlds.spotify:API", "has no 'handlers' mapping"),
        ("missing_file.py:X", "behaviour missing_file.py:X: missing_file.py does not exist"),
    ],
)
def test_bad_behaviour_references_are_clear_errors(reference: str, message: str) -> None:
    with pytest.raises(GqlbenchError, match=message):
        resolve(reference, "here")
