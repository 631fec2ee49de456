"""An offline GraphQL explorer for ``gqlbench mock serve``: one page, no CDN assets.

ariadne's default explorer (GraphiQL) loads its scripts and styles from a CDN,
so it stays blank on an air-gapped cluster. This page is plain HTML with inline
CSS and JS: it lists the schema's fields (by introspection, from the same
server), sends a query with its variables, and shows the JSON answer.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ariadne.explorer import Explorer

__all__ = ["OfflineExplorer", "explorer_page"]

_PAGE = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>gqlbench mock: {title}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<style>
body{{margin:0;font:14px system-ui,sans-serif;display:flex;height:100vh}}
nav{{width:300px;overflow:auto;border-right:1px solid #ddd;padding:8px;font-family:monospace;font-size:12px}}
nav h3{{font-family:system-ui;margin:8px 0 4px}}nav li{{cursor:pointer;list-style:none;padding:1px 0}}nav li:hover{{color:#1d4ed8}}
main{{flex:1;display:flex;flex-direction:column;padding:8px;gap:6px;min-width:0}}
textarea,pre{{font:13px ui-monospace,monospace;width:100%;border:1px solid #ccc;padding:6px;box-sizing:border-box}}
#query{{flex:2}}#variables{{height:70px}}pre{{flex:3;overflow:auto;margin:0;background:#f8f8f8}}
</style></head><body>
<nav><b>{title}</b><div id="fields">loading the schema…</div></nav>
<main><div><button id="run">Run (Ctrl+Enter)</button> <span id="status"></span></div>
<textarea id="query" spellcheck="false">{query}</textarea>
<textarea id="variables" spellcheck="false" placeholder='variables, e.g. {{"query": "Titanic"}}'></textarea>
<pre id="result"></pre></main>
<script>
(function(){{
  var endpoint = window.location.pathname;
  function post(body){{
    return fetch(endpoint, {{method: 'POST', headers: {{'Content-Type': 'application/json', 'Accept': 'application/json'}}, body: JSON.stringify(body)}}).then(function(r){{return r.json();}});
  }}
  function run(){{
    var status = document.getElementById('status'), variables = {{}};
    var text = document.getElementById('variables').value.trim();
    try {{ if(text) variables = JSON.parse(text); }} catch(e) {{ status.textContent = 'variables are not JSON: ' + e.message; return; }}
    status.textContent = 'running…';
    post({{query: document.getElementById('query').value, variables: variables}}).then(function(answer){{
      document.getElementById('result').textContent = JSON.stringify(answer, null, 2);
      status.textContent = answer.errors ? 'errors' : 'ok';
    }}, function(e){{ status.textContent = 'request failed: ' + e; }});
  }}
  function list(type, title){{
    if(!type) return '';
    var items = type.fields.map(function(f){{
      var args = f.args.map(function(a){{return a.name;}}).join(', ');
      return '<li data-name="' + f.name + '" data-root="' + title.toLowerCase() + '">' + f.name + '(' + args + ')</li>';
    }});
    return '<h3>' + title + ' (' + type.fields.length + ')</h3><ul style="padding:0">' + items.join('') + '</ul>';
  }}
  post({{query: '{{ __schema {{ queryType {{ fields {{ name args {{ name }} }} }} mutationType {{ fields {{ name args {{ name }} }} }} }} }}'}}).then(function(answer){{
    var s = answer.data.__schema, box = document.getElementById('fields');
    box.innerHTML = list(s.queryType, 'Query') + list(s.mutationType, 'Mutation');
    box.addEventListener('click', function(e){{
      var name = e.target.getAttribute('data-name');
      if(name) document.getElementById('query').value = (e.target.getAttribute('data-root') === 'mutation' ? 'mutation ' : '') + '{{\\n  ' + name + ' {{\\n    \\n  }}\\n}}';
    }});
  }}, function(e){{ document.getElementById('fields').textContent = 'could not load the schema: ' + e; }});
  document.getElementById('run').addEventListener('click', run);
  document.addEventListener('keydown', function(e){{ if(e.key === 'Enter' && (e.ctrlKey || e.metaKey)) run(); }});
}})();
</script></body></html>"""

DEFAULT_QUERY = "# Click a field on the left, or write a query.\n{\n  __typename\n}\n"


def explorer_page(title: str, query: str = DEFAULT_QUERY) -> str:
    """The explorer's HTML; ``title`` and ``query`` are escaped."""
    return _PAGE.format(title=escape(title), query=escape(query))


class OfflineExplorer(Explorer):
    """ariadne's explorer hook returning :func:`explorer_page` for a browser's GET."""

    def __init__(self, title: str) -> None:
        self.page = explorer_page(title)

    def html(self, request: Any) -> str:
        return self.page
