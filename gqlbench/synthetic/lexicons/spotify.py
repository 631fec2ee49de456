"""Spotify as a listener says it: songs, artists, albums, playlists, devices, the player.

Readings follow the human split: "my first playlist" is ``items[0]``, and so
is "the first song in my library" (never "the last song I saved": the mock
world lists saved items oldest first, by ``added_at``), a
playlist or device named by the user is found by filtering the list by name,
and so is a song, album or artist the user takes out of their library ("unsave
'Hero'": a catalog search may find another 'Hero', one not saved); creating a
playlist implies ``GET_me`` first. An ask says which field each phrasing reads
(``reads``): the engine leaves a lookup out when the response that found the
thing already has that field.
"""

from __future__ import annotations

from gqlbench.synthetic.intents import Ask, Lexicon, Noun, call

__all__ = ["LEXICON"]

_TRACK = "<@0>.tracks.items[0]"
_TRACKLIST = "tracks.items"  # an album's songs: a saved album embeds them, a searched one does not


def _reading(field: str, *phrases: str) -> dict[str, str]:
    """Each of ``phrases`` reads ``field`` (for :attr:`Ask.reads`)."""
    return dict.fromkeys(phrases, field)


_NEW_PLAYLISTS = (
    "Road Trip",
    "Sunday Morning",
    "Gym Mix",
    "Rainy Days",
    "Old Favourites",
    "Late Night Drive",
    "Focus",
    "Dinner Party",
    "Summer 2024",
    "Throwbacks",
    "Study Beats",
    "Kitchen Dance",
    "Morning Run",
    "Wedding Songs",
)
"""Names of a playlist the user creates or renames to (the world's own playlists are only My Rock, My R&B and Chill)."""

