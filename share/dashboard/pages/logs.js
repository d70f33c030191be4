// Logs: the head session's log files (GCS, raylet, each worker's), one shown with an
// optional search.
import { api, el, fillTable, nav, poll } from '/dashboard.js';

nav();
const params = new URLSearchParams(location.search);
let name = params.get('name') || '';
let search = params.get('search') || '';
const box = document.getElementById('search');
box.value = search;
document.getElementById('search-form').onsubmit = e => {
  e.preventDefault();
  search = box.value;
  const q = new URLSearchParams({ name });
  if (search) q.set('search', search);
  history.replaceState(null, '', '?' + q);
  refresh().catch(() => {});
};

function link(n) {
  const a = el('a', n);
  a.href = '?name=' + encodeURIComponent(n);
  return a;
}

async function refresh() {
  const { logs } = await api('logs');
  fillTable('logs', [['log', l => link(l.name)], ['bytes', l => l.size, 'num'],
                     ['modified', l => new Date(l.mtime_ms).toLocaleTimeString()]], logs);
  if (!name) return;
  const q = new URLSearchParams({ name });
  if (search) q.set('search', search);
  const log = await api('logs?' + q);
  document.getElementById('log-name').textContent =
      `${log.name}: ${log.matched} line(s)${search ? ` matching "${search}"` : ''}` +
      (log.truncated ? ' (the last shown)' : '');
  const pre = document.getElementById('log');
  pre.textContent = log.lines.map(l => `${String(l.n).padStart(6)}  ${l.text}`).join('\n');
  pre.dataset.lines = String(log.lines.length);
}
poll(refresh, 2000);
