// Overview: nodes with their resources and utilisation, the use of each resource
// over time (sampled every second by the head): the cluster's and each node's;
// placement groups.
import { COLORS, api, el, fillTable, fmtResources, lineChart, nav, poll } from '/dashboard.js';

nav();
const select = document.getElementById('resource');
const chart = lineChart(document.getElementById('util-chart'), 'time', { time: true });
const short = id => id.slice(0, 12);

poll(async () => {
  const [{ nodes, history }, { placement_groups }] =
      await Promise.all([api('nodes'), api('placement_groups')]);
  fillTable('nodes', [
    ['node', n => short(n.node_id), 'mono'], ['address', n => n.address], ['state', n => n.state],
    ['total', n => fmtResources(n.resources_total)],
    ['available', n => fmtResources(n.resources_available)],
    ['utilisation', n => Object.entries(n.utilisation)
        .map(([k, v]) => `${k} ${(100 * v).toFixed(0)}%`).join(', ')],
  ], nodes);
  fillTable('pgs', [
    ['id', g => short(g.placement_group_id), 'mono'], ['name', g => g.name],
    ['strategy', g => g.strategy], ['state', g => g.state],
    ['bundles', g => g.bundles.map(fmtResources).join(' | ')],
  ], placement_groups);
  const names = [...new Set(history.flatMap(s => Object.keys(s.total)))].sort();
  if (select.options.length !== names.length) {
    const keep = select.value || 'CPU';
    select.replaceChildren(...names.map(n => el('option', n)));
    if (names.includes(keep)) select.value = keep;
  }
  const r = select.value;
  const xs = history.map(s => s.time_ms / 1000);
  // Each node's use, then the cluster's use and total on top (blue, red).
  const ids = [...new Set(history.flatMap(s => Object.keys(s.nodes || {})))].sort();
  chart(xs, [...ids.map((id, i) => [`${r} used on ${short(id)}`,
                                    history.map(s => (s.nodes || {})[id]?.[r] ?? null),
                                    COLORS[2 + i % (COLORS.length - 2)]]),
             [`${r} used`, history.map(s => s.used[r] ?? null), COLORS[0]],
             [`${r} total`, history.map(s => s.total[r] ?? null), COLORS[1]]]);
});
