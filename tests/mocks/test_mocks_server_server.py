"""The mock GraphQL server over real HTTP: uvicorn on a free local port, queried with httpx."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
import uvicorn
from ariadne import graphql_sync
from graphql import Source
from starlette.testclient import TestClient

from gqlbench.mocks.engine.world import World
from gqlbench.mocks.server import server as server_module
from gqlbench.mocks.server.limits import QueryLimits
from gqlbench.mocks.server.server import create_app


@contextmanager
def _serving(domain: str, limits: QueryLimits | None = None) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(domain, 0, limits), host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the mock server did not start within 20 s"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def spotify_server() -> Iterator[str]:
    with _serving("spotify") as url:
        yield url


def _graphql(url: str, query: str, timeout: float = 10) -> dict:
    response = httpx.post(f"{url}/graphql", json={"query": query}, timeout=timeout)
    assert response.status_code == 200
    return response.json()


def _searches(count: int, first: int = 0) -> str:
    """The probe's input: one query of ``count`` aliased TMDB searches, each for a new title."""
    return (
        "{ "
        + " ".join(
            f'a{i}: GET_search_movie(query: "Titanic {i}", tmdb_access_token: "t") {{ results {{ id title }} }}'
            for i in range(first, first + count)
        )
        + " }"
    )


def _refused(url: str, query: str) -> dict[str, dict]:
    """The errors of a refused query, by the limit each names."""
    response = httpx.post(f"{url}/graphql", json={"query": query}, timeout=60)
    assert response.status_code == 400, response.text
    return {e["extensions"]["limit"]: e for e in response.json()["errors"]}


FOLLOWING = '{ GET_me_following(type: "artist", spotify_access_token: "t") { artists { total items { id name } } } }'


def test_queries_mutations_and_reset_over_http(spotify_server: str) -> None:
    first = _graphql(spotify_server, FOLLOWING)["data"]["GET_me_following"]["artists"]
    search = _graphql(
        spotify_server, '{ GET_search(q: "Lana Del Rey", type: "artist", spotify_access_token: "t") { artists { items { id } } } }'
    )
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


def test_5000_aliased_searches_are_refused_quickly_and_the_server_goes_on() -> None:
    with _serving("tmdb") as url:
        started = time.monotonic()
        errors = _refused(url, _searches(5000))
        assert time.monotonic() - started < 15  # was 167 s; ~0.2 s on an idle machine
        assert list(errors) == ["max_tokens"]
        assert errors["max_tokens"]["extensions"] == {"kind": "limit", "limit": "max_tokens", "maximum": 10000}
        assert "more than 10000 tokens, the server's limit (--max-tokens)" in errors["max_tokens"]["message"]
        assert _graphql(url, _searches(1))["data"]["a0"]["results"]


def _lookups(count: int) -> str:
    return "{ " + " ".join(f'a{i}: GET_movie__movie_id_(movie_id: {i}, tmdb_access_token: "t") {{ id }}' for i in range(count)) + " }"


def test_too_many_aliases_too_deep_or_too_costly_is_an_error_naming_the_limit_and_value() -> None:
    with _serving("tmdb", QueryLimits(max_aliases=100, max_depth=2, max_cost=500)) as url:
        errors = _refused(url, _lookups(150))
        assert errors["max_aliases"]["extensions"] == {"kind": "limit", "limit": "max_aliases", "value": 150, "maximum": 100}
        assert errors["max_aliases"]["message"].startswith("the query has 150 aliases, over the server's limit of 100 (--max-aliases)")
        assert list(_refused(url, _searches(1))) == ["max_depth"]  # GET_search_movie { results { id } } is 3 deep
        assert _refused(url, _lookups(42)) == {
            "max_cost": {
                "message": "the query costs 504, over the server's limit of 500 (--max-cost); split it into smaller requests",
                "extensions": {"kind": "limit", "limit": "max_cost", "value": 504, "maximum": 500},
            }
        }
        within = _graphql(url, _lookups(41))  # cost 492: it runs (ids the world lacks are not found, as a real API says)
        assert len(within["data"]) == 41
        assert {e["extensions"]["kind"] for e in within.get("errors", [])} <= {"not_found"}


