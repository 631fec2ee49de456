"""The human-written samples that generation learns edges from and must never copy."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

from gqlbench.dataset import load_samples
from gqlbench.records import Sample

__all__ = ["HUMAN_BENCHMARKS", "human_samples", "human_utterances", "normalize"]

HUMAN_BENCHMARKS = ("graphqlrestbench", "library")
"""The bundled datasets written by people (every split)."""


def _folders() -> list[Path]:
    root = Path(str(resources.files("gqlbench.data")))
    return [root / name for name in HUMAN_BENCHMARKS if (root / name).is_dir()]


@cache
def _all(splits: tuple[str, ...] | None) -> tuple[Sample, ...]:
    return tuple(s for folder in _folders() for s in load_samples(folder, splits))


def human_samples(domain: str, splits: tuple[str, ...] | None = None) -> list[Sample]:
    """The human samples of ``domain`` in ``splits`` (default: every split present)."""
    return [s for s in _all(splits) if s.domain == domain]


def human_utterances() -> frozenset[str]:
    """Every human utterance of every split and domain, normalized (case and spaces) for comparison."""
    return frozenset(normalize(s.utterance) for s in _all(None))


def normalize(utterance: str) -> str:
    """An utterance compared as a reader would: case and runs of spaces do not matter."""
    return " ".join(utterance.lower().split())
