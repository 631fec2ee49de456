"""The Spotify mock world: what of it is Python, and why (the rest is data in ``worlds/spotify.json``).

The fixture declares, for the generic engine: the computed fields of each
kind (``computed``: ``type``, ``uri``, ``href``, ``external_urls``, the
playlist ``snapshot_id`` token of its version), the shapes entities are
shown in (``views``: a track with its artists and album, an album with its
first page of tracks), the pages of every list endpoint (offset pages, the
cursor page of ``GET /me/following``), the argument checks (repeat state,
volume, ``type``) and the saved tracks and albums (``save``/``unsave`` on
saved lists, :mod:`gqlbench.mocks.engine.declared.lists`), an artist's albums newest first
and its top tracks by popularity, its related artists (a shared genre, three
"Radio" artists made when none), the saved and top lists, the user and
their playlists and a playlist's items (``respond`` templates). How the
catalogue is made is declared too (``make`` and ``load``,
:mod:`gqlbench.mocks.engine.declared.make`): the readable entries (artists,
albums with their tracks inside, playlists, saved and top lists, names for
ids), ids and values derived from the seed, the two albums an artist made by
a search gets when first looked up, and what a search for an unknown query
invents per type. See docs/add-your-own-api.md.

What stays here cannot be declared without a language of its own:

* ``GET /search`` over several types at once: each requested type is searched
  in the order the request gives (an invention for one type is found by the
  next, and a type that is not searchable fails after the earlier ones), by
  text that joins an album's or a track's artist names, exact names first; a
  template builds objects with fixed keys, not one per requested type with
  its side effects in that order;
* the player: devices and the active one, play contexts given by URI and an
  offset, the queue, next/previous within the context;
* playlist creation and edits by URI at a position, each bumping the version
  that the snapshot id is made from; following users as well as artists
  (``_ref`` and ``_new_playlist`` are their doors to the declared ``make``).
"""

from __future__ import annotations

import re
from typing import Any

from gqlbench.mocks.engine.declared import lists
from gqlbench.mocks.engine.declared.computed import computed
from gqlbench.mocks.engine.declared.make import invent, make, resolve, scope_of
from gqlbench.mocks.engine.declared.paging import offset_page
from gqlbench.mocks.engine.declared.views import render_view
from gqlbench.mocks.engine.world import Handler, World, search_text
from gqlbench.mocks.errors import BadArguments, NotFound

__all__ = ["MODEL", "SpotifyModel"]

API = "https://api.spotify.com/v1"
_URI = re.compile(r"^spotify:(track|album|artist|playlist|user|episode|show):([A-Za-z0-9_.\-]+)$")
_SEARCH_TYPES = {"album": "albums", "artist": "artists", "playlist": "playlists", "track": "tracks"}


# -- helpers ---------------------------------------------------------------------
def _fixture(world: World) -> dict[str, Any]:
    return world.model.fixture if world.model is not None else {}


def _links(world: World, kind: str, values: dict[str, Any]) -> dict[str, Any]:
    """The kind's computed fields (``type``, ``uri``, ``href``...), declared under the fixture's ``computed``."""
    return computed(_fixture(world), kind, values, world)


def _view(world: World, view: str, entity_id: str) -> dict[str, Any]:
    """An entity as the fixture's ``views`` show it."""
    return render_view(world, _fixture(world), view, entity_id)


def _parse_uri(uri: Any, *, expect: tuple[str, ...]) -> tuple[str, str]:
    match = _URI.match(str(uri).strip())
    if not match or match.group(1) not in expect:
        kinds = " or ".join(f"spotify:{k}:<id>" for k in expect)
        raise BadArguments(f"{uri!r} is not a Spotify URI of the form {kinds}; use the 'uri' field of a response")
    return match.group(1), match.group(2)


def _title(query: str) -> str:
    """How a generated entity is named after a query: as typed, title-cased if all lower case."""
    query = " ".join(query.split())
    return query.title() if query.islower() else query


def _tokens(text: str) -> list[str]:
    return [t for t in re.split(r"[^\w&#']+", text.lower()) if t]


