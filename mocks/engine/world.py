"""A mock world: the entities one API "contains", and how calls change them.

A :class:`World` is a store of entity records (``kind -> id -> record``) plus
a few singletons (the current user, the player), seeded from a readable
fixture (:mod:`gqlbench.mocks.engine.fixtures`) and driven by the domain's model
(:mod:`gqlbench.mocks.engine.loader`: the generic rules of :mod:`gqlbench.mocks.engine.generic`
plus a registered behaviour such as ``gqlbench.mocks.worlds.spotify``) that maps each
endpoint to a handler. Everything the world invents is derived with SHA-256 from the
seed and a key (never ``hash()`` or an unseeded RNG), so the same seed and the
same calls give the same responses and the same :meth:`World.digest` on any
machine and in any process.

Entities are completed lazily: a response that mentions an entity (a movie in
someone's credits) stores a partial record, and the model fills in the rest
the first time that entity is looked up. Completion depends only on the seed
and the partial record, so the final state does not depend on call order.

Whatever a handler's answer leaves out is filled by the schema-driven
resolvers (:mod:`gqlbench.mocks.server.resolvers`).
"""

from __future__ import annotations

import builtins
import copy
import hashlib
import json
import pickle
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from gqlbench.mocks.engine.textindex import TermIndex, trigrams
from gqlbench.mocks.errors import BadArguments, NotFound

__all__ = [
    "Handler",
    "MAX_SEARCH_CHARS",
    "WorldModel",
    "World",
    "stable_int",
    "stable_token",
    "load_fixture",
    "search_text",
    "world_model",
]

Handler = Callable[["World", dict[str, Any]], Any]
"""An endpoint's behaviour: (world, arguments) -> REST-like JSON response."""

MAX_SEARCH_CHARS = 1_000
"""Longest search text an endpoint takes; the datasets' longest is about 30 characters.

Every search for something new adds records named after its text, so without
a bound one 300 KB search string held the mock server for seconds.
"""

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _digest(parts: Iterable[Any]) -> bytes:
    text = json.dumps(list(parts), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).digest()


def stable_int(*parts: Any, modulo: int | None = None) -> int:
    """A non-negative integer derived from ``parts`` only (same on every machine)."""
    value = int.from_bytes(_digest(parts)[:8], "big")
    return value % modulo if modulo else value


def stable_token(*parts: Any, length: int = 22) -> str:
    """A base62 string derived from ``parts`` (Spotify ids are 22 such characters)."""
    value = int.from_bytes(_digest(parts), "big")
    chars = []
    for _ in range(length):
        value, rest = divmod(value, 62)
        chars.append(_BASE62[rest])
    return "".join(chars)


class WorldModel(Protocol):
    """What answers a domain's endpoints (:class:`gqlbench.mocks.engine.loader.DomainModel`)."""

    domain: str

    @property
    def handlers(self) -> Mapping[str, Handler]:
        """Function name -> what answers it (read-only here, so a model may hold any mapping)."""

    fixture: dict[str, Any]

    def load(self, world: World, fixture: dict[str, Any]) -> None:
        """Fill a fresh world from the fixture."""

    def complete(self, world: World, kind: str, record: dict[str, Any]) -> None:
        """Fill in a partial record the first time it is looked up."""


def world_model(domain: str, fixture: Path | str | None = None) -> WorldModel:
    """The domain's model: generic rules plus its behaviour (see :mod:`gqlbench.mocks.engine.registry`)."""
    from gqlbench.mocks.engine.fixtures import fixture_file
    from gqlbench.mocks.engine.loader import world_model as build

    if fixture is not None and not Path(fixture).is_file():
        load_fixture(domain, fixture)  # the error naming the missing file
    file = Path(fixture) if fixture is not None else fixture_file(domain)
    return build(domain, file if file.is_file() else None)


def search_text(value: Any, param: str) -> str:
    """A search argument as stripped text, or :class:`BadArguments` when it is over :data:`MAX_SEARCH_CHARS`."""
    text = str(value).strip()
    if len(text) > MAX_SEARCH_CHARS:
        raise BadArguments(
            f"{param} is {len(text):,} characters long, over the mock's limit of {MAX_SEARCH_CHARS:,} "
            "for a search text; search for fewer words"
        )
    return text


def load_fixture(domain: str, path: Path | str | None = None) -> dict[str, Any]:
    """The fixture as JSON; ``{}`` when a domain has none."""
    from gqlbench.mocks.engine.fixtures import load_fixture as read

    return read(domain, path)


