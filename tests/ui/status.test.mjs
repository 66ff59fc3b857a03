// Browser test of the status UI: starts `strata server` on free ports, loads a table
// through Thrift (happybase, tests/ui/load_data.py), opens the pages in headless Debian
// Chromium through playwright-core, checks that the table, its regions and non-zero
// request counts show, and saves screenshots in target/ui-artifacts/.
//
// Environment: STRATA_BIN (default target/debug/strata), PYTHON (default: the venv of
// scripts/python-env), CHROMIUM (default /usr/bin/chromium). Run through scripts/test, or:
//   scripts/browser-env && (cd tests/ui && node --test status.test.mjs)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const artifacts = path.join(root, 'target', 'ui-artifacts');
const TABLE = 'ui_demo';
const ROWS = 300;

let server, dataDir, base, browser, page;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts the server; resolves with the thrift and http addresses from its ready line. */
function startServer(bin, httpPort) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['server', '--data-dir', dataDir, '--thrift-port', '0',
      '--grpc-port', '0', '--http-port', String(httpPort)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no ready line in 60 s: ${out}`)), 60000);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const ready = out.match(/listening on thrift ([\d.]+):(\d+).*http ([\d.]+:\d+)/);
      if (ready) {
        clearTimeout(timer);
        resolve({ child, thriftHost: ready[1], thriftPort: ready[2], http: ready[3] });
      }
    });
  });
}

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  dataDir = mkdtempSync(path.join(tmpdir(), 'strata-ui-'));
  const bin = path.resolve(root, process.env.STRATA_BIN || 'target/debug/strata');
  const started = await startServer(bin, await freePort());
  server = started.child;
  base = `http://${started.http}`;
  const python = process.env.PYTHON
    || execFileSync(path.join(root, 'scripts', 'python-env'), { encoding: 'utf8' }).trim();
  const loaded = JSON.parse(execFileSync(python, [path.join(here, 'load_data.py'),
    started.thriftHost, started.thriftPort, TABLE, String(ROWS)], { encoding: 'utf8' }));
  assert.equal(loaded.scanned, ROWS);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
});

after(async () => {
  await browser?.close();
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The cells of the first row of the first table on the page whose first cell is `name`. */
async function rowCells(name) {
  return page.$$eval('table tr', (rows, wanted) => {
    for (const r of rows) {
      const cells = [...r.querySelectorAll('td')].map((c) => c.textContent.trim());
      if (cells[0] === wanted) return cells;
    }
    return null;
  }, name);
}

test('tables page lists the table with its region and request counts', async () => {
  const response = await page.goto(`${base}/ui/tables`);
  assert.equal(response.status(), 200);
  const cells = await rowCells(TABLE);
  assert.ok(cells, 'table row present');
  // Table, State, Families, Regions, Size, Memstore, Read requests, Write requests
  assert.equal(cells[1], 'enabled');
  assert.equal(cells[2], 'd, m');
  assert.ok(Number(cells[3]) >= 1, `regions ${cells[3]}`);
  assert.ok(Number(cells[6]) >= ROWS / 10, `read requests ${cells[6]}`);
  assert.ok(Number(cells[7]) > 0, `write requests ${cells[7]}`);
  const regionNames = await page.$$eval('td code', (c) => c.map((e) => e.textContent));
  assert.ok(regionNames.some((n) => n.startsWith(`${TABLE},`)), 'a region of the table is listed');
  await page.screenshot({ path: path.join(artifacts, 'tables.png'), fullPage: true });
});

test('table page shows the store files of each family', async () => {
  const response = await page.goto(`${base}/ui/tables/${TABLE}`);
  assert.equal(response.status(), 200);
  const text = await page.textContent('main');
  assert.match(text, /Family d: memstore [1-9]/, 'rewritten rows are in the memstore');
  assert.match(text, /Family m: memstore 0 B, [1-9]/, 'family m is all in files');
  // File, Volume, Size, Entries, Cell time range, Written by, Created
  const files = await page.$$eval('table tr', (rows) => rows
    .map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent.trim()))
    .filter((c) => c.length === 7 && c[0].endsWith('.sst')));
  assert.equal(files.length, 2, JSON.stringify(files));
  for (const f of files) {
    assert.equal(f[1], 'default');
    assert.equal(Number(f[3]), ROWS);
    assert.equal(f[5], 'compaction');
  }
  await page.goto(`${base}/ui/background`);
  assert.match(await page.textContent('main'), /major compaction/);
});

test('overview shows memory, volumes, request counts and live charts', async () => {
  await page.goto(`${base}/ui`);
  const text = await page.textContent('main');
  assert.match(text, /Memstores \(limit/);
  assert.match(text, /Block cache \(capacity/);
  assert.match(text, /Effective configuration/);
  const get = await rowCells('get');
  assert.ok(get && Number(get[1]) >= ROWS / 10, `get requests ${get}`);
  const mutate = await rowCells('mutate');
  assert.ok(mutate && Number(mutate[1]) > 0, `mutate requests ${mutate}`);
  const volume = await rowCells('default');
  assert.ok(volume, 'the data volume is listed');
  // The charts fill from the once-a-second sampler; wait for lines to be drawn.
  await page.waitForSelector('#chart-rate polyline', { timeout: 15000 });
  await page.waitForSelector('#chart-latency polyline', { timeout: 15000 });
  await page.screenshot({ path: path.join(artifacts, 'status.png'), fullPage: true });
});

test('JSON API answers what the pages show', async () => {
  const tables = await (await fetch(`${base}/api/v1/tables`)).json();
  const demo = tables.find((t) => t.name === TABLE);
  assert.ok(demo && demo.write_requests > 0 && demo.read_requests > 0);
  const metrics = await (await fetch(`${base}/metrics`)).text();
  assert.match(metrics, /^strata_requests_total\{operation="get"\} [1-9]/m);
  assert.equal((await fetch(`${base}/readyz`)).status, 200);
});
