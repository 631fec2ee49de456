"""A domain's world model: built once per file version, with an endpoint's declared checks and paging around its answer."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gqlbench.mocks.engine.loader import world_model
from gqlbench.mocks.engine.world import World
from gqlbench.mocks.errors import BadArguments
from tests.mocks.library_world import BOOKS, call

TITLES = {"$each": {"$sort": {"$state": "all", "default": []}, "by": "title"}, "do": "$it.title"}


def _file(tmp_path: Path, **endpoints: Any) -> Path:
    path = tmp_path / "library.json"
    path.write_text(json.dumps({"entities": {"book": BOOKS}, "endpoints": endpoints}), encoding="utf-8")
    return path


def test_a_model_is_built_once_per_file_version(tmp_path: Path) -> None:
    path = _file(tmp_path, GET_search_books={"respond": TITLES})
    model = world_model("library", path)
    assert world_model("library", path) is model
    stamp = path.stat().st_mtime_ns
    os.utime(path, ns=(stamp + 10**9, stamp + 10**9))  # the same text, a new version
    assert world_model("library", path) is not model


def test_declared_checks_refuse_a_call_before_it_runs_and_a_declared_page_wraps_a_list(tmp_path: Path) -> None:
    paged = {"respond": TITLES, "checks": {"limit": {"max": 2}}, "paging": {"href": "https://library.example/search", "limit": 2}}
    world = World.create("library", fixture=_file(tmp_path, GET_search_books=paged))
    world.state["all"] = [{"title": t} for t in ("Emma", "Dune", "Dune Messiah")]
    with pytest.raises(BadArguments, match="^limit must be <= 2, got 3$"):
        call(world, "GET_search_books", limit=3)
    page = call(world, "GET_search_books", offset=2)
    assert page["items"] == ["Emma"] and page["total"] == 3 and page["previous"] == "https://library.example/search?offset=0&limit=2"
