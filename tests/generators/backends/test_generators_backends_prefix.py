"""Shared prefixes of a batch (what the vLLM backend prefills once before the batch)."""

from __future__ import annotations

from gqlbench.generators.backends.prefix import common_prefix_length, shared_prefixes


def test_common_prefix_length() -> None:
    assert common_prefix_length([1, 2, 3], [1, 2, 4]) == 2
    assert common_prefix_length([1, 2], [1, 2, 3]) == 2
    assert common_prefix_length([], [1]) == 0


def test_prompts_sharing_a_long_prefix_are_grouped_whatever_their_order() -> None:
    shots_a, shots_b = list(range(100, 140)), list(range(500, 530))
    prompts = [shots_a + [1, 2], shots_b + [7], shots_a + [3], [9] * 50, shots_b + [8, 8], shots_a + [4, 5, 6]]
    assert sorted(shared_prefixes(prompts, min_tokens=20)) == sorted([shots_a, shots_b])


def test_short_or_unshared_prefixes_are_not_warmed() -> None:
    prompts = [list(range(10)) + [1], list(range(10)) + [2], list(range(30))]
    assert shared_prefixes(prompts, min_tokens=20) == []  # 10 shared tokens are too few
    assert shared_prefixes([list(range(40))], min_tokens=20) == []  # nothing to share with


def test_a_prefix_never_covers_a_whole_prompt() -> None:
    """A prompt that is all prefix keeps its last token for its own prefill (the engine must compute something)."""
    base = list(range(30))
    (prefix,) = shared_prefixes([base, base + [1, 2], base], min_tokens=20)
    assert prefix == base[:-1]
