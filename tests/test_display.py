"""Program output is shown, never obeyed: control characters are escaped, lone surrogates replaced."""

from __future__ import annotations

import pytest

from gqlbench.display import escape_controls


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b]0;title\x07…", "\\x1b]0;title\\x07…"),  # OSC: set the terminal title
        ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),  # CSI: clear the screen
        ("\x9b31m\x9d0;t\x9c", "\\x9b31m\\x9d0;t\\x9c"),  # 8-bit CSI, OSC, ST
        ("over\rwrite\x08\x7f", "over\\x0dwrite\\x08\\x7f"),
        ("nul\x00bell\x07", "nul\\x00bell\\x07"),
        ("abc\u202edcba", "abc\\u202edcba"),  # right-to-left override
        ("lone \ud800 surrogate", "lone \ufffd surrogate"),
        ("tab\tand\nnewline, é, 日本, 🎬", "tab\tand\nnewline, é, 日本, 🎬"),  # ordinary text untouched
    ],
)
def test_escape_controls(text: str, shown: str) -> None:
    assert escape_controls(text) == shown
    assert escape_controls(shown) == shown  # escaping is idempotent: the result has nothing left to escape
    shown.encode("utf-8")  # and it can always be written


def test_report_md_escapes_what_input_files_put_in_it() -> None:
    from gqlbench.records import ResultsDocument
    from gqlbench.results.files import render_report

    document = ResultsDocument.model_validate(
        {"metrics": {}, "missing": ["a\x1b]0;title\x07"], "skipped": [{"id": "b\ud800", "reason": "r\x9b2J"}]}
    )
    report = render_report(document)
    assert "`a\\x1b]0;title\\x07`" in report and "`b\ufffd`: r\\x9b2J" in report
    assert escape_controls(report) == report
