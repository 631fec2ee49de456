"""The one endpoint-name rule, and that the metrics, the checks and the sandbox all use it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gqlbench.specs.names import endpoint_function_name, looks_like_endpoint_name, parameter_name, reserved_name_problem
from gqlbench.specs.openapi import function_name

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["GET_tv__tv_id_", "POST_playlists", "PATCH_x", "DELETE_me_tracks", "PUT_me_player_play"])
def test_endpoint_spellings_match(name: str) -> None:
    assert looks_like_endpoint_name(name)


@pytest.mark.parametrize("name", ["get_tv", "GETtv", "HEAD_x", "print", "_GET_x", "Get_x", ""])
def test_other_names_do_not(name: str) -> None:
    assert not looks_like_endpoint_name(name)


def test_every_name_the_importer_makes_matches() -> None:
    for method in ("get", "post", "put", "delete", "patch"):
        assert looks_like_endpoint_name(function_name(method, "/a/{b}"))


def test_no_other_copy_of_the_rule() -> None:
    copies = [
        str(path.relative_to(ROOT))
        for folder in ("gqlbench", "metrics", "mocks", "generators", "schemas", "specs")
        for path in (ROOT / folder).rglob("*.py")
        if path.name != "names.py" and re.search(r"GET\|POST\|PUT", path.read_text(encoding="utf-8"))
    ]
    assert copies == []


@pytest.mark.parametrize(
    ("method", "path", "expected"),
    [
        ("GET", "/", "GET_root"),
        ("post", "//", "POST_root"),
        ("GET", "/users/{id}.json", "GET_users__id__json"),
        ("GET", "/api/v2/pokemon/{id}/", "GET_api_v2_pokemon__id__"),
    ],
)
def test_every_path_gives_a_python_name(method: str, path: str, expected: str) -> None:
    name = endpoint_function_name(method, path)
    assert name == expected and name.isidentifier() and looks_like_endpoint_name(name)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("class", "class_"),
        ("__class__", "class_"),
        ("__typename", "typename"),
        ("__globals__", "globals"),
        ("None", "None_"),
        ("__", "param"),
        ("_id", "_id"),
        ("limit", "limit"),
        ("match", "match"),
    ],
)
def test_parameter_names_become_plain(name: str, expected: str) -> None:
    assert parameter_name(name) == expected
    assert reserved_name_problem(parameter_name(name)) is None


def test_reserved_names_say_why() -> None:
    assert "Python keyword" in (reserved_name_problem("lambda") or "")
    assert "begins with '__'" in (reserved_name_problem("__class__") or "")
    assert reserved_name_problem("_private") is None and reserved_name_problem("type") is None
