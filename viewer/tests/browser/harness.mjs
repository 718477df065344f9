// What every browser test shares: Debian's Chromium driven by playwright-core (never a
// downloaded browser), the CLI under test, the data make_test_data.sh made, and the controller
// the page exposes as window.lidartwinViewer (viewer/js/main.js).
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const env = (name) => {
  const value = process.env[name];
  if (!value) fail(`environment variable ${name} is not set (ctest sets it)`);
  return value;
};

export const cli = () => env('LT_CLI');
export const data = (file = '') => path.join(env('LT_TEST_DATA'), file);
export const source = (file = '') => path.join(env('LT_SOURCE_DIR'), file);

// ESM import does not honour NODE_PATH: the npm packages live in the build tree.
const requireFromBuild = createRequire(path.join(env('LT_NODE_MODULES'), 'noop.js'));
const { chromium } = requireFromBuild('playwright-core');

export function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}

export function check(condition, message) {
  if (!condition) fail(message);
  console.log(`ok: ${message}`);
}

// CPU rendering in the browser: SwiftShader's WebGL shows the splatted points (the page does
// not need a GPU), as on the 2-core CI machine.
export async function launch() {
  return chromium.launch({
    executablePath: process.env.LT_CHROMIUM || '/usr/bin/chromium',
    args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
}

export async function openPage(browser, url, { width = 1280, height = 720 } = {}) {
  const page = await browser.newPage({ viewport: { width, height } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console error: ${m.text()}`));
  page.problems = problems;
  await page.goto(url);
  return page;
}

export const fileUrl = (file) => pathToFileURL(file).href;

// Waits for the controller's first drawn frame; returns its state.
export async function ready(page, timeout = 60000) {
  await page.waitForFunction(() => window.lidartwinViewer, null, { timeout });
  await page.evaluate(() => window.lidartwinViewer.ready.catch(() => {}));
  return page.evaluate(() => window.lidartwinViewer.state());
}

export function runCli(args, options = {}) {
  return spawnSync(cli(), args, { encoding: 'utf8', ...options });
}

// `lidartwin view` serving on a free port; resolves with {process, url, stderr()} once it
// prints its address.
export function serve(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cli(), ['view', ...args, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      stdout += d;
      const m = stdout.match(/serving (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (m) resolve({ process: child, url: m[1], stderr: () => stderr });
    });
    child.on('exit', (code) => reject(new Error(`view exited with ${code}: ${stderr}`)));
    // unref: a pending timer must not keep the test alive once the server answered.
    setTimeout(() => reject(new Error(`view printed no address in 60 s: ${stderr}`)), 60000).unref();
  });
}

// Per frame, the point counts `lidartwin info --json` gives: from a file make_test_data.sh
// wrote, or from `produce()` (the JSON text) when it is given.
export function frameCounts(infoFile, produce) {
  const info = JSON.parse(produce ? produce() : readFileSync(infoFile, 'utf8'));
  return info.frames.map((f) => f.points);
}

// pairs.csv (compare --pairs): per pair position, the file indices of real-only and sim-only
// points and the paired ones.
export function readPairs(file) {
  const byPair = new Map();
  const lines = readFileSync(file, 'utf8').trim().split('\n').slice(1);
  for (const line of lines) {
    const [pair, , , real, sim] = line.split(',');
    if (!byPair.has(+pair)) byPair.set(+pair, { realOnly: new Set(), simOnly: new Set(), real: new Set(), sim: new Set() });
    const p = byPair.get(+pair);
    if (real !== '' && sim !== '') {
      p.real.add(+real);
      p.sim.add(+sim);
    } else if (real !== '') p.realOnly.add(+real);
    else p.simOnly.add(+sim);
  }
  return byPair;
}
