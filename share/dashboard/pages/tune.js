// Tune: the experiments under the head's results dir; a sortable trials table and a
// chart of any result column over training_iteration or time, one line per trial.
import { api, el, fillTable, lineChart, nav, poll } from '/dashboard.js';

nav();
const pick = document.getElementById('experiment');
const metric = document.getElementById('metric');
const xAxis = document.getElementById('x-axis');
const chart = lineChart(document.getElementById('tune-chart'), 'x');
const sort = { col: null, desc: false };
let experiment = new URLSearchParams(location.search).get('experiment') || '';
pick.onchange = () => {
  experiment = pick.value;
  history.replaceState(null, '', '?experiment=' + encodeURIComponent(experiment));
  refresh().catch(() => {});
};
metric.onchange = xAxis.onchange = () => refresh().catch(() => {});

const isNumber = v => typeof v === 'number';

async function refresh() {
  const { results_dir, experiments } = await api('tune');
  document.getElementById('results-dir').textContent = results_dir;
  const names = experiments.map(e => e.name);
  if (pick.options.length !== names.length) pick.replaceChildren(...names.map(n => el('option', n)));
  if (!names.includes(experiment)) experiment = names[names.length - 1] || '';
  pick.value = experiment;
  const exp = experiments.find(e => e.name === experiment);
  if (!exp) return;
  const trials = exp.trials;
  // TensorBoard reads every trial's event files under the experiment's dir.
  document.getElementById('tensorboard').textContent = trials.some(t => t.tensorboard)
      ? `tensorboard --logdir ${results_dir}/${experiment}` : '(no TensorBoard files: the loggers setting leaves tensorboard out)';
  const configKeys = [...new Set(trials.flatMap(t => Object.keys(t.config || {})))].sort();
  const resultKeys = [...new Set(trials.flatMap(t => Object.entries(t.last_result || {})
      .filter(([, v]) => isNumber(v)).map(([k]) => k)))].sort();
  fillTable('trials', [
    ['trial', t => t.trial_id, 'mono'], ['status', t => t.status],
    ...configKeys.map(k => [k, t => fmt((t.config || {})[k]), 'num']),
    ...resultKeys.map(k => [k, t => (t.last_result || {})[k] ?? '', 'num']),
    ['logdir (TensorBoard)', logdir],
  ], trials, sort);
  // The chart: one series per trial.
  const rows = await Promise.all(trials.map(t => api(
      `tune?experiment=${encodeURIComponent(experiment)}&trial=${encodeURIComponent(t.trial_id)}`)));
  const columns = [...new Set(rows.flatMap(r => r.rows.flatMap(Object.keys)))].sort();
  if (metric.options.length !== columns.length) {
    const keep = metric.value || (columns.includes('episode_reward_mean') ? 'episode_reward_mean'
        : columns.find(c => !['training_iteration', 'time_total_s', 'timestamp'].includes(c)));
    metric.replaceChildren(...columns.map(c => el('option', c)));
    if (keep) metric.value = keep;
  }
  const x = xAxis.value, y = metric.value;
  const xs = [...new Set(rows.flatMap(r => r.rows.map(p => p[x]).filter(isNumber)))].sort((a, b) => a - b);
  const series = rows.map(r => {
    const at = new Map(r.rows.filter(p => isNumber(p[x])).map(p => [p[x], p[y] ?? null]));
    return [r.trial_id, xs.map(v => at.has(v) ? at.get(v) : null)];
  });
  chart(xs, series);
}

// The trial's dir, with the command that shows its TensorBoard files.
function logdir(t) {
  const c = el('code', t.tensorboard ? `tensorboard --logdir ${t.logdir}` : t.logdir, 'logdir');
  c.title = t.tensorboard ? 'events.out.tfevents.* are in this dir' : 'no TensorBoard files here';
  return c;
}

function fmt(v) {
  return isNumber(v) ? v : typeof v === 'object' ? JSON.stringify(v) : v ?? '';
}
poll(refresh, 2000);
