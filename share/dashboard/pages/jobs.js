// Jobs: every driver that connected, running or ended.
import { api, fillTable, fmtTime, nav, poll } from '/dashboard.js';

nav();
poll(async () => {
  const { jobs } = await api('jobs');
  fillTable('jobs', [
    ['job', j => j.job_id, 'mono'], ['status', j => j.status], ['entry', j => j.entry],
    ['pid', j => j.pid, 'num'], ['started', j => fmtTime(j.start_ms)],
    ['ended', j => fmtTime(j.end_ms)],
    ['seconds', j => j.end_ms ? ((j.end_ms - j.start_ms) / 1000).toFixed(1) : '', 'num'],
    ['exit code', j => j.end_ms ? j.exit_code : '', 'num'],
  ], jobs);
});
