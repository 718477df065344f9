// Drives the viewer on the synthetic document through its controller and the mouse and
// keyboard, checks what it shows against the document, and saves screenshots under /tmp.
//   node dev/smoke.mjs      (from viewer/); exits non-zero on the first failed check
import { chromium } from 'playwright-core';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import assert from 'node:assert/strict';
import { buildAll } from './build.mjs';

const here = dirname(fileURLToPath(import.meta.url));

await buildAll();
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});
const problems = [];
const check = (name, fn) => fn().then(() => console.log(`ok   ${name}`));
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => problems.push(`console ${m.type()}: ${m.text()}`));
  await page.goto(pathToFileURL(join(here, 'index.html')).href);
  await page.evaluate(() => window.lidartwinViewer.ready);
  const v = (fn, arg) => page.evaluate(fn, arg);

  await check('ready state and counts', async () => {
    const s = await v(() => window.lidartwinViewer.state());
    assert.deepEqual(s, { status: 'ready', error: null, frame: 0, layout: 'side-by-side',
      colourBy: 'intensity', pointSize: 1 });
    const c = await v(() => [window.lidartwinViewer.counts(), window.syntheticDocument.frames[0].real.count]);
    assert.equal(c[0].real, c[1]);
    const text = await page.locator('.ltv-count[data-side="real"]').textContent();
    assert.equal(text, `real: ${c[1].toLocaleString('en-US')} points`);
  });

  await check('every colour mode colours every point', async () => {
    const r = await v(() => {
      const ctl = window.lidartwinViewer;
      ctl.setLayout('overlay');
      const out = {};
      for (const mode of ['intensity', 'range', 'range_error', 'material', 'semantic', 'instance',
        'return_index', 'agreement', 'source']) {
        ctl.setColourBy(mode);
        out[mode] = ['real', 'sim'].map((s) => ctl.pointColours(s).length);
      }
      ctl.setLayout('side-by-side');
      out.after = ctl.state().colourBy;
      return out;
    });
    assert.equal(r.after, 'agreement', "leaving overlay drops 'source'");
    await assert.rejects(v(() => window.lidartwinViewer.setColourBy('source')));
  });

  await check('range error: unpaired points are exactly those with partner -1', async () => {
    const bad = await v(() => {
      const ctl = window.lidartwinViewer;
      ctl.setColourBy('range_error');
      const frame = window.syntheticDocument.frames[0];
      let mismatches = 0;
      for (const side of ['real', 'sim']) {
        const colours = ctl.pointColours(side), only = ctl.colourOf(`${side} only`);
        frame[side].partner.forEach((j, i) => { if ((colours[i] === only) !== (j === -1)) mismatches++; });
      }
      return mismatches;
    });
    assert.equal(bad, 0);
  });

  await check('material: the real side has none and is grey', async () => {
    const r = await v(() => {
      const ctl = window.lidartwinViewer;
      ctl.setColourBy('material');
      return { grey: ctl.pointColours('real').every((c) => c === ctl.colourOf('no data')) };
    });
    assert.ok(r.grey);
    assert.match(await page.locator('.ltv-legend').textContent(), /real: no material data/);
    await page.screenshot({ path: '/tmp/ltv-material.png' });
  });

  await check('dragging the left view moves both cameras', async () => {
    const before = await v(() => window.lidartwinViewer.cameraState('sim'));
    await page.mouse.move(300, 400);
    await page.mouse.down();
    await page.mouse.move(360, 380, { steps: 5 });
    await page.mouse.up();
    const [real, sim] = await v(() => ['real', 'sim'].map((s) => window.lidartwinViewer.cameraState(s)));
    assert.notDeepEqual(sim.position, before.position);
    assert.deepEqual(sim, real);
    await page.keyboard.press('r');
    assert.deepEqual(await v(() => window.lidartwinViewer.cameraState('sim')), before);
  });

  await check('keys 1-9 choose colour modes', async () => {
    await page.keyboard.press('2');
    assert.equal((await v(() => window.lidartwinViewer.state())).colourBy, 'range');
  });

  await check('clicking a point shows it, its partner and the errors', async () => {
    await v(() => window.lidartwinViewer.setColourBy('range_error'));
    let info = null;
    for (let y = 600; y > 300 && !info; y -= 7) {
      info = await v(([x, y]) => window.lidartwinViewer.pickAt(x, y), [240, y]);
      if (info && !info.partner) info = null;
    }
    assert.ok(info, 'no paired point found under the probe line');
    const expected = await v((i) => {
      const f = window.syntheticDocument.frames[0];
      const j = f[i.side].partner[i.index];
      return { partner: j, range: f[i.side].range[i.index] };
    }, info.point);
    assert.equal(info.partner.index, expected.partner);
    assert.equal(info.point.range, expected.range);
    const real = info.point.side === 'real' ? info.point : info.partner;
    const sim = info.point.side === 'real' ? info.partner : info.point;
    assert.ok(Math.abs(info.errors.range_m - (sim.range - real.range)) < 1e-9);
    assert.equal(info.errors.intensity, null, 'counts vs percent: no intensity error');
    assert.match(await page.locator('.ltv-info').textContent(), /range error/);
  });

  await check('frame slider and frames', async () => {
    const r = await v(() => {
      const ctl = window.lidartwinViewer;
      ctl.setFrame(1);
      return [ctl.state().frame, ctl.counts().real, window.syntheticDocument.frames[1].real.count];
    });
    assert.deepEqual(r.slice(0, 2), [1, r[2]]);
    assert.match(await page.locator('.ltv-frame-label').textContent(), /frame 1 \(real 1 \/ sim 1\)/);
    await assert.rejects(v(() => window.lidartwinViewer.setFrame(2)));
  });

  await check('overlay, range error, a picked point: screenshot', async () => {
    await v(() => {
      const ctl = window.lidartwinViewer;
      ctl.setFrame(0);
      ctl.setLayout('overlay');
      ctl.setColourBy('range_error');
      ctl.setPointSize(2);
    });
    for (let y = 560; y > 300; y -= 9) {
      const info = await v(([x, y]) => window.lidartwinViewer.pickAt(x, y), [560, y]);
      if (info?.partner) break;
    }
    await v(() => window.lidartwinViewer.renderNow());
    await page.screenshot({ path: '/tmp/ltv-overlay-error.png' });
  });

  await check('a sparse document: one frame, an empty side, no intensity, no ROIs', async () => {
    const r = await v(async () => {
      const n = 500;
      const cloud = (count, withIntensity) => ({
        count,
        position: Float32Array.from({ length: 3 * count }, (_, k) => (k % 3 === 2 ? 0 : 2 + (k % 7))),
        range: Float32Array.from({ length: count }, (_, i) => 2 + (i % 7)),
        intensity: withIntensity ? new Float32Array(count).fill(10) : null,
        reflectance: null, channel: null, column: null, time: null, return_index: null,
        material: null, instance: null, semantic: null,
        partner: new Int32Array(count).fill(-1),
        index_in_file: Uint32Array.from({ length: count }, (_, i) => i),
      });
      const doc = {
        version: 1, title: 'sparse',
        real: { file: 'a', reader: '', sensor: '', intensity_unit: '' },
        sim: { file: 'b', reader: '', sensor: '', intensity_unit: 'percent' },
        association: { method: 'nearest', reason: '' }, materials: [], semantic_classes: [], notes: [],
        frames: [{ label: 'only', real_index: 0, sim_index: 0, real: cloud(0, true), sim: cloud(n, false),
          rois: [], left_out: { real: 0, sim: 0 } }],
      };
      const div = document.createElement('div');
      div.style.cssText = 'width: 900px; height: 500px';
      document.body.append(div);
      const ctl = window.LidartwinViewer.mount(div, { document: doc });
      await ctl.ready;
      const modes = ['intensity', 'range', 'range_error', 'material', 'semantic', 'instance',
        'return_index', 'agreement'];
      const out = {};
      for (const mode of modes) {
        ctl.setColourBy(mode);
        ctl.renderNow();
        out[mode] = div.querySelector('.ltv-legend').textContent;
      }
      out.sliderHidden = div.querySelector('.ltv-frames').hidden;
      ctl.setColourBy('range_error');
      out.unpaired = ctl.pointColours('sim').every((c) => c === ctl.colourOf('sim only'));
      ctl.dispose();
      return out;
    });
    assert.match(r.intensity, /sim: no intensity/);
    assert.match(r.semantic, /real: no semantic data.*sim: no semantic data/);
    assert.ok(r.sliderHidden, 'one frame: no slider');
    assert.ok(r.unpaired, 'nothing paired: every sim point is "sim only" in range-error mode');
  });

  await check('several viewers on one page, and a failing one', async () => {
    const r = await v(async () => {
      const make = (doc) => {
        const div = document.createElement('div');
        div.style.cssText = 'width: 600px; height: 400px';
        document.body.append(div);
        return window.LidartwinViewer.mount(div, { document: doc });
      };
      const good = make(window.syntheticDocument);
      const bad = make(null);
      await good.ready;
      const failure = await bad.ready.then(() => 'resolved', (e) => e.message);
      const out = { good: good.state().status, bad: bad.state(), failure,
        first: window.lidartwinViewer !== good && window.lidartwinViewer !== bad };
      good.dispose();
      return out;
    });
    assert.equal(r.good, 'ready');
    assert.equal(r.bad.status, 'error');
    assert.equal(r.failure, r.bad.error);
    assert.ok(r.first, 'window.lidartwinViewer stays the first viewer');
    // #ltv-error is the first viewer's (ids are unique); the failing viewer shows its own box.
    assert.match(await page.locator('.ltv-error:visible').textContent(), /no document/);
  });
} finally {
  await browser.close();
}

await check('without WebGL the page says so in #ltv-error', async () => {
  const noGl = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--disable-3d-apis'] });
  try {
    const page = await noGl.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(pathToFileURL(join(here, 'index.html')).href);
    const failure = await page.evaluate(() => window.lidartwinViewer.ready.then(() => null, (e) => e.message));
    assert.match(failure, /WebGL/);
    assert.ok(await page.locator('#ltv-error').isVisible());
    assert.equal((await page.evaluate(() => window.lidartwinViewer.state())).status, 'error');
  } finally {
    await noGl.close();
  }
});
assert.deepEqual(problems, [], 'console output or page errors');
console.log('all checks passed');
