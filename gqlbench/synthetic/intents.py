"""Samples phrased by intent (issue #32): a domain's lexicon of how people name things and ask for them.

The old route (:mod:`.sampler` + :mod:`.utterances`) walks the dataflow graph
and verbalises every step from the endpoints' descriptions, which reads like
the program. Here the program still comes first, but from a hand-written
:class:`Lexicon` (data, one per domain, in :mod:`.lexicons`): a *noun* is a
way a person names an entity ("'Blank Space'", "the artist of 'Blank
Space'", "Inception's director"), with the calls that find it and the
expressions that read its id; an *ask* is what a person wants of one or two
entities ("Which albums has {x} released?"), with the calls that do it. The
composer picks an ask, a noun for each of its slots (a named anchor, or a noun
derived from one: at most one derivation, so a request has one or two "of"),
and a phrasing; two asks that touch different things may be joined as the
independent parts of one request.

Templates are strings: in a call's arguments ``<@i>`` is the variable of the
i-th call of the same noun or ask, ``<x.id>`` an expression of the slot's
entity, ``<name>``/``<k>``/... a literal (rendered as Python); in a phrase
``<x>`` is the slot's noun phrase, ``<x's>`` its possessive (only for nouns
that have one) and ``<name>``/``<k>`` the literal as written.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gqlbench.program import read_program
from gqlbench.synthetic.response_fields import has_field, source_of

__all__ = [
    "call",
    "CallTemplate",
    "Noun",
    "Ask",
    "Lexicon",
    "Composed",
    "Part",
    "compose",
    "holds",
    "program_labels",
    "reads_well",
    "render",
]

Literal = str | int
_HOLE = re.compile(r"<([a-z@]\w*|@\d+)(?:\.(\w+)|('s))?>")
SLOTS = ("x", "y")
NAMED_WEIGHT = 3
"""How much likelier a noun chain anchored on a named thing is than one anchored on a list ("the most popular ...")."""
SHORT = 4
"""A noun phrase of more words goes only at the end of a request ("Who directed <x>?", not "What is <x> rated in ...")."""
MAX_WORDS = 20
"""A request of more words is not kept: people's are short (the human test split averages 11)."""
MAX_WORDS_DEEP = 15
"""The cap for a part three calls deep (a noun found through another): its steps already ask a lot of the reader."""
SITE_WORDS = r"\bTMDB\b|\bSpotify\b"
"""The service's name: said at most once in a request, where it helps ("Look up Heat on TMDB")."""
SAME_TOPIC_WEIGHT = 4
"""How much likelier the second part of a two-part request is to be about the same kind of thing as the first."""
SUPERLATIVE = re.compile(r"\b(most|best|top|highest|newest|latest|biggest|greatest)\b", re.IGNORECASE)
"""Words that rank a list: one per request part ("the show most similar to the most popular show" stacks two)."""
TYPE_LABELS = ("film", "movie", "show", "series")
"""Words that label a name ("the film Heat"): said once in a request ("films like the film Heat" repeats it)."""


@dataclass(frozen=True)
class CallTemplate:
    """One endpoint call: arguments are expression templates (``"<@0>.results[0].id"``, ``"<x.id>"``, ``"<name>"``)."""

    function: str
    args: tuple[tuple[str, str], ...] = ()


def call(function: str, **args: str) -> CallTemplate:
    """``call("GET_search", q="<name>", type='"track"')``: a :class:`CallTemplate` written as the lexicons write it."""
    return CallTemplate(function, tuple(args.items()))


@dataclass(frozen=True)
class Noun:
    """A way a person names an entity of ``kind``, with the calls that find it.

    ``base`` is the kind it is named through (``"the artist of <x>"`` has base
    ``track``; an anchor has none). ``fields`` are expression templates of the
    entity's id, uri...; ``alternatives`` other readings of the same words (the
    first crew member for "the director"), which the generator runs and keeps
    the sample only if they do the same. ``names`` is the world kind whose names
    fill ``<name>``; ``values`` other literals by slot name.
    """

    kind: str
    phrases: tuple[str, ...]
    fields: Mapping[str, str]
    calls: tuple[CallTemplate, ...] = ()
    base: str | None = None
    names: str | None = None
    values: Mapping[str, tuple[Literal, ...]] = field(default_factory=dict)
    possessive: tuple[str, ...] = ()
    alternatives: tuple[Mapping[str, str], ...] = ()
    tags: frozenset[str] = frozenset()  # what the user already did to it ("saved", "followed"): asks may exclude these
    reads: str | None = None  # the base's field its call looks up: pointless when the base's response has it
    library: bool = False  # found by name in the user's own library (saved songs, followed artists): only for library asks


