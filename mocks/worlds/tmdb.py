"""The TMDB world's Python: what its fixture (``mocks/worlds/tmdb.json``) cannot declare.

Every TMDB endpoint is answered by a template of the fixture (``"respond"``),
every generated value is a ``"generate"`` template, the fixture's people,
companies, networks, collections, movies and shows are made by its ``"make"``
recipes and ``"load"`` steps (a name in a cast, crew or company list becomes
one entity with a stable id wherever it is mentioned, created on first
mention; a collection lists the movies that name it), and the graph grows as
declared in ``"grow"`` (:mod:`gqlbench.mocks.engine.declared.growth`): a movie
or show gets a cast, a director, a producer, companies, networks and similar
titles when first looked up, a person credits of their own, a collection its
parts, each a new entity with a collision-free id, made by a keyed ``$make``
from its kind's ``"make"`` recipe (:mod:`gqlbench.mocks.engine.declared.make`);
the named lists, the latest movie and a season's people are ``$make`` and
``$once`` in the endpoints. The
generic engine also reads the graph both ways, checks season and episode
numbers, and filters, sorts and pages. What stays here, and why:

* the named lists (``"lists"``): each list's kind is read from its name
  (``movie_popular``, ``trending_tv_week``), which a load step cannot say;
* ``search``: the words of the query against a name, ranked exact name first,
  then by popularity, and an unknown query makes a title (or person, company)
  named after it, which later searches and lookups find;
* ``air_date``: a season airs a year after the one before, episodes a week
  apart on a calendar of 28-day months, arithmetic on a date the template
  language has no operations for.
"""

from __future__ import annotations

import re
from typing import Any

from gqlbench.mocks.world import BadArguments, GqlbenchError, World, make, resolve, search_text

__all__ = ["MODEL", "TmdbModel"]


def _title(query: str) -> str:
    query = " ".join(query.split())
    return query.title() if query.islower() else query


def _key(kind: str) -> str:
    return "title" if kind == "movie" else "name"


class TmdbModel:
    """Loads the fixture and gives the templates their functions (search, air dates)."""

    domain = "tmdb"
    sections = ("lists",)  # the fixture's section this behaviour reads (mocks/engine/worldfile.py)
    handlers: dict[str, Any] = {}  # every endpoint is declared in the fixture

    def __init__(self) -> None:
        self.functions = {"search": self.search, "air_date": air_date, "interleave": interleave, "total": total, "verdict": verdict}

    def load(self, world: World, fixture: dict[str, Any]) -> None:
        """The named lists: each title one entity the file defines, its kind read from the list's name."""
        lists = {}
        for name, titles in (fixture.get("lists") or {}).items():
            kind = name.split("_")[1 if name.startswith("trending_") else 0]
            if kind not in ("movie", "tv", "person"):
                raise GqlbenchError(
                    f"mocks/worlds/tmdb.json: list {name!r} must start with movie_, tv_, person_ or trending_<movie|tv|person>_"
                )
            lists[name] = [resolve(world, kind, t, f"mocks/worlds/tmdb.json: lists.{name}", _key(kind)) for t in titles]
        world.state["lists"] = lists

    # -- template functions ------------------------------------------------------------------
    def search(self, world: World, kind: str, text: Any) -> list[int]:
        """Ids of the entities whose name has every word of the query (one made for an unknown query), best first."""
        query = search_text(text, "query")
        if not query:
            raise BadArguments("query is empty; pass the name or title to search for")
        words = [t for t in re.split(r"[^\w&']+", query.lower()) if t]

        def matches() -> list[dict[str, Any]]:
            return world.search(kind, words, lambda r: str(r[_key(kind)]), index=_key(kind))

        found = matches()
        if not found:
            if kind in ("movie", "tv", "person"):
                make(world, kind, {_key(kind): _title(query)}, "search", key=["search", query])
            else:
                make(world, kind, _title(query), "search", find="name")
            found = matches()
        for r in found:
            world.get(kind, r["id"])
        found.sort(key=lambda r: (r[_key(kind)].lower() != query.lower(), -float(r.get("popularity", 0) or 0), r["id"]))
        return [r["id"] for r in found]


def air_date(world: World, first_air_date: str, season: int, episode: int = 1) -> str:
    """Season ``n`` airs ``n - 1`` years after the first; episodes a week apart (a 28-day month)."""
    year, day = int(first_air_date[:4]) + season - 1, 1 + 7 * (episode - 1)
    return f"{year}-{1 + (day // 28) % 12:02d}-{1 + day % 28:02d}"


def interleave(world: World, *lists: list[Any]) -> list[Any]:
    """One item of each list in turn, while all have one (trending movies and shows, mixed)."""
    return [item for group in zip(*lists, strict=False) for item in group]


def total(world: World, numbers: list[int]) -> int:
    """A show's episodes: the sum of its seasons' episode counts."""
    return sum(numbers)


def verdict(world: World, rating: float) -> str:
    """What a review says of a title it rates ``rating`` out of 10."""
    return "great" if rating >= 7 else "mixed"


MODEL = TmdbModel()
