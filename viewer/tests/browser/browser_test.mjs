// The viewer in headless Chromium (issue 13). usage: node browser_test.mjs CASE
//   counts       the exported page shows every frame's point counts, as the files hold them
//   server       lidartwin view serves the same, and reloads after the files change
//   cameras      orbiting, panning or zooming one view moves the other the same way
//   agreement    colour by range error and by agreement mark exactly compare --pairs's
//                real-only and sim-only points
//   screenshot   a fixed view matches viewer/tests/reference/room_range.png within tolerance
//   errors       a missing file, mismatched frame counts, an unreadable file: clear messages on
//                the command line and on the page
//   report       report.html embeds the viewer with the worst frame pair
//   frame-rate   a full OS0-128 frame a side, orbiting: frames per second (recorded)
//   real-recording  a real Ouster capture (../shared/real-data) against its reproduction:
//                exported, served, and in reproduce's report
import { readFileSync, writeFileSync, existsSync, mkdirSync, copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import * as h from './harness.mjs';

const SKIP = 77; // ctest's SKIP_RETURN_CODE for this test

const cases = {
  async counts(browser) {
    const page = await h.openPage(browser, h.fileUrl(h.data('viewer.html')));
    const state = await h.ready(page);
    h.check(state.status === 'ready', `the exported page is ready (${state.error || state.status})`);
    await expectCounts(page, h.frameCounts(h.data('real_info.json')), h.frameCounts(h.data('sim_info.json')));
    h.check(page.problems.length === 0, `no page errors (${page.problems.join('; ')})`);
  },

  async server(browser) {
    const dir = h.data('server');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    copyFileSync(h.data('real.h5'), path.join(dir, 'real.h5'));
    copyFileSync(h.data('sim.h5'), path.join(dir, 'sim.h5'));
    const server = await h.serve(['--real', path.join(dir, 'real.h5'), '--sim', path.join(dir, 'sim.h5')]);
    try {
      const page = await h.openPage(browser, server.url);
      const state = await h.ready(page);
      h.check(state.status === 'ready', `the served page is ready (${state.error || state.status})`);
      await expectCounts(page, h.frameCounts(h.data('real_info.json')), h.frameCounts(h.data('sim_info.json')));
      // A new simulation written over the old one: the reloaded page shows it.
      copyFileSync(h.data('real.h5'), path.join(dir, 'sim.h5'));
      await page.reload();
      await h.ready(page);
      await expectCounts(page, h.frameCounts(h.data('real_info.json')), h.frameCounts(h.data('real_info.json')));
    } finally {
      server.process.kill('SIGINT');
    }
  },

  async cameras(browser) {
    const page = await h.openPage(browser, h.fileUrl(h.data('viewer.html')));
    await h.ready(page);
    const cam = (side) => page.evaluate((s) => window.lidartwinViewer.cameraState(s), side);
    const same = (a, b) => ['position', 'target', 'up'].every((k) => a[k].every((v, i) => Math.abs(v - b[k][i]) < 1e-6));
    const box = await page.locator('canvas').first().boundingBox();
    const before = await cam('real');
    for (const [name, x0, button, modifier] of [
      ['orbit in the real view', 0.25, 'left', null],
      ['orbit in the simulated view', 0.75, 'left', null],
      ['pan in the real view', 0.25, 'right', null],
    ]) {
      const x = box.x + box.width * x0;
      const y = box.y + box.height * 0.5;
      await page.mouse.move(x, y);
      await page.mouse.down({ button });
      for (let i = 1; i <= 10; i++) await page.mouse.move(x + 8 * i, y + 4 * i);
      await page.mouse.up({ button });
      const real = await cam('real');
      const sim = await cam('sim');
      h.check(same(real, sim), `${name}: both cameras agree`);
      h.check(!same(real, before), `${name}: the camera moved`);
      Object.assign(before, real);
    }
    await page.mouse.move(box.x + box.width * 0.75, box.y + box.height * 0.5);
    await page.mouse.wheel(0, 400);
    await page.waitForTimeout(300);
    const real = await cam('real');
    const sim = await cam('sim');
    h.check(same(real, sim) && !same(real, before), 'zoom in the simulated view moves both cameras');
  },

  async agreement(browser) {
    const page = await h.openPage(browser, h.fileUrl(h.data('viewer.html')));
    await h.ready(page);
    const pairs = h.readPairs(h.data('pairs.csv'));
    for (const mode of ['range_error', 'agreement']) {
      for (const k of [0, 1]) {
        const result = await page.evaluate(
          ({ mode, k }) => {
            const v = window.lidartwinViewer;
            v.setFrame(k);
            v.setColourBy(mode);
            const frame = v.document().frames[k];
            const out = {};
            for (const side of ['real', 'sim']) {
              const colours = v.pointColours(side);
              const only = v.colourOf(side === 'real' ? 'real only' : 'sim only');
              const marked = [];
              for (let i = 0; i < colours.length; i++) if (colours[i] === only) marked.push(frame[side].index_in_file[i]);
              out[side] = { marked, count: colours.length };
            }
            return out;
          },
          { mode, k },
        );
        const truth = pairs.get(k);
        for (const [side, expected] of [['real', truth.realOnly], ['sim', truth.simOnly]]) {
          const marked = new Set(result[side].marked);
          const missing = [...expected].filter((i) => !marked.has(i)).length;
          const extra = [...marked].filter((i) => !expected.has(i)).length;
          h.check(
            missing === 0 && extra === 0 && expected.size > 0,
            `${mode}, frame pair ${k}: the ${expected.size} ${side}-only points of compare --pairs are exactly the ${marked.size} the page marks (missing ${missing}, extra ${extra})`,
          );
        }
      }
    }
    const metrics = JSON.parse(readFileSync(h.data('metrics.json'), 'utf8'));
    let realOnly = 0;
    let simOnly = 0;
    for (const p of pairs.values()) {
      realOnly += p.realOnly.size;
      simOnly += p.simOnly.size;
    }
    h.check(realOnly === metrics.returns.real_only && simOnly === metrics.returns.sim_only,
      `the table's unpaired points are the metrics' (${realOnly} real only, ${simOnly} sim only)`);
  },

  async screenshot(browser) {
    const page = await h.openPage(browser, h.fileUrl(h.data('viewer.html')), { width: 960, height: 540 });
    await h.ready(page);
    await page.evaluate(() => {
      const v = window.lidartwinViewer;
      v.setFrame(0);
      v.setColourBy('range');
      v.setPointSize(2);
      v.setCamera({ position: [-9, -7, 9], target: [2, 0, -1], up: [0, 0, 1] });
      v.renderNow();
    });
    const canvas = page.locator('canvas').first();
    const shot = await canvas.screenshot();
    const reference = h.source('viewer/tests/reference/room_range.png');
    if (process.env.LT_UPDATE_REFERENCE === '1' || !existsSync(reference)) {
      writeFileSync(reference, shot);
      h.fail(`wrote ${reference}; look at it, commit it and run again`);
    }
    // Pixels are compared in the page itself (no PNG library): share of pixels whose largest
    // channel difference exceeds 24 of 255.
    const diff = await page.evaluate(async ({ a, b }) => {
      const load = async (b64) => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const c = document.createElement('canvas');
        c.width = img.width;
        c.height = img.height;
        const g = c.getContext('2d');
        g.drawImage(img, 0, 0);
        return g.getImageData(0, 0, c.width, c.height);
      };
      const x = await load(a);
      const y = await load(b);
      if (x.width !== y.width || x.height !== y.height) return { size: `${x.width}x${x.height} vs ${y.width}x${y.height}` };
      let differing = 0;
      for (let i = 0; i < x.data.length; i += 4) {
        let d = 0;
        for (let c = 0; c < 3; c++) d = Math.max(d, Math.abs(x.data[i + c] - y.data[i + c]));
        if (d > 24) differing++;
      }
      return { fraction: differing / (x.width * x.height) };
    }, { a: shot.toString('base64'), b: readFileSync(reference).toString('base64') });
    h.check(diff.size === undefined, `screenshot and reference have one size (${diff.size || ''})`);
    h.check(diff.fraction <= 0.01, `at most 1 % of pixels differ from the reference (${(100 * diff.fraction).toFixed(3)} %)`);
  },

  async errors(browser) {
    const missing = h.data('no-such-file.h5');
    let r = h.runCli(['view', '--real', missing, '--sim', h.data('sim.h5'), '--export', h.data('x.html')]);
    h.check(r.status === 1 && r.stderr.includes(missing), `export with a missing file: exit 1 naming it (${r.stderr.trim()})`);
    h.check(!existsSync(h.data('x.html')), 'no page is written when a file is missing');
    r = h.runCli(['view', '--real', h.data('real.h5'), '--sim', h.data('full.h5'), '--export', h.data('x.html')]);
    h.check(r.status === 1 && /2 frame\(s\).*1|frames are compared pairwise/.test(r.stderr),
      `export with 2 real frames and 1 simulated: exit 1 explaining it (${r.stderr.trim()})`);
    const corrupt = h.data('corrupt.h5');
    writeFileSync(corrupt, 'this is not an HDF5 file');
    r = h.runCli(['view', '--real', corrupt, '--sim', h.data('sim.h5'), '--export', h.data('x.html')]);
    h.check(r.status === 1 && r.stderr.includes(corrupt), `export with an unreadable file: exit 1 naming it (${r.stderr.trim()})`);
    r = h.runCli(['view', '--real', h.data(), '--sim', h.data('sim.h5'), '--export', h.data('x.html')]);
    h.check(r.status === 1 && r.stderr.includes(h.data()), `export with a directory as a file: exit 1 naming it (${r.stderr.trim()})`);

    // A page cut short (a truncated copy): in its data, the decoder says the data is damaged;
    // in its script, the page's guard says the page is incomplete.
    const page_text = readFileSync(h.data('viewer.html'));
    for (const [what, fraction, expected] of [['data', 0.9, 'damaged'], ['script', 0.1, 'incomplete or damaged']]) {
      const cut = h.data(`cut-in-${what}.html`);
      writeFileSync(cut, page_text.subarray(0, Math.floor(page_text.length * fraction)));
      const page = await h.openPage(browser, h.fileUrl(cut));
      await page.waitForLoadState('load');
      await page.waitForFunction((t) => document.body && document.body.innerText.includes(t), expected, { timeout: 30000 })
        .catch(() => {});
      const text = await page.innerText('body');
      h.check(text.includes(expected), `a page cut short in its ${what} says it is ${expected} (${text.trim().slice(0, 120)})`);
    }

    for (const [what, args, expected] of [
      ['a missing file', ['--real', missing, '--sim', h.data('sim.h5')], missing],
      ['mismatched frame counts', ['--real', h.data('real.h5'), '--sim', h.data('full.h5')], 'frames are compared pairwise'],
      ['an unreadable file', ['--real', corrupt, '--sim', h.data('sim.h5')], corrupt],
    ]) {
      const server = await h.serve(args);
      try {
        h.check(server.stderr().includes(expected), `serving with ${what}: the command line says so (${server.stderr().trim()})`);
        const page = await h.openPage(browser, server.url);
        const state = await h.ready(page);
        const shown = await page.locator('#ltv-error').innerText();
        h.check(state.status === 'error' && shown.includes(expected), `serving with ${what}: the page says so (${shown})`);
        if (what === 'a missing file') {
          // The file appears (a simulation finished): a reload shows it, no restart.
          copyFileSync(h.data('sim.h5'), missing);
          await page.reload();
          const again = await h.ready(page);
          rmSync(missing);
          h.check(again.status === 'ready', `the file created, a reload shows the comparison (${again.error || again.status})`);
        }
      } finally {
        server.process.kill('SIGINT');
      }
    }
  },

  async report(browser) {
    const metrics = JSON.parse(readFileSync(h.data('metrics.json'), 'utf8'));
    const agreement = (f) => f.both / (f.real_points + f.sim_points - f.both);
    const worst = [...metrics.per_frame].sort((a, b) => agreement(a) - agreement(b))[0];
    const page = await h.openPage(browser, h.fileUrl(h.data('report/report.html')));
    const state = await h.ready(page);
    h.check(state.status === 'ready', `the report's viewer is ready (${state.error || state.status})`);
    const counts = await page.evaluate(() => window.lidartwinViewer.counts());
    h.check(counts.real === worst.real_points && counts.sim === worst.sim_points,
      `it shows the worst frame pair (${counts.real}/${counts.sim} points, expected ${worst.real_points}/${worst.sim_points})`);
  },

  async 'frame-rate'(browser) {
    const page = await h.openPage(browser, h.fileUrl(h.data('full.html')));
    await h.ready(page);
    const counts = await page.evaluate(() => window.lidartwinViewer.counts());
    const results = { points: counts, runs: [] };
    for (const layout of ['side-by-side', 'overlay']) {
      for (const size of [1, 2]) {
        const r = await page.evaluate(async ({ layout, size }) => {
          const v = window.lidartwinViewer;
          v.setLayout(layout);
          v.setPointSize(size);
          return v.benchmark(4);
        }, { layout, size });
        results.runs.push({ layout, point_size: size, ...r });
        console.log(`${layout}, ${size} px points: ${r.fps.toFixed(1)} frames/s (${r.ms_per_frame.toFixed(1)} ms a frame, ${r.width}x${r.height})`);
      }
    }
    writeFileSync(h.data('frame_rate.json'), JSON.stringify(results, null, 2));
    // The target (>= 30) is measured and recorded (bench/RESULTS.md), not gated: ctest runs
    // other tests beside this one. A page that cannot reach 5 is broken.
    h.check(results.runs.every((r) => r.fps >= 5), 'every layout renders at 5 frames/s or more');
  },
};

