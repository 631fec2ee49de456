"""Escaping, highlighting and diffs of text a model wrote."""

from __future__ import annotations

from gqlbench.viewer.text import esc, highlight_line, side_by_side


def test_markup_control_characters_and_lone_surrogates_are_neutralised() -> None:
    out = esc('<script>\x00\x1b[31m\ud800 & "q"')
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "\\x00" in out and "\\x1b" in out and "\x1b" not in out
    assert "\ufffd" in out and "\ud800" not in out
    out.encode("utf-8")  # would raise on a lone surrogate
    assert "&quot;q&quot;" in out


def test_newlines_and_tabs_are_kept() -> None:
    assert esc("a\n\tb") == "a\n\tb"


def test_highlighting_marks_tokens_and_escapes_inside_them() -> None:
    html = highlight_line("x = GET_search(q='<b>', n=3)  # note")
    assert '<span class="tok-api">GET_search</span>' in html
    assert '<span class="tok-string">&#x27;&lt;b&gt;&#x27;</span>' in html
    assert '<span class="tok-number">3</span>' in html
    assert '<span class="tok-comment"># note</span>' in html


def test_side_by_side_marks_changed_inserted_and_deleted_lines() -> None:
    table = side_by_side("a = 1\nb = 2\nc = 3\n", "a = 1\nb = 5\nc = 3\nd = 4\n")
    assert table.count('<tr class="same">') == 2
    assert table.count('<tr class="chg">') == 1
    assert table.count('<tr class="ins">') == 1
    only_left = side_by_side("a = 1\n", "")
    assert only_left.count('<tr class="del">') == 1 and 'class="code blank"' in only_left