def test_a_small_request_is_answered_while_a_big_allowed_one_runs() -> None:
    with _serving("tmdb", QueryLimits(max_aliases=1000, max_cost=100_000, max_tokens=100_000)) as url:
        big_done = threading.Event()
        big: dict = {}

        def run_big() -> None:
            big.update(_graphql(url, _searches(600), timeout=300))
            big_done.set()

        thread = threading.Thread(target=run_big)
        thread.start()
        time.sleep(0.3)
        small = _graphql(url, '{ GET_search_movie(query: "Alien", tmdb_access_token: "t") { results { title } } }', timeout=60)
        answered_first = not big_done.is_set()
        thread.join(timeout=300)
        assert small["data"]["GET_search_movie"]["results"][0]["title"].startswith("Alien")
        assert answered_first, "the small request waited for the big one"
        assert len(big["data"]) == 600 and "errors" not in big


def test_a_request_over_its_time_budget_ends_with_one_error() -> None:
    with _serving("tmdb", QueryLimits(max_aliases=1000, max_cost=100_000, max_tokens=100_000, max_seconds=0.2)) as url:
        started = time.monotonic()
        answer = _graphql(url, _searches(600), timeout=120)
        assert time.monotonic() - started < 30
        assert answer["data"] is None
        (error,) = answer["errors"]
        assert error["message"].startswith("the request ran over its time budget of 0.2 s (--max-seconds)")


def test_a_stopping_server_ends_each_field_left_without_locating_it_in_the_query(monkeypatch: pytest.MonkeyPatch) -> None:
    # Locating an error scans the query's text up to its field; done for each of 75,000 fields it kept a
    # stopping server busy for minutes. The error of every field left now carries its path alone.
    app = create_app("tmdb", 0, QueryLimits(max_aliases=1000, max_cost=100_000, max_tokens=100_000))
    located: list[int] = []
    get_location = Source.get_location
    monkeypatch.setattr(Source, "get_location", lambda self, position: located.append(position) or get_location(self, position))
    app.state.mock.stop()
    with TestClient(app) as client:
        answer = client.post("/graphql", json={"query": _searches(300)}).json()
    assert answer["data"] is None
    (error,) = answer["errors"]
    assert error["extensions"] == {"kind": "stopping"} and error["path"] == ["a0"], error
    assert located == []


# -- hostile clients (issue 20, items 8 to 12) -----------------------------------------------------


def _client(limits: QueryLimits | None = None, domain: str = "tmdb") -> TestClient:
    return TestClient(create_app(domain, 0, limits), raise_server_exceptions=False)


def test_a_search_over_its_time_budget_is_stopped_inside_the_resolver(monkeypatch: pytest.MonkeyPatch) -> None:
    # The budget was checked only between fields, so one slow search ran to its end (7.6 s with --max-seconds 2).
    # A fake clock makes every candidate the search checks take a second, whatever the machine.
    now, tick = [0.0], [1.0]
    monkeypatch.setattr(server_module.time, "monotonic", lambda: now[0])
    read = World.search

    def slow_search(world: World, kind: str, words: list[str], text_of: Any, index: str = "text") -> Any:
        return read(world, kind, words, lambda record: (now.__setitem__(0, now[0] + tick[0]), text_of(record))[1], index)

    monkeypatch.setattr(World, "search", slow_search)
    client = _client(QueryLimits(max_seconds=5))
    answer = client.post("/graphql", json={"query": '{ GET_search_movie(query: "the", tmdb_access_token: "t") { page } }'})
    assert answer.json()["data"] is None
    (error,) = answer.json()["errors"]
    assert error["extensions"] == {"kind": "limit", "limit": "max_seconds"}, error
    assert now[0] < 20  # it stopped at the first candidate past the budget, not after the hundreds it has
    tick[0] = 0.0  # the index keeps the text reader it was made with
    again = client.post("/graphql", json={"query": '{ GET_search_movie(query: "the", tmdb_access_token: "t") { results { id } } }'}).json()
    assert again["data"] and again["data"]["GET_search_movie"]["results"], again


