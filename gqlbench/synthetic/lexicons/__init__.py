"""Hand-written lexicons of how people name things and ask for them, one per bundled domain (data, no logic).

A domain without one is phrased generically from its graph (:mod:`..utterances`).
"""

from __future__ import annotations

from gqlbench.synthetic.intents import Lexicon
from gqlbench.synthetic.lexicons.spotify import LEXICON as SPOTIFY
from gqlbench.synthetic.lexicons.tmdb import LEXICON as TMDB

__all__ = ["LEXICONS", "lexicon_for"]

LEXICONS: dict[str, Lexicon] = {lexicon.domain: lexicon for lexicon in (SPOTIFY, TMDB)}


def lexicon_for(domain: str) -> Lexicon | None:
    """The domain's lexicon, or None (an imported domain)."""
    return LEXICONS.get(domain)