NOUNS = (
    # tracks
    Noun(
        "track",
        ("the song '<name>'", "the track '<name>'"),  # a bare name may be an album too ('Mojito', 'Come Away with Me')
        {"id": f"{_TRACK}.id", "uri": f"{_TRACK}.uri", "artist": f"{_TRACK}.artists[0].id", "album": f"{_TRACK}.album.id"},
        (call("GET_search", q="<name>", type='"track"'),),
        names="track",
    ),
    Noun(  # only for an unsave: a saved song is found among the saved ones
        "track",
        ("the song '<name>'", "the track '<name>'"),
        {
            "id": "[t for t in <@0>.items if t.track.name == <name>][0].track.id",
            "uri": "[t for t in <@0>.items if t.track.name == <name>][0].track.uri",
            "artist": "[t for t in <@0>.items if t.track.name == <name>][0].track.artists[0].id",
            "album": "[t for t in <@0>.items if t.track.name == <name>][0].track.album.id",
        },
        (call("GET_me_tracks"),),
        names="saved_track",
        tags=frozenset({"saved"}),
        library=True,
    ),
    Noun(
        "track",
        ("the song I'm listening to", "the song that's playing right now", "the current song", "this song"),
        {
            "id": "<@0>.item.id",
            "uri": "<@0>.item.uri",
            "artist": "<@0>.item.artists[0].id",
            "album": "<@0>.item.album.id",
        },
        (call("GET_me_player_currently_playing"),),
        tags=frozenset({"playing"}),
    ),
    Noun(
        "track",
        ("the first song in my library", "the first song in my saved tracks"),
        {
            "id": "<@0>.items[0].track.id",
            "uri": "<@0>.items[0].track.uri",
            "artist": "<@0>.items[0].track.artists[0].id",
            "album": "<@0>.items[0].track.album.id",
        },
        (call("GET_me_tracks"),),
        tags=frozenset({"saved"}),
    ),
    Noun(
        "track",
        ("my most played song", "my number one song", "the song I play the most"),
        {
            "id": "<@0>.items[0].id",
            "uri": "<@0>.items[0].uri",
            "artist": "<@0>.items[0].artists[0].id",
            "album": "<@0>.items[0].album.id",
        },
        (call("GET_me_top__type_", type='"tracks"'),),
    ),
    Noun(
        "track",
        ("<x's> most popular song", "the biggest hit of <x>", "<x's> top song"),
        {
            "id": "<@0>.tracks[0].id",
            "uri": "<@0>.tracks[0].uri",
            "artist": "<x.id>",
            "album": "<@0>.tracks[0].album.id",
        },
        (call("GET_artists__id__top_tracks", id="<x.id>"),),
        base="artist",
        tags=frozenset({"known_artist"}),
    ),
    Noun(
        "track",
        ("the first song on <x>", "the opening track of <x>", "the first track of <x>"),
        {"id": "<@0>.items[0].id", "uri": "<@0>.items[0].uri", "artist": "<@0>.items[0].artists[0].id", "album": "<x.id>"},
        (call("GET_albums__id__tracks", id="<x.id>"),),
        base="album",
        tags=frozenset({"known_artist"}),
        reads=_TRACKLIST,
    ),
    # artists
    Noun(
        "artist",
        ("<name>", "the artist <name>"),
        {"id": "<@0>.artists.items[0].id"},
        (call("GET_search", q="<name>", type='"artist"'),),
        names="artist",
        possessive=("<name>'s",),
    ),
    Noun(
        "artist",
        ("my top artist", "the artist I listen to most", "my most played artist"),
        {"id": "<@0>.items[0].id"},
        (call("GET_me_top__type_", type='"artists"'),),
        possessive=("my top artist's",),
    ),
    Noun(  # only for an unfollow: a followed artist is found among those followed
        "artist",
        ("<name>", "the artist <name>"),
        {"id": "[a for a in <@0>.artists.items if a.name == <name>][0].id"},
        (call("GET_me_following", type='"artist"'),),
        names="following",
        tags=frozenset({"followed"}),
        library=True,
    ),
    Noun("artist", ("the artist of <x>", "whoever sings <x>", "the singer of <x>"), {"id": "<x.artist>"}, base="track"),
    Noun("artist", ("the artist behind <x>", "the artist who made <x>"), {"id": "<x.artist>"}, base="album"),
    Noun(
        "artist",
        ("the artist most similar to <x>",),
        {"id": "<@0>.artists[0].id"},
        (call("GET_artists__id__related_artists", id="<x.id>"),),
        base="artist",
    ),
    # albums
    Noun(
        "album",
        ("the album '<name>'", "the record '<name>'"),
        {"id": "<@0>.albums.items[0].id", "artist": "<@0>.albums.items[0].artists[0].id"},
        (call("GET_search", q="<name>", type='"album"'),),
        names="album",
    ),
    Noun(  # only for an unsave: a saved album is found among the saved ones
        "album",
        ("the album '<name>'", "the record '<name>'"),
        {
            "id": "[a for a in <@0>.items if a.album.name == <name>][0].album.id",
            "artist": "[a for a in <@0>.items if a.album.name == <name>][0].album.artists[0].id",
        },
        (call("GET_me_albums"),),
        names="saved_album",
        tags=frozenset({"saved"}),
        library=True,
    ),
    Noun(
        "album",
        ("the first album in my library", "the first album in my saved albums"),
        {"id": "<@0>.items[0].album.id", "artist": "<@0>.items[0].album.artists[0].id"},
        (call("GET_me_albums"),),
        tags=frozenset({"saved"}),
    ),
    Noun("album", ("the album <x> is on", "the album with <x> on it"), {"id": "<x.album>", "artist": "<x.artist>"}, base="track"),
    # playlists
    Noun(
        "playlist",
        ("my playlist '<name>'", "my '<name>' playlist", "the playlist '<name>'"),
        {"id": "[p for p in <@0>.items if p.name == <name>][0].id"},
        (call("GET_me_playlists"),),
        names="playlist",
    ),
    Noun("playlist", ("my first playlist", "the first playlist in my library"), {"id": "<@0>.items[0].id"}, (call("GET_me_playlists"),)),
    # devices
    Noun(
        "device",
        ("'<name>'", "my device '<name>'", "the device called '<name>'"),
        {"id": "[d for d in <@0>.devices if d.name == <name>][0].id"},
        (call("GET_me_player_devices"),),
        names="device",
    ),
)