@dataclass(frozen=True)
class Ask:
    """What a person wants of the entities in ``slots`` (kinds, for ``<x>`` and ``<y>``), and the calls that do it.

    ``reads``: phrase -> the field of ``<x>`` it asks for (``"When did <x> come
    out?"`` -> ``release_date``), which the ask's calls look up. When the
    response that found ``<x>`` already has that field (its response SDL says
    so), the lookup is redundant: a read of one call is then answered by the
    noun's calls alone, and other asks drop the phrase. ``limit``: the name of
    a literal passed as a list's ``limit``; the generator drops the sample when
    leaving it out changes nothing.
    """

    slots: tuple[str, ...]
    phrases: tuple[str, ...]
    calls: tuple[CallTemplate, ...]
    values: Mapping[str, tuple[Literal, ...]] = field(default_factory=dict)
    reads: Mapping[str, str] = field(default_factory=dict)
    limit: str | None = None
    alone: bool = True  # may it be the whole request (False: only as a part, e.g. "skip to the next track")
    avoid: frozenset[str] = frozenset()  # noun tags it makes no sense on (saving a song already saved)
    named: bool = False  # only of a thing named by the user ("Look up Inception on TMDB", not "... its director")
    library: bool = False  # takes a thing out of the user's library: a thing named is found there, not by a catalog search

    @property
    def writes(self) -> bool:
        return any(c.function.split("_", 1)[0] in ("POST", "PUT", "DELETE", "PATCH") for c in self.calls)

    @property
    def topic(self) -> str:
        """What it is about: its slot's kind, else the thing its call names (``GET_me_player_pause``: ``player``)."""
        if self.slots:
            return self.slots[0]
        words = [w for w in self.calls[0].function.split("_")[1:] if w] if self.calls else []
        words = words[1:] if words[:1] == ["me"] and len(words) > 1 else words
        return words[0].rstrip("s") if words else ""


@dataclass(frozen=True)
class Lexicon:
    """A domain's nouns and asks; ``joiners`` put two requests into one (``"{a}, and {b}"``)."""

    domain: str
    nouns: tuple[Noun, ...]
    asks: tuple[Ask, ...]
    joiners: tuple[str, ...] = ("{a}, and {b}", "{a}. Also, {b}", "{a}, then {b}", "{a}. After that, {b}", "{a} and {b}")


@dataclass(frozen=True)
class Part:
    """One ask with a noun chain per slot and the literals chosen: a request, or one part of one."""

    ask: Ask
    chains: tuple[tuple[Noun, ...], ...]  # per slot: the anchor first, then the nouns derived from it
    values: Mapping[str, Literal]  # "<slot>.<name>" and "<name>" of the ask -> literal
    phrase: str  # the chosen phrase template of the ask
    noun_phrases: tuple[tuple[str, ...], ...]  # per slot, per noun of the chain: the chosen phrase template
    answered: bool = False  # the nouns' responses already hold what the ask reads: its calls are left out

    def ask_calls(self) -> tuple[CallTemplate, ...]:
        return () if self.answered else self.ask.calls


@dataclass(frozen=True)
class Composed:
    """A request: one part, or two independent ones joined by ``joiner``."""

    parts: tuple[Part, ...]
    joiner: str = "{a}"

    def calls(self) -> int:
        return sum(len(n.calls) for p in self.parts for chain in p.chains for n in chain) + sum(len(p.ask_calls()) for p in self.parts)


def _literal(value: Literal) -> str:
    return json.dumps(value, ensure_ascii=False)


