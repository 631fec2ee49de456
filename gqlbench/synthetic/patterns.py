"""The patterns the independent readings of issue #32 (rounds 1 to 3) found, in a samples file.

Each is a way a generated request read badly to a reviewer; the generator
(:mod:`.intents`) now avoids each by a general rule, and
``scripts/synthetic_patterns.py`` counts them in a samples file for the
datasheet (before and after):

- ``redundant_lookup``: a call looks up a field (as its lexicon says: an ask's
  or a noun's ``reads``) of a thing whose earlier response's object already has
  that field by the response SDL, and the request's words ask for that field;
- ``mechanical_ordinal``: "the first movie/show/..." of a list (not "of"/"in" a
  collection or album);
- ``vague_list``: "everyone watching", "discover";
- ``on_site`` / ``site_twice``: "on TMDB" (or Spotify) said / the site named twice;
- ``stacked_superlatives``: a one-part request with two ranking words;
- ``deep_long``: three calls deep and over the deep word cap;
- ``latest_subject``: ``GET_movie_latest``'s response read by a later call;
- ``bare_pair``: a two-part request of two bare searches;

round 2:

- ``library_by_search``: a song, album or artist taken out of the user's
  library (unsave, unlike, unfollow) that is a catalog search's top hit: it may
  be another item of that name, one not saved;
- ``create_or_play``: "start a playlist called X" (create one, or play one?);
- ``list_order``: "the first artist I follow", "my following list", "popularity
  score" (array order and API field names, not what a user says);
- ``untyped_search``: a bare TMDB search whose words do not say what it looks
  for ("Search TMDB for Friends.": the show or a movie?).

Writes that change nothing in the mock world need the sandbox to find:
``scripts/synthetic_idle_writes.py`` counts them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from gqlbench.synthetic.intents import MAX_WORDS_DEEP, SITE_WORDS, SUPERLATIVE, Lexicon, doubled_label
from gqlbench.synthetic.lexicons import lexicon_for
from gqlbench.synthetic.response_fields import has_field, source_of

__all__ = ["PATTERNS", "count", "patterns"]

PATTERNS = (
    "redundant_lookup",
    "mechanical_ordinal",
    "vague_list",
    "on_site",
    "site_twice",
    "stacked_superlatives",
    "deep_long",
    "latest_subject",
    "bare_pair",
    "library_by_search",
    "create_or_play",
    "list_order",
    "untyped_search",
    "saved_recency",
    "weekly_popular",
    "doubled_label",
)
_LIBRARY_WRITE = re.compile(r"^DELETE_me_(tracks|albums|following)$")
_HIT = re.compile(r"^(response_obj\d*)\.\w+\.items\[0\]\.id$")
_CREATE_OR_PLAY = re.compile(r"\bstart a playlist\b", re.IGNORECASE)
_LIST_ORDER = re.compile(r"\bfirst artist I follow\b|\bfollowing list\b|\bpopularity score\b", re.IGNORECASE)
_TYPED_SEARCH = {
    "GET_search_movie": r"\b(movie|film)\b",
    "GET_search_tv": r"\b(show|series)\b",
    "GET_search_company": r"\b(studio|company)\b",
    "GET_search_collection": r"\bcollection\b",
}
_SAVED_RECENCY = re.compile(
    r"\b(?:most recently|last|latest|newest)\b[^.?!]*\b(?:saved|liked)\b|\b(?:saved|liked)\b[^.?!]*\bmost recently\b", re.IGNORECASE
)
_WEEKLY_POPULAR = re.compile(r"\bthis week'?s? most popular\b|\bmost popular\b[^.?!]*\bthis week\b", re.IGNORECASE)
_ORDINAL = re.compile(r"\bthe first (movie|film|show|series)\b(?! (of|in)\b)", re.IGNORECASE)
_VAGUE = re.compile(r"\beveryone(?:'s| is)? watching\b|\bdiscover\b", re.IGNORECASE)
_CALL = re.compile(r"^(?:(\w+) = )?(\w+)\((.*)\)$")
_ARG = re.compile(r"\w+=((?:response_obj\d*|\[\w+ for \w+ in response_obj)[^,]*?\.id)(?=,|$)")


def _said(template: str) -> re.Pattern[str]:
    """A phrase template as a pattern over the words (``<x>`` any words, a literal one word)."""
    parts = re.split(r"(<[^>]+>)", template.rstrip(".?!"))
    body = "".join(".+" if p.startswith("<x") or p.startswith("<y") else r"\S+" if p.startswith("<") else re.escape(p) for p in parts)
    return re.compile(body, re.IGNORECASE)


def _readers(lexicon: Lexicon) -> dict[str, list[tuple[re.Pattern[str], str]]]:
    """Lookup function -> (words that ask for a field, the field) from the lexicon's asks and nouns."""
    found: dict[str, list[tuple[re.Pattern[str], str]]] = {}
    for ask in lexicon.asks:
        for phrase, read in ask.reads.items():
            found.setdefault(ask.calls[0].function, []).append((_said(phrase), read))
    for noun in lexicon.nouns:
        if noun.reads:
            for phrase in noun.phrases:
                found.setdefault(noun.calls[0].function, []).append((_said(phrase), noun.reads))
    return found


