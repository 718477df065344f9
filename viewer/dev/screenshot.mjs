// A screenshot of an exported viewer page, as the README shows it:
//   node dev/screenshot.mjs PAGE.html OUT.png [colour mode] [x,y,z camera] [x,y,z target]
// (from viewer/, after npm ci). Headless Chromium with software GL, 1280x720.
import { chromium } from 'playwright-core';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [page_file, out, mode = 'range_error', position, target] = process.argv.slice(2);
if (!page_file || !out) {
  console.error('usage: node dev/screenshot.mjs PAGE.html OUT.png [mode] [x,y,z] [x,y,z]');
  process.exit(2);
}
const triple = (text) => text.split(',').map(Number);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(pathToFileURL(resolve(page_file)).href);
  await page.evaluate(() => window.lidartwinViewer.ready);
  await page.evaluate(({ mode, position, target }) => {
    const v = window.lidartwinViewer;
    v.setColourBy(mode);
    v.setPointSize(2);
    if (position) v.setCamera({ position, target: target || [0, 0, 0], up: [0, 0, 1] });
    v.renderNow();
  }, { mode, position: position && triple(position), target: target && triple(target) });
  await page.screenshot({ path: out });
} finally {
  await browser.close();
}
