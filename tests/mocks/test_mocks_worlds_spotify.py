"""Spotify's player, following and playlist edits refuse hostile input as the API does (declared in the fixture).

These hold for the Python handlers the fixture's declarations replaced, too:
the same refusals, the same messages, and a refused edit changes nothing.
"""

from __future__ import annotations

import json
import re

import pytest

from gqlbench.mocks.endpoints import Runtime, make_runtime
from gqlbench.mocks.errors import BadArguments, NotFound

TRACK_URI = re.escape("is not a Spotify URI of the form spotify:track:<id> or spotify:episode:<id>; use the 'uri' field of a response")


@pytest.fixture
def spotify() -> Runtime:
    return make_runtime("spotify", 0)


def _playlist(spotify: Runtime) -> str:
    return str(spotify.namespace["GET_me_playlists"]().items[0].id)


def _stored(spotify: Runtime, playlist_id: str) -> str:
    return json.dumps(spotify.world.table("playlist")[playlist_id], sort_keys=True)


def test_playlist_edits_refuse_bad_uris_positions_and_entries_and_change_nothing(spotify: Runtime) -> None:
    call, playlist = spotify.namespace, _playlist(spotify)
    track = spotify.world.state["top_tracks"][0]
    before = _stored(spotify, playlist)
    size = len(spotify.world.table("playlist")[playlist]["tracks"])
    with pytest.raises(BadArguments, match="'spotify:album:x' " + TRACK_URI):
        call["POST_playlists__playlist_id__tracks"](playlist_id=playlist, uris=f"spotify:track:{track},spotify:album:x")
    with pytest.raises(BadArguments, match=f"position {size + 1} is outside"):
        call["POST_playlists__playlist_id__tracks"](playlist_id=playlist, uris=f"spotify:track:{track}", position=size + 1)
    with pytest.raises(BadArguments, match="position -1 is outside"):
        call["POST_playlists__playlist_id__tracks"](playlist_id=playlist, uris=f"spotify:track:{track}", position=-1)
    with pytest.raises(BadArguments, match="uris is missing or empty"):
        call["POST_playlists__playlist_id__tracks"](playlist_id=playlist)
    with pytest.raises(NotFound, match="no track with id 'nope'"):
        call["POST_playlists__playlist_id__tracks"](playlist_id=playlist, uris="spotify:track:nope")
    with pytest.raises(NotFound, match="no playlist with id 'nope'"):
        call["POST_playlists__playlist_id__tracks"](playlist_id="nope", uris=f"spotify:track:{track}")
    with pytest.raises(BadArguments, match=re.escape('each element of tracks must be {"uri": "spotify:track:<id>"}, got \'x\'')):
        call["DELETE_playlists__playlist_id__tracks"](playlist_id=playlist, tracks=["x"])
    with pytest.raises(BadArguments, match="'spotify:track:' " + TRACK_URI):
        call["DELETE_playlists__playlist_id__tracks"](playlist_id=playlist, tracks=[{"uri": "spotify:track:"}])
    assert _stored(spotify, playlist) == before


def test_playlist_edits_insert_at_the_position_and_remove_every_copy(spotify: Runtime) -> None:
    call, playlist = spotify.namespace, _playlist(spotify)
    track = spotify.world.state["top_tracks"][0]
    call["POST_playlists__playlist_id__tracks"](playlist_id=playlist, uris=f"spotify:track:{track},spotify:track:{track}", position=0)
    tracks = spotify.world.table("playlist")[playlist]["tracks"]
    assert [t["id"] for t in tracks[:2]] == [track, track] and tracks[0]["added_at"] < tracks[1]["added_at"]
    version = spotify.world.table("playlist")[playlist]["version"]  # the snapshot id is made from it
    call["DELETE_playlists__playlist_id__tracks"](playlist_id=playlist, tracks=[{"uri": f" spotify:track:{track} "}])
    assert track not in [t["id"] for t in spotify.world.table("playlist")[playlist]["tracks"]]
    assert spotify.world.table("playlist")[playlist]["version"] == version + 1
    call["PUT_playlists__playlist_id_"](playlist_id=playlist, name="Renamed")
    shown = call["GET_playlists__playlist_id_"](playlist_id=playlist)
    assert shown.name == "Renamed" and shown.public is True and shown.tracks.total == len(shown.tracks.items)
    with pytest.raises(NotFound, match="no playlist with id 'nope'"):
        call["GET_playlists__playlist_id_"](playlist_id="nope")


