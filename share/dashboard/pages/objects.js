// Objects: the object directory, with sizes and the nodes holding each.
import { api, fillTable, nav, poll } from '/dashboard.js';

nav();
poll(async () => {
  const { objects } = await api('objects');
  fillTable('objects', [
    ['object', o => o.object_id, 'mono'], ['size (bytes)', o => o.size, 'num'],
    ['nodes', o => o.nodes.map(n => n.slice(0, 12)).join(', '), 'mono'],
  ], objects);
});
