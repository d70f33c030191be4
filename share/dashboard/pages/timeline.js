// Timeline: the Chrome trace of /api/timeline drawn as a gantt chart in SVG, one row
// per worker (grouped by node), one box per task run or profile span.
import { api, COLORS, nav, poll } from '/dashboard.js';

nav();
const NS = 'http://www.w3.org/2000/svg';
const svg = document.getElementById('timeline');

function node(tag, attrs, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

poll(async () => {
  const trace = await api('timeline');
  const events = trace.traceEvents || [];
  const names = new Map();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'process_name') names.set(`${e.pid}`, e.args.name);
    if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}/${e.tid}`, e.args.name);
  }
  const boxes = events.filter(e => e.ph === 'X');
  const rows = [...new Set(boxes.map(e => `${e.pid}/${e.tid}`))].sort();
  const t0 = Math.min(...boxes.map(e => e.ts)), t1 = Math.max(...boxes.map(e => e.ts + e.dur));
  const left = 260, width = 1000, rowH = 22;
  svg.setAttribute('height', String(30 + rows.length * rowH));
  svg.replaceChildren();
  const span = Math.max(1, t1 - t0), scale = (width - left - 10) / span;
  svg.appendChild(node('text', { x: left, y: 14, 'font-size': 11 }, '0 s'));
  svg.appendChild(node('text', { x: width - 60, y: 14, 'font-size': 11 },
                       `${(span / 1e6).toFixed(2)} s`));
  const colour = new Map();
  rows.forEach((r, i) => {
    const pid = r.split('/')[0];
    svg.appendChild(node('text', { x: 4, y: 30 + i * rowH + 14, 'font-size': 11 },
                         `${names.get(pid) || pid} · ${names.get(r) || r}`.slice(0, 44)));
  });
  for (const e of boxes) {
    const i = rows.indexOf(`${e.pid}/${e.tid}`);
    if (!colour.has(e.name)) colour.set(e.name, COLORS[colour.size % COLORS.length]);
    const rect = node('rect', {
      x: left + (e.ts - t0) * scale, y: 30 + i * rowH + 2,
      width: Math.max(1, e.dur * scale), height: rowH - 4, fill: colour.get(e.name),
      class: 'box',
    });
    rect.appendChild(node('title', {}, `${e.name} (${e.cat}): ${(e.dur / 1000).toFixed(1)} ms`));
    svg.appendChild(rect);
  }
  svg.dataset.boxes = String(boxes.length);
}, 2000);