class _Program:
    """Calls as the human gold writes them: ``response_obj``, ``response_obj1``..., the last one unassigned."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.functions: dict[str, str] = {}  # variable -> the function whose response it holds

    def add(self, call: CallTemplate, fill: Mapping[str, str], local: list[str]) -> None:
        variable = "response_obj" if not self.lines else f"response_obj{len(self.lines)}"

        def sub(match: re.Match[str]) -> str:
            name, attr = match[1], match[2]
            if name.startswith("@"):
                return local[int(name[1:])]
            return fill[f"{name}.{attr}" if attr else name]

        args = ", ".join(f"{p}={_HOLE.sub(sub, template)}" for p, template in call.args)
        self.lines.append(f"{variable} = {call.function}({args})")
        self.functions[variable] = call.function
        local.append(variable)

    def code(self) -> str:
        if not self.lines:
            return ""
        *head, last = self.lines
        return "\n".join([*head, last.split(" = ", 1)[1]])


def _noun_fields(
    program: _Program, chain: Sequence[Noun], values: Mapping[str, Literal], slot: str, swap: Mapping[int, int]
) -> dict[str, str]:
    """Add the chain's calls; the fields of its last noun (``alternatives[swap[i]]`` for noun ``i`` when given)."""
    fields: dict[str, str] = {}
    for at, noun in enumerate(chain):
        local: list[str] = []
        fill = {f"x.{k}": v for k, v in fields.items()}
        fill.update({k.split(".", 1)[1]: _literal(v) for k, v in values.items() if k.startswith(f"{slot}{at}.")})
        for call in noun.calls:
            program.add(call, fill, local)
        chosen = noun.alternatives[swap[at]] if at in swap else noun.fields

        def sub(match: re.Match[str], fill: Mapping[str, str] = fill, local: list[str] = local) -> str:
            name, attr = match[1], match[2]
            return local[int(name[1:])] if name.startswith("@") else fill[f"{name}.{attr}" if attr else name]

        fields = {k: _HOLE.sub(sub, v) for k, v in chosen.items()}
    return fields


def render(composed: Composed, swap: Mapping[tuple[int, int, int], int] | None = None, drop_limit: bool = False) -> str:
    """The gold program of ``composed``; ``swap`` reads noun (part, slot, position) by one of its alternatives,
    ``drop_limit`` leaves each ask's ``limit`` argument out (both for the checks of one right program)."""
    swap = swap or {}
    program = _Program()
    for p, part in enumerate(composed.parts):
        fill: dict[str, str] = {}
        for s, chain in enumerate(part.chains):
            own = {i: alt for (pp, ss, i), alt in swap.items() if pp == p and ss == s}
            slot = SLOTS[s]
            fields = _noun_fields(program, chain, part.values, slot, own)
            fill.update({f"{slot}.{k}": v for k, v in fields.items()})
        fill.update({k: _literal(v) for k, v in part.values.items() if "." not in k})
        local: list[str] = []
        for call in part.ask_calls():
            if drop_limit and part.ask.limit:
                call = CallTemplate(call.function, tuple((n, t) for n, t in call.args if t != f"<{part.ask.limit}>"))
            program.add(call, fill, local)
    return program.code()


def _say(template: str, values: Mapping[str, Literal], slots: Mapping[str, tuple[str, str | None]]) -> str:
    def sub(match: re.Match[str]) -> str:
        name, attr, poss = match[1], match[2], match[3]
        if name in slots and attr is None:
            noun, possessive = slots[name]
            return possessive if poss and possessive else noun + ("'s" if poss else "")
        return str(values[name])

    text = _HOLE.sub(sub, template)
    return re.sub(r"(?<=s)'s\b", "'", text)  # The Beatles' song, not The Beatles's