cases['real-recording'] = async (browser) => {
  const shared = process.env.LT_REAL_DATA_DIR;
  const dir = shared && path.join(shared, 'ouster-sdk');
  if (!dir || !existsSync(dir)) {
    console.log(`SKIP: no shared real data at ${shared || '(LT_REAL_DATA_DIR unset)'}; CI has it`);
    process.exit(SKIP);
  }
  const pcap = path.join(dir, 'OS-1-128_v2.3.0_1024x10_lb_n3.pcap');
  const meta = path.join(dir, 'OS-1-128_v2.3.0_1024x10.json');
  const poses = path.join(dir, 'OS-1-128_v2.3.0_1024x10_lb_n3_poses_kitti.txt');
  const out = h.data('reproduce');
  rmSync(out, { recursive: true, force: true });
  let r = h.runCli(['reproduce', '--recording', pcap, '--metadata', meta, '--poses', poses,
    '--pose-at', 'end', '--simulate-frame', '1', '--out', out]);
  h.check(r.status === 0, `reproduce of frame 1 (${r.stderr.trim().split('\n').pop()})`);
  r = h.runCli(['convert', pcap, '--metadata', meta, '--out', h.data('os1.h5')]);
  h.check(r.status === 0, 'the capture converted for its point counts');
  const realCount = h.frameCounts(h.data('os1.h5.info.json'), () =>
    h.runCli(['info', h.data('os1.h5'), '--json']).stdout)[1];
  const simCount = h.frameCounts(h.data('sim.info.json'), () =>
    h.runCli(['info', path.join(out, 'sim.h5'), '--json']).stdout)[0];
  const args = ['--real', pcap, '--real-metadata', meta, '--real-frames', '1', '--sim', path.join(out, 'sim.h5')];

  r = h.runCli(['view', ...args, '--export', h.data('os1.html')]);
  h.check(r.status === 0, `export: ${r.stdout.trim()}`);
  let page = await h.openPage(browser, h.fileUrl(h.data('os1.html')));
  let state = await h.ready(page);
  h.check(state.status === 'ready', `the exported real-recording page is ready (${state.error || state.status})`);
  await expectCounts(page, [realCount], [simCount]);

  const server = await h.serve(args);
  try {
    page = await h.openPage(browser, server.url);
    state = await h.ready(page);
    h.check(state.status === 'ready', `the served real-recording page is ready (${state.error || state.status})`);
    await expectCounts(page, [realCount], [simCount]);
  } finally {
    server.process.kill('SIGINT');
  }

  // The page's pairs carry compare's errors: the mean signed range and intensity errors over
  // them equal metrics.json's (to the page's 1 mm and 12-bit rounding), and reproduce's
  // comparison had no regions of interest, so neither has the page.
  const metrics0 = JSON.parse(readFileSync(path.join(out, 'metrics.json'), 'utf8'));
  const means = await page.evaluate(() => {
    const f = window.lidartwinViewer.document().frames[0];
    let n = 0, range = 0, intensity = 0;
    for (let i = 0; i < f.real.count; i++) {
      const j = f.real.partner[i];
      if (j < 0) continue;
      n++;
      range += f.sim.range[j] - f.real.range[i];
      intensity += f.sim.intensity[j] - f.real.intensity[i];
    }
    return { n, range: range / n, intensity: intensity / n, rois: f.rois.length };
  });
  h.check(means.n === metrics0.returns.both, `the page pairs ${means.n} points, compare ${metrics0.returns.both}`);
  h.check(Math.abs(means.range - metrics0.depth_m.signed.mean) < 1e-3,
    `mean range error ${means.range.toFixed(5)} m on the page, ${metrics0.depth_m.signed.mean.toFixed(5)} m in metrics.json`);
  h.check(Math.abs(means.intensity - metrics0.intensity.signed.mean) < 0.01 + 0.001 * Math.abs(metrics0.intensity.signed.mean),
    `mean intensity error ${means.intensity.toFixed(3)} on the page, ${metrics0.intensity.signed.mean.toFixed(3)} in metrics.json`);
  h.check(means.rois === 0, 'no regions of interest, as reproduce compared none');

  // reproduce's own report embeds the viewer on what it compared (beyond its minimum range).
  const metrics = JSON.parse(readFileSync(path.join(out, 'metrics.json'), 'utf8'));
  page = await h.openPage(browser, h.fileUrl(path.join(out, 'report', 'report.html')));
  state = await h.ready(page);
  const shown = await page.evaluate(() => window.lidartwinViewer.counts());
  h.check(state.status === 'ready' && shown.real === metrics.real_points && shown.sim === metrics.sim_points,
    `reproduce's report shows the compared frame (${shown.real}/${shown.sim} points, metrics ${metrics.real_points}/${metrics.sim_points})`);
};

async function expectCounts(page, real, sim) {
  h.check(real.length === sim.length, `${real.length} frames a side`);
  for (let k = 0; k < real.length; k++) {
    const shown = await page.evaluate((k) => {
      window.lidartwinViewer.setFrame(k);
      return window.lidartwinViewer.counts();
    }, k);
    h.check(shown.real === real[k] && shown.sim === sim[k],
      `frame ${k}: the page shows ${shown.real} real and ${shown.sim} simulated points; the files hold ${real[k]} and ${sim[k]}`);
    const text = await page.innerText('body');
    h.check(text.includes(real[k].toLocaleString('en-US')) && text.includes(sim[k].toLocaleString('en-US')),
      `frame ${k}: the counts are on the page`);
  }
}

const name = process.argv[2];
if (!cases[name]) h.fail(`unknown case '${name}' (${Object.keys(cases).join(', ')})`);
const browser = await h.launch();
try {
  await cases[name](browser);
} catch (e) {
  h.fail(e.stack || e.message);
} finally {
  await browser.close();
}
