"""Utterances for drafts: what the user wants, with every literal stated and no dataflow spelled out.

A request names the thing it wants ("the cast and crew for the movie
"Heat""), not the calls that find it: a value one call reads from another's
response is described as the entity it is (``results[0].id`` after a movie
search for "Heat" is *the movie "Heat"*; ``tracks.items[0].artists[0].id``
after a track search is *the first artist of the track "Money"*), and the
entity a later call needs is described through the one before, so a chain
reads as one nested noun phrase. Only the calls nothing reads from (the
sinks: the last call of a chain, both branches of a fan-out) become
actions. Every literal a program passes is written: a search text in double
quotes as the entity's name, a ``limit`` next to the list it limits ("3 of my
albums"), another value as ``<parameter words> <value>``. What an endpoint
returns or does is named from its method and path (``/movie/{id}/credits``: the
credits; ``PUT /me/albums``: save ... to my albums), never copied from its
description, which the prompt shows (issue #32). This is the fallback for
domains without a lexicon (:mod:`.intents`); the seeded RNG picks the wording.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from gqlbench.mocks.engine.kinds import is_generic, singular
from gqlbench.synthetic.graph import DataflowGraph, Endpoint
from gqlbench.synthetic.literals import names_for
from gqlbench.synthetic.sampler import Call, Draft, Literal, Ref

__all__ = ["utterance"]

_ORDINALS = ("first", "second", "third", "fourth", "fifth")
_NOUNS = {"tv": "TV show", "me": "user", "cast": "cast member", "crew": "crew member"}
"""Kinds whose name is not the word a person writes."""
_GET = ("Get {np}.", "Show me {np}.", "Find {np}.", "I'd like to see {np}.", "Look up {np}.", "Please get {np}.", "I need {np}.")
_DO = ("{act}.", "Please {act_l}.", "I want to {act_l}.", "I'd like to {act_l}.")
_AND = ("{a}, and {b}.", "{a}. Also, {b}.", "{a}; then {b}.")


def _noun(kind: str | None) -> str:
    kind = singular(kind or "item")
    return _NOUNS.get(kind, kind.replace("_", " ").replace("-", " "))


def _value(value: Literal) -> str:
    """A string in plain double quotes (so the program's value appears verbatim), a number as is."""
    return f'"{value}"' if isinstance(value, str) else str(value)


def _ordinal(index: int) -> str:
    return _ORDINALS[index] if index < len(_ORDINALS) else f"#{index + 1}"


_VERSION = re.compile(r"^v?\d+$")
_WRITE_VERBS = {"POST": ("add", "to"), "PUT": ("save", "to"), "PATCH": ("update", "in"), "DELETE": ("remove", "from")}
"""A write's verb and the preposition before what it writes into, by HTTP method."""


def _path_words(endpoint: Endpoint) -> tuple[list[str], bool]:
    """The words of the endpoint's path after its last parameter (all literal segments when none follow), and whether
    it is the user's own (``/me/...``): ``/artists/{id}/top-tracks`` -> ``(["top", "tracks"], False)``."""
    literal = [s for s in endpoint.segments if not s.startswith("{") and not _VERSION.match(s)]
    last = max((i for i, s in enumerate(endpoint.segments) if s.startswith("{")), default=-1)
    tail = [s for s in endpoint.segments[last + 1 :] if not _VERSION.match(s) and s != "me"] or [s for s in literal if s != "me"]
    words = [w for s in tail for w in re.split(r"[-_.]+", s) if w]
    return words or _noun(endpoint.kind).split(), bool(literal) and literal[0] == "me"


def path_noun(endpoint: Endpoint) -> str:
    """What a read endpoint returns, named from its path, never from its description (the prompt shows that):
    ``/movie/{id}/credits`` -> ``the credits``, ``/movie/popular`` -> ``the popular movies``, ``/me/loans`` -> ``my loans``."""
    words, mine = _path_words(endpoint)
    params = any(s.startswith("{") for s in endpoint.segments)
    if not params and not mine and len(words) >= 2:  # /movie/popular: the popular movies
        head = _noun(words[0])
        words = [*words[1:], head if head.endswith("s") else head + "s"]
    return f"{'my' if mine else 'the'} {' '.join(words)}"


class _Phraser:
    """Phrases the calls of one draft, each entity described through the calls before it."""

    def __init__(self, graph: DataflowGraph, draft: Draft, rng: random.Random) -> None:
        self.graph = graph
        self.draft = draft
        self.rng = rng
        self.said: dict[str, str] = {}  # reference phrases already written -> the noun a pronoun would use

    def _endpoint(self, call: Call) -> Endpoint:
        return self.graph.endpoints[call.function]

    def _kind_of_param(self, call: Call, param: str) -> str:
        endpoint = self._endpoint(call)
        return endpoint.param_kinds.get(param) or endpoint.extra_kinds.get(param) or param

    def _searched_kind(self, call: Call) -> str:
        """What a search looks for: a literal naming a kind (``type="track"``), else the endpoint's kind."""
        endpoint = self._endpoint(call)
        for param, value in call.literals():
            if param != endpoint.text_param and isinstance(value, str) and param in ("type", "types", "kind", "media_type"):
                return value
        return endpoint.kind or "item"

    def _extras(self, call: Call, stated: str) -> str:
        """The call's literals ``stated`` does not already name unambiguously, as words."""
        endpoint = self._endpoint(call)
        parts = []
        for param, value in call.literals():
            if param == endpoint.text_param:
                continue
            others = [v for v in endpoint.literals.get(param, ()) if v != value and str(v).lower() in stated.lower()]
            if isinstance(value, str) and re.search(rf"\b{re.escape(value)}", stated, re.IGNORECASE) and not others:
                continue
            if param == "limit":
                continue  # said next to the list (:meth:`_limited`)
            else:
                parts.append(f"{param.replace('_', ' ')} {_value(value)}")
        return f" ({', '.join(parts)})" if parts else ""

    def _limited(self, call: Call, phrase: str) -> str:
        """``phrase`` with the call's ``limit`` said next to it: ``3 of the albums ...``."""
        limit = next((v for p, v in call.literals() if p == "limit"), None)
        return phrase if limit is None else f"{limit} of {phrase}"

    def action(self, call: Call) -> str:
        """A write as an instruction named from its method and path: ``add the track "Money" to the tracks of ...``."""
        endpoint = self._endpoint(call)
        verb, into = _WRITE_VERBS.get(endpoint.name.split("_", 1)[0], ("update", "in"))
        words, mine = _path_words(endpoint)
        in_path = {s[1:-1] for s in endpoint.segments if s.startswith("{")}
        refs = self._refs(call)
        owners = [(p, r) for p, r in refs if p in in_path]
        items = [(p, r) for p, r in refs if p not in in_path]
        if owners and endpoint.segments and endpoint.segments[-1].startswith("{"):  # DELETE /loans/{loan_id}: the thing itself
            return f"{verb} {self.reference(call, *owners[0])}"
        container = f"{'my' if mine else 'the'} {' '.join(words)}"
        if owners:
            container += f" of {self.reference(call, *owners[0])}"
        if items:
            named = " and ".join(self.reference(call, *item) for item in items)
            return f"{verb} {named} {into} {container}"
        return f"{verb} {container}"

    def entity(self, step: int) -> str:
        """What call ``step`` returns, as a noun phrase naming every literal the calls up to it pass."""
        call = self.draft.calls[step]
        endpoint = self._endpoint(call)
        search = [v for p, v in call.literals() if p == endpoint.text_param]
        if search:
            kind = self._searched_kind(call)
            if search[0] in names_for(self.graph.domain, singular(kind)):
                phrase = f"the {_noun(kind)} {_value(search[0])}"
            else:  # a search text that is not a name of that kind (an author searched among books)
                phrase = f"the first {_noun(kind)} found for {_value(search[0])}"
            return phrase + self._extras(call, phrase + " " + kind)
        refs = self._refs(call)
        if refs and endpoint.lookup:  # GET_movie__movie_id_: the movie itself
            phrase = self.reference(call, *refs[0])
            return phrase + self._extras(call, phrase)
        phrase = self._fill(call, path_noun(endpoint), refs)
        return self._limited(call, phrase) + self._extras(call, phrase)

    def _refs(self, call: Call) -> list[tuple[str, Ref]]:
        """The values ``call`` reads from responses, but a scope read with its key (the owner of a repo named)."""
        scoped = self._endpoint(call).scoped
        return [(p, r) for p, r in call.refs() if p not in scoped]

    def _fill(self, call: Call, phrase: str, refs: Sequence[tuple[str, Ref]]) -> str:
        """``phrase`` with each referenced entity put where the description names its kind, else added after it."""
        for param, ref in refs:
            noun = _noun(self._kind_of_param(call, param))
            named = self.reference(call, param, ref)
            words = re.escape(noun)
            owner = re.compile(rf"\b(?:an?|the|this|a given) (?:user's |single )?{words}(?:'s|’s) ([^,;]+)", re.IGNORECASE)
            plain = re.compile(rf"\b(?:a given|a single|an?|this|one or more|my) {words}s?\b", re.IGNORECASE)
            if (found := owner.search(phrase)) is not None:
                phrase = phrase[: found.start()] + f"the {found[1]} of {named}" + phrase[found.end() :]
            elif (found := plain.search(phrase)) is not None:
                phrase = phrase[: found.start()] + named + phrase[found.end() :]
            elif param in self._endpoint(call).extra_kinds:
                phrase += f" with {named}"
            else:
                phrase += f" for {named}"
        return phrase

    def reference(self, call: Call, param: str, ref: Ref) -> str:
        """The entity a value read from a response belongs to: ``the first artist of the track "Money"``."""
        producer = self.draft.calls[ref.step]
        endpoint = self._endpoint(producer)
        kind = self._kind_of_param(call, param)
        parts: list[tuple[str, int | None]] = []
        for part in ref.path[:-1]:
            if isinstance(part, int):
                parts[-1:] = [(parts[-1][0] if parts else "item", part)]  # a response that is a list: its first item
            else:
                parts.append((singular(part), None))
        merged: list[tuple[str, int | None]] = []
        for noun, index in parts:
            if merged and is_generic(merged[-1][0]) and not is_generic(noun) and index is None:
                merged[-1] = (noun, merged[-1][1])  # items[0].track: the first track
            elif merged and not is_generic(merged[-1][0]) and merged[-1][1] is None and is_generic(noun):
                merged[-1] = (merged[-1][0], index)  # tracks.items[0]: the first track
            else:
                merged.append((noun, index))
        own = {singular(endpoint.kind or ""), singular(self._searched_kind(producer))}
        searched = any(p == endpoint.text_param for p, _ in producer.literals())
        base = self.entity(ref.step)
        if searched:
            self.said.setdefault(base, _noun(self._searched_kind(producer)))
        if merged and (is_generic(merged[0][0]) or merged[0][0] in own):  # the producer's own list or object
            noun0, index = merged.pop(0)
            while merged and is_generic(merged[0][0]):  # artists.items[0]: still the producer's own list
                index = merged.pop(0)[1] if merged[0][1] is not None else index
            if index is not None and not searched:
                element = noun0 if not is_generic(noun0) else kind if not merged else endpoint.kind
                base = f"the {_ordinal(index)} {_noun(element)} in {base}"
                self.said.setdefault(base, _noun(element))
        for at, (noun, index) in enumerate(merged):
            word = _noun(kind) if is_generic(noun) else _noun(noun)
            where = "of"
            if at == len(merged) - 1 and not is_generic(noun) and not singular(noun).endswith(singular(kind)):
                word, where = _noun(kind), f"listed under {noun.replace('_', ' ')} in"  # crew[0].id of credits: a movie
            base = f"the {_ordinal(index) + ' ' if index is not None else ''}{word} {where} {base}"
        self.said.setdefault(base, _noun(kind))
        return base

    def sink(self, step: int) -> str:
        """What the user asks of call ``step``, which nothing reads from: a request for its result, or an action."""
        call = self.draft.calls[step]
        endpoint = self._endpoint(call)
        if not endpoint.writes:
            phrase = self.entity(step)
            if endpoint.lookup and call.refs():  # the movie "Heat" is what a search finds; its lookup gives details
                phrase = f"the details of {phrase}"
            return self.rng.choice(_GET).format(np=phrase)
        act = self.action(call)
        act += self._extras(call, act)
        template = self.rng.choice(_DO)
        return template.format(act=act[:1].upper() + act[1:], act_l=act)


def _sinks(draft: Draft) -> list[int]:
    used = {ref.step for call in draft.calls for _, ref in call.refs()}
    return [step for step in range(len(draft.calls)) if step not in used]


def utterance(graph: DataflowGraph, draft: Draft, rng: random.Random) -> str:
    """The request a user would write for ``draft``: each sink's result or action, the rest implied by the entities."""
    phraser = _Phraser(graph, draft, rng)
    sinks = []
    for step in _sinks(draft):
        said = dict(phraser.said)
        text = phraser.sink(step)
        repeated = [phrase for phrase in said if phrase in text]
        if repeated:  # the second branch names an entity the first already did: "that album"
            phrase = max(repeated, key=len)
            text = text.replace(phrase, f"that {said[phrase]}", 1)
        sinks.append(text)
    if len(sinks) == 1:
        text = sinks[0]
    else:
        first, second = sinks[0].rstrip("."), sinks[1].rstrip(".")
        lowered = second if second.startswith(("I ", "I'")) else second[:1].lower() + second[1:]
        text = rng.choice(_AND).format(a=first, b=lowered)
    text = " ".join(text.split())
    return text[:1].upper() + text[1:]
