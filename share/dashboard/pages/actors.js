// Actors: every actor created, with its state, node, restarts and job.
import { api, fillTable, nav, poll } from '/dashboard.js';

nav();
poll(async () => {
  const { actors } = await api('actors');
  fillTable('actors', [
    ['actor', a => a.actor_id, 'mono'], ['name', a => a.name], ['state', a => a.state],
    ['node', a => a.node_id.slice(0, 12), 'mono'], ['restarts', a => a.restarts, 'num'],
    ['job', a => a.job_id, 'mono'],
    ['namespace', a => a.ray_namespace],
  ], actors);
});
