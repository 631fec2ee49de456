"""Shared prompt prefixes of a batch, so an engine with a prefix cache computes each one once.

Few-shot prompts of one domain with one fixed example set (``--shot-rule
fixed``, the default) start with the same thousands of tokens. vLLM's prefix cache
reuses the key/value blocks of a prefix only once some request has computed
them; prompts submitted together can all start computing it at once. Prefilling
each shared prefix alone first (one token generated, then discarded) makes
every prompt of the batch find it cached. The prompts themselves are not
changed.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["MIN_SHARED_TOKENS", "common_prefix_length", "shared_prefixes"]

MIN_SHARED_TOKENS = 512  # below this a warm-up step costs about what it saves


def common_prefix_length(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens ``a`` and ``b`` have in common."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def shared_prefixes(prompts: Sequence[Sequence[int]], min_tokens: int = MIN_SHARED_TOKENS) -> list[list[int]]:
    """The prefixes of at least ``min_tokens`` tokens that two or more ``prompts`` start with, one per group.

    Prompts are grouped by sorting them (prompts sharing a prefix become
    neighbours) and cutting where a neighbour shares fewer than ``min_tokens``
    tokens with the group; a group's prefix is what all its prompts share.
    A prefix never covers a whole prompt: its last token is left to the prompt's own prefill.
    """
    order = sorted(range(len(prompts)), key=lambda i: list(prompts[i]))
    groups: list[tuple[list[int], int]] = []  # (member prompts, length of what they all share)
    for index in order:
        if groups:
            members, length = groups[-1]
            shared = min(length, common_prefix_length(prompts[members[0]], prompts[index]))
            if shared >= min_tokens:
                groups[-1] = ([*members, index], shared)
                continue
        groups.append(([index], len(prompts[index])))
    prefixes = []
    for members, length in groups:
        length = min(length, *(len(prompts[i]) - 1 for i in members))
        if len(members) > 1 and length >= min_tokens:
            prefixes.append(list(prompts[members[0]][:length]))
    return prefixes