def noun_phrase(chain: Sequence[Noun], templates: Sequence[str], values: Mapping[str, Literal], slot: str) -> tuple[str, str | None]:
    """The words for the last noun of ``chain`` (each noun's phrase naming the one before as ``<x>``), and its possessive."""
    said = ""
    possessive: str | None = None
    for at, (noun, template) in enumerate(zip(chain, templates, strict=True)):
        own = {k.split(".", 1)[1]: v for k, v in values.items() if k.startswith(f"{slot}{at}.")}
        said_before = said
        said = _say(template, own, {"x": (said_before, possessive)})
        possessive = _say(noun.possessive[0], own, {"x": (said_before, possessive)}) if noun.possessive and "'s" not in template else None
    return said, possessive


def utterance(composed: Composed) -> str:
    """The request's words."""
    texts = []
    for part in composed.parts:
        slots = {SLOTS[s]: noun_phrase(chain, part.noun_phrases[s], part.values, SLOTS[s]) for s, chain in enumerate(part.chains)}
        texts.append(_say(part.phrase, {k: v for k, v in part.values.items() if "." not in k}, slots))
    text = texts[0] if len(texts) == 1 else join(texts[0], texts[1], composed.joiner)
    text = re.sub(r"\bthe (?=The\b)", "", text)  # "the <name>" of a name that has its own article
    return text[:1].upper() + text[1:]


def join(first: str, second: str, joiner: str) -> str:
    """Two requests as one: two instructions with ``joiner`` (``"{a}, and {b}"``); after or before a question, two
    sentences (a question keeps its question mark)."""
    second = second if second.startswith(("I ", "I'")) else second[:1].lower() + second[1:]
    if first.endswith("?") or second.endswith("?"):
        opener = joiner.split("{b}")[0].split("{a}")[1].strip(" ,.;")  # "and", "Also", "then", "After that"
        opener = opener[:1].upper() + opener[1:] + (", " if opener and opener.lower() != "and" else " " if opener else "")
        return f"{first} {opener}{second}"
    return joiner.format(a=first.rstrip("."), b=second.rstrip(".")) + "."


def _chains(lexicon: Lexicon, kind: str, depth: int) -> list[tuple[Noun, ...]]:
    """Noun chains ending in ``kind``: an anchor, then up to ``depth`` derived nouns."""
    found: list[tuple[Noun, ...]] = [(n,) for n in lexicon.nouns if n.kind == kind and n.base is None]
    if depth > 0:
        for noun in lexicon.nouns:
            if noun.kind == kind and noun.base is not None:
                found += [
                    (*chain, noun)
                    for chain in _chains(lexicon, noun.base, depth - 1)
                    if noun not in chain and not (noun.reads and holds(lexicon.domain, chain, noun.reads))
                ]
    return found


def holds(domain: str, chain: Sequence[Noun], field: str) -> bool:
    """Whether the response that found ``chain``'s last noun already has its ``field`` (by the response SDL)."""
    placeholders: dict[str, Literal] = {}
    for at, noun in enumerate(chain):
        placeholders.update({f"x{at}.{key}": options[0] for key, options in noun.values.items()})
        if noun.names is not None:
            placeholders[f"x{at}.name"] = ""
    program = _Program()
    source = source_of(_noun_fields(program, chain, placeholders, "x", {}).get("id", ""))
    return source is not None and source[0] in program.functions and has_field(domain, program.functions[source[0]], source[1], field)


def _pick_values(rng: random.Random, chain: Sequence[Noun], slot: str, names: Mapping[str, Sequence[str]]) -> dict[str, Literal] | None:
    values: dict[str, Literal] = {}
    for at, noun in enumerate(chain):
        if noun.names is not None:
            pool = names.get(noun.names, ())
            if not pool:
                return None
            values[f"{slot}{at}.name"] = rng.choice(sorted(pool))
        for key, options in sorted(noun.values.items()):
            values[f"{slot}{at}.{key}"] = rng.choice(options)
    return values


def _fits(ask: Ask, chain: Sequence[Noun]) -> bool:
    """Whether ``ask`` may be of ``chain``'s last noun; "unsave 'Hero'" finds Hero among the saved songs (a search
    may find another song of that name), and only such an ask reads a name as one in the library."""
    last = chain[-1]
    return (
        not (ask.avoid & last.tags)
        and not (ask.named and not last.names)
        and last.library == (ask.library and bool(last.names))
        and not any(n.library for n in chain[:-1])
    )


