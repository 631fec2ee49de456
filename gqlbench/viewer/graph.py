"""A program's dataflow as an inline SVG: calls as boxes, edges labelled with the field path.

Layout is layered: a call sits one row below the deepest call it depends on,
and calls of a row are placed left to right in program order. Matched calls
and edges are green, missing ones (gold only) red and dashed, extra ones
(prediction only) orange and dashed; the status is also a class, so a test or a
stylesheet can count them.
"""

from __future__ import annotations

import re

from gqlbench.viewer.flow import Dataflow
from gqlbench.viewer.text import esc as escape

__all__ = ["dataflow_svg"]

ROW = 96  # vertical distance between rows
GAP = 28  # horizontal gap between boxes
BOX_H = 34
CHAR_W = 7.2
MAX_CHARS = 34
_UID = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
COLOURS = {"matched": "#2e7d32", "missing": "#c62828", "extra": "#ef6c00"}


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _layers(flow: Dataflow) -> dict[int, int]:
    layer: dict[int, int] = {}
    depends: dict[int, list[int]] = {}
    for edge in flow.edges:
        depends.setdefault(edge.target, []).append(edge.source)
    for node in flow.nodes:  # program order: producers come first
        layer[node.index] = 1 + max((layer.get(d, 0) for d in depends.get(node.index, [])), default=-1)
    return layer


def dataflow_svg(flow: Dataflow, title: str, uid: str) -> str:
    """The SVG of one program's dataflow; ``uid`` makes its marker ids unique in the page.

    ``uid`` goes into ``id="..."`` and ``url(#...)`` unescaped (an escaped id
    would not match its reference), so it must be a plain name: derive it with
    :func:`gqlbench.viewer.text.safe_id`, never from a sample id's text.
    """
    if not _UID.fullmatch(uid):
        raise ValueError(f"dataflow_svg: uid {uid!r} is not a plain name; derive it with safe_id()")
    if not flow.nodes:
        note = flow.note or "no API calls"
        return f'<svg class="dataflow empty" role="img" width="320" height="40"><title>{escape(title)}</title><text x="6" y="24">{escape(note)}</text></svg>'
    layer = _layers(flow)
    rows: dict[int, list[int]] = {}
    for node in flow.nodes:
        rows.setdefault(layer[node.index], []).append(node.index)
    by_index = {n.index: n for n in flow.nodes}
    width_of = {i: 20 + CHAR_W * len(_short(by_index[i].token, MAX_CHARS)) for i in by_index}
    row_widths = {r: sum(width_of[i] for i in members) + GAP * (len(members) - 1) for r, members in rows.items()}
    total_w = max(row_widths.values()) + 40
    centre: dict[int, tuple[float, float]] = {}
    for r, members in rows.items():
        x = (total_w - row_widths[r]) / 2
        for i in members:
            centre[i] = (x + width_of[i] / 2, 30 + r * ROW + BOX_H / 2)
            x += width_of[i] + GAP
    total_h = 30 + (len(rows) - 1) * ROW + BOX_H + 24
    parts = [
        f'<svg class="dataflow" role="img" xmlns="http://www.w3.org/2000/svg" width="{total_w:.0f}" height="{total_h:.0f}" viewBox="0 0 {total_w:.0f} {total_h:.0f}">',
        f"<title>{escape(title)}</title><defs>",
    ]
    for status, colour in COLOURS.items():
        parts.append(
            f'<marker id="{uid}-{status}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto">'
            f'<path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
        )
    parts.append("</defs>")
    for edge in flow.edges:
        (x1, y1), (x2, y2) = centre[edge.source], centre[edge.target]
        y1, y2 = y1 + BOX_H / 2, y2 - BOX_H / 2
        colour = COLOURS[edge.status]
        dash = "" if edge.status == "matched" else ' stroke-dasharray="6 4"'
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        parts.append(
            f'<g class="edge {edge.status}" data-source="{edge.source}" data-target="{edge.target}">'
            f"<title>{escape(edge.label)} ({edge.status})</title>"
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour}" stroke-width="2"{dash} marker-end="url(#{uid}-{edge.status})"/>'
            f'<text x="{mx + 4:.1f}" y="{my:.1f}" font-size="11" fill="#333">{escape(_short(edge.label, 48))}</text></g>'
        )
    for node in flow.nodes:
        cx, cy = centre[node.index]
        w = width_of[node.index]
        colour = COLOURS[node.status]
        dash = "" if node.status == "matched" else ' stroke-dasharray="5 3"'
        parts.append(
            f'<g class="node {node.status}" data-index="{node.index}"><title>{escape(node.text)} ({node.status})</title>'
            f'<rect x="{cx - w / 2:.1f}" y="{cy - BOX_H / 2:.1f}" width="{w:.1f}" height="{BOX_H}" rx="6" fill="#fff" stroke="{colour}" stroke-width="2"{dash}/>'
            f'<text x="{cx:.1f}" y="{cy + 4:.1f}" text-anchor="middle" font-size="12" font-family="monospace">{escape(_short(node.token, MAX_CHARS))}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)