ASKS = (
    # about a song
    Ask(("track",), ("Who sings <x>?", "Who is <x> by?", "Which album is <x> on?"), (), avoid=frozenset({"known_artist"})),
    Ask(
        ("track",),
        ("Save <x> to my library.", "Add <x> to my liked songs.", "Please save <x>."),
        (call("PUT_me_tracks", ids="<x.id>"),),
        avoid=frozenset({"saved"}),
    ),
    Ask(
        ("track",),
        ("Remove <x> from my liked songs.", "Unlike <x>.", "Take <x> out of my saved songs."),
        (call("DELETE_me_tracks", ids="<x.id>"),),
        library=True,
    ),
    Ask(
        ("track",),
        ("Queue <x>.", "Add <x> to my queue.", "Put <x> next in the queue.", "Queue up <x>, please."),
        (call("POST_me_player_queue", uri="<x.uri>"),),
    ),
    Ask(
        ("track",),
        ("Play <x>.", "Put on <x>.", "Start playing <x>."),
        (call("PUT_me_player_play", uris="[<x.uri>]"),),
        avoid=frozenset({"playing"}),
    ),
    Ask(
        ("track",),
        ("How popular is <x>?",),
        (call("GET_tracks__id_", id="<x.id>"),),
        reads=_reading("popularity", "How popular is <x>?"),
    ),
    # about an artist
    Ask(
        ("artist",),
        ("Which albums has <x> released?", "Show me albums by <x>.", "List <x's> albums.", "What albums does <x> have?"),
        (call("GET_artists__id__albums", id="<x.id>"),),
    ),
    Ask(
        ("artist",),
        ("Show me <k> albums by <x>.", "List <k> of <x's> albums.", "Give me <k> albums from <x>."),
        (call("GET_artists__id__albums", id="<x.id>", limit="<k>"),),
        values={"k": (2, 3)},
        limit="k",
    ),
    Ask(
        ("artist",),
        ("What are <x's> top tracks?", "What are the most popular songs by <x>?", "Show me <x's> hits.", "What are <x's> biggest songs?"),
        (call("GET_artists__id__top_tracks", id="<x.id>"),),
    ),
    Ask(
        ("artist",),
        ("Who sounds like <x>?", "Which artists are similar to <x>?", "Find me artists like <x>.", "Recommend artists similar to <x>."),
        (call("GET_artists__id__related_artists", id="<x.id>"),),
    ),
    Ask(
        ("artist",),
        ("Follow <x>.", "Start following <x>.", "I want to follow <x>."),
        (call("PUT_me_following", type='"artist"', ids="<x.id>"),),
        avoid=frozenset({"followed"}),
    ),
    Ask(
        ("artist",),
        ("Unfollow <x>.", "Stop following <x>.", "I don't want to follow <x> anymore."),
        (call("DELETE_me_following", type='"artist"', ids="<x.id>"),),
        library=True,
    ),
    Ask(
        ("artist",),
        ("What genres does <x> play?", "How many followers does <x> have?", "What genre is <x>?"),
        (call("GET_artists__id_", id="<x.id>"),),
        reads={"What genres does <x> play?": "genres", "How many followers does <x> have?": "followers", "What genre is <x>?": "genres"},
    ),
    Ask(
        ("artist",),
        ("Save <x's> top <k> songs to my library.", "Like the <k> most popular songs by <x>."),
        (
            call("GET_artists__id__top_tracks", id="<x.id>"),
            call("PUT_me_tracks", ids='",".join([t.id for t in <@0>.tracks[:<k>]])'),
        ),
        values={"k": (2, 3)},
    ),
    # about an album
    Ask(
        ("album",),
        ("What songs are on <x>?", "Show me the tracklist of <x>.", "List the tracks on <x>.", "What's on <x>?"),
        (call("GET_albums__id__tracks", id="<x.id>"),),
        reads=_reading(
            _TRACKLIST, *("What songs are on <x>?", "Show me the tracklist of <x>.", "List the tracks on <x>.", "What's on <x>?")
        ),
    ),
    Ask(
        ("album",),
        ("Show me the first <k> songs on <x>.", "What are the first <k> tracks of <x>?"),
        (call("GET_albums__id__tracks", id="<x.id>", limit="<k>"),),
        values={"k": (2, 3)},
        limit="k",
        reads=_reading(_TRACKLIST, *("Show me the first <k> songs on <x>.", "What are the first <k> tracks of <x>?")),
    ),
    Ask(
        ("album",),
        ("Save <x> to my library.", "Add <x> to my saved albums.", "Please save <x>."),
        (call("PUT_me_albums", ids="<x.id>"),),
        avoid=frozenset({"saved"}),
    ),
    Ask(
        ("album",),
        ("Remove <x> from my saved albums.", "Unsave <x>.", "Take <x> out of my library."),
        (call("DELETE_me_albums", ids="<x.id>"),),
        library=True,
    ),
    Ask(
        ("album",),
        ("When did <x> come out?", "What label released <x>?", "How many tracks does <x> have?"),
        (call("GET_albums__id_", id="<x.id>"),),
        reads={
            "When did <x> come out?": "release_date",
            "What label released <x>?": "label",
            "How many tracks does <x> have?": "total_tracks",
        },
    ),
    Ask(
        ("album",),
        ("Save <x> to my library and show me its tracks.", "Add <x> to my albums, then list its songs."),
        (call("PUT_me_albums", ids="<x.id>"), call("GET_albums__id__tracks", id="<x.id>")),
        avoid=frozenset({"saved"}),
        reads=_reading(_TRACKLIST, *("Save <x> to my library and show me its tracks.", "Add <x> to my albums, then list its songs.")),
    ),
    Ask(
        ("album",),
        ("Like the first <k> songs on <x>.", "Save the first <k> tracks of <x> to my liked songs."),
        (call("GET_albums__id__tracks", id="<x.id>"), call("PUT_me_tracks", ids='",".join([t.id for t in <@0>.items[:<k>]])')),
        values={"k": (2, 3)},
        reads=_reading(_TRACKLIST, *("Like the first <k> songs on <x>.", "Save the first <k> tracks of <x> to my liked songs.")),
    ),
    Ask(
        ("album",),
        ("Queue the first song on <x>.", "Add the opening track of <x> to my queue."),
        (call("GET_albums__id__tracks", id="<x.id>"), call("POST_me_player_queue", uri="<@0>.items[0].uri")),
        reads=_reading(_TRACKLIST, *("Queue the first song on <x>.", "Add the opening track of <x> to my queue.")),
    ),
    # about a playlist
    Ask(
        ("playlist",),
        ("What's on <x>?", "Show me the songs in <x>.", "List the tracks in <x>.", "Which songs are in <x>?"),
        (call("GET_playlists__playlist_id__tracks", playlist_id="<x.id>"),),
    ),
    Ask(
        ("playlist",),
        ("How many followers does <x> have?", "Show me the details of <x>."),
        (call("GET_playlists__playlist_id_", playlist_id="<x.id>"),),
        reads=_reading("followers", "How many followers does <x> have?"),
    ),
    Ask(
        ("playlist",),
        ("Rename <x> to '<newname>'.", "Change the name of <x> to '<newname>'."),
        (call("PUT_playlists__playlist_id_", playlist_id="<x.id>", name="<newname>"),),
        values={"newname": _NEW_PLAYLISTS},
    ),
    Ask(
        ("playlist",),
        ("Make <x> private.", "Hide <x> from my profile."),
        (call("PUT_playlists__playlist_id_", playlist_id="<x.id>", public="False"),),
    ),
    Ask(
        ("playlist",),
        ("Remove the first song from <x>.", "Delete the first track in <x>.", "Take the first song off <x>."),
        (
            call("GET_playlists__playlist_id__tracks", playlist_id="<x.id>"),
            call("DELETE_playlists__playlist_id__tracks", playlist_id="<x.id>", tracks='[{"uri": <@0>.items[0].track.uri}]'),
        ),
    ),
    Ask(
        ("playlist",),
        ("Remove the second song from <x>.", "Delete the second track in <x>."),
        (
            call("GET_playlists__playlist_id__tracks", playlist_id="<x.id>"),
            call("DELETE_playlists__playlist_id__tracks", playlist_id="<x.id>", tracks='[{"uri": <@0>.items[1].track.uri}]'),
        ),
    ),
    Ask(
        ("playlist",),
        ("Delete all songs from <x>.", "Empty <x>.", "Clear out every track in <x>."),
        (
            call("GET_playlists__playlist_id__tracks", playlist_id="<x.id>"),
            call("DELETE_playlists__playlist_id__tracks", playlist_id="<x.id>", tracks='[{"uri": t.track.uri} for t in <@0>.items]'),
        ),
    ),
    Ask(
        ("playlist",),
        ("Queue the first song of <x>.", "Add the first track of <x> to my queue."),
        (call("GET_playlists__playlist_id__tracks", playlist_id="<x.id>"), call("POST_me_player_queue", uri="<@0>.items[0].track.uri")),
    ),
    # two things
    Ask(
        ("track", "playlist"),
        ("Add <x> to <y>.", "Put <x> on <y>.", "Add <x> to <y>, please."),
        (call("POST_playlists__playlist_id__tracks", playlist_id="<y.id>", uris="<x.uri>"),),
    ),
    Ask(
        ("track", "device"),
        ("Queue <x> on <y>.", "Add <x> to the queue on <y>."),
        (call("POST_me_player_queue", uri="<x.uri>", device_id="<y.id>"),),
    ),
    Ask(
        ("artist", "playlist"),
        ("Add <x's> top song to <y>.", "Put the most popular song by <x> on <y>."),
        (
            call("GET_artists__id__top_tracks", id="<x.id>"),
            call("POST_playlists__playlist_id__tracks", playlist_id="<y.id>", uris="<@0>.tracks[0].uri"),
        ),
    ),
    # devices and the player
    Ask(
        ("device",), ("Pause <x>.", "Pause the music on <x>.", "Stop playback on <x>."), (call("PUT_me_player_pause", device_id="<x.id>"),)
    ),
    Ask((), ("Skip this song.", "Skip to the next song.", "Play the next track."), (call("POST_me_player_next"),), alone=True),
    Ask(
        (),
        ("Set the volume to <v>.", "Turn the volume to <v> percent.", "Change the volume to <v>%."),
        (call("PUT_me_player_volume", volume_percent="<v>"),),
        values={"v": (20, 35, 60, 80)},
    ),
    Ask(
        (), ("Put this song on repeat.", "Repeat the current track.", "Loop this track."), (call("PUT_me_player_repeat", state='"track"'),)
    ),
    Ask((), ("Turn repeat off.", "Stop repeating."), (call("PUT_me_player_repeat", state='"off"'),)),
    Ask((), ("Pause the music.", "Pause playback."), (call("PUT_me_player_pause"),)),
    Ask((), ("Resume playback.", "Keep playing.", "Unpause the music."), (call("PUT_me_player_play"),)),
    Ask((), ("What's my user name?", "Show me my profile.", "Which country is my account in?"), (call("GET_me"),)),
    Ask((), ("What am I listening to?", "What's playing right now?", "What song is this?"), (call("GET_me_player_currently_playing"),)),
    Ask((), ("Show me my playlists.", "What playlists do I have?", "List my playlists."), (call("GET_me_playlists"),)),
    Ask((), ("Which songs have I saved?", "Show me my liked songs.", "List my saved tracks."), (call("GET_me_tracks"),)),
    Ask(
        (),
        ("Show me the first <k> songs in my library.", "What are the first <k> songs in my saved tracks?"),
        (call("GET_me_tracks", limit="<k>"),),
        values={"k": (2, 3)},
        limit="k",
    ),
    Ask((), ("Which albums have I saved?", "Show me my saved albums."), (call("GET_me_albums"),)),
    Ask((), ("Who are my top artists?", "Which artists do I listen to most?"), (call("GET_me_top__type_", type='"artists"'),)),
    Ask((), ("What are my top tracks?", "Which songs do I play the most?"), (call("GET_me_top__type_", type='"tracks"'),)),
    Ask((), ("Which artists do I follow?", "Who am I following?"), (call("GET_me_following", type='"artist"'),)),
    Ask((), ("What devices do I have?", "Which of my devices are available?", "List my devices."), (call("GET_me_player_devices"),)),
    # a new playlist (read what the write returned)
    Ask(
        (),
        ("Create a playlist called '<pname>'.", "Make me a new playlist named '<pname>'.", "Create a new playlist called '<pname>'."),
        (call("GET_me"), call("POST_users__user_id__playlists", user_id="<@0>.id", name="<pname>")),
        values={"pname": _NEW_PLAYLISTS},
    ),
    Ask(
        ("track",),
        ("Create a playlist called '<pname>' and add <x> to it.", "Make a new playlist '<pname>' with <x> in it."),
        (
            call("GET_me"),
            call("POST_users__user_id__playlists", user_id="<@0>.id", name="<pname>"),
            call("POST_playlists__playlist_id__tracks", playlist_id="<@1>.id", uris="<x.uri>"),
        ),
        values={"pname": _NEW_PLAYLISTS},
    ),
    Ask(
        ("artist",),
        ("Make me a playlist called '<pname>' with <x's> top <k> songs.", "Create a playlist '<pname>' from the <k> biggest hits of <x>."),
        (
            call("GET_artists__id__top_tracks", id="<x.id>"),
            call("GET_me"),
            call("POST_users__user_id__playlists", user_id="<@1>.id", name="<pname>"),
            call("POST_playlists__playlist_id__tracks", playlist_id="<@2>.id", uris='",".join([t.uri for t in <@0>.tracks[:<k>]])'),
        ),
        values={"pname": _NEW_PLAYLISTS, "k": (2, 3)},
    ),
)

LEXICON = Lexicon("spotify", NOUNS, ASKS)
