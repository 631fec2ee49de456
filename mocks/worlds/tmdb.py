"""The TMDB world's Python: what its fixture (``mocks/worlds/tmdb.json``) cannot declare.

Every TMDB endpoint is answered by a template of the fixture (``"respond"``),
every generated value is a ``"generate"`` template, and the graph grows as
declared in ``"grow"`` (:mod:`gqlbench.mocks.engine.declared.growth`): a movie
or show gets a cast, a director, a producer, companies, networks and similar
titles when first looked up, a person credits of their own, a collection its
parts, each a new entity with a collision-free id, made by a keyed ``$make``
from its kind's ``"make"`` recipe (:mod:`gqlbench.mocks.engine.declared.make`);
the named lists, the latest movie and a season's people are ``$make`` and
``$once`` in the endpoints. The
generic engine also reads the graph both ways, checks season and episode
numbers, and filters, sorts and pages. What stays here, and why:

* loading: the fixture names people, companies and networks by name
  (``"cast": [["Leonardo DiCaprio", "Jack Dawson"]]``), and a name becomes one
  entity with a stable id wherever it is mentioned, and a collection lists the
  movies that name it;
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

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared.make import make, new_id
from gqlbench.mocks.engine.declared.templates import Scope
from gqlbench.mocks.engine.world import World, search_text
from gqlbench.mocks.errors import BadArguments

__all__ = ["MODEL", "TmdbModel"]


def _title(query: str) -> str:
    query = " ".join(query.split())
    return query.title() if query.islower() else query


def _key(kind: str) -> str:
    return "title" if kind == "movie" else "name"


class TmdbModel:
    """Loads the fixture and gives the templates their functions (search, air dates)."""

    domain = "tmdb"
    handlers: dict[str, Any] = {}  # every endpoint is declared in the fixture

    def __init__(self) -> None:
        self.functions = {"search": self.search, "air_date": air_date}

    def named(self, world: World, kind: str, name: str, details: dict[str, Any] | None = None, *, create: bool = True) -> int:
        """The id of the entity called ``name``, created (partial) on first mention."""
        found = world.find(kind, lambda r: r.get(_key(kind)) == name)
        if found:
            found[0].update({k: v for k, v in (details or {}).items() if k != "id"})
            return int(found[0]["id"])
        if not create:
            raise GqlbenchError(f"mocks/worlds/tmdb.json: the lists name {kind} {name!r}, which the file does not define")
        record = {**(details or {}), _key(kind): name}
        record["id"] = int(record.get("id") or new_id(world, kind, name))
        return int(world.put(kind, record)["id"])

    # -- loading -----------------------------------------------------------------------
    def load(self, world: World, fixture: dict[str, Any]) -> None:
        named = (("person", "people"), ("company", "companies"), ("network", "networks"), ("collection", "collections"))
        for kind, section in named:
            for entry in fixture.get(section, []):
                self.named(world, kind, entry["name"], {**entry, "parts": []} if kind == "collection" else entry)
        for kind, section in (("movie", "movies"), ("tv", "tv")):
            for work in fixture.get(section, []):
                record = {k: v for k, v in work.items() if k not in ("cast", "crew", "companies", "networks", "created_by")}
                record["id"] = int(work.get("id") or new_id(world, kind, work[_key(kind)]))
                record["cast"] = [{"person": self.named(world, "person", p), "character": c} for p, c in work.get("cast", [])]
                record["crew"] = [{"person": self.named(world, "person", p), "job": j} for p, j in work.get("crew", [])]
                record["companies"] = [self.named(world, "company", c) for c in work.get("companies", [])]
                world.put(kind, record)
                if record.pop("collection", None):
                    collection = world.table("collection")[str(self.named(world, "collection", work["collection"]))]
                    collection.setdefault("parts", []).append(record["id"])
                    record["collection"] = collection["id"]
                if kind == "tv":
                    record["networks"] = [self.named(world, "network", n) for n in work.get("networks", [])]
                    record["created_by"] = [self.named(world, "person", p) for p in work.get("created_by", [])]
        lists = {}
        for name, titles in (fixture.get("lists") or {}).items():
            kind = name.split("_")[1 if name.startswith("trending_") else 0]
            if kind not in ("movie", "tv", "person"):
                raise GqlbenchError(
                    f"mocks/worlds/tmdb.json: list {name!r} must start with movie_, tv_, person_ or trending_<movie|tv|person>_"
                )
            lists[name] = [self.named(world, kind, t, create=False) for t in titles]
        world.state["lists"] = lists

    # -- template functions ------------------------------------------------------------------
    def search(self, scope: Scope, kind: str, text: Any) -> list[int]:
        """Ids of the entities whose name has every word of the query (one made for an unknown query), best first."""
        world, query = scope.world, search_text(text, "query")
        if not query:
            raise BadArguments("query is empty; pass the name or title to search for")
        words = [t for t in re.split(r"[^\w&']+", query.lower()) if t]

        def matches() -> list[dict[str, Any]]:
            return world.search(kind, words, lambda r: str(r[_key(kind)]), index=_key(kind))

        found = matches()
        if not found:
            if kind in ("movie", "tv"):
                make(scope, kind, {_key(kind): _title(query)}, "search", key=["search", query])
            elif kind == "person":
                world.put("person", {"id": new_id(world, "person", "search", query), "name": _title(query)})
            else:
                self.named(world, kind, _title(query))
            found = matches()
        for r in found:
            world.get(kind, r["id"])
        found.sort(key=lambda r: (r[_key(kind)].lower() != query.lower(), -float(r.get("popularity", 0) or 0), r["id"]))
        return [r["id"] for r in found]


def air_date(scope: Scope, first_air_date: str, season: int, episode: int = 1) -> str:
    """Season ``n`` airs ``n - 1`` years after the first; episodes a week apart (a 28-day month)."""
    year, day = int(first_air_date[:4]) + season - 1, 1 + 7 * (episode - 1)
    return f"{year}-{1 + (day // 28) % 12:02d}-{1 + day % 28:02d}"


MODEL = TmdbModel()
