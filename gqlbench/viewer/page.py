"""The report file: every run's pages (and a comparison when there are several) in one offline HTML file.

Pages are sections of one document shown by the URL fragment (``#r0``,
``#r0/test/14``, ``#compare``; ``#test/14`` means the first run's sample), so
every sample has a link and the file works from ``file://`` with no server.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from gqlbench.errors import GqlbenchError
from gqlbench.run.files import open_run_file
from gqlbench.viewer.assets import CSS, JS
from gqlbench.viewer.compare import comparison_pages
from gqlbench.viewer.data import RunView
from gqlbench.viewer.runpage import run_overview, sample_list
from gqlbench.viewer.sample import sample_page
from gqlbench.viewer.text import esc

__all__ = ["CSP", "HTML_FILE", "distinct_labels", "render_report", "write_report", "write_run_html"]

HTML_FILE = "report.html"  # in a run folder, beside report.md


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


# Everything in a run folder is untrusted and is escaped into the page; the policy is the second wall should
# an escape be missed: only the report's own <script> and <style> (by their hashes) run and apply, never an
# inline event handler, a style attribute, a script from data, or anything fetched.
CSP = f"default-src 'none'; script-src {_digest(JS)}; style-src {_digest(CSS)}; img-src data:; base-uri 'none'; form-action 'none'"


def _run_block(run: RunView, index: int) -> str:
    pages = [run_overview(run, index)] + [sample_page(index, r, run.samples.get(r.id)) for r in run.results]
    return f'<div class="run" id="run{index}">{sample_list(run, index)}<main>{"".join(pages)}</main></div>'


def distinct_labels(runs: Sequence[RunView]) -> list[RunView]:
    """Runs whose labels differ (two folders named ``run``): the parent folder, then a number, tells them apart."""
    labels = [run.label for run in runs]
    if len(set(labels)) < len(labels):
        labels = [f"{run.path.parent.name}/{run.path.name}" if run.label == run.path.name else run.label for run in runs]
    seen: dict[str, int] = {}
    unique = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        unique.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return [replace(run, label=label) for run, label in zip(runs, unique, strict=True)]


def render_report(runs: Sequence[RunView], title: str = "gqlbench report") -> str:
    """The whole HTML document for ``runs``."""
    if not runs:
        raise GqlbenchError("no run to show; pass at least one run folder")
    runs = distinct_labels(runs)
    nav = [f'<a href="#r{i}" data-run="run{i}">{esc(run.label)}</a>' for i, run in enumerate(runs)]
    blocks = [_run_block(run, i) for i, run in enumerate(runs)]
    if len(runs) > 1:
        nav.append('<a href="#compare" data-run="runcompare">compare</a>')
        blocks.append(f'<div class="run" id="runcompare"><main>{comparison_pages(runs)}</main></div>')
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{esc(title)}</title><style>{CSS}</style></head><body>'
        f'<header class="top"><b>gqlbench</b>{"".join(nav)}<span class="hint">j/k: next/previous sample</span></header>'
        f"{''.join(blocks)}<script>{JS}</script></body></html>"
    )


def write_report(runs: Sequence[RunView], out: Path, title: str = "gqlbench report") -> int:
    """Write the report to ``out``; returns its size in bytes."""
    data = render_report(runs, title).encode("utf-8")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with open_run_file(out, "wb") as fh:  # never through a link (a run folder's report.html may be one)
            fh.write(data)
    except OSError as exc:
        raise GqlbenchError(f"{out}: could not write the report ({exc.strerror or exc}); choose another --out") from None
    return len(data)


def write_run_html(run_dir: Path) -> Path:
    """``report.html`` in a run folder (``gqlbench run --html``); returns its path."""
    from gqlbench.viewer.data import load_run_view

    out = run_dir / HTML_FILE
    write_report([load_run_view(run_dir)], out, title=f"gqlbench: {run_dir.name}")
    return out
