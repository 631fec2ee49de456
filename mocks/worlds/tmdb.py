"""The TMDB world's Python: what its fixture (``mocks/worlds/tmdb.json``) cannot declare.

Every TMDB endpoint is answered by a template of the fixture (``"respond"``),
every generated value (popularity, dates, runtimes, a person's birthday) is a
``"generate"`` template, and the generic engine reads the graph both ways
(:mod:`gqlbench.mocks.engine.declared.relations`), checks season and episode numbers
(:mod:`gqlbench.mocks.engine.declared.ranges`) and filters, sorts and pages
(:mod:`gqlbench.mocks.engine.declared.listing`). What stays here, and why:

* loading: the fixture names people, companies and networks by name
  (``"cast": [["Leonardo DiCaprio", "Jack Dawson"]]``), and a name becomes one
  entity with a stable id wherever it is mentioned;
* growth: completing a movie or a show gives it cast, a director, a producer,
  companies, networks and similar titles, and a person credits of their own,
  each a new entity with an id that must not collide with an existing one, so
  call chains always lead somewhere; the graph is unbounded, made on demand;
* the template functions (``{"$call": ...}``): a search that makes an entity
  named after an unknown query, the named lists made on first use, the latest
  movie and a new person (a season's director, an episode's guest stars), all
  new entities as above, and the air-date arithmetic.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared.relations import referring
from gqlbench.mocks.engine.declared.templates import Scope, derived_date
from gqlbench.mocks.engine.world import World, search_text
from gqlbench.mocks.errors import BadArguments

__all__ = ["MODEL", "TmdbModel"]


def _title(query: str) -> str:
    query = " ".join(query.split())
    return query.title() if query.islower() else query


def _key(kind: str) -> str:
    return "title" if kind == "movie" else "name"


class TmdbModel:
    """Loads the fixture, grows the graph, and gives the templates their functions."""

    domain = "tmdb"
    handlers: dict[str, Any] = {}  # every endpoint is declared in the fixture

    def __init__(self) -> None:
        self.vocab: dict[str, Any] = {}
        self.functions = {
            "search": self.search,
            "named_list": self.named_list,
            "latest": self.latest,
            "person": self.person,
            "air_date": air_date,
        }

    # -- ids and names ------------------------------------------------------------------
    def new_id(self, world: World, kind: str, *key: Any) -> int:
        """The id of the entity made for ``key``: the same key always gives the same id."""
        registry = world.state.setdefault("generated_ids", {})
        name = json.dumps([kind, *key], default=str)
        if name not in registry:
            attempt = 0
            while world.has(kind, entity_id := world.int(kind, *key, attempt, lo=1_000_000, hi=99_999_999)):
                attempt += 1
            registry[name] = entity_id
        return int(registry[name])

    def person_name(self, world: World, *key: Any) -> str:
        return f"{world.pick(self.vocab['first_names'], *key, 'first')} {world.pick(self.vocab['last_names'], *key, 'last')}"

    def named(self, world: World, kind: str, name: str, details: dict[str, Any] | None = None, *, create: bool = True) -> int:
        """The id of the entity called ``name``, created (partial) on first mention."""
        found = world.find(kind, lambda r: r.get(_key(kind)) == name)
        if found:
            found[0].update({k: v for k, v in (details or {}).items() if k != "id"})
            return int(found[0]["id"])
        if not create:
            raise GqlbenchError(f"mocks/worlds/tmdb.json: the lists name {kind} {name!r}, which the file does not define")
        record = {**(details or {}), _key(kind): name}
        record["id"] = int(record.get("id") or self.new_id(world, kind, name))
        return int(world.put(kind, record)["id"])

    def partial_work(self, world: World, kind: str, *key: Any, **fields: Any) -> int:
        entity_id, v = self.new_id(world, kind, *key), self.vocab
        title = f"The {world.pick(v['adjectives'], kind, entity_id, 'adj')} {world.pick(v['nouns'], kind, entity_id, 'noun')}"
        world.put(kind, {"id": entity_id, _key(kind): title, "cast": [], "crew": [], **fields})
        return entity_id

    def partial_person(self, world: World, *key: Any, department: str = "Acting") -> int:
        person_id = self.new_id(world, "person", *key)
        world.put("person", {"id": person_id, "name": self.person_name(world, person_id), "known_for_department": department})
        return person_id

    # -- loading -----------------------------------------------------------------------
    def load(self, world: World, fixture: dict[str, Any]) -> None:
        self.vocab = fixture.get("vocab", {})
        named = (("person", "people"), ("company", "companies"), ("network", "networks"), ("collection", "collections"))
        for kind, section in named:
            for entry in fixture.get(section, []):
                self.named(world, kind, entry["name"], {**entry, "parts": []} if kind == "collection" else entry)
        for kind, section in (("movie", "movies"), ("tv", "tv")):
            for work in fixture.get(section, []):
                record = {k: v for k, v in work.items() if k not in ("cast", "crew", "companies", "networks", "created_by")}
                record["id"] = int(work.get("id") or self.new_id(world, kind, work[_key(kind)]))
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

    # -- growth ---------------------------------------------------------------------------
    def complete(self, world: World, kind: str, r: dict[str, Any]) -> None:
        if kind in ("movie", "tv"):
            self._grow_work(world, kind, r)
        elif kind == "person":
            self._grow_person(world, r)
        elif kind == "collection":
            base = re.sub(r"\s+Collection$", "", r["name"])
            r.setdefault("overview", f"All the films of {base}.")
            while len(r["parts"]) < 3:
                n = len(r["parts"]) + 1
                date = derived_date(world, r["id"], "part", n, lo=1990 + 6 * n, hi=1992 + 6 * n)
                title = base if n == 1 else f"{base} {'I' * n}"
                r["parts"].append(self.partial_work(world, "movie", r["id"], "part", n, title=title, collection=r["id"], release_date=date))

    def _grow_work(self, world: World, kind: str, r: dict[str, Any]) -> None:
        wid, is_movie, v = r["id"], kind == "movie", self.vocab
        while len(r["cast"]) < 4:
            n = len(r["cast"])
            r["cast"].append(
                {
                    "person": self.partial_person(world, kind, wid, "cast", n),
                    "character": self.person_name(world, kind, wid, "character", n),
                }
            )
        if not any(c["job"] == "Director" for c in r["crew"]):
            r["crew"].insert(0, {"person": self.partial_person(world, kind, wid, "director", department="Directing"), "job": "Director"})
        if not any(c["job"] in ("Producer", "Executive Producer") for c in r["crew"]):
            r["crew"].append(
                {
                    "person": self.partial_person(world, kind, wid, "producer", department="Production"),
                    "job": "Producer" if is_movie else "Executive Producer",
                }
            )
        if not r.get("companies"):
            company = f"{world.pick(v['adjectives'], wid, 'co')} {world.pick(v['nouns'], wid, 'co')} Pictures"
            r["companies"] = [self.named(world, "company", company)]
        for relation in ("similar", "recommendations"):
            r.setdefault(relation, [self.partial_work(world, kind, wid, relation, i) for i in (1, 2, 3)])
        if not is_movie:
            if not r.get("networks"):
                r["networks"] = [self.named(world, "network", f"{world.pick(v['nouns'], wid, 'net')} TV")]
            if not r.get("created_by"):
                r["created_by"] = [self.partial_person(world, "tv", wid, "creator", department="Writing")]

    def _grow_person(self, world: World, r: dict[str, Any]) -> None:
        pid = r["id"]
        crew_job = {"Directing": "Director", "Writing": "Screenplay"}.get(r["known_for_department"], "Producer")
        for kind, relation, minimum in (("movie", "cast", 2), ("movie", "crew", 2), ("tv", "cast", 2), ("tv", "crew", 1)):
            for n in range(len(referring(world, kind, relation, "person", pid)), minimum):
                entry = (
                    {"person": pid, "character": self.person_name(world, pid, kind, "role", n)}
                    if relation == "cast"
                    else {"person": pid, "job": crew_job}
                )
                self.partial_work(world, kind, pid, relation, n, **{"cast": [], "crew": [], relation: [entry]})

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
                self.partial_work(world, kind, "search", query, **{_key(kind): _title(query)})
            elif kind == "person":
                world.put("person", {"id": self.new_id(world, "person", "search", query), "name": _title(query)})
            else:
                self.named(world, kind, _title(query))
            found = matches()
        for r in found:
            world.get(kind, r["id"])
        found.sort(key=lambda r: (r[_key(kind)].lower() != query.lower(), -float(r.get("popularity", 0) or 0), r["id"]))
        return [r["id"] for r in found]

    def named_list(self, scope: Scope, name: str, kind: str) -> list[int]:
        lists = scope.world.state.setdefault("lists", {})
        if name not in lists:
            lists[name] = [
                self.partial_work(scope.world, kind, "list", name, i)
                if kind != "person"
                else self.partial_person(scope.world, "list", name, i)
                for i in range(5)
            ]
        return list(lists[name])

    def latest(self, scope: Scope) -> int:
        if scope.world.state.get("latest_movie") is None:
            scope.world.state["latest_movie"] = self.partial_work(scope.world, "movie", "latest", release_date="2024-06-01")
        return int(scope.world.state["latest_movie"])

    def person(self, scope: Scope, key: list[Any], department: str = "Acting") -> int:
        return self.partial_person(scope.world, *key, department=department)


def air_date(scope: Scope, first_air_date: str, season: int, episode: int = 1) -> str:
    """Season ``n`` airs ``n - 1`` years after the first; episodes a week apart (a 28-day month)."""
    year, day = int(first_air_date[:4]) + season - 1, 1 + 7 * (episode - 1)
    return f"{year}-{1 + (day // 28) % 12:02d}-{1 + day % 28:02d}"


MODEL = TmdbModel()
