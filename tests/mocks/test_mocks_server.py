"""The mock GraphQL server over real HTTP: uvicorn on a free local port, queried with httpx."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
import uvicorn

from gqlbench.mocks.server import create_app


@pytest.fixture
def spotify_server() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app("spotify", 0), host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the mock server did not start within 20 s"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def _graphql(url: str, query: str) -> dict:
    response = httpx.post(f"{url}/graphql", json={"query": query}, timeout=10)
    assert response.status_code == 200
    return response.json()


FOLLOWING = '{ GET_me_following(type: "artist", spotify_access_token: "t") { artists { total items { id name } } } }'


def test_queries_mutations_and_reset_over_http(spotify_server: str) -> None:
    first = _graphql(spotify_server, FOLLOWING)["data"]["GET_me_following"]["artists"]
    search = _graphql(spotify_server, '{ GET_search(q: "Lana Del Rey", type: "artist", spotify_access_token: "t") { artists { items { id } } } }')
    artist = search["data"]["GET_search"]["artists"]["items"][0]["id"]

    # PUT_me_following has no response schema: it is a Mutation field.
    done = _graphql(spotify_server, f'mutation {{ PUT_me_following(type: "artist", ids: "{artist}") {{ ok status_code }} }}')
    assert done["data"]["PUT_me_following"] == {"ok": True, "status_code": 200}
    after = _graphql(spotify_server, FOLLOWING)["data"]["GET_me_following"]["artists"]
    assert after["total"] == first["total"] + 1  # the world persists between requests

    assert httpx.post(f"{spotify_server}/reset", timeout=10).json()["reset"] is True
    assert _graphql(spotify_server, FOLLOWING)["data"]["GET_me_following"]["artists"] == first
    _graphql(spotify_server, f'mutation {{ PUT_me_following(type: "artist", ids: "{artist}") {{ ok }} }}')
    assert _graphql(spotify_server, "mutation { resetWorld }")["data"]["resetWorld"] is True
    assert _graphql(spotify_server, FOLLOWING)["data"]["GET_me_following"]["artists"] == first


def test_errors_carry_their_kind(spotify_server: str) -> None:
    answer = _graphql(spotify_server, '{ GET_tracks__id_(id: "nope", spotify_access_token: "t") { name } }')
    assert answer["errors"][0]["extensions"]["kind"] == "not_found"
    answer = _graphql(spotify_server, '{ GET_me_top__type_(type: "songs", spotify_access_token: "t") { total } }')
    assert answer["errors"][0]["extensions"]["kind"] == "bad_arguments"
