"""`gqlbench mock serve`'s explorer page: no CDN assets, usable offline in a real browser."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

import pytest
from starlette.testclient import TestClient

from gqlbench.mocks.server.explorer import explorer_page
from gqlbench.mocks.server.server import create_app
from tests.cli_process import serve_mock


class Assets(HTMLParser):
    """Every URL the page would load by itself (scripts, styles, images, frames)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key in ("src", "href") and value:
                self.urls.append(f"{tag} {value}")


def test_a_browser_get_gets_the_offline_page() -> None:
    client = TestClient(create_app("tmdb", 0))
    page = client.get("/", headers={"Accept": "text/html"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assets = Assets()
    assets.feed(page.text)
    assert assets.urls == []
    assert not re.search(r"https?://", page.text) and "cdn" not in page.text.lower()
    assert "tmdb mock (seed 0)" in page.text
    assert client.get("/graphql/", headers={"Accept": "text/html"}).text == page.text
    answer = client.post("/", json={"query": "{ __typename }"})  # GraphQL still answers on the same path
    assert answer.json() == {"data": {"__typename": "Query"}}


def test_the_title_and_query_are_escaped() -> None:
    page = explorer_page("<b>x</b>", '{ a(q: "</textarea><script>") }')
    assert "<b>x</b>" not in page and "</textarea><script>" not in page


@pytest.fixture
def served() -> Iterator[str]:
    """``gqlbench mock serve`` as a user starts it, on a free port."""
    with serve_mock("--domain", "tmdb") as (port, _process):
        yield f"http://127.0.0.1:{port}/"


@pytest.mark.slow
def test_the_explorer_works_in_chromium_without_other_hosts(browser: Any, served: str) -> None:
    browser.open(served)
    assert browser.until("document.querySelectorAll('#fields li').length > 10", timeout=20)
    browser.js("document.querySelector('#fields li[data-name=\"GET_movie_popular\"]').click()")
    assert browser.js("document.getElementById('query').value").startswith("{\n  GET_movie_popular {")
    browser.js(
        "document.getElementById('query').value = "
        "'query($t: String!) { GET_movie_popular(tmdb_access_token: $t) { results { id title } } }'"
    )
    browser.js("document.getElementById('variables').value = '{\"t\": \"token\"}'")
    browser.js("document.getElementById('run').click()")
    assert browser.until("document.getElementById('status').textContent === 'ok'", timeout=20)
    assert '"results"' in browser.js("document.getElementById('result').textContent")
    problems = [p for p in browser.problems() if not p.startswith(f"request: {served}")]
    assert problems == []  # no console error, and nothing but the mock server itself was asked
