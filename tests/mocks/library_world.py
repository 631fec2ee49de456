"""A test helper: a world of the bundled ``library`` domain from a small fixture of the test's, and a direct call.

Tests that write a fixture and call the endpoints' handlers directly assert
what the engine does, not what the TMDB or Spotify world does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gqlbench.mocks.engine.world import World

BOOKS = [
    {"book_id": "B1", "title": "Dune", "year": 1965, "genres": ["sf"], "contributors": [{"person": "P1", "role": "author"}]},
    {
        "book_id": "B2",
        "title": "Dune Messiah",
        "year": 1969,
        "genres": ["sf", "drama"],
        "contributors": [{"person": "P1", "role": "author"}, {"person": "P2", "role": "editor"}],
    },
    {"book_id": "B3", "title": "Emma", "year": 1815, "genres": ["drama"], "contributors": [{"person": "P3", "role": "author"}]},
]


def world_with(tmp_path: Path, endpoints: dict[str, Any], **sections: Any) -> World:
    fixture = {"entities": {"book": BOOKS}, "endpoints": {f: {"respond": t} for f, t in endpoints.items()}, **sections}
    path = tmp_path / f"library{len(list(tmp_path.iterdir()))}.json"  # a new file: models are cached per file version
    path.write_text(json.dumps(fixture), encoding="utf-8")
    return World.create("library", fixture=path)


def call(world: World, function: str, **args: Any) -> Any:
    handler = world.handler(function)
    assert handler is not None
    return handler(world, args)
