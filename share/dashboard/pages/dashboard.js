// Shared by every page: the navigation bar, API calls, polling, tables.

export const PAGES = [
  ['index.html', 'Overview'], ['actors.html', 'Actors'], ['tasks.html', 'Tasks'],
  ['objects.html', 'Objects'], ['jobs.html', 'Jobs'], ['logs.html', 'Logs'],
  ['timeline.html', 'Timeline'], ['tune.html', 'Tune'],
];

export function nav() {
  const here = location.pathname === '/' ? 'index.html' : location.pathname.slice(1);
  const bar = document.createElement('nav');
  for (const [href, label] of PAGES) {
    const a = document.createElement('a');
    a.href = '/' + href;
    a.textContent = label;
    if (href === here) a.className = 'here';
    bar.appendChild(a);
  }
  document.body.prepend(bar);
}

// GET /api/<path> as JSON; a 401 (the login cookie expired or is missing) goes to the
// login page.
export async function api(path) {
  const res = await fetch('/api/' + path, { credentials: 'same-origin' });
  if (res.status === 401) {
    location.href = '/login';
    throw new Error('not logged in');
  }
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

// Calls `fn` now and every `ms` (default 1500) while the page is open; its errors are
// shown in #status.
export function poll(fn, ms = 1500) {
  const status = document.getElementById('status');
  async function tick() {
    try {
      await fn();
      if (status) {
        status.textContent = 'updated ' + new Date().toLocaleTimeString();
        status.classList.remove('error');
      }
    } catch (e) {
      if (status) {
        status.textContent = 'error: ' + e.message;
        status.classList.add('error');
      }
    }
    setTimeout(tick, ms);
  }
  tick();
}

export function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

export function fmtResources(r) {
  return Object.entries(r || {}).map(([k, v]) => `${k}: ${+v.toFixed(3)}`).join(', ');
}

export function fmtTime(ms) {
  return ms ? new Date(ms).toLocaleString() : '';
}

// Fills <table id=id> with `rows`; columns: [[header, row => cell value, cls?]...].
// Cell values that are Nodes are inserted as they are. `sort`: {col, desc} makes the
// headers clickable (the state object is kept by the caller).
export function fillTable(id, columns, rows, sort) {
  const table = document.getElementById(id);
  table.replaceChildren();
  const head = document.createElement('tr');
  columns.forEach(([h], i) => {
    const th = el('th', h + (sort && sort.col === i ? (sort.desc ? ' ▼' : ' ▲') : ''));
    if (sort) {
      th.className = 'sortable';
      th.onclick = () => {
        sort.desc = sort.col === i ? !sort.desc : false;
        sort.col = i;
        fillTable(id, columns, rows, sort);
      };
    }
    head.appendChild(th);
  });
  table.appendChild(head);
  let shown = rows;
  if (sort && sort.col !== null && sort.col !== undefined && columns[sort.col]) {
    const get = columns[sort.col][1];
    shown = [...rows].sort((a, b) => compare(get(a), get(b)) * (sort.desc ? -1 : 1));
  }
  for (const r of shown) {
    const tr = document.createElement('tr');
    for (const [, get, cls] of columns) {
      const v = get(r);
      const td = el('td', v instanceof Node ? null : v, cls);
      if (v instanceof Node) td.appendChild(v);
      tr.appendChild(td);
    }
    table.appendChild(tr);
  }
  table.dataset.rows = String(shown.length);
}

function compare(a, b) {
  const na = typeof a === 'number', nb = typeof b === 'number';
  if (na && nb) return a - b;
  if (na !== nb) return na ? -1 : 1;
  return String(a ?? '').localeCompare(String(b ?? ''));
}

// A line chart (uPlot) in `container`, redrawn with new data: xs, and one
// [label, ys, colour?] per series (drawn in that order; colour by default from
// COLORS by position). Returns an update function.
export function lineChart(container, xLabel, { time = false, height = 260 } = {}) {
  let plot = null, labels = '';
  return (xs, series) => {
    const key = series.map(s => s[0]).join('\u0000');
    const data = [xs, ...series.map(s => s[1])];
    if (!plot || key !== labels) {
      if (plot) plot.destroy();
      labels = key;
      plot = new uPlot({
        width: Math.max(400, container.clientWidth || 800), height,
        scales: { x: { time } },
        axes: [{ label: xLabel }, {}],
        series: [{ label: xLabel }, ...series.map(([label, , colour], i) => ({
          label, stroke: colour || COLORS[i % COLORS.length], spanGaps: true,
          points: { show: xs.length < 60 },
        }))],
      }, data, container);
      container.dataset.points = String(xs.length);
    } else {
      plot.setData(data);
      container.dataset.points = String(xs.length);
    }
  };
}

export const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2',
  '#db2777', '#65a30d', '#9333ea', '#ea580c'];
