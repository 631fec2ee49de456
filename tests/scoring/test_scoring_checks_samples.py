"""Sample-level checks of ``gqlbench domains check``: gold code against the library domain's catalog."""

from __future__ import annotations

import json
from pathlib import Path

from gqlbench.metrics.calls import analyze
from gqlbench.metrics.errors import classify
from gqlbench.metrics.fields import load_catalog
from gqlbench.scoring.checks import check_domain, check_gold_code, check_gold_executes
from gqlbench.specs import load_specs

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
        "GET_books__book_id_('b1', 'b2')",
        "opts = {'q': 'x'}\nr = GET_search_books(**opts)\nprint(r['docs'][0]['titel'])",
        "r = GET_search_books(q='x')\nprint([d.authors for d in r.docs][0][0].born)",
    )
    problems = check_gold_code("library", data)
    expected = [
        "sample test/0 (library): line 1: gold code does not parse",
        "sample test/1 (library): line 1: calls GET_search_book, which the domain does not have; did you mean GET_search_books?",
        "sample test/2 (library): line 1: GET_search_books has no parameter 'query'",
        "sample test/2 (library): line 1: GET_search_books is called without its required parameter(s) q",
        "sample test/3 (library): line 1: GET_books__book_id_ is called without its required parameter(s) book_id",
        "sample test/4 (library): line 2: r.docs[0].author: type GET_search_books_DocsEntry has no field 'author'; closest: authors",
        "sample test/5 (library): line 2: r.docs.title: a list of GET_search_books_DocsEntry, not an object: index it first ([0].title)",
        "sample test/6 (library): line 2: d.rating: type GET_search_books_DocsEntry has no field 'rating'",
        "sample test/7 (library): line 3: d.authors[0].born: type GET_search_books_AuthorsEntry has no field 'born'",
        "sample test/8 (library): line 2: r.status: DELETE_loans__loan_id_ has no response schema",
        "sample test/9 (library): line 1: GET_books__book_id_ takes 1 parameter(s) but is called with 2 positional argument(s)",
        "sample test/10 (library): line 3: r['docs'][0]['titel']: type GET_search_books_DocsEntry has no field 'titel'; closest: title",
        "sample test/11 (library): line 2: [d.authors for d in r.docs][0][0].born: type GET_search_books_AuthorsEntry has no field 'born'",
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


def test_a_gold_program_and_a_prediction_with_the_same_mistake_get_the_same_diagnosis(tmp_path: Path) -> None:
    """One type walk (metrics.fields) serves ``domains check`` and the prediction's error records."""
    mistake = "r = GET_search_books(q='x')\nfound = [d for d in r.docs if d.title]\nprint(found[0].titel)\n"
    (problem,) = check_gold_code("library", benchmark(tmp_path, mistake))
    assert problem.subject == "test/0" and problem.where == "sample test/0 (library): line 3"
    functions = load_specs("library")
    gold = analyze("r = GET_search_books(q='x')\nprint(r.docs[0].title)\n", functions)
    (record,) = [e for e in classify(gold, analyze(mistake, functions), load_catalog("library", functions)) if e.kind == "invalid_field"]
    assert record.got == "found[0].titel" and record.detail is not None
    line, _, detail = record.detail.partition(": ")
    assert (line, problem.message) == ("line 3", f"{record.got}: {detail}")
    assert "has no field 'titel'; closest: title" in detail


def test_gold_code_the_metrics_cannot_analyze_is_a_problem(tmp_path: Path) -> None:
    """Python parses it, but the dataflow gives up (every prediction would be scored against nothing)."""
    deep = "r = GET_search_books(q=" + "+".join(["'a'"] * 500) + ")\n"
    (problem,) = check_gold_code("library", benchmark(tmp_path, deep))
    assert str(problem) == "sample test/0 (library): gold code cannot be analyzed: too deeply nested to analyze"
