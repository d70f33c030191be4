// Drives headless chromium (playwright-core) through every dashboard page of a
// running cluster: refused without the token, logged in by the printed link, then
// each page through the navigation bar, checking that tables fill and charts draw,
// with a screenshot of each under SCREENSHOT_DIR. Exits non-zero on the first failure.
// Usage: node browser_test.mjs BASE_URL TOKEN SCREENSHOT_DIR PROFILE_DIR
import { createRequire } from 'node:module';

const [base, token, shots, profile] = process.argv.slice(2);
const require = createRequire(process.env.NODE_MODULES + '/');
const { chromium } = require('playwright-core');

function check(ok, what) {
  if (!ok) throw new Error('check failed: ' + what);
  console.log('ok  ' + what);
}

// Pixels of a canvas in the colour [r, g, b] (within a tolerance, for antialiasing):
// something was drawn in it, not only axes and labels.
const BLUE = [37, 99, 235], RED = [220, 38, 38];  // the first two series' colours
async function pixelsOf(page, selector, rgb) {
  return page.$eval(selector, (c, rgb) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] > 128 && Math.abs(d[i] - rgb[0]) < 40 && Math.abs(d[i + 1] - rgb[1]) < 40 &&
          Math.abs(d[i + 2] - rgb[2]) < 40) ++n;
    }
    return n;
  }, rgb);
}

// Whether the chart's first two series (blue, red) are drawn. uPlot draws on the next
// animation frame after its data changes: look for up to 5 s.
async function bothDrawn(page, selector) {
  for (let i = 0; i < 50; ++i) {
    if (await pixelsOf(page, selector, BLUE) > 50 && await pixelsOf(page, selector, RED) > 50) {
      return true;
    }
    await page.waitForTimeout(100);
  }
  return false;
}

