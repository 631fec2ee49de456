"""The TMDB mock world: movies, TV shows, people, companies and their links.

Records are compact (entities refer to each other by id) and rendered in
TMDB's JSON shape by the ``_render`` helpers. The graph is unbounded but
lazy: completing a movie gives it a cast, a director, companies and similar
titles as partial records, which are completed in turn only when looked up.
Every person ends up with movie and TV credits (as cast and as crew), every
movie with a director and every show with seasons, so call chains such as
search -> credits -> the director's other films always lead somewhere.

It is a world *behaviour* (:mod:`gqlbench.mocks.registry`, bundled for the
``tmdb`` domain) on top of the generic world: its handlers answer every TMDB
endpoint of the catalog, because what they do (an unbounded lazily completed
graph, credits in both directions, TMDB's paging and image shapes) is more
than the generic rules say.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.errors import BadArguments, NotFound
from gqlbench.mocks.world import Handler, World, search_text

__all__ = ["MODEL", "TmdbModel"]

IMAGE = "/{}.jpg"
GENRES = {
    "Action": 28, "Adventure": 12, "Animation": 16, "Comedy": 35, "Crime": 80, "Documentary": 99, "Drama": 18,
    "Family": 10751, "Fantasy": 14, "History": 36, "Horror": 27, "Music": 10402, "Mystery": 9648, "Romance": 10749,
    "Science Fiction": 878, "TV Movie": 10770, "Thriller": 53, "War": 10752, "Western": 37,
    "Action & Adventure": 10759, "Kids": 10762, "News": 10763, "Reality": 10764, "Sci-Fi & Fantasy": 10765,
    "Soap": 10766, "Talk": 10767, "War & Politics": 10768,
}
MOVIE_GENRES = ["Action", "Adventure", "Comedy", "Crime", "Drama", "Fantasy", "Mystery", "Romance", "Science Fiction", "Thriller"]
TV_GENRES = ["Action & Adventure", "Comedy", "Crime", "Drama", "Mystery", "Sci-Fi & Fantasy"]
FIRST = ["Ada", "Ben", "Chloe", "Dev", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kira", "Liam",
         "Maya", "Noah", "Olga", "Paulo", "Quinn", "Rosa", "Sami", "Tara", "Uma", "Victor", "Wen", "Yara"]
LAST = ["Abbott", "Brandt", "Castillo", "Dubois", "Eriksen", "Fischer", "Gallo", "Hayes", "Ivanova", "Jensen",
        "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quint", "Rossi", "Sato", "Turner"]
ADJ = ["Silent", "Crimson", "Hidden", "Last", "Golden", "Broken", "Distant", "Electric", "Frozen", "Wild",
       "Midnight", "Secret", "Burning", "Hollow", "Restless"]
NOUN = ["Harbor", "Kingdom", "Signal", "Garden", "Frontier", "River", "Empire", "Mirror", "Orchard", "Voyage",
        "Lighthouse", "Station", "Summer", "Witness", "Horizon"]
CITIES = ["London, England, UK", "Los Angeles, California, USA", "Toronto, Ontario, Canada", "Sydney, Australia",
          "Paris, France", "Tokyo, Japan", "Berlin, Germany", "Chicago, Illinois, USA", "Madrid, Spain"]
DEPARTMENTS = {"Director": "Directing", "Producer": "Production", "Executive Producer": "Production",
               "Screenplay": "Writing", "Writer": "Writing", "Novel": "Writing"}
LIST_KINDS = {"movie": "movie", "tv": "tv", "person": "person"}


def _tokens(text: str) -> list[str]:
    return [t for t in re.split(r"[^\w&']+", text.lower()) if t]


def _title(query: str) -> str:
    query = " ".join(query.split())
    return query.title() if query.islower() else query


def _date(world: World, *key: Any, lo: int = 1980, hi: int = 2023) -> str:
    return f"{world.int(*key, 'year', lo=lo, hi=hi)}-{world.int(*key, 'month', lo=1, hi=12):02d}-{world.int(*key, 'day', lo=1, hi=28):02d}"


def _page(results: list[dict[str, Any]], args: dict[str, Any], size: int = 20) -> dict[str, Any]:
    page = args.get("page") or 1
    if not 1 <= page <= 500:
        raise BadArguments(f"page must be between 1 and 500, got {page}")
    total_pages = max(1, -(-len(results) // size))
    return {"page": page, "results": results[(page - 1) * size : page * size],
            "total_pages": total_pages, "total_results": len(results)}


class TmdbModel:
    """Loads the fixture and answers every TMDB endpoint of the catalog."""

    domain = "tmdb"

    def __init__(self) -> None:
        self.handlers: dict[str, Handler] = {
            name[len("h_") :]: getattr(self, name) for name in dir(self) if name.startswith("h_")
        }

    # -- ids and names -------------------------------------------------------------------
    def _new_id(self, world: World, kind: str, *key: Any) -> int:
        """The id of the entity made for ``key``: the same key always gives the same id."""
        registry = world.state.setdefault("generated_ids", {})
        name = json.dumps([kind, *key], default=str)
        if name not in registry:
            attempt = 0
            while world.has(kind, entity_id := world.int(kind, *key, attempt, lo=1_000_000, hi=99_999_999)):
                attempt += 1
            registry[name] = entity_id
        return int(registry[name])

    def _person_name(self, world: World, *key: Any) -> str:
        return f"{world.pick(FIRST, *key, 'first')} {world.pick(LAST, *key, 'last')}"

    def _work_title(self, world: World, *key: Any) -> str:
        return f"The {world.pick(ADJ, *key, 'adj')} {world.pick(NOUN, *key, 'noun')}"

    # -- loading -----------------------------------------------------------------------
    def load(self, world: World, fixture: dict[str, Any]) -> None:
        for person in fixture.get("people", []):
            self._named(world, "person", person["name"], person)
        for company in fixture.get("companies", []):
            self._named(world, "company", company["name"], company)
        for network in fixture.get("networks", []):
            self._named(world, "network", network["name"], network)
        for collection in fixture.get("collections", []):
            self._named(world, "collection", collection["name"], {**collection, "parts": []})
        for movie in fixture.get("movies", []):
            record = self._work_record(world, "movie", movie, title_key="title")
            if movie.get("collection"):
                collection = world.table("collection")[str(self._named(world, "collection", movie["collection"]))]
                collection.setdefault("parts", [])
                collection["parts"].append(record["id"])
                record["collection"] = collection["id"]
        for show in fixture.get("tv", []):
            record = self._work_record(world, "tv", show, title_key="name")
            record["networks"] = [self._named(world, "network", n) for n in show.get("networks", [])]
            record["created_by"] = [self._named(world, "person", p) for p in show.get("created_by", [])]
            if "seasons" in show:
                record["seasons"] = list(show["seasons"])
        lists = {}
        for name, titles in (fixture.get("lists") or {}).items():
            kind = LIST_KINDS.get(name.split("_")[0] if not name.startswith("trending_") else name.split("_")[1])
            if kind is None:
                raise GqlbenchError(
                    f"mocks/worlds/tmdb.json: list {name!r} must start with movie_, tv_, person_ or trending_<movie|tv|person>_"
                )
            lists[name] = [self._find_named(world, kind, t) for t in titles]
        world.state["lists"] = lists

    def _named(self, world: World, kind: str, name: str, details: dict[str, Any] | None = None) -> int:
        """The id of the entity called ``name``, created (partial) on first mention."""
        key = "title" if kind == "movie" else "name"
        found = world.find(kind, lambda r: r.get(key) == name)
        if found:
            if details:
                found[0].update({k: v for k, v in details.items() if k != "id"})
            return int(found[0]["id"])
        record = {**(details or {}), key: name}
        record["id"] = int(record.get("id") or self._new_id(world, kind, name))
        world.put(kind, record)
        return int(record["id"])

    def _find_named(self, world: World, kind: str, name: str) -> int:
        key = "title" if kind == "movie" else "name"
        found = world.find(kind, lambda r: r.get(key) == name)
        if not found:
            raise GqlbenchError(f"mocks/worlds/tmdb.json: the lists name {kind} {name!r}, which the file does not define")
        return int(found[0]["id"])

    def _work_record(self, world: World, kind: str, work: dict[str, Any], title_key: str) -> dict[str, Any]:
        record = {k: v for k, v in work.items() if k not in ("cast", "crew", "companies", "networks", "created_by", "collection")}
        record["id"] = int(work.get("id") or self._new_id(world, kind, work[title_key]))
        record["cast"] = [{"person": self._named(world, "person", p), "character": c} for p, c in work.get("cast", [])]
        record["crew"] = [{"person": self._named(world, "person", p), "job": j} for p, j in work.get("crew", [])]
        record["companies"] = [self._named(world, "company", c) for c in work.get("companies", [])]
        world.put(kind, record)
        return record

    # -- lazy completion ----------------------------------------------------------------
    def complete(self, world: World, kind: str, record: dict[str, Any]) -> None:
        getattr(self, f"_complete_{kind}", lambda w, r: None)(world, record)

    def _partial_work(self, world: World, kind: str, *key: Any, **fields: Any) -> int:
        entity_id = self._new_id(world, kind, *key)
        title_key = "title" if kind == "movie" else "name"
        world.put(kind, {"id": entity_id, title_key: self._work_title(world, kind, entity_id),
                         "cast": [], "crew": [], **fields})
        return entity_id

    def _partial_person(self, world: World, *key: Any, department: str = "Acting") -> int:
        person_id = self._new_id(world, "person", *key)
        world.put("person", {"id": person_id, "name": self._person_name(world, person_id), "known_for_department": department})
        return person_id

    def _complete_work(self, world: World, kind: str, r: dict[str, Any]) -> None:
        wid = r["id"]
        is_movie = kind == "movie"
        r.setdefault("genres", [world.pick(MOVIE_GENRES if is_movie else TV_GENRES, wid, "genre", i) for i in (1, 2)])
        r["genres"] = list(dict.fromkeys(r["genres"]))
        r.setdefault("popularity", round(world.int(wid, "popularity", lo=50, hi=2000) / 10, 1))
        r.setdefault("vote_average", round(world.int(wid, "vote", lo=50, hi=88) / 10, 1))
        r.setdefault("vote_count", world.int(wid, "votes", lo=100, hi=30000))
        r.setdefault("original_language", "en")
        title = r["title" if is_movie else "name"]
        r.setdefault("overview", f"The story of {title}, told in the mock world.")
        r.setdefault("keywords", [world.pick(["friendship", "betrayal", "based on novel", "revenge", "coming of age",
                                              "time travel", "heist", "small town", "family", "war"], wid, "kw", i)
                                  for i in (1, 2, 3)])
        r["keywords"] = list(dict.fromkeys(r["keywords"]))
        while len(r["cast"]) < 4:
            n = len(r["cast"])
            r["cast"].append({"person": self._partial_person(world, kind, wid, "cast", n),
                              "character": self._person_name(world, kind, wid, "character", n)})
        if not any(c["job"] == "Director" for c in r["crew"]):
            r["crew"].insert(0, {"person": self._partial_person(world, kind, wid, "director", department="Directing"),
                                 "job": "Director"})
        if not any(c["job"] in ("Producer", "Executive Producer") for c in r["crew"]):
            r["crew"].append({"person": self._partial_person(world, kind, wid, "producer", department="Production"),
                              "job": "Producer" if is_movie else "Executive Producer"})
        if not r.get("companies"):
            r["companies"] = [self._named(world, "company", f"{world.pick(ADJ, wid, 'co')} {world.pick(NOUN, wid, 'co')} Pictures")]
        for relation in ("similar", "recommendations"):
            r.setdefault(relation, [self._partial_work(world, kind, wid, relation, i) for i in (1, 2, 3)])
        if is_movie:
            r.setdefault("release_date", _date(world, wid))
            r.setdefault("runtime", world.int(wid, "runtime", lo=85, hi=175))
            r.setdefault("budget", world.int(wid, "budget", lo=1, hi=250) * 1_000_000)
            r.setdefault("revenue", world.int(wid, "revenue", lo=1, hi=900) * 1_000_000)
            r.setdefault("tagline", f"{title}.")
            r.setdefault("status", "Released")
        else:
            r.setdefault("first_air_date", _date(world, wid, lo=1990))
            r.setdefault("seasons", [world.int(wid, "episodes", s, lo=8, hi=12) for s in (1, 2, 3)])
            r.setdefault("episode_run_time", [world.int(wid, "runtime", lo=22, hi=60)])
            r.setdefault("status", world.pick(["Returning Series", "Ended"], wid, "status"))
            if not r.get("networks"):
                r["networks"] = [self._named(world, "network", f"{world.pick(NOUN, wid, 'net')} TV")]
            if not r.get("created_by"):
                r["created_by"] = [self._partial_person(world, "tv", wid, "creator", department="Writing")]

    def _complete_movie(self, world: World, r: dict[str, Any]) -> None:
        self._complete_work(world, "movie", r)

    def _complete_tv(self, world: World, r: dict[str, Any]) -> None:
        self._complete_work(world, "tv", r)

    def _complete_person(self, world: World, r: dict[str, Any]) -> None:
        pid = r["id"]
        r.setdefault("known_for_department", world.pick(["Acting", "Directing"], pid, "department"))
        r.setdefault("gender", world.int(pid, "gender", lo=1, hi=2))
        r.setdefault("birthday", _date(world, pid, lo=1940, hi=1995))
        r.setdefault("place_of_birth", world.pick(CITIES, pid, "born"))
        r.setdefault("popularity", round(world.int(pid, "popularity", lo=10, hi=900) / 10, 1))
        r.setdefault("biography", f"{r['name']} works in {r['known_for_department'].lower()} in the mock world.")
        crew_job = {"Directing": "Director", "Writing": "Screenplay"}.get(r["known_for_department"], "Producer")
        for kind, relation, minimum in (("movie", "cast", 2), ("movie", "crew", 2), ("tv", "cast", 2), ("tv", "crew", 1)):
            have = len(self._credits(world, pid, kind, relation))
            for n in range(have, minimum):
                entry = ({"person": pid, "character": self._person_name(world, pid, kind, "role", n)}
                         if relation == "cast" else {"person": pid, "job": crew_job})
                self._partial_work(world, kind, pid, relation, n, **{"cast": [], "crew": [], relation: [entry]})

    def _complete_collection(self, world: World, r: dict[str, Any]) -> None:
        base = re.sub(r"\s+Collection$", "", r["name"])
        r.setdefault("overview", f"All the films of {base}.")
        while len(r["parts"]) < 3:
            n = len(r["parts"]) + 1
            title = base if n == 1 else f"{base} {'I' * n}"
            movie_id = self._partial_work(world, "movie", r["id"], "part", n, title=title, collection=r["id"],
                                          release_date=_date(world, r["id"], "part", n, lo=1990 + 6 * n, hi=1992 + 6 * n))
            r["parts"].append(movie_id)

    def _complete_company(self, world: World, r: dict[str, Any]) -> None:
        cid = r["id"]
        r.setdefault("headquarters", world.pick(CITIES, cid, "hq"))
        r.setdefault("origin_country", "US")
        r.setdefault("homepage", f"https://www.{re.sub(r'[^a-z0-9]', '', r['name'].lower())}.example")
        r.setdefault("description", f"{r['name']} is a company of the mock world.")

    def _complete_network(self, world: World, r: dict[str, Any]) -> None:
        self._complete_company(world, r)

    # -- rendering ---------------------------------------------------------------------
    def _credits(self, world: World, person_id: int, kind: str, relation: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """(work, credit entry) pairs where the person appears as cast or crew."""
        return [(w, c) for w in world.table(kind).values() for c in w.get(relation, []) if c["person"] == person_id]

    def _genres(self, names: list[str]) -> list[dict[str, Any]]:
        return [{"id": GENRES.get(g, 0), "name": g} for g in names]

    def _movie_brief(self, world: World, movie_id: int) -> dict[str, Any]:
        m = world.get("movie", movie_id)
        return {"id": m["id"], "title": m["title"], "original_title": m["title"], "media_type": "movie",
                "release_date": m["release_date"], "overview": m["overview"], "adult": False, "video": False,
                "genre_ids": [GENRES.get(g, 0) for g in m["genres"]], "original_language": m["original_language"],
                "popularity": m["popularity"], "vote_average": m["vote_average"], "vote_count": m["vote_count"],
                "poster_path": IMAGE.format(world.token("poster", m["id"], length=27)),
                "backdrop_path": IMAGE.format(world.token("backdrop", m["id"], length=27))}

    def _tv_brief(self, world: World, tv_id: int) -> dict[str, Any]:
        t = world.get("tv", tv_id)
        return {"id": t["id"], "name": t["name"], "original_name": t["name"], "media_type": "tv",
                "first_air_date": t["first_air_date"], "overview": t["overview"], "adult": False,
                "genre_ids": [GENRES.get(g, 0) for g in t["genres"]], "original_language": t["original_language"],
                "origin_country": ["US"], "popularity": t["popularity"], "vote_average": t["vote_average"],
                "vote_count": t["vote_count"], "poster_path": IMAGE.format(world.token("poster", t["id"], length=27)),
                "backdrop_path": IMAGE.format(world.token("backdrop", t["id"], length=27))}

    def _person_brief(self, world: World, person_id: int) -> dict[str, Any]:
        p = world.get("person", person_id)
        return {"id": p["id"], "name": p["name"], "original_name": p["name"], "media_type": "person",
                "adult": False, "gender": p["gender"], "known_for_department": p["known_for_department"],
                "popularity": p["popularity"], "profile_path": IMAGE.format(world.token("profile", p["id"], length=27))}

    def _org_brief(self, world: World, kind: str, org_id: int) -> dict[str, Any]:
        o = world.get(kind, org_id)
        return {"id": o["id"], "name": o["name"], "origin_country": o["origin_country"],
                "logo_path": IMAGE.format(world.token("logo", kind, o["id"], length=27))}

    def _brief(self, world: World, kind: str, entity_id: int) -> dict[str, Any]:
        if kind in ("company", "network"):
            return self._org_brief(world, kind, entity_id)
        if kind == "collection":
            c = world.get("collection", entity_id)
            return {"id": c["id"], "name": c["name"], "overview": c["overview"], "adult": False,
                    "poster_path": IMAGE.format(world.token("poster", "collection", c["id"], length=27)),
                    "backdrop_path": IMAGE.format(world.token("backdrop", "collection", c["id"], length=27))}
        return {"movie": self._movie_brief, "tv": self._tv_brief, "person": self._person_brief}[kind](world, entity_id)

    def _cast_entry(self, world: World, entry: dict[str, Any], order: int, owner: Any) -> dict[str, Any]:
        return {**self._person_brief(world, entry["person"]), "character": entry["character"], "order": order,
                "cast_id": order + 1, "credit_id": world.token("credit", owner, entry["person"], "cast", length=24)}

    def _crew_entry(self, world: World, entry: dict[str, Any], owner: Any) -> dict[str, Any]:
        return {**self._person_brief(world, entry["person"]), "job": entry["job"],
                "department": DEPARTMENTS.get(entry["job"], "Crew"),
                "credit_id": world.token("credit", owner, entry["person"], entry["job"], length=24)}

    def _work_credits(self, world: World, kind: str, work_id: int) -> dict[str, Any]:
        w = world.get(kind, work_id)
        return {"id": w["id"], "cast": [self._cast_entry(world, c, i, w["id"]) for i, c in enumerate(w["cast"])],
                "crew": [self._crew_entry(world, c, w["id"]) for c in w["crew"]]}

    def _images(self, world: World, owner: Any, **groups: int) -> dict[str, Any]:
        def image(group: str, n: int) -> dict[str, Any]:
            width = 2000 if group in ("backdrops", "stills") else 1000
            height = 1125 if group in ("backdrops", "stills") else 1500
            return {"file_path": IMAGE.format(world.token("image", owner, group, n, length=27)), "width": width,
                    "height": height, "aspect_ratio": round(width / height, 3), "iso_639_1": "en" if group != "backdrops" else None,
                    "vote_average": round(world.int(owner, group, n, lo=50, hi=60) / 10, 1),
                    "vote_count": world.int(owner, group, n, "votes", lo=1, hi=40)}
        return {group: [image(group, n) for n in range(count)] for group, count in groups.items()}

    def _reviews(self, world: World, kind: str, work_id: int, args: dict[str, Any]) -> dict[str, Any]:
        world.get(kind, work_id)
        results = []
        for n in (1, 2):
            author = self._person_name(world, "reviewer", kind, work_id, n).split()[0].lower() + str(
                world.int(kind, work_id, n, lo=1, hi=99)
            )
            rating = world.int(kind, work_id, "rating", n, lo=4, hi=10)
            results.append({"id": world.token("review", kind, work_id, n, length=24), "author": author,
                            "author_details": {"name": "", "username": author, "avatar_path": None, "rating": rating},
                            "content": f"A {'great' if rating >= 7 else 'mixed'} experience, {rating}/10.",
                            "created_at": f"2023-0{n}-1{n}T10:00:00.000Z", "updated_at": f"2023-0{n}-1{n}T10:00:00.000Z",
                            "url": f"https://www.themoviedb.org/review/{world.token('review', kind, work_id, n, length=24)}"})
        return {"id": work_id, **_page(results, args)}

    def _keywords(self, world: World, kind: str, work_id: int) -> list[dict[str, Any]]:
        w = world.get(kind, work_id)
        return [{"id": world.int("keyword", k, lo=1000, hi=300000), "name": k} for k in w["keywords"]]

    # -- search ---------------------------------------------------------------------
    def _search(self, world: World, kind: str, args: dict[str, Any]) -> dict[str, Any]:
        query = search_text(args["query"], "query")
        if not query:
            raise BadArguments("query is empty; pass the name or title to search for")
        key = "title" if kind == "movie" else "name"

        def matches() -> list[dict[str, Any]]:
            return world.search(kind, _tokens(query), lambda r: str(r[key]), index=key)

        found = matches()
        if not found:
            if kind in ("movie", "tv"):
                self._partial_work(world, kind, "search", query, **{key: _title(query)})
            elif kind == "person":
                self._new_person(world, query)
            else:
                self._named(world, kind, _title(query))
            found = matches()
        for r in found:
            world.get(kind, r["id"])
        exact = query.lower()
        found.sort(key=lambda r: (r[key].lower() != exact, -float(r.get("popularity", 0) or 0), r["id"]))
        results = [self._brief(world, kind, r["id"]) for r in found]
        if kind == "person":
            for result, r in zip(results, found, strict=True):
                credits = self._credits(world, r["id"], "movie", "cast") + self._credits(world, r["id"], "movie", "crew")
                result["known_for"] = [self._movie_brief(world, w["id"]) for w, _ in credits[:3]]
        return _page(results, args)

    def _new_person(self, world: World, query: str) -> None:
        person_id = self._new_id(world, "person", "search", query)
        world.put("person", {"id": person_id, "name": _title(query)})

    def h_GET_search_movie(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._search(world, "movie", args)

    def h_GET_search_tv(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._search(world, "tv", args)

    def h_GET_search_person(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._search(world, "person", args)

    def h_GET_search_collection(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._search(world, "collection", args)

    def h_GET_search_company(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._search(world, "company", args)

    # -- movies ---------------------------------------------------------------------
    def h_GET_movie__movie_id_(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        m = world.get("movie", args["movie_id"], label="movie")
        collection = None
        if m.get("collection"):
            collection = {k: v for k, v in self._brief(world, "collection", m["collection"]).items() if k != "overview"}
        return {
            **self._movie_brief(world, m["id"]),
            "genres": self._genres(m["genres"]),
            "belongs_to_collection": collection,
            "budget": m["budget"],
            "revenue": m["revenue"],
            "runtime": m["runtime"],
            "status": m["status"],
            "tagline": m["tagline"],
            "homepage": f"https://www.themoviedb.org/movie/{m['id']}",
            "imdb_id": f"tt{world.int(m['id'], 'imdb', lo=1000000, hi=9999999)}",
            "production_companies": [self._org_brief(world, "company", c) for c in m["companies"]],
            "production_countries": [{"iso_3166_1": "US", "name": "United States of America"}],
            "spoken_languages": [{"english_name": "English", "iso_639_1": "en", "name": "English"}],
        }

    def h_GET_movie__movie_id__credits(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._work_credits(world, "movie", args["movie_id"])

    def h_GET_movie__movie_id__keywords(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return {"id": args["movie_id"], "keywords": self._keywords(world, "movie", args["movie_id"])}

    def h_GET_movie__movie_id__release_dates(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        m = world.get("movie", args["movie_id"])
        dates = [{"release_date": f"{m['release_date']}T00:00:00.000Z", "type": 3, "note": "",
                  "certification": world.pick(["PG", "PG-13", "R"], m["id"], "cert"), "iso_639_1": "", "descriptors": []}]
        return {"id": m["id"], "results": [{"iso_3166_1": "US", "release_dates": dates}]}

    def h_GET_movie__movie_id__reviews(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._reviews(world, "movie", args["movie_id"], args)

    def h_GET_movie__movie_id__similar(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        m = world.get("movie", args["movie_id"])
        return _page([self._movie_brief(world, x) for x in m["similar"]], args)

    def h_GET_movie__movie_id__recommendations(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        m = world.get("movie", args["movie_id"])
        return _page([self._movie_brief(world, x) for x in m["recommendations"]], args)

    def _list(self, world: World, name: str, kind: str, args: dict[str, Any]) -> dict[str, Any]:
        lists = world.state.setdefault("lists", {})
        if name not in lists:
            lists[name] = [self._partial_work(world, kind, "list", name, i) if kind != "person"
                           else self._partial_person(world, "list", name, i) for i in range(5)]
        results = [self._brief(world, kind, x) for x in lists[name]]
        return _page(results, args)

    def h_GET_movie_popular(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._list(world, "movie_popular", "movie", args)

    def h_GET_movie_top_rated(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._list(world, "movie_top_rated", "movie", args)

    def h_GET_movie_now_playing(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        page = self._list(world, "movie_now_playing", "movie", args)
        return {**page, "dates": {"minimum": "2024-05-15", "maximum": "2024-06-26"}}

    def h_GET_movie_latest(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        latest = world.state.get("latest_movie")
        if latest is None:
            latest = world.state["latest_movie"] = self._partial_work(world, "movie", "latest", release_date="2024-06-01")
        return self.h_GET_movie__movie_id_(world, {"movie_id": latest})

    def h_GET_discover_movie(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        movies = [world.get("movie", m["id"]) for m in list(world.table("movie").values())]
        checks = {
            "vote_average.gte": lambda m, v: m["vote_average"] >= v,
            "vote_average.lte": lambda m, v: m["vote_average"] <= v,
            "vote_count.gte": lambda m, v: m["vote_count"] >= v,
            "vote_count.lte": lambda m, v: m["vote_count"] <= v,
            "primary_release_date.gte": lambda m, v: m["release_date"] >= v,
            "primary_release_date.lte": lambda m, v: m["release_date"] <= v,
            "release_date.gte": lambda m, v: m["release_date"] >= v,
            "release_date.lte": lambda m, v: m["release_date"] <= v,
            "primary_release_year": lambda m, v: m["release_date"][:4] == str(v),
            "year": lambda m, v: m["release_date"][:4] == str(v),
            "with_original_language": lambda m, v: m["original_language"] == v,
            "with_genres": lambda m, v: all(
                int(g) in [GENRES.get(n) for n in m["genres"]] for g in str(v).replace("|", ",").split(",") if g.strip().isdigit()
            ),
        }
        for name, check in checks.items():
            if args.get(name) is not None:
                movies = [m for m in movies if check(m, args[name])]
        sort_by = args.get("sort_by") or "popularity.desc"
        field, _, order = sort_by.partition(".")
        field = {"primary_release_date": "release_date", "title": "title"}.get(field, field)
        if movies and field not in movies[0]:
            raise BadArguments(
                f"sort_by {sort_by!r} is not supported; use e.g. popularity.desc, vote_average.desc, primary_release_date.desc"
            )
        movies.sort(key=lambda m: (m[field], m["id"]), reverse=order != "asc")
        return _page([self._movie_brief(world, m["id"]) for m in movies], args)

    # -- TV ---------------------------------------------------------------------
    def _season_number(self, world: World, tv: dict[str, Any], season: Any) -> int:
        if not 1 <= season <= len(tv["seasons"]):
            raise NotFound(f"{tv['name']} (tv_id {tv['id']}) has seasons 1 to {len(tv['seasons'])}, not {season}")
        return int(season)

    def _episode(self, world: World, args: dict[str, Any]) -> tuple[dict[str, Any], int, int]:
        tv = world.get("tv", args["tv_id"])
        season = self._season_number(world, tv, args["season_number"])
        episode = args["episode_number"]
        if not 1 <= episode <= tv["seasons"][season - 1]:
            raise NotFound(f"season {season} of {tv['name']} has episodes 1 to {tv['seasons'][season - 1]}, not {episode}")
        return tv, season, int(episode)

    def _air_date(self, world: World, tv: dict[str, Any], season: int, episode: int = 1) -> str:
        year = int(tv["first_air_date"][:4]) + season - 1
        day = 1 + 7 * (episode - 1)
        return f"{year}-{1 + (day // 28) % 12:02d}-{1 + day % 28:02d}"

    def _episode_brief(self, world: World, tv: dict[str, Any], season: int, episode: int) -> dict[str, Any]:
        key = (tv["id"], season, episode)
        return {"id": world.int("episode", *key, lo=1_000_000, hi=9_999_999), "show_id": tv["id"],
                "season_number": season, "episode_number": episode, "air_date": self._air_date(world, tv, season, episode),
                "name": f"{world.pick(ADJ, *key)} {world.pick(NOUN, *key)}",
                "overview": f"Episode {episode} of season {season} of {tv['name']}.", "episode_type": "standard",
                "runtime": tv["episode_run_time"][0], "production_code": "",
                "still_path": IMAGE.format(world.token("still", *key, length=27)),
                "vote_average": round(world.int(*key, "vote", lo=60, hi=95) / 10, 1), "vote_count": world.int(*key, "votes", lo=5, hi=900)}

    def h_GET_tv__tv_id_(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        t = world.get("tv", args["tv_id"], label="TV show")
        seasons = [{"id": world.int("season", t["id"], n, lo=10_000, hi=999_999), "season_number": n, "episode_count": count,
                    "name": f"Season {n}", "air_date": self._air_date(world, t, n), "overview": "",
                    "poster_path": IMAGE.format(world.token("poster", t["id"], n, length=27)), "vote_average": t["vote_average"]}
                   for n, count in enumerate(t["seasons"], start=1)]
        last_season = len(t["seasons"])
        return {
            **self._tv_brief(world, t["id"]),
            "genres": self._genres(t["genres"]),
            "homepage": f"https://www.themoviedb.org/tv/{t['id']}",
            "in_production": t["status"] != "Ended",
            "languages": ["en"],
            "type": "Scripted",
            "tagline": "",
            "last_air_date": self._air_date(world, t, last_season, t["seasons"][-1]),
            "last_episode_to_air": self._episode_brief(world, t, last_season, t["seasons"][-1]),
            "next_episode_to_air": None,
            "number_of_seasons": len(t["seasons"]),
            "number_of_episodes": sum(t["seasons"]),
            "episode_run_time": t["episode_run_time"],
            "status": t["status"],
            "seasons": seasons,
            "networks": [self._org_brief(world, "network", n) for n in t["networks"]],
            "production_companies": [self._org_brief(world, "company", c) for c in t["companies"]],
            "production_countries": [{"iso_3166_1": "US", "name": "United States of America"}],
            "spoken_languages": [{"english_name": "English", "iso_639_1": "en", "name": "English"}],
            "created_by": [
                {
                    **{
                        k: v
                        for k, v in self._person_brief(world, p).items()
                        if k in ("id", "name", "gender", "profile_path", "original_name")
                    },
                    "credit_id": world.token("credit", t["id"], p, "creator", length=24),
                }
                for p in t["created_by"]
            ],
        }

    def h_GET_tv__tv_id__credits(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._work_credits(world, "tv", args["tv_id"])

    def h_GET_tv__tv_id__keywords(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return {"id": args["tv_id"], "results": self._keywords(world, "tv", args["tv_id"])}

    def h_GET_tv__tv_id__reviews(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._reviews(world, "tv", args["tv_id"], args)

    def h_GET_tv__tv_id__similar(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return _page([self._tv_brief(world, x) for x in world.get("tv", args["tv_id"])["similar"]], args)

    def h_GET_tv__tv_id__recommendations(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return _page([self._tv_brief(world, x) for x in world.get("tv", args["tv_id"])["recommendations"]], args)

    def h_GET_tv_popular(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._list(world, "tv_popular", "tv", args)

    def h_GET_tv_top_rated(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._list(world, "tv_top_rated", "tv", args)

    def h_GET_tv_on_the_air(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._list(world, "tv_on_the_air", "tv", args)

    def h_GET_tv__tv_id__season__season_number_(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        tv = world.get("tv", args["tv_id"])
        season = self._season_number(world, tv, args["season_number"])
        episodes = [self._episode_brief(world, tv, season, e) for e in range(1, tv["seasons"][season - 1] + 1)]
        season_id = world.int("season", tv["id"], season, lo=10_000, hi=999_999)
        return {"_id": world.token("season", tv["id"], season, length=24), "id": season_id, "season_number": season,
                "name": f"Season {season}", "air_date": self._air_date(world, tv, season), "overview": "",
                "episodes": episodes, "poster_path": IMAGE.format(world.token("poster", tv["id"], season, length=27)),
                "vote_average": tv["vote_average"]}

    def _season_crew(self, world: World, tv: dict[str, Any], season: int) -> list[dict[str, Any]]:
        """The show's crew plus a director of its own for the season (created on first mention)."""
        person_id = self._partial_person(world, "tv", tv["id"], "season", season, "director", department="Directing")
        return [*tv["crew"], {"person": person_id, "job": "Director"}]

    def h_GET_tv__tv_id__season__season_number__credits(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        tv = world.get("tv", args["tv_id"])
        season = self._season_number(world, tv, args["season_number"])
        owner = (tv["id"], season)
        return {"id": world.int("season", tv["id"], season, lo=10_000, hi=999_999),
                "cast": [self._cast_entry(world, c, i, owner) for i, c in enumerate(tv["cast"])],
                "crew": [self._crew_entry(world, c, owner) for c in self._season_crew(world, tv, season)]}

    def h_GET_tv__tv_id__season__season_number__images(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        tv = world.get("tv", args["tv_id"])
        season = self._season_number(world, tv, args["season_number"])
        return {"id": world.int("season", tv["id"], season, lo=10_000, hi=999_999),
                **self._images(world, ("season", tv["id"], season), posters=2)}

    def h_GET_tv__tv_id__season__season_number__episode__episode_number_(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        tv, season, episode = self._episode(world, args)
        credits = self.h_GET_tv__tv_id__season__season_number__episode__episode_number__credits(world, args)
        return {**self._episode_brief(world, tv, season, episode), "crew": credits["crew"], "guest_stars": credits["guest_stars"]}

    def h_GET_tv__tv_id__season__season_number__episode__episode_number__credits(
        self, world: World, args: dict[str, Any]
    ) -> dict[str, Any]:
        tv, season, episode = self._episode(world, args)
        owner = (tv["id"], season, episode)
        guests = [{"person": self._partial_person(world, "guest", *owner, n),
                   "character": self._person_name(world, "guest role", *owner, n)} for n in (1, 2)]
        return {"id": self._episode_brief(world, tv, season, episode)["id"],
                "cast": [self._cast_entry(world, c, i, owner) for i, c in enumerate(tv["cast"])],
                "crew": [self._crew_entry(world, c, owner) for c in self._season_crew(world, tv, season)],
                "guest_stars": [self._cast_entry(world, g, i, owner) for i, g in enumerate(guests)]}

    def h_GET_tv__tv_id__season__season_number__episode__episode_number__images(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        tv, season, episode = self._episode(world, args)
        return {"id": self._episode_brief(world, tv, season, episode)["id"],
                **self._images(world, ("episode", tv["id"], season, episode), stills=2)}

    # -- people ---------------------------------------------------------------------
    def h_GET_person__person_id_(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        p = world.get("person", args["person_id"], label="person")
        return {**self._person_brief(world, p["id"]), "birthday": p["birthday"], "deathday": None,
                "place_of_birth": p["place_of_birth"], "biography": p["biography"], "also_known_as": [],
                "homepage": None, "imdb_id": f"nm{world.int(p['id'], 'imdb', lo=1000000, hi=9999999)}"}

    def _person_credits(self, world: World, person_id: Any, kind: str) -> dict[str, Any]:
        p = world.get("person", person_id)
        brief = self._movie_brief if kind == "movie" else self._tv_brief
        cast = [{**brief(world, w["id"]), "character": c["character"], "order": i,
                 "credit_id": world.token("credit", w["id"], p["id"], "cast", length=24)}
                for i, (w, c) in enumerate(self._credits(world, p["id"], kind, "cast"))]
        crew = [{**brief(world, w["id"]), "job": c["job"], "department": DEPARTMENTS.get(c["job"], "Crew"),
                 "credit_id": world.token("credit", w["id"], p["id"], c["job"], length=24)}
                for w, c in self._credits(world, p["id"], kind, "crew")]
        date = "release_date" if kind == "movie" else "first_air_date"
        cast.sort(key=lambda x: x[date], reverse=True)  # newest first, as people ask for "latest"
        crew.sort(key=lambda x: x[date], reverse=True)
        return {"id": p["id"], "cast": cast, "crew": crew}

    def h_GET_person__person_id__movie_credits(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._person_credits(world, args["person_id"], "movie")

    def h_GET_person__person_id__tv_credits(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._person_credits(world, args["person_id"], "tv")

    def h_GET_person_popular(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        page = self._list(world, "person_popular", "person", args)
        for result in page["results"]:
            credits = self._credits(world, result["id"], "movie", "cast")
            result["known_for"] = [self._movie_brief(world, w["id"]) for w, _ in credits[:3]]
        return page

    # -- collections, companies, networks, trending -----------------------------------------
    def h_GET_collection__collection_id_(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        c = world.get("collection", args["collection_id"], label="collection")
        parts = sorted((self._movie_brief(world, m) for m in c["parts"]), key=lambda m: m["release_date"])
        return {**self._brief(world, "collection", c["id"]), "parts": parts}

    def _org(self, world: World, kind: str, org_id: Any) -> dict[str, Any]:
        o = world.get(kind, org_id, label=kind)
        return {**self._org_brief(world, kind, o["id"]), "headquarters": o["headquarters"],
                "homepage": o["homepage"], "description": o["description"], "parent_company": None}

    def h_GET_company__company_id_(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._org(world, "company", args["company_id"])

    def h_GET_network__network_id_(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        return self._org(world, "network", args["network_id"])

    def h_GET_trending__media_type___time_window_(self, world: World, args: dict[str, Any]) -> dict[str, Any]:
        media, window = args["media_type"], args["time_window"]
        if media not in ("all", "movie", "tv", "person"):
            raise BadArguments(f"media_type must be all, movie, tv or person, got {media!r}")
        if window not in ("day", "week"):
            raise BadArguments(f"time_window must be day or week, got {window!r}")
        if media == "all":
            parts = [self._list(world, f"trending_{kind}_{window}", kind, {})["results"] for kind in ("movie", "tv")]
            results = [x for pair in zip(*parts, strict=False) for x in pair]
            return _page(results, args)
        return self._list(world, f"trending_{media}_{window}", media, args)


MODEL = TmdbModel()
