"""Verified synthetic samples for any catalog domain (issues #23, #32).

A domain with a lexicon (:mod:`.lexicons`: spotify, tmdb) is phrased by
intent: :mod:`.intents` composes a program and its request from how people name
things and what they ask of them, and :mod:`.by_intent` keeps only requests with
one right program (alternative readings run, limits that matter, no repeated
call); :mod:`.response_fields` tells from the response SDL when the call that
found a thing already holds the field a request reads, so no lookup repeats it,
and :mod:`.patterns` counts what an independent reading flagged. Any other domain's dataflow graph (:mod:`.graph`) is walked on its mock
world by :mod:`.sampler` and phrased from method and path by :mod:`.utterances`.
Either way :mod:`.generate` keeps only samples whose gold runs to the end and
scores 1.0 against itself, at most three per program skeleton, counting the
others by reason.
"""

from gqlbench.synthetic.generate import Generation, generate_samples
from gqlbench.synthetic.graph import DataflowGraph, Edge, Endpoint, build_graph

__all__ = ["DataflowGraph", "Edge", "Endpoint", "Generation", "build_graph", "generate_samples"]
