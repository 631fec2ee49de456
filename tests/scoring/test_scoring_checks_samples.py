"""Sample-level checks of ``gqlbench domains check``: gold code against the library domain's catalog."""

from __future__ import annotations

import json
from pathlib import Path

from gqlbench.scoring.checks import check_domain, check_gold_code, check_gold_executes

GOOD = """response_obj = GET_search_books(q="Dune")
editions = GET_books__book_id__editions(book_id=response_obj.docs[0].book_id)
ids = [e.edition_id for e in editions.entries[:2]]
for edition in editions.entries:
    print(edition.publishers[0], edition.number_of_pages)
POST_loans(edition_id=ids[0])
DELETE_loans__loan_id_(loan_id=GET_me_loans().loans[0].loan_id)
"""


def benchmark(tmp_path: Path, *programs: str) -> Path:
    lines = [json.dumps({"domain": "library", "utterance": "u", "output": code}) for code in programs]
    folder = tmp_path / "library"  # the benchmark's name is its folder's
    folder.mkdir()
    (folder / "test.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def test_a_correct_program_has_no_problems(tmp_path: Path) -> None:
    assert check_gold_code("library", benchmark(tmp_path, GOOD)) == []


def test_each_kind_of_mistake_is_one_line_naming_sample_and_line(tmp_path: Path) -> None:
    data = benchmark(
        tmp_path,
        "r = GET_search_books(q='x'\n",
        "GET_search_book(q='x')",
        "GET_search_books(query='x')",
        "GET_books__book_id_()",
        "r = GET_search_books(q='x')\nGET_authors__author_id_(author_id=r.docs[0].author[0].author_id)",
        "r = GET_search_books(q='x')\nprint(r.docs.title)",
        "r = GET_search_books(q='x')\nprint([d.rating for d in r.docs])",
        "r = GET_search_books(q='x')\nfor d in r.docs:\n    print(d.authors[0].born)",
        "r = DELETE_loans__loan_id_(loan_id='l1')\nprint(r.status)",
    )
    problems = check_gold_code("library", data)
    expected = [
        "sample test/0 (library): line 1: gold code does not parse",
        "sample test/1 (library): line 1: calls GET_search_book, which the domain does not have; did you mean GET_search_books?",
        "sample test/2 (library): line 1: GET_search_books has no parameter 'query'",
        "sample test/2 (library): line 1: GET_search_books is called without its required parameter(s) q",
        "sample test/3 (library): line 1: GET_books__book_id_ is called without its required parameter(s) book_id",
        "sample test/4 (library): line 2: r.docs[0].author: type GET_search_books_DocsEntry has no field 'author'; did you mean authors?",
        "sample test/5 (library): line 2: reads .title of r.docs, which is a list ([GET_search_books_DocsEntry]); "
        "index or loop over it first",
        "sample test/6 (library): line 2: d.rating: type GET_search_books_DocsEntry has no field 'rating'",
        "sample test/7 (library): line 3: d.authors[0].born: type GET_search_books_AuthorsEntry has no field 'born'",
        "sample test/8 (library): line 2: reads .status of r, but DELETE_loans__loan_id_ has no response schema",
    ]
    assert len(problems) == len(expected), problems
    for problem, start in zip(problems, expected, strict=True):
        assert str(problem).startswith(start), (problem, start)
        assert problem.subject == start.split()[1]  # the sample id, for the errata


def test_check_domain_defaults_to_the_domains_own_samples() -> None:
    assert check_domain("library") == []


def test_gold_code_must_run_on_the_mocks(tmp_path: Path) -> None:
    data = benchmark(
        tmp_path,
        GOOD,
        "import os\nGET_me_loans()",
        "r = GET_me_loans()\nprint(r.loans[10**6].loan_id)",
    )
    problems = check_gold_executes("library", data)
    assert len(problems) == 2, problems
    assert str(problems[0]).startswith("sample test/1 (library): line 1: gold code fails on the mocks (seed 0) with refused")
    assert str(problems[1]).startswith("sample test/2 (library): line 2: gold code fails on the mocks (seed 0) with index")
