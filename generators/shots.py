"""Choosing few-shot examples: deterministic, leak-free, only sound gold.

Examples always come from the ``train`` split of the evaluated sample's
domain, so they can never reveal an answer of the split being evaluated
(evaluating ``train`` itself therefore requires ``--shots 0``; ``--split all``
evaluates the train samples outside the fixed set, see :func:`shot_set`). Samples listed
in the errata (invalid gold, and gold that passes arguments positionally) are
never shown as examples: a worked answer must be one the model should copy.

Two rules, both independent of run order and machine:

``fixed`` (default; ``diverse`` is its earlier name, still accepted)
    one fixed representative set per domain, as the paper has it ("for each
    domain, we carefully select representative few-shot examples from the
    corresponding train splits"; which samples it chose is not stated). Ours
    is chosen by a rule instead of by hand: greedily add the sample whose
    gold code uses the most functions not yet covered, ties broken by line
    index. Every sample of a domain gets the same examples, so the prompt
    prefix is shared (prefix caching in vLLM) and a reader can inspect the
    one set used.
``similar``
    per-sample retrieval: the ``k`` train samples whose utterances share the
    most words with the evaluated utterance (Jaccard overlap of lower-cased
    word sets), ties broken by line index. Not the paper's setting.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from gqlbench.dataset import Errata
from gqlbench.errors import GqlbenchError
from gqlbench.generators.prompts import gold_calls
from gqlbench.records import Sample

__all__ = [
    "SHOT_SPLIT",
    "SHOT_RULES",
    "SHOT_RULE_ALIASES",
    "DEFAULT_SHOT_RULE",
    "DEFAULT_SHOTS",
    "shot_rule_name",
    "shot_pool",
    "shot_set",
    "select_shots",
    "shows_function",
    "utterance_overlap",
]

SHOT_SPLIT = "train"
SHOT_RULES: tuple[str, ...] = ("fixed", "similar")
# Earlier names that run folders may record; each picks exactly what its canonical rule picks.
SHOT_RULE_ALIASES: dict[str, str] = {"diverse": "fixed"}
DEFAULT_SHOT_RULE = "fixed"
DEFAULT_SHOTS = 3

_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def utterance_overlap(a: str, b: str) -> float:
    """Jaccard overlap of the two utterances' lower-cased word sets."""
    wa, wb = _words(a), _words(b)
    return len(wa & wb) / len(wa | wb) if wa | wb else 0.0


def shot_pool(train: Sequence[Sample], errata: Errata) -> list[Sample]:
    """Train samples fit to be shown as examples.

    Gold programs the errata list as defective (invalid, positional arguments,
    or failing to execute for a reason in the gold code) are left out: a
    few-shot example teaches by being copied.
    """
    unfit = set(errata.invalid_gold) | set(errata.positional_gold_args) | set(errata.other.get("non_executable_gold", {}))
    pool = []
    for sample in train:
        if sample.split != SHOT_SPLIT:
            raise GqlbenchError(f"sample {sample.id} is not a {SHOT_SPLIT} sample; few-shot examples come from {SHOT_SPLIT} only")
        if sample.id in unfit:
            continue
        try:
            gold_calls(sample.gold_code)
        except SyntaxError:  # invalid gold the errata do not list yet: still never a shot
            continue
        pool.append(sample)
    return pool


def shot_rule_name(rule: str) -> str:
    """The canonical name of ``rule`` (an alias such as ``diverse`` gives ``fixed``); an unknown rule is an error."""
    canonical = SHOT_RULE_ALIASES.get(rule, rule)
    if canonical not in SHOT_RULES:
        raise GqlbenchError(f"unknown shot rule {rule!r}; choose one of {', '.join(SHOT_RULES)}")
    return canonical


def _fixed(candidates: list[Sample], k: int) -> list[Sample]:
    chosen: list[Sample] = []
    covered: set[str] = set()
    remaining = list(candidates)
    while remaining and len(chosen) < k:
        best = max(remaining, key=lambda s: (len({c.function for c in gold_calls(s.gold_code)} - covered), -s.index))
        chosen.append(best)
        covered |= {c.function for c in gold_calls(best.gold_code)}
        remaining.remove(best)
    return chosen


def shot_set(pool: Sequence[Sample], k: int = DEFAULT_SHOTS) -> list[Sample]:
    """The ``fixed`` examples of every domain of ``pool``, ``k`` each (domains in order of first appearance).

    The rule is greedy, so the set for ``k`` starts with the set for any
    smaller ``k``: a sample outside the set for 3 is shown by no run with 3
    shots or fewer. ``--split all`` leaves this set out of what it evaluates.
    """
    domains = dict.fromkeys(s.domain for s in pool)
    ordered = sorted((s for s in pool if s.split == SHOT_SPLIT), key=lambda s: s.index)
    return [shot for domain in domains for shot in _fixed([s for s in ordered if s.domain == domain], k)]


def shows_function(example: Sample, name: str) -> bool:
    """Whether ``example`` as a prompt shows ``name``: in its signatures, its gold calls, or a ``Query`` field of its schema."""
    if name in example.function_names or any(c.function == name for c in gold_calls(example.gold_code)):
        return True
    return re.search(rf"^\s*{re.escape(name)}\s*[(:]", example.graphql_schema, re.MULTILINE) is not None


def select_shots(
    sample: Sample, pool: Sequence[Sample], k: int = DEFAULT_SHOTS, rule: str = DEFAULT_SHOT_RULE, *, avoid: Collection[str] = ()
) -> list[Sample]:
    """The ``k`` examples for ``sample`` from ``pool`` (see :func:`shot_pool`), best first.

    ``avoid``: functions no example may show (:func:`shows_function`); an
    impossible relevance case passes the function it lacks, so no example
    calls or offers what the case removed.
    """
    if k <= 0:
        return []
    rule = shot_rule_name(rule)
    if sample.split == SHOT_SPLIT and rule != "fixed":
        raise GqlbenchError(f"sample {sample.id}: few-shot examples come from the {SHOT_SPLIT} split, so evaluating it needs --shots 0")
    candidates = sorted((s for s in pool if s.domain == sample.domain and s.split == SHOT_SPLIT), key=lambda s: s.index)
    candidates = [s for s in candidates if not any(shows_function(s, name) for name in avoid)]
    if rule == "fixed":
        chosen = _fixed(candidates, k)
        if any(s.id == sample.id for s in chosen):  # a train sample outside the fixed set is fair to evaluate (--split all)
            raise GqlbenchError(
                f"sample {sample.id} is one of its domain's {k} fixed few-shot examples, so it cannot be evaluated with them; "
                "use --split all (which leaves the examples out) or --shots 0"
            )
        return chosen
    ranked = sorted(candidates, key=lambda s: (-utterance_overlap(sample.utterance, s.utterance), s.index))
    return ranked[:k]
