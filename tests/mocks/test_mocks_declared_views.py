"""Behaviour a world fixture declares as data: computed fields, pages, argument checks and saved lists.

Each feature is fed through a small API nobody bundled (``jukebox``, imported
from an OpenAPI document here) and a fixture that declares it, and the
answers are read back through the endpoints as a program would.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.endpoints import Runtime
from gqlbench.mocks.errors import BadArguments, NotFound


def _ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _query(name: str, kind: str = "string") -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": {"type": kind}}


def _path(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}


SONG = {"$ref": "#/components/schemas/Song"}
MIX = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "songs": {"type": "array", "items": {"type": "string"}},
        "version": {"type": "integer"},
        "snapshot_id": {"type": "string"},
    },
}
PAGE = {
    "type": "object",
    "properties": {
        "href": {"type": "string"},
        "items": {"type": "array", "items": SONG},
        "limit": {"type": "integer"},
        "offset": {"type": "integer"},
        "total": {"type": "integer"},
        "next": {"type": "string"},
        "previous": {"type": "string"},
        "cursors": {"type": "object", "properties": {"after": {"type": "string"}}},
    },
}
JUKEBOX = {
    "openapi": "3.0.0",
    "info": {"title": "Jukebox", "version": "1"},
    "paths": {
        "/songs/{id}": {
            "get": {"parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}], "responses": _ok(SONG)},
            "put": {
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}, _query("name")],
                "responses": _ok(SONG),
            },
        },
        "/me/songs": {
            "get": {"parameters": [_query("limit", "integer"), _query("offset", "integer")], "responses": _ok(PAGE)},
            "put": {"parameters": [_query("ids")], "responses": {"200": {"description": "ok"}}},
            "delete": {"parameters": [_query("ids")], "responses": {"200": {"description": "ok"}}},
        },
        "/me/recent": {"get": {"parameters": [_query("limit", "integer"), _query("after")], "responses": _ok(PAGE)}},
        "/mixes/{mix_id}": {"get": {"parameters": [_path("mix_id")], "responses": _ok(MIX)}},
        "/mixes/{mix_id}/songs": {
            "post": {"parameters": [_path("mix_id"), _query("uri"), _query("position", "integer")], "responses": _ok(MIX)}
        },
        "/me/volume": {
            "put": {"parameters": [_query("volume_percent", "integer"), _query("state")], "responses": {"200": {"description": "ok"}}}
        },
    },
    "components": {
        "schemas": {
            "Song": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "name": {"type": "string"},
                    "uri": {"type": "string"},
                    "href": {"type": "string"},
                    "etag": {"type": "string"},
                    "links": {"type": "object", "properties": {"web": {"type": "string"}}},
                },
            }
        }
    },
}
SONGS = [{"id": f"s{n}", "name": f"Song {n}"} for n in range(1, 6)]
FIXTURE: dict[str, Any] = {
    "entities": {"song": SONGS, "mix": [{"id": "m1", "songs": ["a", "b", "c"], "version": 1}]},
    "computed": {
        "song": {
            "uri": "jukebox:song:{id}",
            "href": "https://api.jukebox.example/songs/{id}",
            "links": {"web": "https://jukebox.example/song/{id}?{{raw}}"},
            "etag": {"$token": ["etag", "$id", "$name"], "length": 12},
        },
        "mix": {"snapshot_id": {"$token": ["mix", "$id", "$version"], "length": 16}},
    },
    "endpoints": {
        "PUT_me_songs": {"action": "save", "kind": "song", "id_param": "ids", "collection": "saved", "stamp": "added_at"},
        "DELETE_me_songs": {"action": "unsave", "kind": "song", "id_param": "ids", "collection": "saved"},
        "GET_me_songs": {
            "action": "list",
            "kind": "song",
            "collection": "saved",
            "paging": {"href": "https://api.jukebox.example/me/songs", "limit": 2, "max_limit": 3},
        },
        "GET_me_recent": {
            "action": "list",
            "kind": "song",
            "list_field": "items",
            "paging": {"style": "cursor", "href": "https://api.jukebox.example/me/recent", "limit": 2},
        },
        "POST_mixes__mix_id__songs": {
            "action": "act",
            "kind": "mix",
            "id_param": "mix_id",
            "effects": {"increment": {"version": 1}, "insert": {"songs": {"items": "$uri", "at": "$position"}}},
        },
        "PUT_me_volume": {"checks": {"volume_percent": {"min": 0, "max": 100}, "state": {"one_of": ["track", "context", "off"]}}},
    },
}


def _jukebox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fixture: dict[str, Any]) -> dict[str, Any]:
    from gqlbench.schemas.domain_import import import_openapi_domain

    openapi = tmp_path / "jukebox.json"
    openapi.write_text(json.dumps(JUKEBOX))
    catalog = tmp_path / "catalog"
    import_openapi_domain(openapi, "jukebox", catalog)
    (catalog / "worlds").mkdir()
    (catalog / "worlds" / "jukebox.json").write_text(json.dumps(fixture))
    monkeypatch.setenv("GQLBENCH_CATALOG", str(catalog))
    return Runtime("jukebox").namespace


def test_computed_fields_are_made_from_the_entity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    api = _jukebox(tmp_path, monkeypatch, FIXTURE)
    song = api["GET_songs__id_"](id="s2")
    assert (song.uri, song.href) == ("jukebox:song:s2", "https://api.jukebox.example/songs/s2")
    assert song.links.web == "https://jukebox.example/song/s2?{raw}"
    first = api["GET_songs__id_"](id="s1")
    assert re.fullmatch(r"[0-9A-Za-z]{12}", song.etag) and song.etag != first.etag
    api["PUT_songs__id_"](id="s2", name="Renamed")  # a token over a value changes with the value
    again = api["GET_songs__id_"](id="s2")
    assert again.name == "Renamed" and again.etag != song.etag and again.uri == song.uri


def test_a_declared_offset_page_pages_with_hrefs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    api = _jukebox(tmp_path, monkeypatch, FIXTURE)
    api["PUT_me_songs"](ids="s1,s2,s3")
    first = api["GET_me_songs"]()
    assert [s.id for s in first["items"]] == ["s1", "s2"] and first.total == 3 and first.previous is None
    assert first.next == "https://api.jukebox.example/me/songs?offset=2&limit=2"
    second = api["GET_me_songs"](offset=2)
    assert [s.id for s in second["items"]] == ["s3"] and second.next is None
    assert second.previous == "https://api.jukebox.example/me/songs?offset=0&limit=2"
    assert second["items"][0].uri == "jukebox:song:s3"  # listed entities get their computed fields too
    with pytest.raises(BadArguments, match="limit must be between 1 and 3, got 4"):
        api["GET_me_songs"](limit=4)


def test_a_declared_cursor_page_starts_after_the_cursor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    api = _jukebox(tmp_path, monkeypatch, FIXTURE)
    first = api["GET_me_recent"]()
    assert [s.id for s in first["items"]] == ["s1", "s2"] and first.cursors.after == "s2" and first.total == 5
    second = api["GET_me_recent"](after=first.cursors.after)
    assert [s.id for s in second["items"]] == ["s3", "s4"] and second.total == 3
    last = api["GET_me_recent"](after="s4")
    assert [s.id for s in last["items"]] == ["s5"] and last.cursors.after is None and last.next is None
    with pytest.raises(NotFound, match="after='nope' is not in this list"):
        api["GET_me_recent"](after="nope")


def test_saved_lists_are_written_then_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    api = _jukebox(tmp_path, monkeypatch, FIXTURE)
    assert api["GET_me_songs"]().total == 0
    api["PUT_me_songs"](ids="s1,s2")
    api["PUT_me_songs"](ids="s4")  # newest first
    assert [s.id for s in api["GET_me_songs"](limit=3)["items"]] == ["s4", "s1", "s2"]
    api["PUT_me_songs"](ids="s2")  # saved again: moves to the front
    api["DELETE_me_songs"](ids="s4")
    assert [s.id for s in api["GET_me_songs"](limit=3)["items"]] == ["s2", "s1"]
    with pytest.raises(NotFound, match="no song with id 'zzz'"):
        api["PUT_me_songs"](ids="s3,zzz")
    assert api["GET_me_songs"]().total == 2  # a refused call saves nothing
    with pytest.raises(BadArguments, match="ids is empty"):
        api["DELETE_me_songs"](ids=" , ")


def test_declared_checks_refuse_values_the_api_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    api = _jukebox(tmp_path, monkeypatch, FIXTURE)
    api["PUT_me_volume"](volume_percent=100, state="off")
    with pytest.raises(BadArguments, match="volume_percent must be between 0 and 100, got 150"):
        api["PUT_me_volume"](volume_percent=150)
    with pytest.raises(BadArguments, match="state must be 'track', 'context' or 'off', got 'loop'"):
        api["PUT_me_volume"](state="loop")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"computed": {"song": {"uri": "x:{0.__class__}"}}}, "computed.song.uri: {0.__class__} is not a name"),
        ({"computed": ["uri"]}, "computed: input should be a valid dictionary, got ['uri']"),
        ({"computed": {"song": {"uri": {"$tokn": ["$id"]}}}}, "computed.song.uri: unknown operation '$tokn'"),
        ({"views": {"card": {"kind": "song", "fields": {"n": {"$cnt": "$id"}}}}}, "views.card.fields.n: unknown operation '$cnt'"),
        ({"endpoints": {"GET_me_songs": {"paging": {"size": 3}}}}, "endpoints.GET_me_songs.paging: unknown key 'size'"),
        (
            {"endpoints": {"GET_me_songs": {"paging": {"style": "pages"}}}},
            "endpoints.GET_me_songs.paging.style: input should be 'offset' or 'cursor', got 'pages'",
        ),
        (
            {"endpoints": {"PUT_me_volume": {"checks": {"state": {"among": []}}}}},
            "endpoints.PUT_me_volume.checks.state: unknown key 'among'",
        ),
        ({"endpoints": {"PUT_me_songs": {"action": "save", "kind": "song", "id_param": "ids"}}}, 'needs "collection"'),
    ],
)
def test_a_bad_declaration_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: dict[str, Any], message: str
) -> None:
    fixture = {**FIXTURE, **{k: v for k, v in change.items() if k != "endpoints"}}
    fixture["endpoints"] = {**FIXTURE["endpoints"], **change.get("endpoints", {})}
    with pytest.raises(GqlbenchError, match=re.escape(message)) as error:
        _jukebox(tmp_path, monkeypatch, fixture)
    assert "jukebox.json" in str(error.value) and "\n" not in str(error.value)


VIEWS = {
    "singer": {"kind": "singer", "fields": {"id": "$id", "name": "$name"}},
    "song_short": {"kind": "song", "fields": {"id": "$id", "name": "$name", "by": {"$view": "singer", "of": "$singers"}}},
    "song": {
        "kind": "song",
        "base": "song_short",
        "complete": True,
        "fields": {"album": {"$view": "album_short", "of": "$album"}, "explicit": False},
    },
    "album_short": {"kind": "album", "fields": {"title": "$title", "size": {"$count": "$songs"}}},
    "album": {
        "kind": "album",
        "base": "album_short",
        "complete": True,
        "fields": {"songs": {"$view": "song_short", "of": "$songs"}},
    },
}


def test_views_show_stored_entities_with_what_they_refer_to(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gqlbench.mocks.engine.declared.views import render_view
    from gqlbench.mocks.engine.world import World

    _jukebox(tmp_path, monkeypatch, {**FIXTURE, "views": VIEWS})
    world = World.create("jukebox")
    world.table("singer").update({"p1": {"name": "Ana"}, "p2": {"name": "Bo"}})
    world.table("album").update({"a1": {"title": "Duets", "songs": ["s1", "s2", "s3"]}})
    world.table("song")["s1"].update({"singers": ["p1", "p2"], "album": "a1"})
    fixture = world.model.fixture  # type: ignore[union-attr]
    song = render_view(world, fixture, "song", "s1")
    assert song["by"] == [{"id": "p1", "name": "Ana"}, {"id": "p2", "name": "Bo"}]
    assert song["album"] == {"title": "Duets", "size": 3} and song["explicit"] is False
    assert song["uri"] == "jukebox:song:s1"  # the kind's computed fields are part of every view of it
    album = render_view(world, fixture, "album", "a1")
    assert [s["id"] for s in album["songs"]] == ["s1", "s2", "s3"]
    with pytest.raises(NotFound, match="no song with id 'nope'"):
        render_view(world, fixture, "song", "nope")


def test_a_view_named_by_names_shows_each_entity_its_own_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gqlbench.mocks.engine.declared.views import render_view
    from gqlbench.mocks.engine.world import World

    views = {
        **VIEWS,
        "mix_card": {"kind": "mix", "fields": {"size": {"$count": "$songs"}}},
        "song_card": {"kind": "song", "fields": {"name": "$name", "tag": {"$vocab": "tags", "key": "$name", "default": "?"}}},
        "feed": {"kind": "mix", "fields": {"items": {"$each": "$items", "do": {"$view": "{it.0}_card", "of": "$it.1"}}}},
    }
    _jukebox(tmp_path, monkeypatch, {**FIXTURE, "views": views, "vocab": {"tags": {"Song 1": "first"}}})
    world = World.create("jukebox")
    world.table("mix")["feed1"] = {"id": "feed1", "items": [["song", "s1"], ["mix", "m1"], ["song", "s2"]]}
    feed = render_view(world, world.model.fixture, "feed", "feed1")  # type: ignore[union-attr]
    shown = [{k: item[k] for k in ("name", "tag", "size") if k in item} for item in feed["items"]]
    assert shown == [{"name": "Song 1", "tag": "first"}, {"size": 3}, {"name": "Song 2", "tag": "?"}]  # a view sees vocab
    world.table("mix")["feed2"] = {"id": "feed2", "items": [["singer", "p1"]]}
    with pytest.raises(GqlbenchError, match="no view 'singer_card' under views"):
        render_view(world, world.model.fixture, "feed", "feed2")  # type: ignore[union-attr]


def test_an_unknown_id_is_not_found_in_any_view_named_by_its_label(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    endpoints = {**FIXTURE["endpoints"], "GET_songs__id_": {"respond": {"$view": "song_short", "of": "$id", "label": "tune"}}}
    api = _jukebox(tmp_path, monkeypatch, {**FIXTURE, "views": VIEWS, "endpoints": endpoints})
    with pytest.raises(NotFound, match="no tune with id 's9'"):  # a view that does not complete: not found all the same
        api["GET_songs__id_"](id="s9")


@pytest.mark.parametrize(
    ("views", "message"),
    [
        (
            {"a": {"kind": "song", "fields": {"x": {"$view": "b"}}}, "b": {"kind": "song", "base": "a"}},
            "views.a: shows itself (a -> b -> a)",
        ),
        ({"a": {"kind": "song", "fields": {"x": {"$view": "{kind}_card"}}}}, "views.a.fields.x.$view: no view '{kind}_card' under views"),
    ],
)
def test_a_view_that_shows_itself_or_names_no_view_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, views: dict[str, Any], message: str
) -> None:
    with pytest.raises(GqlbenchError, match=re.escape(message)):
        _jukebox(tmp_path, monkeypatch, {**FIXTURE, "views": views})


def test_a_view_of_an_undefined_view_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    views = {"song": {"kind": "song", "fields": {"by": {"$view": "singer", "of": "$singers"}}}}
    with pytest.raises(GqlbenchError, match=re.escape("views.song.fields.by.$view: no view 'singer' under views")):
        _jukebox(tmp_path, monkeypatch, {**FIXTURE, "views": views})


def test_an_edit_inserts_at_a_position_and_changes_the_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    api = _jukebox(tmp_path, monkeypatch, FIXTURE)
    before = api["GET_mixes__mix_id_"](mix_id="m1")
    edited = api["POST_mixes__mix_id__songs"](mix_id="m1", uri="x", position=1)
    assert list(edited.songs) == ["a", "x", "b", "c"] and edited.version == 2
    assert edited.snapshot_id != before.snapshot_id
    api["POST_mixes__mix_id__songs"](mix_id="m1", uri="z")  # no position: at the end
    after = api["GET_mixes__mix_id_"](mix_id="m1")
    assert list(after.songs) == ["a", "x", "b", "c", "z"] and after.version == 3
    assert after.snapshot_id not in (before.snapshot_id, edited.snapshot_id)
    with pytest.raises(BadArguments, match="position 9 is outside the 5 items of songs"):
        api["POST_mixes__mix_id__songs"](mix_id="m1", uri="y", position=9)
    assert api["GET_mixes__mix_id_"](mix_id="m1").version == 3  # a refused edit changes nothing


def test_an_endpoint_answers_with_a_view(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    views = {"card": {"kind": "song", "complete": True, "fields": {"id": "$id", "name": "$name", "href": "card:{id}"}}}
    endpoints = {
        **FIXTURE["endpoints"],
        "GET_songs__id_": {"respond": {"$view": "card", "of": "$id"}},
        "GET_me_songs": {
            **FIXTURE["endpoints"]["GET_me_songs"],
            "respond": {"$view": "card", "of": {"$each": {"$saved": "saved"}, "do": "$it.id"}},
        },
    }
    api = _jukebox(tmp_path, monkeypatch, {**FIXTURE, "views": views, "endpoints": endpoints})
    song = api["GET_songs__id_"](id="s3")
    assert (song.name, song.href, song.uri) == ("Song 3", "card:s3", "jukebox:song:s3")  # the view's href wins
    with pytest.raises(NotFound, match="no song with id 's9'"):
        api["GET_songs__id_"](id="s9")
    api["PUT_me_songs"](ids="s1,s2,s3")
    page = api["GET_me_songs"](offset=1)
    assert [s.href for s in page["items"]] == ["card:s2", "card:s3"] and page.total == 3 and page.offset == 1


def test_answering_with_an_undefined_view_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    endpoints = {**FIXTURE["endpoints"], "GET_songs__id_": {"respond": {"$view": "card", "of": "$id"}}}
    with pytest.raises(GqlbenchError, match=re.escape("endpoints.GET_songs__id_.respond.$view: no view 'card' under views")) as error:
        _jukebox(tmp_path, monkeypatch, {**FIXTURE, "endpoints": endpoints})
    assert "jukebox.json" in str(error.value)


def test_a_declared_response_shows_views_of_what_refers_to_an_entity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mixes = [
        {"id": "m1", "songs": ["s1", "s2", "s3"], "version": 1},
        {"id": "m2", "songs": ["s4"], "version": 1},
        {"id": "m3", "songs": ["s5", "s1"], "version": 1},
    ]
    views = {"card": {"kind": "song", "complete": True, "fields": {"id": "$id", "href": "card:{id}"}}}
    mixes_with_s1 = {"$each": {"$referring": "s1", "kind": "mix", "in": "songs"}, "do": "$it.songs"}
    songs_with_s1 = {"$unique": {"$add": [{"$at": mixes_with_s1, "index": 0}, {"$at": mixes_with_s1, "index": 1}]}}
    endpoints = {
        **FIXTURE["endpoints"],
        "GET_me_songs": {**FIXTURE["endpoints"]["GET_me_songs"], "respond": {"$view": "card", "of": songs_with_s1}},
    }
    fixture = {**FIXTURE, "entities": {**FIXTURE["entities"], "mix": mixes}, "views": views, "endpoints": endpoints}
    api = _jukebox(tmp_path, monkeypatch, fixture)
    page = api["GET_me_songs"]()  # the mixes holding s1 are m1 and m3: their songs, once each, paged as declared
    assert [s.href for s in page["items"]] == ["card:s1", "card:s2"] and page.total == 4
    assert [s.id for s in api["GET_me_songs"](offset=2)["items"]] == ["s3", "s5"]


def test_a_declared_response_reads_a_saved_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    respond = {"$each": {"$saved": "saved"}, "do": {"id": "$it.id", "href": "$it.added_at", "name": {"$state": "no_such_list"}}}
    endpoints = {**FIXTURE["endpoints"], "GET_me_songs": {**FIXTURE["endpoints"]["GET_me_songs"], "respond": respond}}
    api = _jukebox(tmp_path, monkeypatch, {**FIXTURE, "endpoints": endpoints})
    api["PUT_me_songs"](ids="s1,s2")
    api["PUT_me_songs"](ids="s3")
    items = api["GET_me_songs"](limit=3)["items"]
    assert [i.id for i in items] == ["s3", "s1", "s2"] and items[0].href > items[1].href  # newest first, with its time
    assert all(i.name is None for i in items)  # a list the world does not keep reads as null
