"""Code extraction from raw model answers (definition 9)."""

from __future__ import annotations

from gqlbench.metrics import extract_code


def test_text_without_fences_is_taken_whole() -> None:
    text = "r = GET_me()\nPUT_x(id=r.id)\n"
    assert extract_code(text) == text


def test_fenced_blocks_are_joined_in_order_and_prose_dropped() -> None:
    text = (
        "First find the movie:\n```python\nr = GET_search_movie(query='Up')\n```\n"
        "Then its credits:\n```\nGET_movie__movie_id__credits(movie_id=r.results[0].id)\n```\nDone."
    )
    assert extract_code(text) == ("r = GET_search_movie(query='Up')\nGET_movie__movie_id__credits(movie_id=r.results[0].id)\n")


def test_indented_block_is_dedented() -> None:
    text = "Answer:\n    ```python\n    GET_me()\n    ```\n"
    assert extract_code(text) == "GET_me()\n"


def test_block_cut_off_by_the_token_budget_runs_to_the_end() -> None:
    text = "```python\nr = GET_me()\nPUT_x(id=r.id"
    assert extract_code(text) == "r = GET_me()\nPUT_x(id=r.id\n"


def test_empty_answer_stays_empty() -> None:
    assert extract_code("") == ""
