"""The report's stylesheet and script, inlined into the page (no CDN, works from file://).

The page's Content-Security-Policy allows these two by their hashes only
(:data:`gqlbench.viewer.page.CSP`): the script must attach its handlers with
``addEventListener``, never write ``on...=`` attributes or ``style=`` attributes,
and must never put text from the page into ``innerHTML``.
"""

from __future__ import annotations

__all__ = ["CSS", "JS"]

CSS = """
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1d1d1f;background:#f6f7f9}
header.top{display:flex;gap:12px;align-items:center;padding:8px 16px;background:#1f2937;color:#fff;position:sticky;top:0;z-index:5}
header.top a{color:#cfe3ff;text-decoration:none;padding:4px 8px;border-radius:4px}
header.top a.active{background:#374151;color:#fff}
header.top .hint{margin-left:auto;color:#9ca3af;font-size:12px}
.run{display:none}.run.shown{display:flex}
aside{width:270px;flex:none;border-right:1px solid #ddd;background:#fff;height:calc(100vh - 42px);overflow:auto;position:sticky;top:42px;padding:8px}
aside select{width:100%;margin:2px 0}aside label{display:block;font-size:12px;color:#374151}aside>a{display:block;margin-bottom:4px}
aside ul{list-style:none;margin:6px 0;padding:0}
aside li a{display:flex;justify-content:space-between;padding:3px 6px;border-radius:4px;color:#111;text-decoration:none;font-family:monospace}
aside li a:hover{background:#eef2ff}aside li.current a{background:#dbeafe}
aside li.hidden{display:none}
main{flex:1;min-width:0;padding:12px 20px}
section.page{display:none;scroll-margin-top:50px}section.page.shown{display:block}
h1{font-size:20px}h2{font-size:16px;margin-top:22px;border-bottom:1px solid #e5e7eb}
table{border-collapse:collapse;background:#fff;margin:6px 0}
td,th{border:1px solid #e5e7eb;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f4f6}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.ci{color:#6b7280;font-size:12px}
table.metrics td.num{white-space:nowrap}table.metrics tr.section th{background:#e0e7ff;color:#1e3a8a}
table.metrics tbody th{font-weight:normal;background:#f9fafb;white-space:nowrap}
.pass{color:#166534;background:#dcfce7}.fail{color:#991b1b;background:#fee2e2}.na{color:#6b7280}
.badge{display:inline-block;padding:1px 6px;margin:1px;border-radius:9px;font-size:12px}
.dots{font-size:11px;letter-spacing:-1px}
.dot-1{color:#16a34a}.dot-0{color:#dc2626}.dot-{color:#9ca3af}
pre,code,td.code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
pre{background:#fff;border:1px solid #e5e7eb;padding:8px;overflow:auto;white-space:pre-wrap;max-height:480px}
table.diff{width:100%;table-layout:fixed}table.diff col.ln{width:38px}table.diff td.ln{color:#9ca3af;text-align:right}
table.diff td.code{white-space:pre-wrap;word-break:break-all}
td.code.del{background:#fee2e2}td.code.ins{background:#dcfce7}td.code.chg{background:#fef9c3}td.code.blank{background:#f9fafb}
.tok-keyword{color:#7c3aed}.tok-string{color:#b45309}.tok-number{color:#0369a1}.tok-comment{color:#6b7280;font-style:italic}.tok-api{color:#1d4ed8;font-weight:600}
.graphs{display:flex;gap:16px;flex-wrap:wrap}.graphs figure{margin:0;background:#fff;border:1px solid #e5e7eb;padding:6px;overflow:auto;max-width:100%}
.legend span{margin-right:12px}.l-matched{color:#2e7d32}.l-missing{color:#c62828}.l-extra{color:#ef6c00}
tr.diverge td{background:#fef3c7}
.cols{display:flex;gap:14px;flex-wrap:wrap}.cols>div{flex:1;min-width:300px}
.grid td.cell{text-align:center;cursor:default}.grid tr.disagree td.id{font-weight:700}
.muted{color:#6b7280}.truncated{color:#92400e;font-style:italic}
details{margin:6px 0}summary{cursor:pointer;color:#1d4ed8}
"""

