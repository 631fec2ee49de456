"""Response objects: a field the type lacks or an index past the end is a one-line error naming the type and the closest."""

from __future__ import annotations

import pytest

from gqlbench.mocks.engine.responses import ResponseList
from gqlbench.mocks.errors import UnknownField


def test_reading_a_field_not_in_the_type_names_type_field_and_closest(tmdb) -> None:
    response = tmdb.namespace["GET_search_movie"](query="Titanic")
    with pytest.raises(UnknownField, match=r"type GET_search_movie_Root has no field 'result'; did you mean results"):
        _ = response.result
    with pytest.raises(UnknownField, match="no field 'name'"):
        response.results[0]["name"]


def test_index_access_and_clear_out_of_range(tmdb) -> None:
    response = tmdb.namespace["GET_search_movie"](query="Titanic")
    assert response["results"][0]["title"] == response.results[0].title == "Titanic"
    assert isinstance(response.results[:1], ResponseList)
    with pytest.raises(IndexError, match=r"results has 1 items; index 5 is out of range"):
        response.results[5]
    with pytest.raises(UnknownField, match=r"is a list of 1 items, not an object"):
        _ = response.results.id
