// Frame rate of the viewer in headless Chromium with software GL (the CI setting): loads
// dev/index.html from file://, waits for the first frame, runs the controller's benchmark in
// both layouts at point sizes 1 and 2, prints JSON and saves a screenshot under /tmp.
// Two settings: the page at 1280x720 as a user sees it (toolbar and side panel take part of it),
// then the panel hidden and the window grown so that the views themselves are 1280x720.
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
  const measure = async (setting) => {
    for (const layout of ['side-by-side', 'overlay']) {
      for (const pointSize of [1, 2]) {
        results.push(await page.evaluate(async ([setting, layout, pointSize, seconds]) => {
          const v = window.lidartwinViewer;
          v.setLayout(layout);
          v.setPointSize(pointSize);
          const { real, sim } = v.counts();
          return { setting, layout, pointSize, real, sim, ...(await v.benchmark(seconds)) };
        }, [setting, layout, pointSize, seconds]));
      }
    }
  };
  await measure('page 1280x720');
  await page.evaluate(() => {
    const v = window.lidartwinViewer;
    v.setLayout('side-by-side');
    v.setPointSize(1);
    v.renderNow();
  });
  await page.screenshot({ path: '/tmp/ltv-bench.png' });
  await page.click('.ltv-panel-toggle');
  const stageHeight = await page.evaluate(() => document.querySelector('.ltv-stage').clientHeight);
  await page.setViewportSize({ width: 1280, height: 720 + (720 - stageHeight) });
  await measure('views 1280x720');

  console.log(JSON.stringify({ results, problems }, null, 2));
} finally {
  await browser.close();
}
