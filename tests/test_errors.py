"""The ground floor's message helpers: one "did you mean" for every layer."""

from __future__ import annotations

from pathlib import Path

from gqlbench.errors import closest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("gqlbench", "metrics", "mocks", "generators", "specs", "schemas")


def test_closest_names_the_nearest_options_best_first() -> None:
    options = {"GET_search": 1, "GET_artist": 2, "GET_album": 3}  # any iterable of names: dict keys here
    assert closest("GET_serch", options)[0] == "GET_search"
    assert closest("GET_serch", options, cutoff=0.9) == ["GET_search"]
    assert closest("GET_albun", options, n=1) == ["GET_album"]
    assert closest("GET_a", ["GET_artist", "GET_album"], n=2, cutoff=0.0)[0] in {"GET_artist", "GET_album"}
    assert closest("completely_else", options) == []
    assert len(closest("GET_x", options, n=2, cutoff=0.0)) == 2


def test_every_did_you_mean_goes_through_the_one_helper() -> None:
    callers = [
        str(path.relative_to(ROOT))
        for folder in FOLDERS
        for path in (ROOT / folder).rglob("*.py")
        if "get_close_matches" in path.read_text(encoding="utf-8") and path != ROOT / "gqlbench" / "errors.py"
    ]
    assert not callers, callers
