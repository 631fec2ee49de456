"""The one endpoint-name rule, and that the metrics, the checks and the sandbox all use it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gqlbench.specs.names import looks_like_endpoint_name
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
