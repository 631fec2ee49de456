"""Names a start call may search for come from the world fixture, by kind, and are printable."""

from __future__ import annotations

from gqlbench.synthetic.literals import names_for, world_names


def test_names_are_read_from_the_fixture_by_kind() -> None:
    assert "Taylor Swift" in names_for("spotify", "artist")
    assert "Anti-Hero" in names_for("spotify", "track")  # saved_tracks and top_tracks hold tracks
    assert "Titanic" in names_for("tmdb", "movie") and "Titanic" not in names_for("tmdb", "person")


def test_every_name_is_one_printable_line() -> None:
    for domain in ("spotify", "tmdb"):
        for names in world_names(domain).values():
            assert all(name.isprintable() and name == name.strip() for name in names)
