"""Verified synthetic samples for any catalog domain (issue #23).

A domain's dataflow graph (:mod:`.graph`) says which response fields can feed
which parameters; the sampler (:mod:`.sampler`) walks it on the domain's mock
world, so every edge carries a value the world produced; utterances
(:mod:`.utterances`) are written from templates that state every literal; and
:mod:`.generate` keeps only samples whose gold runs to the end and scores 1.0
against itself, counting the others by reason.
"""

from gqlbench.synthetic.generate import Generation, generate_samples
from gqlbench.synthetic.graph import DataflowGraph, Edge, Endpoint, build_graph

__all__ = ["DataflowGraph", "Edge", "Endpoint", "Generation", "build_graph", "generate_samples"]