class SpotifyModel:
    """Loads the fixture and answers every Spotify endpoint of the catalog."""

    domain = "spotify"

    def __init__(self) -> None:
        self.handlers: dict[str, Handler] = {name[len("h_") :]: getattr(self, name) for name in dir(self) if name.startswith("h_")}

    # -- loading (the catalogue, the saved and top lists are made by the fixture's "load") --------------
    def load(self, world: World, fixture: dict[str, Any]) -> None:
        where = "mocks/worlds/spotify.json"
        devices = []
        for device in fixture.get("devices", []):
            devices.append(
                {
                    "id": device.get("id") or world.token("device", device["name"], length=40).lower(),
                    "name": device["name"],
                    "type": device.get("type", "Computer"),
                    "volume_percent": device.get("volume_percent", 50),
                    "is_active": False,
                    "is_private_session": False,
                    "is_restricted": False,
                    "supports_volume": True,
                }
            )
        world.state["devices"] = devices
        player = fixture.get("player") or {}
        active = next((d for d in devices if d["name"] == player.get("device")), devices[0] if devices else None)
        if active is not None:
            active["is_active"] = True
        context = player.get("context")
        context_uri = None
        if context:
            kind = context["type"]
            context_uri = _links(world, kind, {"id": self._ref(world, kind, context["name"], where)})["uri"]
        world.state["player"] = {
            "device_id": active["id"] if active else None,
            "item": self._ref(world, "track", player["track"], where) if player.get("track") else None,
            "context_uri": context_uri,
            "is_playing": bool(player.get("is_playing", False)),
            "progress_ms": int(player.get("progress_ms", 0)),
            "repeat_state": player.get("repeat_state", "off"),
            "shuffle_state": bool(player.get("shuffle_state", False)),
            "queue": [],
        }

    def _ref(self, world: World, kind: str, ref: str, where: str) -> str:
        """A fixture reference (an id or a unique name) -> the entity's id."""
        return resolve(world, kind, ref, where)

    def _new_playlist(
        self,
        world: World,
        name: str,
        track_ids: list[str],
        *,
        public: bool = True,
        description: str = "",
        playlist_id: str | None = None,
        collaborative: bool = False,
    ) -> str:
        entry = {"id": playlist_id, "name": name, "description": description, "public": public, "collaborative": collaborative}
        return make(scope_of(world), "playlist", {**entry, "tracks": track_ids})

    # -- rendering ---------------------------------------------------------------------
    def _playlist(self, world: World, playlist_id: str) -> dict[str, Any]:
        items = world.handler("GET_playlists__playlist_id__tracks")  # declared: the first page of its items
        page = items(world, {"playlist_id": playlist_id}) if items else None
        return {**_view(world, "playlist_simple", playlist_id), "followers": {"href": None, "total": 0}, "tracks": page}

    def _snapshot(self, world: World, playlist_id: str) -> dict[str, Any]:
        return {"snapshot_id": _links(world, "playlist", world.table("playlist")[playlist_id])["snapshot_id"]}

    # -- search ---------------------------------------------------------------------
    def _search_text(self, world: World, kind: str, record: dict[str, Any]) -> str:
        artists = world.table("artist")
        if kind == "artist":
            return record["name"]
        if kind == "album":
            return " ".join([record["name"], *(artists[a]["name"] for a in record["artists"])])
        if kind == "track":
            album = world.table("album")[record["album"]]
            return " ".join([record["name"], album["name"], *(artists[a]["name"] for a in record["artists"])])
        return record["name"]

    def _matches(self, world: World, kind: str, query: str) -> list[dict[str, Any]]:
        tokens = _tokens(query)
        # a query word matches as a substring of the text (a whole word of it is one too)
        found = world.search(kind, tokens, lambda r: self._search_text(world, kind, r))
        exact = query.strip().lower()
        return sorted(found, key=lambda r: (r["name"].lower() != exact, -r.get("popularity", 0)))

    def h_GET_search(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        query = search_text(args["q"], "q")
        if not query:
            raise BadArguments("q is empty; pass the words to search for")
        types = args["type"] if isinstance(args["type"], list) else str(args["type"]).split(",")
        result: dict[str, Any] = dict.fromkeys(_SEARCH_TYPES.values())  # types not searched are null
        for kind in (t.strip() for t in types):
            if kind not in _SEARCH_TYPES:
                raise BadArguments(f"type {kind!r} is not searchable; use one or more of {', '.join(_SEARCH_TYPES)}")
            found = self._matches(world, kind, query)
            if not found:
                invent(scope_of(world), kind, _title(query))  # declared per kind under "make"
                found = self._matches(world, kind, query)
            view = {"album": "album_simple", "playlist": "playlist_simple"}.get(kind, kind)
            items = [_view(world, view, r["id"]) for r in found]
            result[_SEARCH_TYPES[kind]] = offset_page(items, f"{API}/search", args)
        return result

    # -- lookups ---------------------------------------------------------------------
    def h_GET_playlists__playlist_id_(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._playlist(world, args["playlist_id"])

    # -- player ---------------------------------------------------------------------
    def _device(self, world: World, device_id: str | None) -> dict[str, Any]:
        devices = world.state["devices"]
        if device_id is None:
            active = [d for d in devices if d["is_active"]]
            if not active:
                raise NotFound("no active device; pass device_id of one of GET_me_player_devices()")
            return active[0]
        for device in devices:
            if device["id"] == device_id:
                return device
        raise NotFound(f"no device with id {device_id!r}; use an id from GET_me_player_devices()")

    def _activate(self, world: World, device_id: str | None) -> None:
        device = self._device(world, device_id)
        for d in world.state["devices"]:
            d["is_active"] = d is device
        world.state["player"]["device_id"] = device["id"]

    def h_GET_me_player_devices(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return {"devices": [dict(d) for d in world.state["devices"]]}

    def h_GET_me_player_currently_playing(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        player = world.state["player"]
        context = None
        if player["context_uri"]:
            kind, entity_id = player["context_uri"].split(":")[1:]
            links = _links(world, kind, {"id": entity_id})
            context = {name: links[name] for name in ("type", "uri", "href", "external_urls")}
        return {
            "timestamp": 1717243200000 + world.state.get("clock", 0) * 1000,
            "context": context,
            "progress_ms": player["progress_ms"],
            "is_playing": player["is_playing"],
            "item": _view(world, "track", player["item"]) if player["item"] else None,
            "currently_playing_type": "track" if player["item"] else "unknown",
            "actions": {"disallows": {"resuming": player["is_playing"], "skipping_prev": False}},
        }

    def _context_tracks(self, world: World, context_uri: str) -> list[str]:
        kind, entity_id = _parse_uri(context_uri, expect=("album", "playlist", "artist", "track"))
        if kind == "album":
            return list(world.get("album", entity_id)["tracks"])
        if kind == "playlist":
            return [t["id"] for t in world.get("playlist", entity_id)["tracks"]]
        if kind == "artist":
            top_tracks = world.handler("GET_artists__id__top_tracks")  # declared in the fixture
            return [t["id"] for t in top_tracks(world, {"id": entity_id})["tracks"]] if top_tracks else []
        world.get("track", entity_id)  # a track as context: lenient, it plays that track
        return [entity_id]

    def h_PUT_me_player_play(self, world: World, args: dict[str, Any]) -> None:
        player = world.state["player"]
        if args.get("device_id") is not None:
            self._activate(world, args["device_id"])
        else:
            self._device(world, player["device_id"])
        uris = args.get("uris")
        if args.get("context_uri") and uris:
            raise BadArguments("pass either context_uri or uris, not both")
        if args.get("context_uri"):
            tracks = self._context_tracks(world, args["context_uri"])
            player["context_uri"] = str(args["context_uri"]).strip()
        elif uris:
            tracks = []
            for uri in lists.split_ids(uris, "uris"):
                tracks.append(world.get("track", _parse_uri(uri, expect=("track",))[1])["id"])
            player["context_uri"] = None
        else:
            tracks = [player["item"]] if player["item"] else []
        offset = args.get("offset")
        position = 0
        if isinstance(offset, dict) and "position" in offset:
            position = int(offset["position"])
        if tracks:
            if not 0 <= position < len(tracks):
                raise BadArguments(f"offset position {position} is outside the context's {len(tracks)} tracks")
            if args.get("context_uri") or uris:
                player["item"] = tracks[position]
                player["progress_ms"] = int(args.get("position_ms") or 0)
        player["is_playing"] = True
        world.tick()

    def h_PUT_me_player_pause(self, world: World, args: dict[str, Any]) -> None:
        if args.get("device_id") is not None:
            self._device(world, args["device_id"])
        world.state["player"]["is_playing"] = False
        world.tick()

    def _skip(self, world: World, step: int) -> None:
        player = world.state["player"]
        if step > 0 and player["queue"]:
            player["item"] = player["queue"].pop(0)
        else:
            context = self._context_tracks(world, player["context_uri"]) if player["context_uri"] else []
            if player["item"] in context:
                player["item"] = context[(context.index(player["item"]) + step) % len(context)]
            else:
                top = world.state["top_tracks"]
                if top:
                    player["item"] = world.pick(top, "skip", world.state.get("clock", 0))
        player["progress_ms"] = 0
        player["is_playing"] = True
        world.tick()

    def h_POST_me_player_next(self, world: World, args: dict[str, Any]) -> None:
        self._skip(world, 1)

    def h_POST_me_player_queue(self, world: World, args: dict[str, Any]) -> None:
        if args.get("device_id") is not None:
            self._device(world, args["device_id"])
        track_id = _parse_uri(args["uri"], expect=("track", "episode"))[1]
        world.get("track", track_id)
        world.state["player"]["queue"].append(track_id)
        world.tick()

    def h_PUT_me_player_repeat(self, world: World, args: dict[str, Any]) -> None:
        world.state["player"]["repeat_state"] = args["state"]
        world.tick()

    def h_PUT_me_player_volume(self, world: World, args: dict[str, Any]) -> None:
        self._device(world, args.get("device_id"))["volume_percent"] = args["volume_percent"]
        world.tick()

    # -- following (saving tracks and albums is declared in the fixture) -------------------
    def _follow(self, world: World, args: dict[str, Any], follow: bool) -> None:
        ids = lists.split_ids(args["ids"], "ids")
        if args["type"] == "artist":  # users can be followed, but no endpoint lists them
            lists.change(world, "following", "artist", ids, add=follow)
            return
        for entity_id in ids:
            world.get("user", entity_id)
        world.tick()

    def h_PUT_me_following(self, world: World, args: dict[str, Any]) -> None:
        self._follow(world, args, True)

    def h_DELETE_me_following(self, world: World, args: dict[str, Any]) -> None:
        self._follow(world, args, False)

    # -- playlist mutations ---------------------------------------------------------------
    def h_POST_users__user_id__playlists(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        if args["user_id"] != world.state["me"]:
            world.get("user", args["user_id"])
            raise BadArguments(f"user_id {args['user_id']!r} is not the current user; only your own playlists can be created (GET_me().id)")
        playlist_id = self._new_playlist(
            world,
            args["name"],
            [],
            public=args.get("public", True),
            description=args.get("description") or "",
            collaborative=args.get("collaborative", False),
        )
        world.state["playlists"].insert(0, playlist_id)
        world.tick()
        return self._playlist(world, playlist_id)

    def h_PUT_playlists__playlist_id_(self, world: World, args: dict[str, Any]) -> None:
        playlist = world.get("playlist", args["playlist_id"])
        for key in ("name", "public", "collaborative", "description"):
            if args.get(key) is not None:
                playlist[key] = args[key]
        playlist["version"] += 1
        world.tick()

    def h_POST_playlists__playlist_id__tracks(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        playlist = world.get("playlist", args["playlist_id"])
        if not args.get("uris"):
            raise BadArguments("uris is missing or empty; pass track URIs separated by commas")
        new = []
        for uri in lists.split_ids(args["uris"], "uris"):
            track_id = _parse_uri(uri, expect=("track", "episode"))[1]
            world.get("track", track_id)
            new.append({"id": track_id, "added_at": world.tick()})
        position = args.get("position")
        position = len(playlist["tracks"]) if position is None else position
        if not 0 <= position <= len(playlist["tracks"]):
            raise BadArguments(f"position {position} is outside the playlist's {len(playlist['tracks'])} tracks")
        playlist["tracks"][position:position] = new
        playlist["version"] += 1
        return self._snapshot(world, playlist["id"])

    def h_DELETE_playlists__playlist_id__tracks(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        playlist = world.get("playlist", args["playlist_id"])
        entries = args.get("tracks")
        if not entries:
            raise BadArguments('tracks is missing or empty; pass a list like [{"uri": "spotify:track:<id>"}]')
        remove = set()
        for entry in entries:
            if not isinstance(entry, dict) or "uri" not in entry:
                raise BadArguments(f'each element of tracks must be {{"uri": "spotify:track:<id>"}}, got {entry!r}')
            remove.add(_parse_uri(entry["uri"], expect=("track", "episode"))[1])
        playlist["tracks"] = [t for t in playlist["tracks"] if t["id"] not in remove]
        playlist["version"] += 1
        world.tick()
        return self._snapshot(world, playlist["id"])


MODEL = SpotifyModel()
