"""Text at the edges: located UTF-8 errors, byte-order marks, lone surrogates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.jsonl import read_lines, utf8_data, utf8_text


def test_lines_skip_a_leading_byte_order_mark_only(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"\xef\xbb\xbf{}\r\n\n\xef\xbb\xbf[]\n")
    assert list(read_lines(path)) == [(1, "{}\r\n"), (2, "\n"), (3, "\ufeff[]\n")]


def test_invalid_utf8_names_line_and_byte_offsets(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"\xef\xbb\xbf{}\n" + b'{"a": "x\xe2\x82"}\n')  # a cut three-byte character
    with pytest.raises(GqlbenchError) as info:
        list(read_lines(path))
    assert str(info.value) == (
        f"{path}:2: not valid UTF-8: byte 0xe2 at offset 14 of the file (byte 9 of the line); save the file as UTF-8"
    )


def test_lone_surrogates_become_replacement_characters_and_pairs_join() -> None:
    assert utf8_text("a\ud800b\udfff") == "a\ufffdb\ufffd"
    assert utf8_text("\ud83d\ude00") == "\U0001f600"
    text = "plain \u00e9\U0001f600"
    assert utf8_text(text) is text
    data = utf8_data({"k\ud800": ["\udc00", 1, None, {"x": "\ud800y"}]})
    assert data == {"k\ufffd": ["\ufffd", 1, None, {"x": "\ufffdy"}]}
    json.dumps(data, ensure_ascii=False).encode("utf-8")  # encodable now
