// Tasks: counts by state, a histogram of durations, lookup by id, the latest tasks.
import { api, el, fillTable, nav, poll } from '/dashboard.js';

nav();
const columns = [
  ['task', t => t.task_id, 'mono'], ['name', t => t.name], ['state', t => t.state],
  ['node', t => t.node_id.slice(0, 12), 'mono'], ['worker', t => t.worker_pid, 'num'],
  ['ms', t => t.end_ms ? t.duration_ms : '', 'num'],
];
let query = new URLSearchParams(location.search).get('id') || '';
const input = document.getElementById('task-id');
input.value = query;
document.getElementById('lookup').onsubmit = e => {
  e.preventDefault();
  query = input.value.trim().toLowerCase();
  history.replaceState(null, '', query ? '?id=' + encodeURIComponent(query) : location.pathname);
  refresh().catch(() => {});
};

function drawHistogram(bins) {
  const canvas = document.getElementById('histogram');
  const g = canvas.getContext('2d');
  g.clearRect(0, 0, canvas.width, canvas.height);
  const max = Math.max(1, ...bins.map(b => b.count));
  const left = 40, bottom = canvas.height - 30, w = (canvas.width - left - 10) / Math.max(1, bins.length);
  g.font = '11px sans-serif';
  g.fillStyle = '#444';
  g.fillText(String(max), 4, 14);
  g.fillText('0', 4, bottom);
  bins.forEach((b, i) => {
    const h = (bottom - 10) * b.count / max;
    g.fillStyle = '#2563eb';
    g.fillRect(left + i * w + 1, bottom - h, w - 2, h);
    if (i % Math.ceil(bins.length / 8) === 0) {
      g.fillStyle = '#444';
      g.fillText(`${Math.round(b.lo_ms)}`, left + i * w, bottom + 14);
    }
  });
  g.fillStyle = '#444';
  g.fillText('ms', canvas.width - 24, bottom + 26);
  canvas.dataset.bars = String(bins.filter(b => b.count > 0).length);
}

async function refresh() {
  const s = await api('tasks' + (query ? '?id=' + encodeURIComponent(query) : ''));
  fillTable('counts', [['state', ([k]) => k], ['tasks', ([, v]) => v, 'num']],
            Object.entries(s.counts));
  drawHistogram(s.histogram);
  fillTable('matches', columns, s.matches || []);
  if (query && s.matches && !s.matches.length) {
    document.getElementById('matches').replaceChildren(el('tr', `no task id starts with ${query}`));
  }
  fillTable('tasks', columns, [...s.tasks].reverse());
}
poll(refresh, 2000);