def _answerable(ask: Ask) -> bool:
    """Whether the ask is one read whose answer a response that has the field shows as well (no limit to pass)."""
    return len(ask.calls) == 1 and ask.calls[0].function.startswith("GET_") and ask.limit is None and len(ask.slots) == 1


def compose_part(lexicon: Lexicon, rng: random.Random, names: Mapping[str, Sequence[str]], ask: Ask, depth: int) -> Part | None:
    """One part for ``ask`` with nouns up to ``depth`` derivations deep (None when its slots cannot be named)."""
    chains: list[tuple[Noun, ...]] = []
    values: dict[str, Literal] = {}
    phrases: list[tuple[str, ...]] = []
    for s, kind in enumerate(ask.slots):
        options = [c for c in _chains(lexicon, kind, depth) if _fits(ask, c) and c not in chains]
        if not options:
            return None
        chain = rng.choices(options, weights=[NAMED_WEIGHT if c[0].names else 1 for c in options])[0]
        picked = _pick_values(rng, chain, SLOTS[s], names)
        if picked is None:
            return None
        chains.append(chain)
        values.update(picked)
        templates: list[str] = []
        for at, noun in enumerate(chain):
            before = noun_phrase(chain[:at], templates, picked, SLOTS[s])[0] if at else ""
            fit = [t for t in noun.phrases if at == 0 or (_possessive_ok(t, "x", chain[:at], templates) and _placed(t, "x", before))]
            if ask.named and at == 0:  # "Look up Friends": the show or the movie? A bare search says what it looks for
                fit = [t for t in fit if t != "<name>"] or fit
            if not fit:
                return None
            templates.append(rng.choice(fit))
        phrases.append(tuple(templates))
    for key, literal_options in sorted(ask.values.items()):
        values[key] = rng.choice(literal_options)
    said = [noun_phrase(chain, phrases[s], values, SLOTS[s])[0] for s, chain in enumerate(chains)]
    usable = [
        p
        for p in ask.phrases
        if all(_possessive_ok(p, SLOTS[s], chain, phrases[s]) and _placed(p, SLOTS[s], said[s]) for s, chain in enumerate(chains))
    ]
    held = {p for p in usable if p in ask.reads and holds(lexicon.domain, chains[0], ask.reads[p])}
    if not _answerable(ask):
        usable = [p for p in usable if p not in held]  # the lookup would be redundant and the rest needs it
    if not usable:
        return None
    phrase = rng.choice(usable)
    return Part(ask, tuple(chains), values, phrase, tuple(phrases), answered=phrase in held)


def _placed(phrase: str, slot: str, said: str) -> bool:
    """A long noun phrase only at the end of the request, where a reader does not lose the thread."""
    return len(said.split()) <= SHORT or re.search(rf"<{slot}>[.?!]?$", phrase) is not None


def _possessive_ok(phrase: str, slot: str, chain: Sequence[Noun], templates: Sequence[str]) -> bool:
    """``<x's>`` needs a noun with a possessive form (an anchor's "Taylor Swift's", not "the artist of 'X''s")."""
    return f"<{slot}'s>" not in phrase or (bool(chain[-1].possessive) and "'s" not in templates[-1])


