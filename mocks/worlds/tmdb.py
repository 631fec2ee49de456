"""The TMDB world's Python: what its fixture (``mocks/worlds/tmdb.json``) cannot declare.

Every TMDB endpoint but ``discover`` is answered by a template of the fixture (``"respond"``),
every generated value is a ``"generate"`` template, the fixture's people,
companies, networks, collections, movies and shows (``"entities"``) are made
by its ``"make"`` recipes, in file order (a name in a cast, crew or company list becomes
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
  (``movie_popular``, ``trending_tv_week``), which a ``load`` step cannot say;
* ``search``: the words of the query against a name, ranked exact name first,
  then by popularity, and an unknown query makes a title (or person, company)
  named after it, which later searches and lookups find;
* ``air_date``: a season airs a year after the one before, episodes a week
  apart on a calendar of 28-day months, arithmetic on a date the template
  language has no operations for;
* ``GET /discover/movie``: every movie a dozen filter arguments pass, sorted
  as ``sort_by`` says, a numbered page of the fixture's ``movie_page`` shape;
* the other functions the templates call, each one need: checks of the trending
  list's arguments, a person's biography, a company's homepage, a collection's
  base name, a reviewer's handle, the interleaved trending list, a show's
  episode count, a review's verdict.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

from gqlbench.mocks.world import BadArguments, GqlbenchError, World, fixture, make, resolve, search_text, shape

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

    def __init__(self) -> None:
        self.handlers = {"GET_discover_movie": self.h_GET_discover_movie}  # every other endpoint is declared in the fixture
        self.functions = {"search": self.search, **{f.__name__: f for f in FUNCTIONS}}

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

    def h_GET_discover_movie(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return discover(world, args)

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


# -- discover: every movie the filters pass, sorted as asked, a numbered page of briefs ---------------
def _genres(world: World, names: Any) -> Any:
    """A movie's genre names as the ids ``with_genres`` passes."""
    return [fixture(world)["vocab"]["genres"].get(name) for name in names] if isinstance(names, list) else names


def _has_all(have: list[Any], wanted: Any) -> bool:
    # isdecimal, not isdigit: int() refuses "²"; and at most 18 digits, as an id has
    numbers = [int(p) for p in re.split(r"[,|]", str(wanted)) if p.strip().isdecimal() and len(p.strip()) <= 18]
    return all(n in have for n in numbers)


def _year(date: Any, year: Any) -> bool:
    return str(date)[:4] == str(year)


_FILTERS: dict[str, tuple[str, Callable[[Any, Any], bool]]] = {  # parameter: (the movie's field, the test)
    "vote_average.gte": ("vote_average", operator.ge),
    "vote_average.lte": ("vote_average", operator.le),
    "vote_count.gte": ("vote_count", operator.ge),
    "vote_count.lte": ("vote_count", operator.le),
    "primary_release_date.gte": ("release_date", operator.ge),
    "primary_release_date.lte": ("release_date", operator.le),
    "release_date.gte": ("release_date", operator.ge),
    "release_date.lte": ("release_date", operator.le),
    "primary_release_year": ("release_date", _year),
    "year": ("release_date", _year),
    "with_original_language": ("original_language", operator.eq),
    "with_genres": ("genres", _has_all),
}


def discover(world: World, args: dict[str, Any]) -> dict[str, Any]:
    """``GET /discover/movie``: the movies every given filter passes, sorted by ``sort_by`` (ties by id), one page."""
    keyed = {key: world.get("movie", key) for key in list(world.table("movie"))}
    movies = list(keyed.values())
    for param, (field, test) in _FILTERS.items():
        value = args.get(param)
        if value is not None:
            movies = [m for m in movies if test(_genres(world, m[field]) if field == "genres" else m[field], value)]
    wanted = args.get("sort_by") or "popularity.desc"
    name, _, order = str(wanted).partition(".")
    name = {"primary_release_date": "release_date"}.get(name, name)
    if movies and name not in movies[0]:
        raise BadArguments(f"sort_by {wanted!r} is not supported; use e.g. popularity.desc, vote_average.desc, primary_release_date.desc")
    ids = {id(m): m.get("id", key) for key, m in keyed.items()}
    movies.sort(key=lambda m: (m[name], ids[id(m)]), reverse=order != "asc")
    return shape(world, "movie_page", movies=movies, page=args.get("page"))


# -- the fixture's functions ({"$call": name, "args": [...]}) ----------------------------------
def media_type(world: World, value: Any) -> Any:
    """A trending list's media type, checked."""
    if value not in ("all", "movie", "tv", "person"):
        raise BadArguments(f"media_type must be all, movie, tv or person, got '{value}'")
    return value


def time_window(world: World, value: Any) -> Any:
    """A trending list's time window, checked."""
    if value not in ("day", "week"):
        raise BadArguments(f"time_window must be day or week, got '{value}'")
    return value


def biography(world: World, name: str, department: str) -> str:
    """A person's biography, from their department."""
    return f"{name} works in {str(department).lower()} in the mock world."


def homepage(world: World, name: str) -> str:
    """A company's or network's site: its name in lowercase letters and digits."""
    return f"https://www.{re.sub(r'[^a-z0-9]', '', str(name).lower())}.example"


def collection_base(world: World, name: str) -> str:
    """A collection's name without its last word (``Dune Collection`` -> ``Dune``): its films are named after it."""
    return re.sub(r"\s+Collection$", "", str(name))


def reviewer(world: World, kind: str, work: Any, n: int) -> str:
    """A review's author handle: a first name in lowercase and a number, from the seed."""
    first = world.pick(list(fixture(world)["vocab"]["first_names"]), "reviewer", kind, work, n, "first")
    return f"{str(first).lower()}{world.int(kind, work, n, lo=1, hi=99)}"


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


FUNCTIONS = (air_date, interleave, total, verdict, media_type, time_window, biography, homepage, collection_base, reviewer)
MODEL = TmdbModel()
