// Frame rate of the viewer in headless Chromium with software GL (the CI setting): loads
// dev/index.html from file://, waits for the first frame, runs the controller's benchmark in
// both layouts at point sizes 1 and 2, prints JSON and saves screenshots under /tmp.
//   node dev/bench.mjs [seconds]      (from viewer/)
import { chromium } from 'playwright-core';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { buildAll } from './build.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.argv[2] ?? 5);

await buildAll();
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => problems.push(`console ${m.type()}: ${m.text()}`));
  await page.goto(pathToFileURL(join(here, 'index.html')).href);
  await page.evaluate(() => window.lidartwinViewer.ready);

  const results = [];
  for (const layout of ['side-by-side', 'overlay']) {
    for (const pointSize of [1, 2]) {
      const r = await page.evaluate(async ([layout, pointSize, seconds]) => {
        const v = window.lidartwinViewer;
        v.setLayout(layout);
        v.setPointSize(pointSize);
        const counts = v.counts();
        return { layout, pointSize, real: counts.real, sim: counts.sim, ...(await v.benchmark(seconds)) };
      }, [layout, pointSize, seconds]);
      results.push(r);
    }
  }
  await page.evaluate(() => {
    const v = window.lidartwinViewer;
    v.setLayout('side-by-side');
    v.setPointSize(1);
    v.renderNow();
  });
  await page.screenshot({ path: '/tmp/ltv-side-by-side.png' });
  console.log(JSON.stringify({ results, problems }, null, 2));
} finally {
  await browser.close();
}
