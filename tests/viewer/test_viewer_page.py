"""The HTML report: self-contained, escaped, every piece of a sample present."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from gqlbench.viewer.data import load_run_view, shared_ids
from gqlbench.viewer.page import render_report, write_report


class Collect(HTMLParser):
    """Ids, tags with a src/href, and every script's text."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.links: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.append(values["id"] or "")
        for key in ("src", "href"):
            if values.get(key) and tag not in ("a",):
                self.links.append(f"{tag} {key}={values[key]}")
        if tag == "a" and values.get("href") and not (values["href"] or "").startswith("#"):
            self.links.append(f"a href={values['href']}")
        self.scripts += tag == "script"


def parse(html: str) -> Collect:
    collector = Collect()
    collector.feed(html)
    return collector


def section(html: str, page_id: str) -> str:
    start = html.index(f'<section class="page sample" id="{page_id}">')
    return html[start : html.index("</section>", start)]


def test_one_run_is_one_self_contained_file(example_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    size = write_report([load_run_view(example_run)], out)
    html = out.read_text(encoding="utf-8")
    assert size == len(html.encode()) and size < 5_000_000
    page = parse(html)
    assert page.links == []  # nothing fetched: no src, no stylesheet link, no external anchor
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html
    assert len(page.ids) == len(set(page.ids))  # every sample link is unambiguous
    assert {"r0", "r0/test/14", "r0/test/31"} <= set(page.ids)
    assert "Content-Security-Policy" in html


def test_a_sample_page_has_every_part(example_run: Path) -> None:
    html = render_report([load_run_view(example_run)])
    part = section(html, "r0/test/17")
    for needle in (
        "Request",
        "Offered functions (3)",
        'class="diff"',
        'data-program="gold"',
        'data-program="predicted"',
        'class="args"',
        "Raw model text",
        "Shawshank",
    ):
        assert needle in part, needle
    assert len(re.findall(r'<g class="node ', part)) == 6  # 3 gold calls + 3 predicted calls
    assert part.count('class="node missing"') == 1 and part.count('class="node extra"') == 1


def test_awkward_samples_render_escaped_and_complete(awkward_run: Path) -> None:
    html = render_report([load_run_view(awkward_run)])
    html.encode("utf-8")  # no lone surrogate left
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html
    assert "\x1b" not in html and "\x00" not in html and "\x07" not in html
    assert "does not parse" in section(html, "r0/test/0")
    assert "no program" in section(html, "r0/test/1")
    react = section(html, "r0/test/3")
    assert "ReAct steps" in react and "search first" in react and "\\x07" in react
    assert "Not executed in this run" in react and "tokens_in" in react
    assert "wrong_value" in section(html, "r0/test/5") and "&lt;b&gt;" in section(html, "r0/test/5")
    overview = html[html.index('id="r0"') : html.index("</section>", html.index('id="r0"'))]
    assert "[0.100, 0.900]" in overview and "cost_usd" in overview and "abc123" in overview
    assert 'class="chart"' in overview and "Cost and latency" in overview


def test_several_runs_get_a_comparison_page(example_run: Path, awkward_run: Path, gold_run: Path) -> None:
    runs = [load_run_view(d) for d in (example_run, awkward_run, gold_run)]
    html = render_report(runs)
    grid = html[html.index('<table class="grid">') : html.index("</table>", html.index('<table class="grid">'))]
    assert grid.count("<tr data-id=") == len(shared_ids(runs)) == 6
    assert grid.count('<td class="cell"') == 18
    ids = parse(html).ids
    assert "compare" in ids and "compare/test/3" in ids and "r2/test/31" in ids
    assert len(ids) == len(set(ids))


def test_runs_with_the_same_folder_name_get_distinct_labels(example_run: Path) -> None:
    from gqlbench.viewer.page import distinct_labels

    run = load_run_view(example_run)
    labels = [r.label for r in distinct_labels([run, run, run])]
    assert len(set(labels)) == 3 and labels[0] == f"{example_run.parent.name}/run"


def test_metric_cells_show_intervals_only_when_they_are_numbers() -> None:
    from gqlbench.viewer.runpage import metric_cell

    assert "[0.100, 0.300]" in metric_cell({"arg_match_full": 0.2, "ci": {"arg_match_full": [0.1, 0.3]}}, "arg_match_full")
    assert "[" not in metric_cell({"arg_match_full": 0.2, "ci": {"arg_match_full": ["a", None]}}, "arg_match_full")
    assert "na" in metric_cell({"exec_match": None}, "exec_match")
    assert ">7<" in metric_cell({"n_samples": 7}, "n_samples")


def test_the_metrics_table_has_metrics_as_rows_in_sections() -> None:
    """Registered scores, then the finer scores, then the counts; one column per domain."""
    from gqlbench.viewer.runpage import metrics_table

    group = {
        "arg_match_full": 0.5,
        "arg_match_functions": 0.25,
        "seq_match_full": 0.0,
        "seq_match_conn": 1.0,
        "n_samples": 2,
        "n_gold_calls": 4,
        "dataflow_f1": 0.75,
        "argument_f1": 0.5,
        "ci": {"dataflow_f1": [0.5, 1.0]},
    }
    html = metrics_table([("overall", group), ("tmdb", group), ("spotify", None)])
    head = html[html.index("<thead>") : html.index("</thead>")]
    assert head.count("<th>") == 4 and "tmdb" in head
    order = [html.index(x) for x in ("Scores", "Arg Match (full)", "Finer scores", "Dataflow F1", "Argument F1", "Counts", "n_gold_calls")]
    assert order == sorted(order)
    row = html[html.index('data-row="dataflow_f1"') : html.index("</tr>", html.index('data-row="dataflow_f1"'))]
    assert row.count("[0.500, 1.000]") == 2 and row.count('class="num na"') == 1
    assert "exec_match" not in html and "function_f1" not in html  # optional and absent: no row


def test_the_configuration_shows_a_mapping_one_setting_per_line_as_json(awkward_run: Path) -> None:
    html = render_report([load_run_view(awkward_run)])
    overview = html[html.index('<section class="page overview" id="r0">') :]
    overview = overview[: overview.index("</section>")]
    assert "<code>seed: 0</code>" in overview and "<code>name: &quot;stub&quot;</code>" in overview, overview[:2000]
    assert "{&#x27;" not in overview and "{'" not in overview  # no Python dict reprs


def test_the_configuration_shows_the_shots_each_sample_got_and_what_split_all_left_out(tmp_path: Path) -> None:
    from gqlbench.cli import main
    from tests.stub_backends import STUB_RUN

    out = tmp_path / "all"
    assert main([*STUB_RUN, "--split", "all", "--ids", "train/0,test/20", "--out", str(out), "--quiet", "--no-exec"]) == 0
    html = render_report([load_run_view(out)])
    overview = html[html.index('<section class="page overview" id="r0">') :]
    overview = overview[: overview.index("</section>")]
    assert "<th>shots shown</th><td><code>3: 2</code></td>" in overview
    excluded = json.loads((out / "config.json").read_text())["excluded_shots"]
    assert len(excluded) == 6 and f"<th>excluded shots</th><td><code>{', '.join(excluded)}</code>" in overview


def test_the_comparison_page_shows_paired_differences_and_warns_about_unshared_samples(awkward_run: Path, gold_run: Path) -> None:
    """A 32-sample run beside a 6-sample run: the difference, interval, p-value and verdict on the 6 shared, said loudly."""

    def overview(html: str) -> str:
        start = html.index('<section class="page" id="compare">')
        return html[start : html.index("</section>", start)]

    compare = overview(render_report([load_run_view(gold_run), load_run_view(awkward_run)]))
    assert "Paired differences" in compare and "6 shared samples" in compare
    assert "WARNING: the runs share only 6 samples (A has 32, B has 6)" in compare
    paired = compare[compare.index("Paired differences") :]
    row = re.search(r"<tr><td>Arg Match \(full\)</td>(.*?)</tr>", paired)
    assert row is not None
    cells = re.findall(r"<td>(.*?)</td>", row.group(1))
    assert cells[0] == "1.0000" and cells[-2] == "McNemar exact" and cells[-1] in ("within noise", "A higher")
    assert re.fullmatch(r"[0-9.e-]+", cells[-3]) and re.fullmatch(r"[0-9.e-]+", cells[-4])  # p, and p Holm-adjusted
    full = overview(render_report([load_run_view(gold_run), load_run_view(gold_run)]))
    assert "WARNING" not in full and "no difference" in full


def test_the_comparison_page_does_not_pair_runs_on_other_data(gold_run: Path, tmp_path: Path) -> None:
    """The same sample ids on other benchmark files are other samples: the page says so instead of testing."""
    from tests.viewer.conftest import edited_copy

    def other_data(document: dict) -> None:
        document["meta"]["data_hash"] = "0123456789abcdef"

    other = edited_copy(gold_run, tmp_path / "other", results=other_data)
    html = render_report([load_run_view(gold_run), load_run_view(other)])
    paired = html[html.index("Paired differences") :]
    assert "not paired: A ran on data" in paired and "McNemar" not in paired[: paired.index("</section>")]