def test_a_one_field_query_waits_for_a_field_or_two_of_a_long_request_not_all_of_it() -> None:
    # The world's lock went back to the request that had just let it go, so another client's query waited
    # for all of a long request's fields (6.6 s behind one heavy query, 23 s under load).
    server = create_app("tmdb", 0, QueryLimits(max_aliases=1000, max_cost=100_000, max_tokens=100_000)).state.mock
    order: list[str] = []
    small_asking = threading.Event()
    started: list[threading.Thread] = []

    def recorder(next_: Any, root: Any, info: Any, **args: Any) -> Any:  # runs inside the guard, under the lock
        if info.parent_type is info.schema.query_type:
            order.append(str(info.path.key))
            if info.path.key == "a5":
                started.append(
                    threading.Thread(
                        target=run, args=('{ small: GET_movie__movie_id_(movie_id: 603, tmdb_access_token: "t") { id } }', small_asking)
                    )
                )
                started[0].start()
                small_asking.wait(timeout=30)
        return next_(root, info, **args)

    def run(query: str, asking: threading.Event | None = None) -> dict:
        def guard(next_: Any, root: Any, info: Any, **args: Any) -> Any:
            if asking is not None:
                asking.set()
            return server.guard(next_, root, info, **args)

        return graphql_sync(server.schema, {"query": query}, context_value=server.context(None), middleware=[recorder, guard])[1]

    lookups = " ".join(f'a{i}: GET_movie__movie_id_(movie_id: 603, tmdb_access_token: "t") {{ id }}' for i in range(300))
    big = run("{ " + lookups + " }")
    started[0].join(timeout=60)
    assert len(big["data"]) == 300 and "small" in order
    assert order.index("small") <= order.index("a5") + 3, order[:20]


def test_a_body_over_the_size_limit_is_refused_with_413_whether_or_not_it_says_its_length() -> None:
    client = _client(QueryLimits(max_body_bytes=10_000))
    big = {"query": "{ __typename }", "variables": {"pad": "x" * 20_000}}
    declared = client.post("/graphql", json=big)
    assert declared.status_code == 413
    assert declared.json() == {
        "error": "the request body is over the server's limit of 10,000 bytes (--max-body-bytes); send a smaller request"
    }
    chunked = client.post("/graphql", content=(b"x" * 1000 for _ in range(30)), headers={"content-type": "application/json"})
    assert chunked.status_code == 413
    assert client.post("/reset", content=b" " * 20_000).status_code == 413
    assert client.post("/graphql", json={"query": "{ __typename }"}).json() == {"data": {"__typename": "Query"}}


