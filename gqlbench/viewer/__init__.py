"""gqlbench.viewer: one self-contained HTML report of one or more scored runs.

:mod:`.data` reads run folders through :mod:`gqlbench.results.files` (and checks what
the pages compute with by :mod:`.validate`: a run folder is untrusted), :mod:`.graph`
draws a program's dataflow as SVG, :mod:`.page` writes the HTML (inline CSS
and JS, no network), :mod:`.plots` writes charts as files with matplotlib.

Import the module you need (``from gqlbench.viewer.page import write_report``);
this package imports nothing itself, so loading one part stays cheap.
"""