def test_the_player_refuses_an_unknown_device_and_both_a_context_and_uris(spotify: Runtime) -> None:
    call = spotify.namespace
    track = spotify.world.state["top_tracks"][0]
    state = json.dumps(spotify.world.state["player"], sort_keys=True)
    for function, args in [("PUT_me_player_pause", {}), ("POST_me_player_queue", {"uri": f"spotify:track:{track}"})]:
        with pytest.raises(NotFound, match=re.escape("no device with id 'nope'; use an id from GET_me_player_devices()")):
            call[function](device_id="nope", **args)
    with pytest.raises(BadArguments, match="pass either context_uri or uris, not both"):
        call["PUT_me_player_play"](context_uri=f"spotify:track:{track}", uris=[f"spotify:track:{track}"])
    with pytest.raises(BadArguments, match="'spotify:album:x' is not a Spotify URI of the form spotify:track:<id>; use"):
        call["PUT_me_player_play"](uris=["spotify:album:x"])
    play = spotify.world.handler("PUT_me_player_play")  # the catalog types offset as an array; the API takes an object
    assert play is not None
    with pytest.raises(BadArguments, match="offset position 5 is outside the context's 1 tracks"):
        play(spotify.world, {"uris": [f"spotify:track:{track}"], "offset": {"position": 5}})
    with pytest.raises(BadArguments, match="'spotify:show:x' " + TRACK_URI):
        call["POST_me_player_queue"](uri="spotify:show:x")
    assert json.dumps(spotify.world.state["player"], sort_keys=True) == state


def test_the_player_changes_what_later_calls_show(spotify: Runtime) -> None:
    call = spotify.namespace
    devices = call["GET_me_player_devices"]().devices
    other = [d for d in devices if not d.is_active][0]
    tracks = spotify.world.state["top_tracks"][:2]
    call["PUT_me_player_volume"](volume_percent=7)
    call["POST_me_player_queue"](uri=f"spotify:track:{tracks[1]}", device_id=other.id)
    call["PUT_me_player_pause"](device_id=other.id)
    after = {d.id: d for d in call["GET_me_player_devices"]().devices}
    assert [d.volume_percent for d in after.values() if d.is_active] == [7] and after[other.id].volume_percent == other.volume_percent
    assert call["GET_me_player_currently_playing"]().is_playing is False
    call["POST_me_player_next"]()
    playing = call["GET_me_player_currently_playing"]()
    assert playing.item.id == tracks[1] and playing.is_playing is True and playing.context.type == "album"


def test_following_a_user_needs_a_known_user_and_an_artist_shows_in_the_list(spotify: Runtime) -> None:
    call = spotify.namespace
    me = str(spotify.world.state["me"])
    with pytest.raises(NotFound, match="no user with id 'nobody'"):
        call["PUT_me_following"](type="user", ids=f"{me},nobody")
    call["PUT_me_following"](type="user", ids=me)
    call["DELETE_me_following"](type="user", ids=me)
    with pytest.raises(BadArguments, match="type must be 'artist' or 'user', got 'album'"):
        call["PUT_me_following"](type="album", ids=me)
    artist = spotify.world.state["top_artists"][1]
    call["PUT_me_following"](type="artist", ids=artist)
    assert call["GET_me_following"](type="artist").artists.items[0].id == artist