def compose(lexicon: Lexicon, rng: random.Random, names: Mapping[str, Sequence[str]], shape: str) -> Composed | None:
    """A request of ``shape``: ``single`` (an ask on a named anchor or none, one call), ``chain`` (an ask on a noun
    up to one derivation deep), ``combine`` (an ask of two entities), ``two_parts`` (two independent asks)."""
    if shape == "two_parts":
        first = [a for a in lexicon.asks if len(a.slots) <= 1]
        a = rng.choice(first)
        others = [o for o in first if o is not a]
        b = rng.choices(others, weights=[SAME_TOPIC_WEIGHT if o.topic == a.topic else 1 for o in others])[0]
        if a.writes and b.writes or {c.function for c in a.calls} & {c.function for c in b.calls}:
            return None
        if a.writes:  # reads first: a write never goes stale before a later read
            a, b = b, a
        parts = [compose_part(lexicon, rng, names, ask, 0) for ask in (a, b)]
        if any(p is None for p in parts):
            return None
        both = Composed(tuple(p for p in parts if p is not None), rng.choice(lexicon.joiners))
        if len({" ".join(p.phrase.lower().split()[:2]) for p in both.parts}) == 1:
            return None  # "Tell me about X, and tell me about Y": one would say it once
        if all(_bare(p) for p in both.parts):
            return None  # "Find X on TMDB, and search TMDB for Y" reads like a template, not an errand
        return both if reads_well(both) else None
    alone = [a for a in lexicon.asks if a.alone]
    if shape == "combine":
        asks = [a for a in alone if len(a.slots) == 2]
        depth = rng.choice((0, 0, 1))
    elif shape == "single":
        asks = [a for a in alone if len(a.slots) <= 1 and len(a.calls) <= 1]
        depth = 0
    else:
        asks = [a for a in alone if len(a.slots) == 1]
        depth = rng.choice((0, 1, 1))
    if not asks:
        return None
    part = compose_part(lexicon, rng, names, rng.choice(asks), depth)
    if part is None:
        return None
    composed = Composed((part,))
    if (composed.calls() == 1) != (shape == "single") or not reads_well(composed):
        return None  # a single is one call, a chain more; nobody types a paragraph
    return composed


def _bare(part: Part) -> bool:
    """A part that only finds a thing (one search, nothing asked of it)."""
    return not part.ask_calls() and sum(len(n.calls) for chain in part.chains for n in chain) <= 1


def _deep(part: Part) -> bool:
    """A part three calls deep (calls on its longest dataflow path)."""
    return program_labels(render(Composed((part,))))["depth"] >= 3


def program_labels(code: str) -> dict[str, int]:
    """``calls``, ``edges`` (arguments read from a response) and ``depth`` (calls on the longest dataflow path)."""
    program = read_program(code)
    made: dict[str, int] = {}
    depth: list[int] = []
    edges = 0
    for call in program.top_level_calls:
        sources = [made[name] for name in call.reads if name in made]
        edges += len(sources)
        depth.append(1 + max((depth[s] for s in sources), default=0))
        if call.target is not None:
            made[call.target] = len(depth) - 1
    return {"calls": len(depth), "edges": edges, "depth": max(depth, default=0)}


def doubled_label(text: str) -> bool:
    """Whether a name's type label is said again in ``text`` ("films like the film Heat", "the show X ... the show Y")."""
    return any(
        re.search(rf"\bthe {label} [A-Z0-9'\"]", text) and len(re.findall(rf"\b{label}s?\b(?! me\b)", text, re.IGNORECASE)) > 1
        for label in TYPE_LABELS
    )


def reads_well(composed: Composed) -> bool:
    """Short enough (:data:`MAX_WORDS`, :data:`MAX_WORDS_DEEP` for a deep part), one ranking word per part, the
    site named at most once ("on TMDB" twice is a template's echo) and no type label said twice."""
    text = utterance(composed)
    cap = MAX_WORDS_DEEP if any(_deep(p) for p in composed.parts) else MAX_WORDS
    if len(text.split()) > cap or len(re.findall(SITE_WORDS, text)) > 1 or doubled_label(text):
        return False
    return all(len(SUPERLATIVE.findall(utterance(Composed((part,))))) <= 1 for part in composed.parts)


def alternatives(composed: Composed) -> list[dict[tuple[int, int, int], int]]:
    """Every single-noun swap to an alternative reading the lexicon lists (each one program to run)."""
    found = []
    for p, part in enumerate(composed.parts):
        for s, chain in enumerate(part.chains):
            for i, noun in enumerate(chain):
                found += [{(p, s, i): k} for k in range(len(noun.alternatives))]
    return found


def literals(composed: Composed) -> list[Literal]:
    """The literals the program passes (each must be stated by the words)."""
    return [v for part in composed.parts for v in part.values.values()]


def limited(composed: Composed) -> bool:
    """Whether some ask passes a limit (then a run without it must differ)."""
    return any(part.ask.limit and part.ask.limit in part.values for part in composed.parts)