@dataclass
class World:
    """The state of one mock API for one program run (or one server's life)."""

    domain: str
    seed: int = 0
    model: WorldModel | None = None
    request: str = ""  # the user's request: keys written in it exist (see gqlbench.mocks.engine.generic)
    tables: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)
    completed: set[tuple[str, str]] = field(default_factory=set)
    # search indexes (kind, index name) -> TextIndex: derived from the tables, never part of the state
    indexes: dict[tuple[str, str], TermIndex] = field(default_factory=dict, repr=False, compare=False)
    # called by long read-only work (lookups, searches, index updates); it may raise to stop a call (the
    # server's time budget). None in the sandbox.
    interrupt: Callable[[], None] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def create(cls, domain: str, seed: int = 0, fixture: Path | str | None = None) -> World:
        """A fresh world: the domain's fixture loaded by its model.

        The first world of a (domain, seed, fixture) is loaded from the fixture;
        later ones are restored from a snapshot of it (a worker creates one per
        program, and loading is 20x slower than restoring). The last
        :data:`FRESH_KEPT` snapshots are kept: a server reset with a new seed
        each time must not grow without end.
        """
        model = world_model(domain, fixture)
        world = cls(domain=domain, seed=seed, model=model)
        key = (domain, seed, str(fixture) if fixture is not None else None, id(model))
        if key not in _FRESH:
            model.load(world, copy.deepcopy(model.fixture))
            _FRESH[key] = pickle.dumps((world.tables, world.state, world.completed))
            while len(_FRESH) > FRESH_KEPT:
                del _FRESH[next(iter(_FRESH))]  # the oldest
        else:
            world.tables, world.state, world.completed = pickle.loads(_FRESH[key])
        return world

    # -- deterministic values -------------------------------------------------
    def int(self, *key: Any, lo: int = 0, hi: int = 100) -> int:
        """An integer in [lo, hi] derived from the seed and ``key``."""
        return lo + stable_int(self.domain, self.seed, *key, modulo=hi - lo + 1)

    def pick(self, options: list[Any] | tuple[Any, ...], *key: Any) -> Any:
        return options[stable_int(self.domain, self.seed, *key, modulo=len(options))]

    def token(self, *key: Any, length: builtins.int = 22) -> str:  # World.int shadows the builtin here
        return stable_token(self.domain, self.seed, *key, length=length)

    # -- entities --------------------------------------------------------------
    def table(self, kind: str) -> dict[str, dict[str, Any]]:
        return self.tables.setdefault(kind, {})

    def put(self, kind: str, record: dict[str, Any], *, complete: bool = False) -> dict[str, Any]:
        """Store a record unless one with its id exists; returns the stored one."""
        stored = self.table(kind).setdefault(str(record["id"]), record)
        if complete:
            self.completed.add((kind, str(record["id"])))
        return stored

    def checkpoint(self) -> None:
        """Let :attr:`interrupt` stop the current call here (between whole steps: the world stays consistent)."""
        if self.interrupt is not None:
            self.interrupt()

    def has(self, kind: str, entity_id: Any) -> bool:
        return str(entity_id) in self.table(kind)

    def get(self, kind: str, entity_id: Any, *, label: str | None = None) -> dict[str, Any]:
        """The complete record of an entity, or :class:`NotFound` naming the id."""
        self.checkpoint()
        key = str(entity_id)
        record = self.table(kind).get(key)
        if record is None:
            raise NotFound(
                f"no {label or kind} with id {entity_id!r} in the mock world; "
                "use an id from the user's request or one returned by an earlier call"
            )
        if (kind, key) not in self.completed:
            self.completed.add((kind, key))
            if self.model is not None:
                interrupt, self.interrupt = self.interrupt, None  # a record is completed whole, never in part
                try:
                    self.model.complete(self, kind, record)
                finally:
                    self.interrupt = interrupt
        return record

    def find(self, kind: str, predicate: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        """Records of a kind that satisfy ``predicate``, in insertion order."""
        return [r for r in self.table(kind).values() if predicate(r)]

    def search(self, kind: str, words: list[str], text_of: Callable[[dict[str, Any]], str], index: str = "text") -> list[dict[str, Any]]:
        """Records of a kind whose ``text_of`` contains every (lowercase) word, in insertion order.

        The answer of ``find`` with a substring predicate, through a trigram
        index (:mod:`gqlbench.mocks.engine.textindex`), so N searches do not cost N
        scans of a world they keep growing. ``index`` names the text, so one
        kind can be searched by more than one. Each candidate's text is made
        once; the work is at most the candidates' text times the distinct words.
        """
        distinct = list(dict.fromkeys(words))
        terms = [g for w in distinct for g in trigrams(w)]
        candidates = self._index(kind, f"text:{index}", lambda r: trigrams(text_of(r).lower())).candidates(
            self.table(kind), terms, self.checkpoint
        )
        found = []
        for record in candidates:
            self.checkpoint()
            text = text_of(record).lower()
            if all(w in text for w in distinct):
                found.append(record)
        return found

    def referring(self, kind: str, field_name: str, entity_id: str) -> list[dict[str, Any]]:
        """Records of a kind whose list ``field_name`` holds ``entity_id`` (albums of an artist), in insertion order."""
        index = self._index(kind, f"refs:{field_name}", lambda r: map(str, r.get(field_name) or ()))
        return [r for r in index.candidates(self.table(kind), [str(entity_id)], self.checkpoint) if entity_id in (r.get(field_name) or ())]

    def _index(self, kind: str, name: str, terms_of: Callable[[dict[str, Any]], Any]) -> TermIndex:
        index = self.indexes.get((kind, name))
        if index is None:
            index = self.indexes[(kind, name)] = TermIndex(terms_of)
        return index

    def handler(self, function: str) -> Handler | None:
        """The model's handler of an endpoint; a non-GET one may rename records, so indexes are dropped."""
        if not function.startswith("GET_"):
            self.indexes.clear()
        return self.model.handlers.get(function) if self.model is not None else None

    def digest(self) -> str:
        """SHA-256 of the whole state, canonical JSON: equal states, equal digests."""
        snapshot = {"tables": self.tables, "state": self.state, "completed": sorted(self.completed)}
        text = json.dumps(snapshot, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def tick(self) -> str:
        """The next timestamp of the world's clock (deterministic, advances per mutation)."""
        step = self.state.get("clock", 0) + 1
        self.state["clock"] = step
        minutes, seconds = divmod(step, 60)
        return f"2024-06-01T12:{minutes % 60:02d}:{seconds:02d}Z"


FRESH_KEPT = 16
"""Snapshots of fresh worlds kept per process (a pool worker needs one per domain and seed it runs)."""

_FRESH: dict[tuple[str, int, str | None, int], bytes] = {}
"""Pickled state of each fresh world made so far in this process (our own bytes only)."""