const rows = (page, id) => page.$$eval(`table#${id} tr`, r => r.length - 1);
const started = Date.now();
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: { width: 1280, height: 900 },
});
let failed = false;
try {
  const page = context.pages()[0] || await context.newPage();
  page.setDefaultTimeout(10000);
  const errors = [];
  page.on('pageerror', e => errors.push(e.message));

  // Without the token: refused, with the login form.
  let res = await page.goto(base + '/');
  check(res.status() === 401, 'a page without the token is refused (401)');
  check(await page.$('form#login input[name=token]') !== null, 'the refusal is a login form');
  await page.screenshot({ path: `${shots}/login.png` });
  res = await page.goto(base + '/api/nodes');
  check(res.status() === 401, 'the API without the token is refused (401)');

  // The printed link: a cookie, and the token leaves the address bar.
  res = await page.goto(`${base}/?token=${token}`);
  check(res.status() === 200 && !page.url().includes('token'),
        `the token link lands on the overview without the token (${page.url()})`);

  // Overview.
  await page.waitForFunction(() => document.querySelectorAll('table#nodes tr').length >= 2);
  await page.waitForFunction(
      () => +(document.getElementById('util-chart').dataset.points || 0) >= 2);
  check(await bothDrawn(page, '#util-chart canvas'),
        'the utilisation chart draws the cluster\'s used and total lines');
  check(await rows(page, 'nodes') === 2, 'the nodes table has both nodes');
  const utilSeries = await page.$$eval('#util-chart .u-legend tr.u-series', r => r.length);
  check(utilSeries === 5, `the utilisation chart has the cluster's lines and one per node (${utilSeries - 3})`);
  await page.screenshot({ path: `${shots}/overview.png`, fullPage: true });

  async function visit(label) {
    await page.click(`nav a:text-is("${label}")`);
    await page.waitForLoadState('load');
    check(page.url().endsWith('.html') || page.url().includes('.html?'), `the ${label} link opens`);
  }

  await visit('Actors');
  await page.waitForFunction(() => document.querySelectorAll('table#actors tr').length >= 2);
  check((await page.textContent('table#actors')).includes('keeper'), 'actors list the named actor');
  await page.screenshot({ path: `${shots}/actors.png`, fullPage: true });

  await visit('Tasks');
  await page.waitForFunction(() => document.querySelectorAll('table#tasks tr').length >= 2);
  check((await page.textContent('table#counts')).includes('FINISHED'), 'task counts by state');
  await page.waitForFunction(() => +(document.getElementById('histogram').dataset.bars || 0) >= 1);
  check(await pixelsOf(page, '#histogram', BLUE) > 100, 'the duration histogram draws bars');
  const id = (await page.textContent('table#tasks tr:nth-child(2) td:first-child')).trim();
  await page.fill('#task-id', id.slice(0, 16));
  await page.click('#lookup button');
  await page.waitForFunction(() => document.querySelectorAll('table#matches tr').length >= 2);
  check((await page.textContent('table#matches')).includes(id), 'a task is found by its id');
  await page.screenshot({ path: `${shots}/tasks.png`, fullPage: true });

  await visit('Objects');
  await page.waitForFunction(() => document.querySelectorAll('table#objects tr').length >= 2);
  check(await rows(page, 'objects') >= 1, 'objects list the running job\'s object');
  await page.screenshot({ path: `${shots}/objects.png`, fullPage: true });

  await visit('Jobs');
  await page.waitForFunction(() => document.querySelectorAll('table#jobs tr').length >= 4);
  check((await page.textContent('table#jobs')).includes('RUNNING'), 'jobs show the running job');
  await page.screenshot({ path: `${shots}/jobs.png`, fullPage: true });

  await visit('Logs');
  await page.waitForFunction(() => document.querySelectorAll('table#logs tr').length >= 2);
  const names = await page.$$eval('table#logs a', a => a.map(x => x.textContent));
  const workers = names.filter(n => /^worker-.*\.out$/.test(n));
  check(workers.length >= 1, `worker logs are listed (${workers.length})`);
  let marked = '';
  for (const name of workers) {
    await page.click(`table#logs a:text-is("${name}")`);
    await page.waitForFunction(
        n => (document.getElementById('log-name')?.textContent || '').startsWith(n), name);
    await page.fill('#search', 'dashboard-marker');
    await page.click('#search-form button');
    await page.waitForFunction(
        () => (document.getElementById('log-name')?.textContent || '').includes('matching'));
    if ((await page.textContent('#log')).includes('dashboard-marker hello-logs')) {
      marked = name;
      break;
    }
  }
  check(marked !== '', 'a search finds the task\'s line in its worker\'s log');
  await page.fill('#search-all', 'dashboard-marker');
  await page.click('#search-all-form button');
  await page.waitForFunction(() => document.querySelectorAll('table#matches tr').length >= 2);
  await page.waitForFunction(() => document.querySelectorAll('table#matches tr').length >= 3);
  const matches = await page.textContent('table#matches');
  check(matches.includes('dashboard-marker hello-logs') && matches.includes('dashboard-marker on-the-side'),
        'a search of every log of every node finds both nodes\' lines');
  await page.click('table#matches tr:has-text("on-the-side") a');
  await page.waitForFunction(
      () => (document.getElementById('log').textContent || '').includes('dashboard-marker on-the-side'));
  check(true, 'the second node\'s log, found by the search, opens in the page');
  await page.screenshot({ path: `${shots}/logs.png`, fullPage: true });

  await visit('Timeline');
  await page.waitForFunction(() => document.querySelectorAll('svg#timeline rect.box').length >= 5);
  check(true, 'the timeline draws a box per task');
  await page.screenshot({ path: `${shots}/timeline.png`, fullPage: true });

  await visit('Tune');
  await page.waitForFunction(() => document.querySelectorAll('table#trials tr').length === 3);
  check((await page.textContent('table#trials')).includes('TERMINATED'), 'the trials table fills');
  check((await page.textContent('#tensorboard')).startsWith('tensorboard --logdir ') &&
            (await page.textContent('table#trials')).includes('tensorboard --logdir '),
        'each trial shows its TensorBoard logdir');
  // Sorting by x (a config column): descending puts x = 3 first.
  const header = page.locator('table#trials th', { hasText: /^x/ });
  await header.click();
  await header.click();
  const firstX = await page.$eval('table#trials tr:nth-child(2)', (tr) => {
    const i = [...tr.parentElement.rows[0].cells].findIndex(c => c.textContent.startsWith('x'));
    return tr.cells[i].textContent;
  });
  check(firstX === '3', `the trials table sorts by a column (first x: ${firstX})`);
  await page.selectOption('#metric', 'loss');
  await page.waitForFunction(() => +(document.getElementById('tune-chart').dataset.points || 0) >= 4);
  const series = await page.$$eval('#tune-chart .u-legend tr.u-series', r => r.length);
  check(series === 3, `the chart has one line per trial (${series - 1})`);
  check(await bothDrawn(page, '#tune-chart canvas'), 'the Tune chart draws both trials');
  await page.selectOption('#x-axis', 'time_total_s');
  await page.waitForTimeout(300);
  check(await pixelsOf(page, '#tune-chart canvas', BLUE) > 50, 'the chart over time is drawn');
  await page.screenshot({ path: `${shots}/tune.png`, fullPage: true });

  check(errors.length === 0, `no script errors (${errors.join('; ')})`);
  console.log(`browser test passed in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
              `screenshots in ${shots}`);
} catch (e) {
  failed = true;
  console.error('FAILED: ' + e.message);
  try {
    const p = context.pages()[0];
    if (p) await p.screenshot({ path: `${shots}/failure.png`, fullPage: true });
  } catch {}
} finally {
  await context.close();
}
process.exit(failed ? 1 : 0);
