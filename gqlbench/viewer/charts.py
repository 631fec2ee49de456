"""Small bar charts as inline SVG (no library, no script): error kinds by domain, metrics by run."""

from __future__ import annotations

import math
from collections.abc import Mapping

from gqlbench.viewer.text import esc

__all__ = ["grouped_bars", "PALETTE"]

PALETTE = ("#2563eb", "#f97316", "#16a34a", "#9333ea", "#dc2626", "#0891b2", "#ca8a04", "#4b5563")


def _finite(value: object) -> bool:
    try:
        return not isinstance(value, bool) and math.isfinite(value)  # type: ignore[arg-type]
    except (TypeError, OverflowError):
        return False


def grouped_bars(data: Mapping[str, Mapping[str, float]], title: str, value_format: str = "{:g}") -> str:
    """Horizontal bars: one group per outer key, one bar per series (inner key), a legend of series.

    A value that is not a finite number (NaN, infinity, an int too large for a
    float: a hand-edited results file) gets no bar.
    """
    data = {group: {name: v for name, v in values.items() if _finite(v)} for group, values in data.items()}
    series = list(dict.fromkeys(s for group in data.values() for s in group))
    if not series:
        return ""
    top = max((v for group in data.values() for v in group.values()), default=0)
    top = top if top > 0 else 1
    label_w, bar_w, bar_h = 230, 360, 14
    rows = []
    y = 28
    for group, values in data.items():
        rows.append(
            f'<text x="4" y="{y + bar_h - 3}" font-size="12">{esc(group if len(group) <= 34 else group[:33] + "…")}<title>{esc(group)}</title></text>'
        )
        for i, name in enumerate(series):
            value = values.get(name)
            if value is None:
                continue
            w = max(0.0, bar_w * value / top)  # a negative count (a hand edit) draws no bar
            colour = PALETTE[i % len(PALETTE)]
            rows.append(
                f'<g class="bar"><title>{esc(group)} · {esc(name)}: {esc(value_format.format(value))}</title>'
                f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h - 2}" fill="{colour}"/>'
                f'<text x="{label_w + w + 4:.1f}" y="{y + bar_h - 3}" font-size="11">{esc(value_format.format(value))}</text></g>'
            )
            y += bar_h
        y += 8
    legend = "".join(
        f'<rect x="{label_w + i * 120}" y="{y + 4}" width="10" height="10" fill="{PALETTE[i % len(PALETTE)]}"/>'
        f'<text x="{label_w + i * 120 + 14}" y="{y + 13}" font-size="11">{esc(name)}</text>'
        for i, name in enumerate(series)
    )
    width = label_w + bar_w + 70 if len(series) < 4 else max(label_w + bar_w + 70, label_w + 120 * len(series))
    return (
        f'<svg class="chart" role="img" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y + 24}">'
        f'<title>{esc(title)}</title><text x="4" y="16" font-size="13" font-weight="600">{esc(title)}</text>'
        f"{''.join(rows)}{legend}</svg>"
    )
