"""The Spotify mock world: what of it is Python, and why (the rest is data in ``worlds/spotify.json``).

The fixture declares, for the generic engine: the computed fields of each
kind (``computed``: ``type``, ``uri``, ``href``, ``external_urls``, the
playlist ``snapshot_id`` token of its version), the shapes entities are
shown in (``views``: a track with its artists and album, an album with its
first page of tracks), the pages of every list endpoint (offset pages, the
cursor page of ``GET /me/following``), the argument checks (repeat state,
volume, ``type``) and the saved tracks and albums (``save``/``unsave`` on
saved lists, :mod:`gqlbench.mocks.engine.declared.lists`), an artist's albums newest first
and its top tracks by popularity, the saved and top lists, the user and
their playlists and a playlist's items (``respond`` templates). See docs/add-your-own-api.md.

What stays here cannot be declared without a language of its own:

* loading the readable fixture (entities referred to by name, tracks inside
  their album) with ids and values derived from the seed, so every seed has
  its own catalogue;
* search over several types at once that invents a catalogue for an unknown
  query (an artist, an album, tracks named after it) and ranks exact names
  first; an artist made that way gets two albums the first time it is seen;
* the player's play and next: play checks the device, then a context or
  track URIs and an offset inside them, before it changes anything (the
  device it names becomes the only active one); next plays the queue first,
  then the context's next track, else a top track chosen by the clock. Each
  is one branching step over several values, which the templates (a value
  per name, no statements) would only say less clearly; the checks they use
  are the fixture's (the ``spotify_uri``, ``device`` and ``context_tracks`` shapes);
* playlist creation: the new playlist is made as loading and search make one
  (its id from its name and the clock) and goes first in the user's list;
* loading the devices (ids derived from their names) and the player (its
  track and context named in the fixture) into the world's state;
* related artists by shared genre (made up when none is known).

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

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared import lists
from gqlbench.mocks.engine.declared.computed import computed
from gqlbench.mocks.engine.declared.paging import offset_page
from gqlbench.mocks.engine.declared.templates import Scope, evaluate
from gqlbench.mocks.engine.declared.views import render_view
from gqlbench.mocks.engine.world import Handler, World, search_text
from gqlbench.mocks.errors import BadArguments

__all__ = ["MODEL", "SpotifyModel"]

API = "https://api.spotify.com/v1"
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


def _shape(world: World, name: str, **names: Any) -> Any:
    """The fixture's shape ``name`` with these names: the checks (a URI, a device) play shares with declared endpoints."""
    shapes = _fixture(world).get("shapes") or {}
    return evaluate(shapes[name], Scope(world, names, shapes, fixture=_fixture(world)))


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

    # -- loading -------------------------------------------------------------------
    def load(self, world: World, fixture: dict[str, Any]) -> None:
        where = "mocks/worlds/spotify.json"
        user = dict(fixture.get("user") or {"id": "mockuser", "display_name": "Mock User"})
        world.put("user", user, complete=True)
        world.state["me"] = user["id"]
        for artist in fixture.get("artists", []):
            self._new_artist(world, artist["name"], artist.get("id"), genres=artist.get("genres"), popularity=artist.get("popularity"))
        for album in fixture.get("albums", []):
            artist_ids = [self._ref(world, "artist", a, where) for a in album.get("artists", [])]
            tracks = [t if isinstance(t, dict) else {"name": t} for t in album.get("tracks", [])]
            for t in tracks:
                if "artists" in t:
                    t["artists"] = [self._ref(world, "artist", a, where) for a in t["artists"]]
            self._new_album(
                world,
                album["name"],
                artist_ids,
                tracks,
                album_id=album.get("id"),
                release_date=album.get("release_date"),
                album_type=album.get("album_type"),
                label=album.get("label"),
            )
        for playlist in fixture.get("playlists", []):
            track_ids = [self._ref(world, "track", t, where) for t in playlist.get("tracks", [])]
            self._new_playlist(
                world,
                playlist["name"],
                track_ids,
                public=playlist.get("public", True),
                description=playlist.get("description", ""),
                playlist_id=playlist.get("id"),
            )
        world.state["playlists"] = list(world.table("playlist"))
        world.state["lists"] = {
            "saved_tracks": [
                {"id": self._ref(world, "track", t, where), "added_at": world.tick()} for t in fixture.get("saved_tracks", [])
            ],
            "saved_albums": [
                {"id": self._ref(world, "album", a, where), "added_at": world.tick()} for a in fixture.get("saved_albums", [])
            ],
            "following": [{"id": self._ref(world, "artist", a, where)} for a in fixture.get("following", [])],
        }
        world.state["top_artists"] = [self._ref(world, "artist", a, where) for a in fixture.get("top_artists", [])]
        world.state["top_tracks"] = [self._ref(world, "track", t, where) for t in fixture.get("top_tracks", [])]
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
            _links(world, context["type"], {"id": self._ref(world, context["type"], context["name"], where)})["uri"] if context else None
        )
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
        if world.has(kind, ref):
            return ref
        found = [r["id"] for r in world.find(kind, lambda r: r["name"] == ref)]
        if len(found) != 1:
            what = "no" if not found else f"{len(found)}"
            raise GqlbenchError(f"{where}: {what} {kind} named {ref!r}; refer to a {kind} defined earlier in the file by its name or id")
        return found[0]

    # -- creating entities -----------------------------------------------------------------
    def _new_artist(
        self, world: World, name: str, artist_id: str | None = None, *, genres: list[str] | None = None, popularity: int | None = None
    ) -> str:
        artist_id = artist_id or world.token("artist", name)
        world.put(
            "artist",
            {
                "id": artist_id,
                "name": name,
                "genres": genres if genres is not None else [world.pick(["pop", "indie", "rock", "electronic", "soul"], artist_id)],
                "popularity": popularity if popularity is not None else world.int(artist_id, "popularity", lo=20, hi=80),
                "followers": world.int(artist_id, "followers", lo=1_000, hi=5_000_000),
            },
        )
        return artist_id

    def _new_album(
        self,
        world: World,
        name: str,
        artist_ids: list[str],
        tracks: list[dict[str, Any]],
        *,
        album_id: str | None = None,
        release_date: str | None = None,
        album_type: str | None = None,
        label: str | None = None,
    ) -> str:
        album_id = album_id or world.token("album", name, *artist_ids)
        track_ids = []
        for number, track in enumerate(tracks, start=1):
            track_id = track.get("id") or world.token("track", album_id, track["name"])
            world.put(
                "track",
                {
                    "id": track_id,
                    "name": track["name"],
                    "album": album_id,
                    "artists": track.get("artists") or list(artist_ids),
                    "track_number": number,
                    "duration_ms": world.int(track_id, "duration", lo=150_000, hi=330_000),
                    "popularity": world.int(track_id, "popularity", lo=30, hi=95),
                    "explicit": False,
                },
                complete=True,
            )
            track_ids.append(track_id)
        year = world.int(album_id, "year", lo=1995, hi=2023)
        world.put(
            "album",
            {
                "id": album_id,
                "name": name,
                "artists": list(artist_ids),
                "tracks": track_ids,
                "album_type": album_type or ("single" if len(track_ids) == 1 else "album"),
                "release_date": release_date
                or f"{year}-{world.int(album_id, 'month', lo=1, hi=12):02d}-{world.int(album_id, 'day', lo=1, hi=28):02d}",
                "label": label or f"{name} Records",
                "popularity": world.int(album_id, "popularity", lo=20, hi=90),
            },
            complete=True,
        )
        return album_id

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
        playlist_id = playlist_id or world.token("playlist", name, world.state.get("clock", 0))
        world.put(
            "playlist",
            {
                "id": playlist_id,
                "name": name,
                "description": description,
                "public": public,
                "collaborative": collaborative,
                "owner": world.state["me"],
                "tracks": [{"id": t, "added_at": world.tick()} for t in track_ids],
                "version": 1,
            },
            complete=True,
        )
        return playlist_id

    def complete(self, world: World, kind: str, record: dict[str, Any]) -> None:
        """An artist created by a search gets two albums the first time it is looked up."""
        if kind == "artist" and not world.referring("album", "artists", record["id"]):
            for n in (1, 2):
                name = f"{record['name']} {'Vol. ' + str(n) if n > 1 else ''}".strip()
                self._new_album(world, name, [record["id"]], [{"name": f"{name} - Track {i}"} for i in range(1, 6)])

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

    def _create_for_query(self, world: World, kind: str, query: str) -> None:
        """Make the catalogue contain something that answers ``query``."""
        name = _title(query)
        if kind == "artist":
            self._new_artist(world, name)
        elif kind == "album":
            artist = self._new_artist(world, name)
            self._new_album(world, name, [artist], [{"name": f"{name} - Track {i}"} for i in range(1, 6)])
        elif kind == "track":
            artist = self._new_artist(world, name)
            versions = ["", " (Live)", " (Acoustic)", " (Remix)", " (Instrumental)"]
            self._new_album(world, name, [artist], [{"name": name + v} for v in versions])
        elif kind == "playlist":
            self._new_playlist(world, name, [], playlist_id=world.token("playlist", "search", name))

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
                self._create_for_query(world, kind, query)
                found = self._matches(world, kind, query)
            view = {"album": "album_simple", "playlist": "playlist_simple"}.get(kind, kind)
            items = [_view(world, view, r["id"]) for r in found]
            result[_SEARCH_TYPES[kind]] = offset_page(items, f"{API}/search", args)
        return result

    # -- lookups ---------------------------------------------------------------------
    def h_GET_artists__id__related_artists(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        artist = world.get("artist", args["id"])
        genres = set(artist["genres"])
        related = world.find("artist", lambda a: a["id"] != artist["id"] and bool(genres & set(a["genres"])))
        if not related:
            for n in (1, 2, 3):
                self._new_artist(world, f"{artist['name']} Radio {n}", genres=list(artist["genres"]))
            related = world.find("artist", lambda a: a["id"] != artist["id"] and bool(genres & set(a["genres"])))
        return {"artists": [_view(world, "artist", a["id"]) for a in related[:20]]}

    # -- player (the rest of it, and the playlist edits, are declared in the fixture) ----------
    def h_PUT_me_player_play(self, world: World, args: dict[str, Any]) -> None:
        player, given = world.state["player"], args.get("device_id")
        device = _shape(world, "device", device_id=given if given is not None else player["device_id"])
        if given is not None:
            for d in world.state["devices"]:
                d["is_active"] = d is device
            player["device_id"] = device["id"]
        uris, context_uri = args.get("uris"), args.get("context_uri")
        if context_uri and uris:
            raise BadArguments("pass either context_uri or uris, not both")
        if context_uri:
            tracks = _shape(world, "context_tracks", text=context_uri)
        elif uris:
            ids = [_shape(world, "spotify_uri", text=uri, kinds=["track"])["id"] for uri in lists.split_ids(uris, "uris")]
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
        context = _shape(world, "context_tracks", text=player["context_uri"]) if player["context_uri"] and not player["queue"] else []
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
        show = world.handler("GET_playlists__playlist_id_")  # declared in the fixture
        return show(world, {"playlist_id": playlist_id}) if show else None


MODEL = SpotifyModel()