@pytest.mark.parametrize(
    ("body", "content_type", "status", "says"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "application/json", 400, "the request body nests deeper than 64 levels"),
        (
            b'{"query": "{ __typename }", "variables": {"a": ' + b"[" * 65 + b"]" * 65 + b"}}",
            "application/json",
            400,
            "the request body nests deeper than 64 levels",
        ),
        (b'{"query": "{ __typename }", "variables": {"n": NaN}}', "application/json", 400, "NaN, which is not JSON"),
        (
            b'--b\r\nContent-Disposition: form-data; name="operations"\r\n\r\n{}\r\n--b--\r\n',
            "multipart/form-data; boundary=b",
            415,
            "the content type is multipart/form-data; send the GraphQL request as application/json",
        ),
        (b"query=%7B__typename%7D", "application/x-www-form-urlencoded", 415, "the content type is application/x-www-form-urlencoded"),
        (b'{"query": "{ __typename }"}', "text/plain", 415, "the content type is text/plain"),
    ],
)
def test_a_body_that_is_not_json_the_server_takes_is_a_clean_4xx(
    body: bytes, content_type: str, status: int, says: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Nested 100,000 deep it was a 500 with a RecursionError traceback; multipart an AssertionError (a library
    # the mock does not use).
    answer = _client().post("/graphql", content=body, headers={"content-type": content_type})
    assert answer.status_code == status, answer.text
    assert says in answer.text
    assert "Traceback" not in caplog.text


@pytest.mark.parametrize(
    "body",
    [
        b'{"query": 1}',
        b'{"query": "{ __typename }", "variables": [1]}',
        b'{"query": "{ __typename }", "operationName": {"a": 1}}',
        b"[1]",
        b'"x"',
        b"null",
        b'{"query": "{ __typename }", "variables": "x"}',
        b'{"query": "{ nope }"}',
        b'{"query": "query q($a: String!) { __typename }", "variables": {"a": [1]}}',
        b'{"query": "{ __typename }", "operationName": "x"}',
    ],
)
def test_wrong_json_types_for_the_request_fields_are_400s_and_not_logged(body: bytes, caplog: pytest.LogCaptureFixture) -> None:
    answer = _client().post("/graphql", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 400 and answer.json()["errors"][0]["message"], answer.text
    assert caplog.records == []  # the client's mistake, answered to it; the operator's terminal stays quiet


@pytest.mark.parametrize("seed", ['"abc"', "1.5", "[1]", '{"a": 1}', "NaN", "1" * 5000, "true", str(2**31), str(-(2**31) - 1)])
def test_reset_takes_only_an_integer_seed_in_range(seed: str, caplog: pytest.LogCaptureFixture) -> None:
    client = _client()
    answer = client.post("/reset", content=f'{{"seed": {seed}}}'.encode())
    assert answer.status_code == 400, answer.text
    message = answer.json()["error"]
    assert "\n" not in message and (
        "seed must be an integer from -2147483648 to 2147483647" in message or "not JSON" in message or "number too long" in message
    ), message
    assert "Traceback" not in caplog.text
    assert client.post("/reset", content=b'{"seed": 2147483647}').json()["seed"] == 2**31 - 1
    assert client.post("/reset", content=b'{"seed": -7}').json()["seed"] == -7
    assert client.post("/reset").json()["seed"] == -7  # no body: the current seed


def test_error_messages_quoting_a_huge_value_are_cut_so_aliases_do_not_multiply_it() -> None:
    # Each of 20 aliases quoted the whole 500 KB variable in its error: a 10 MB answer to a 500 KB request.
    query = (
        "query q($v: String!) { "
        + " ".join(f'a{i}: GET_me_following(type: $v, spotify_access_token: "t") {{ __typename }}' for i in range(20))
        + " }"
    )
    client = _client(QueryLimits(max_argument_chars=1_000_000), domain="spotify")  # the argument bound would refuse it first
    answer = client.post("/graphql", json={"query": query, "variables": {"v": "x" * 500_000}})
    errors = answer.json()["errors"]
    assert len(errors) == 20 and len(answer.content) < 40_000
    assert errors[0]["message"].startswith("type must be 'artist', got 'xxx")  # the fixture's declared check
    assert re.search(r"\.\.\. \(500,\d{3} characters, cut\)$", errors[0]["message"]), errors[0]["message"][-60:]


def test_the_served_fields_take_the_signatures_parameters_and_no_credential_is_needed() -> None:
    from gqlbench.specs import load_specs

    client = TestClient(create_app("tmdb"))
    query = '{ __type(name: "Query") { fields { name args { name type { kind name ofType { name } } } } } }'
    fields = {f["name"]: f["args"] for f in client.post("/graphql", json={"query": query}).json()["data"]["__type"]["fields"]}
    spec = load_specs("tmdb")["GET_movie__movie_id_"]
    movie = {a["name"]: a["type"] for a in fields["GET_movie__movie_id_"]}
    assert set(spec.parameters.properties) <= set(movie)
    assert movie["movie_id"] == {"kind": "NON_NULL", "name": None, "ofType": {"name": "Int"}}  # as the signature types it
    assert movie["tmdb_access_token"]["kind"] == "SCALAR"  # optional now
    found = client.post("/graphql", json={"query": '{ GET_search_movie(query: "Alien") { results { id } } }'}).json()
    movie_id = found["data"]["GET_search_movie"]["results"][0]["id"]
    answer = client.post(
        "/graphql", json={"query": "query($id: Int!) { GET_movie__movie_id_(movie_id: $id) { id } }", "variables": {"id": movie_id}}
    ).json()
    assert answer["data"]["GET_movie__movie_id_"]["id"] == movie_id  # the integer a search returned, passed as one


# -- writes under a hostile client (issue 34, items 9 and 10) ---------------------------------------

_TRACKS = "mutation($p: String!) {{ {} }}"


def _spotify_playlist(client: TestClient) -> tuple[str, list[str]]:
    """A playlist of the mock's user and the ids of its tracks (each playlist holds a few)."""
    server = client.app.state.mock  # type: ignore[attr-defined]
    playlist = next(iter(server.world.state["playlists"]))
    playlist_id = playlist if isinstance(playlist, str) else playlist["id"]
    return playlist_id, [t["id"] for t in server.world.table("playlist")[playlist_id]["tracks"]]


def test_a_write_is_answered_as_made_once_made_and_one_past_the_budget_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # A DELETE that ran past --max-seconds was answered `data: null`, "split it into smaller requests", and its
    # removal was applied all the same. A fake clock makes each write take 10 s, whatever the machine.
    now = [0.0]
    monkeypatch.setattr(server_module.time, "monotonic", lambda: now[0])
    handler_of = World.handler

    def slow(world: World, function: str) -> Any:
        handler = handler_of(world, function)
        if not function.startswith("DELETE_") or handler is None:
            return handler
        return lambda w, args: (handler(w, args), now.__setitem__(0, now[0] + 10))[0]

    monkeypatch.setattr(World, "handler", slow)
    client = _client(QueryLimits(max_seconds=5), domain="spotify")
    playlist, tracks = _spotify_playlist(client)
    first, second = tracks[0], next(t for t in tracks if t != tracks[0])
    delete = 'DELETE_playlists__playlist_id__tracks(playlist_id: $p, tracks: [{{uri: "spotify:track:{}"}}]) {{ ok status_code }}'
    query = _TRACKS.format(f"a: {delete.format(first)} b: {delete.format(second)}")
    answer = client.post("/graphql", json={"query": query, "variables": {"p": playlist}}).json()
    left = [t["id"] for t in client.app.state.mock.world.table("playlist")[playlist]["tracks"]]  # type: ignore[attr-defined]
    assert answer["data"]["a"] == {"ok": True, "status_code": 200}, answer  # made, so answered as made
    assert first not in left
    assert answer["data"]["b"] is None and second in left  # past the budget before it began: not made
    (error,) = answer["errors"]
    assert error["extensions"] == {"kind": "limit", "limit": "max_seconds"} and error["path"] == ["b"], error


def test_a_huge_argument_is_refused_before_the_write_and_a_huge_answer_is_cut_as_it_is_built() -> None:
    # A 900 KB playlist name was stored, then read back through 100 aliases: an 8 KB query, an 88 MB answer.
    client = _client(QueryLimits(max_answer_bytes=100_000), domain="spotify")
    playlist, _ = _spotify_playlist(client)
    rename = "mutation($p: String!, $n: String!) { PUT_playlists__playlist_id_(playlist_id: $p, name: $n) { ok } }"
    refused = client.post("/graphql", json={"query": rename, "variables": {"p": playlist, "n": "x" * 900_000}}).json()
    (error,) = refused["errors"]
    assert error["message"] == (
        "name is 900,000 characters long, over the server's limit of 10,000 (--max-argument-chars); pass less in one call"
    )
    stored = client.app.state.mock.world.table("playlist")[playlist]  # type: ignore[attr-defined]
    assert len(stored["name"]) < 1000
    renamed = client.post("/graphql", json={"query": rename, "variables": {"p": playlist, "n": "y" * 9_000}}).json()
    assert renamed["data"]["PUT_playlists__playlist_id_"] == {"ok": True}, renamed
    names = " ".join(f'a{i}: GET_playlists__playlist_id_(playlist_id: "{playlist}") {{ name }}' for i in range(100))
    response = client.post("/graphql", json={"query": "{ " + names + " }"})
    assert len(response.content) < 120_000  # 900 KB of names before
    (cut,) = response.json()["errors"]
    assert response.json()["data"] is None and cut["extensions"] == {"kind": "limit", "limit": "max_answer_bytes"}, cut
    assert cut["message"] == "the answer is over the server's limit of 100,000 bytes (--max-answer-bytes); ask for fewer fields or aliases"
    some = client.post("/graphql", json={"query": "{ " + names.split(" a10:")[0] + " }"}).json()
    assert some["data"]["a0"]["name"] == "y" * 9_000 and len(some["data"]) == 10  # ten aliases fit
