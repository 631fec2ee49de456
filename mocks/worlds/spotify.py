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
catalogue is made is declared too (``make``, ``entities`` and ``load``,
:mod:`gqlbench.mocks.engine.declared.make`): the readable entries (the user,
artists, albums with their tracks inside, playlists, made by the recipes), the
state's references to them (``me``, the user's playlists, saved and top lists,
names for ids), ids and values derived from the seed, and what a search for an unknown
query invents per type; the two albums an artist made by a search gets when
first looked up are a ``grow.fill`` step (:mod:`gqlbench.mocks.engine.declared.growth`).
See docs/add-your-own-api.md.

What stays here cannot be declared without a language of its own:

* ``GET /search`` over several types at once: each requested type is searched
  in the order the request gives (an invention for one type is found by the
  next, and a type that is not searchable fails after the earlier ones), by
  text that joins an album's or a track's artist names, exact names first; a
  template builds objects with fixed keys, not one per requested type with
  its side effects in that order;
* the player's play and next: play checks the device, then a context or
  track URIs and an offset inside them, before it changes anything (the
  device it names becomes the only active one); next plays the queue first,
  then the context's next track, else a top track chosen by the clock. Each
  is one branching step over several values, which the templates (a value
  per name, no statements) would only say less clearly; they check URIs and
  devices with the functions below, and the tracks of a
  context (an album's, a playlist's, an artist's top tracks) are read here;
* the functions the fixture's templates call (``{"$call": name, "args": [...]}``),
  each a need of one endpoint: a URI read as ``{"kind", "id"}``, the device a
  call names, the artists sharing a genre, the tracks of albums, an album's
  first page of tracks, a playlist's items, the items a playlist edit adds or
  removes, following and unfollowing;
* playlist creation: the new playlist is made as loading and search make one
  (``make``: its id from its name and the clock) and goes first in the user's list;
* loading the devices (ids derived from their names) and the player (its
  track and context named in the fixture) into the world's state.

The rest of the player, following and playlist edits are declared
(``respond`` templates and ``shapes``, :mod:`gqlbench.mocks.engine.declared.writes`):
the devices, what is playing, pause, repeat, volume and the queue (changes
to the state's ``player`` and ``devices``); following artists and users
(saved lists); a playlist shown with its first page of items; adding tracks
by URI at a position (``insert``, each entry stamped by the clock), removing
them and changing the details (``remove``, ``set_given``), each bumping the
``version`` the snapshot id is made from.
"""

from __future__ import annotations

import re
from typing import Any

from gqlbench.mocks.world import (
    BadArguments,
    Handler,
    NotFound,
    World,
    check_stored_items,
    computed,
    invent,
    make,
    offset_page,
    resolve,
    save,
    search_text,
    split_ids,
    unsave,
    view,
)

__all__ = ["MODEL", "SpotifyModel"]

API = "https://api.spotify.com/v1"
_SEARCH_TYPES = {"album": "albums", "artist": "artists", "playlist": "playlists", "track": "tracks"}


# -- the fixture's functions ({"$call": name, "args": [...]}) ----------------------------------
def spotify_uri(world: World, text: Any, kinds: list[str]) -> dict[str, str]:
    """``{"kind", "id"}`` of a URI ``spotify:<kind>:<id>`` of one of ``kinds``, else :class:`BadArguments`."""
    match = re.fullmatch(rf"spotify:({'|'.join(map(re.escape, kinds))}):([A-Za-z0-9_.\-]+)", str(text).strip())
    if match is None:
        forms = " or ".join(f"spotify:{kind}:<id>" for kind in kinds)
        raise BadArguments(f"{text!r} is not a Spotify URI of the form {forms}; use the 'uri' field of a response")
    return {"kind": match.group(1), "id": match.group(2)}


def playable_id(world: World, text: Any) -> str:
    """The id of the track a track (or episode) URI names; the track must exist."""
    found = spotify_uri(world, text, ["track", "episode"])["id"]
    world.get("track", found)
    return found


def device(world: World, device_id: str | None) -> dict[str, Any]:
    """The device ``device_id`` names, or the active one when it is None; else :class:`NotFound`."""
    wanted = {"id": device_id} if device_id is not None else {"is_active": True}
    for found in world.state.get("devices") or ():
        if isinstance(found, dict) and all(found.get(k) == v for k, v in wanted.items()):
            return found
    if device_id is not None:
        raise NotFound(f"no device with id {device_id!r}; use an id from GET_me_player_devices()")
    raise NotFound("no active device; pass device_id of one of GET_me_player_devices()")


def same_genre(world: World, artist: dict[str, Any]) -> list[dict[str, Any]]:
    """The other artists that share a genre with ``artist``, in the order they were made (related artists)."""
    genres = set(artist.get("genres") or ())
    return world.find("artist", lambda r: bool(genres.intersection(r.get("genres") or ())) and r.get("id") != artist.get("id"))


def tracks_of(world: World, albums: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every track of the albums, album by album (an artist's top tracks are chosen from them)."""
    return [world.get("track", track) for album in albums for track in album["tracks"]]


def first_page(world: World, items: list[Any], href: str, limit: int) -> dict[str, Any]:
    """The first offset page of ``items`` (an album shows its tracks so)."""
    return offset_page(items, href, {"limit": limit}, limit)


def playlist_tracks(world: World, playlist_id: str) -> Any:
    """What ``GET_playlists__playlist_id__tracks`` answers (a playlist shows its first page of items)."""
    show = world.handler("GET_playlists__playlist_id__tracks")  # declared in the fixture
    return show(world, {"playlist_id": playlist_id}) if show else None


def added_items(world: World, uris: Any) -> list[dict[str, Any]]:
    """The items ``POST_playlists__playlist_id__tracks`` adds: each URI's track, stamped by the clock."""
    if not uris:
        raise BadArguments("uris is missing or empty; pass track URIs separated by commas")
    return [{"id": playable_id(world, uri), "added_at": world.tick()} for uri in split_ids(uris, "uris")]


def removed_ids(world: World, tracks: Any) -> list[str]:
    """The track ids ``DELETE_playlists__playlist_id__tracks`` removes, read from ``[{"uri": ...}]``."""
    if not tracks:
        raise BadArguments('tracks is missing or empty; pass a list like [{"uri": "spotify:track:<id>"}]')
    ids = []
    for entry in tracks:
        if not isinstance(entry, dict) or "uri" not in entry:
            raise BadArguments(f'each element of tracks must be {{"uri": "spotify:track:<id>"}}, got {entry!r}')
        ids.append(spotify_uri(world, entry["uri"], ["track", "episode"])["id"])
    return ids


def follow(world: World, type_: str, ids: Any, add: bool = True) -> None:
    """Follow (or with ``add`` false, unfollow) artists or users: the saved lists ``following`` and ``followed_users``."""
    name, kind = ("following", "artist") if type_ == "artist" else ("followed_users", "user")
    (save if add else unsave)(world, name, kind, split_ids(ids, "ids"))


FUNCTIONS = {
    f.__name__: f
    for f in (spotify_uri, playable_id, device, same_genre, tracks_of, first_page, playlist_tracks, added_items, removed_ids, follow)
}


# -- helpers ---------------------------------------------------------------------
def _context_tracks(world: World, text: str) -> list[str]:
    """The tracks a context URI plays, in order: an album's, a playlist's, an artist's top tracks, or the one track."""
    context = spotify_uri(world, text, ["album", "playlist", "artist", "track"])
    if context["kind"] == "album":
        return list(world.get("album", context["id"])["tracks"])
    if context["kind"] == "playlist":
        return [entry["id"] for entry in world.get("playlist", context["id"])["tracks"]]
    if context["kind"] == "artist":
        top_tracks = world.handler("GET_artists__id__top_tracks")  # declared in the fixture
        return [track["id"] for track in top_tracks(world, {"id": context["id"]})["tracks"]] if top_tracks else []
    world.get("track", context["id"])
    return [context["id"]]


def _title(query: str) -> str:
    """How a generated entity is named after a query: as typed, title-cased if all lower case."""
    query = " ".join(query.split())
    return query.title() if query.islower() else query


def _tokens(text: str) -> list[str]:
    return [t for t in re.split(r"[^\w&#']+", text.lower()) if t]


class SpotifyModel:
    """Loads the fixture and answers every Spotify endpoint of the catalog."""

    domain = "spotify"
    sections = ("devices", "player")  # the fixture's sections this behaviour reads (mocks/engine/worldfile.py)
    functions = FUNCTIONS

    def __init__(self) -> None:
        self.handlers: dict[str, Handler] = {name[len("h_") :]: getattr(self, name) for name in dir(self) if name.startswith("h_")}

    # -- loading (the catalogue, the saved and top lists are made by the fixture's "load") --------------
    def load(self, world: World, fixture: dict[str, Any]) -> None:
        where = "mocks/worlds/spotify.json"
        flags = {"is_active": False, "is_private_session": False, "is_restricted": False, "supports_volume": True}
        devices = [
            {
                "id": device.get("id") or world.token("device", device["name"], length=40).lower(),
                "name": device["name"],
                "type": device.get("type", "Computer"),
                "volume_percent": device.get("volume_percent", 50),
                **flags,
            }
            for device in fixture.get("devices", [])
        ]
        world.state["devices"] = devices
        player = fixture.get("player") or {}
        active = next((d for d in devices if d["name"] == player.get("device")), devices[0] if devices else None)
        if active is not None:
            active["is_active"] = True
        context = player.get("context")
        context_uri = (
            computed(world, context["type"], {"id": resolve(world, context["type"], context["name"], where)})["uri"] if context else None
        )
        world.state["player"] = {
            "device_id": active["id"] if active else None,
            "item": resolve(world, "track", player["track"], where) if player.get("track") else None,
            "context_uri": context_uri,
            "is_playing": bool(player.get("is_playing", False)),
            "progress_ms": int(player.get("progress_ms", 0)),
            "repeat_state": player.get("repeat_state", "off"),
            "shuffle_state": bool(player.get("shuffle_state", False)),
            "queue": [],
        }

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
                invent(world, kind, _title(query))  # declared per kind under "make"
                found = self._matches(world, kind, query)
            shown = {"album": "album_simple", "playlist": "playlist_simple"}.get(kind, kind)
            items = [view(world, shown, r["id"]) for r in found]
            result[_SEARCH_TYPES[kind]] = offset_page(items, f"{API}/search", args)
        return result

    # -- lookups ---------------------------------------------------------------------
    # -- player (the rest of it, and the playlist edits, are declared in the fixture) ----------
    def h_PUT_me_player_play(self, world: World, args: dict[str, Any]) -> None:
        player, given = world.state["player"], args.get("device_id")
        chosen = device(world, given if given is not None else player["device_id"])
        if given is not None:
            for d in world.state["devices"]:
                d["is_active"] = d is chosen
            player["device_id"] = chosen["id"]
        uris, context_uri = args.get("uris"), args.get("context_uri")
        if context_uri and uris:
            raise BadArguments("pass either context_uri or uris, not both")
        if context_uri:
            tracks = _context_tracks(world, context_uri)
        elif uris:
            ids = [spotify_uri(world, uri, ["track"])["id"] for uri in split_ids(uris, "uris")]
            tracks = [world.get("track", i)["id"] for i in ids]
        else:
            tracks = [player["item"]] if player["item"] else []
        offset = args.get("offset")
        position = int(offset["position"]) if isinstance(offset, dict) and "position" in offset else 0
        if tracks and not 0 <= position < len(tracks):
            raise BadArguments(f"offset position {position} is outside the context's {len(tracks)} tracks")
        if context_uri or uris:  # a refused call (above) changes nothing
            player["context_uri"] = str(context_uri).strip() if context_uri else None
        if tracks and (context_uri or uris):
            player["item"] = tracks[position]
            player["progress_ms"] = int(args.get("position_ms") or 0)
        player["is_playing"] = True
        world.tick()

    def h_POST_me_player_next(self, world: World, args: dict[str, Any]) -> None:
        player = world.state["player"]
        context = _context_tracks(world, player["context_uri"]) if player["context_uri"] and not player["queue"] else []
        if player["queue"]:
            player["item"] = player["queue"].pop(0)
        elif player["item"] in context:
            player["item"] = context[(context.index(player["item"]) + 1) % len(context)]
        elif world.state["top_tracks"]:
            player["item"] = world.pick(world.state["top_tracks"], "skip", world.state.get("clock", 0))
        player["progress_ms"] = 0
        player["is_playing"] = True
        world.tick()

    # -- playlist creation (its edits are declared in the fixture) ------------------------
    def h_POST_users__user_id__playlists(self, world: World, args: dict[str, Any]) -> dict[str, Any] | None:
        if args["user_id"] != world.state["me"]:
            world.get("user", args["user_id"])
            raise BadArguments(f"user_id {args['user_id']!r} is not the current user; only your own playlists can be created (GET_me().id)")
        entry = {"name": args["name"], "description": args.get("description") or "", "tracks": []}
        entry |= {"public": args.get("public", True), "collaborative": args.get("collaborative", False)}
        check_stored_items("playlists", len(world.state["playlists"]) + 1)  # each made one is listed by GET_me_playlists
        playlist_id = make(world, "playlist", {"id": None, **entry})
        world.state["playlists"].insert(0, playlist_id)
        world.tick()
        show = world.handler("GET_playlists__playlist_id_")  # declared in the fixture
        return show(world, {"playlist_id": playlist_id}) if show else None


MODEL = SpotifyModel()