JS = r"""
(function(){
  function $(sel, root){return (root||document).querySelector(sel);}
  function $$(sel, root){return Array.prototype.slice.call((root||document).querySelectorAll(sel));}
  function target(hash){
    var raw = (hash||'').replace(/^#/, ''), id = raw;
    try{id = decodeURIComponent(raw);}catch(e){}  // a sample id with a bare '%' is not URI-encoded text
    if(!id){var first = $('.run'); return first ? first.querySelector('section.page') : null;}
    var page = null;
    [id, raw].some(function(name){return (page = document.getElementById(name) || document.getElementById('r0/' + name));});
    return page || document.getElementById('r0');
  }
  function show(){
    var page = target(location.hash);
    if(!page) return;
    var run = page.closest('.run');
    $$('.run').forEach(function(r){r.classList.toggle('shown', r === run);});
    $$('section.page').forEach(function(p){p.classList.toggle('shown', p === page);});
    $$('header.top a').forEach(function(a){a.classList.toggle('active', a.getAttribute('data-run') === run.id);});
    $$('aside li', run).forEach(function(li){li.classList.toggle('current', li.getAttribute('data-page') === page.id);});
    window.scrollTo(0, 0);
  }
  function applyFilters(run){
    var get = function(name){var el = $('select[data-filter="' + name + '"]', run); return el ? el.value : '';};
    var domain = get('domain'), metric = get('metric'), outcome = get('outcome'), kind = get('error');
    var shown = 0, items = $$('aside li', run);
    items.forEach(function(li){
      var ok = (!domain || li.getAttribute('data-domain') === domain)
        && (!metric || !outcome || li.getAttribute('data-m-' + metric) === outcome)
        && (!kind || (' ' + li.getAttribute('data-errors') + ' ').indexOf(' ' + kind + ' ') >= 0);
      li.classList.toggle('hidden', !ok);
      if(ok) shown++;
    });
    var count = $('.count', run);
    if(count) count.textContent = shown + ' of ' + items.length + ' samples';
  }
  function step(delta){
    var run = $('.run.shown'); if(!run) return;
    var items = $$('aside li:not(.hidden)', run); if(!items.length) return;
    var at = items.findIndex(function(li){return li.classList.contains('current');});
    var next = at < 0 ? (delta > 0 ? 0 : items.length - 1) : Math.min(items.length - 1, Math.max(0, at + delta));
    location.hash = '#' + items[next].getAttribute('data-page');
  }
  function paintGrid(){
    var grid = $('table.grid'); if(!grid) return;
    var metric = $('#grid-metric').value;
    $$('tbody tr', grid).forEach(function(tr){
      var seen = {};
      $$('td.cell', tr).forEach(function(td){
        var v = td.getAttribute('data-m-' + metric) || '';
        td.textContent = v === '1' ? '\u2713' : v === '0' ? '\u2717' : '\u2013';
        td.className = 'cell ' + (v === '1' ? 'pass' : v === '0' ? 'fail' : 'na');
        if(v !== '') seen[v] = true;
      });
      tr.classList.toggle('disagree', Object.keys(seen).length > 1);
    });
  }
  function sortGrid(byDisagreement){
    var body = $('table.grid tbody'); if(!body) return;
    var rows = $$('tr', body);
    rows.sort(function(a, b){
      if(byDisagreement){
        var d = (b.classList.contains('disagree') ? 1 : 0) - (a.classList.contains('disagree') ? 1 : 0);
        if(d) return d;
      }
      return (+a.getAttribute('data-order')) - (+b.getAttribute('data-order'));
    });
    rows.forEach(function(r){body.appendChild(r);});
  }
  document.addEventListener('DOMContentLoaded', function(){
    $$('.run').forEach(function(run){
      $$('select[data-filter]', run).forEach(function(s){s.addEventListener('change', function(){applyFilters(run);});});
      applyFilters(run);
    });
    var gm = $('#grid-metric');
    if(gm){gm.addEventListener('change', paintGrid); paintGrid();}
    var sd = $('#sort-disagree'); if(sd) sd.addEventListener('click', function(){sortGrid(true);});
    var so = $('#sort-order'); if(so) so.addEventListener('click', function(){sortGrid(false);});
    show();
  });
  window.addEventListener('hashchange', show);
  document.addEventListener('keydown', function(e){
    var tag = (e.target && e.target.tagName) || '';
    if(tag === 'SELECT' || tag === 'INPUT' || tag === 'TEXTAREA' || e.ctrlKey || e.metaKey || e.altKey) return;
    if(e.key === 'j' || e.key === 'ArrowRight'){step(1); e.preventDefault();}
    else if(e.key === 'k' || e.key === 'ArrowLeft'){step(-1); e.preventDefault();}
  });
})();
"""