def patterns(row: Mapping[str, Any], readers: Mapping[str, list[tuple[re.Pattern[str], str]]]) -> set[str]:
    """The patterns one sample shows."""
    text, domain = row["utterance"], row["domain"]
    shape = row.get("synthetic", {}).get("shape")
    functions: dict[str, str] = {}
    calls = []
    for line in row["output"].splitlines():
        match = _CALL.match(line.strip())
        if match:
            calls.append(match.groups())
            if match[1]:
                functions[match[1]] = match[2]
    found: set[str] = set()
    for _, function, args in calls:
        for expression in _ARG.findall(args):
            source = source_of(expression)
            if source is None or source[0] not in functions:
                continue
            if functions[source[0]] == "GET_movie_latest":
                found.add("latest_subject")
            for words, read in readers.get(function, ()):
                if words.search(text) and has_field(domain, functions[source[0]], source[1], read):
                    found.add("redundant_lookup")
    if _ORDINAL.search(text):
        found.add("mechanical_ordinal")
    if _VAGUE.search(text):
        found.add("vague_list")
    if re.search(rf"\bon ({SITE_WORDS})", text):
        found.add("on_site")
    if len(re.findall(SITE_WORDS, text)) > 1:
        found.add("site_twice")
    if shape != "two_parts" and len(SUPERLATIVE.findall(text)) > 1:
        found.add("stacked_superlatives")
    if row.get("synthetic", {}).get("depth", 0) >= 3 and len(text.split()) > MAX_WORDS_DEEP:
        found.add("deep_long")
    if shape == "two_parts" and len(calls) == 2 and all(f.startswith("GET_search") and "response_obj" not in a for _, f, a in calls):
        found.add("bare_pair")
    for _, function, args in calls:
        hits = [m[1] for m in map(_HIT.match, _ARG.findall(args)) if m]  # the search's top hit itself, not its artist
        if _LIBRARY_WRITE.match(function) and any(functions.get(h, "").startswith("GET_search") for h in hits):
            found.add("library_by_search")
    if _CREATE_OR_PLAY.search(text):
        found.add("create_or_play")
    if _LIST_ORDER.search(text):
        found.add("list_order")
    for var, function, _ in calls:
        typed = _TYPED_SEARCH.get(function)
        if typed and var is None and not re.search(typed, text, re.IGNORECASE):  # a search that is the answer itself
            found.add("untyped_search")
    if _SAVED_RECENCY.search(text):
        found.add("saved_recency")
    if _WEEKLY_POPULAR.search(text):
        found.add("weekly_popular")
    if doubled_label(text):
        found.add("doubled_label")
    return found


def count(rows: Iterable[Mapping[str, Any]]) -> Counter[str]:
    """How many samples show each pattern (every pattern listed, zero included)."""
    readers: dict[str, dict[str, list[tuple[re.Pattern[str], str]]]] = {}
    counts: Counter[str] = Counter(dict.fromkeys(PATTERNS, 0))
    for row in rows:
        domain = row["domain"]
        if domain not in readers:
            lexicon = lexicon_for(domain)
            readers[domain] = _readers(lexicon) if lexicon is not None else {}
        counts.update(patterns(row, readers[domain]))
    return counts
