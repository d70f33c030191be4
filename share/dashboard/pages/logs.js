// Logs: every ALIVE node's log files (GCS, raylet, dashboard, each worker's), a
// search of all of them, and one log shown with an optional search.
import { api, el, fillTable, nav, poll } from '/dashboard.js';

nav();
const params = new URLSearchParams(location.search);
let node = params.get('node') || '';
let name = params.get('name') || '';
let search = params.get('search') || '';
let searchAll = params.get('all') || '';
const box = document.getElementById('search');
const allBox = document.getElementById('search-all');
box.value = search;
allBox.value = searchAll;

function remember() {
  const q = new URLSearchParams();
  if (node) q.set('node', node);
  if (name) q.set('name', name);
  if (search) q.set('search', search);
  if (searchAll) q.set('all', searchAll);
  history.replaceState(null, '', '?' + q);
}
document.getElementById('search-form').onsubmit = e => {
  e.preventDefault();
  search = box.value;
  remember();
  refresh().catch(() => {});
};
document.getElementById('search-all-form').onsubmit = e => {
  e.preventDefault();
  searchAll = allBox.value;
  remember();
  refresh().catch(() => {});
};

function link(l) {
  const a = el('a', l.name);
  a.href = '?' + new URLSearchParams({ node: l.node_id, name: l.name });
  a.onclick = e => {
    e.preventDefault();
    node = l.node_id;
    name = l.name;
    remember();
    refresh().catch(() => {});
  };
  return a;
}
const nodeOf = l => `${(l.node_id || 'head').slice(0, 12)} ${l.node_address || ''}`;

async function refresh() {
  const { logs, errors } = await api('logs');
  fillTable('logs', [['node', nodeOf, 'mono'], ['log', link], ['bytes', l => l.size, 'num'],
                     ['modified', l => new Date(l.mtime_ms).toLocaleTimeString()]], logs);
  document.getElementById('log-errors').textContent =
      errors.map(e => `node ${e.node_id.slice(0, 12)} ${e.address}: ${e.error}`).join('; ');
  if (searchAll) {
    const found = await api('logs?' + new URLSearchParams({ search: searchAll, lines: 3 }));
    fillTable('matches', [['node', nodeOf, 'mono'], ['log', link], ['lines', m => m.matched, 'num'],
                          ['last match', m => m.lines.length ? m.lines[m.lines.length - 1].text : '']],
              found.matches);
  }
  if (!name) return;
  const q = new URLSearchParams({ name });
  if (node) q.set('node', node);
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
