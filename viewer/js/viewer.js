// One viewer mounted in one container: builds its DOM, loads the document, owns the state
// (frame, layout, colour mode, point size, picked point) and redraws on demand. Its public
// methods are the controller that main.js documents and the tests drive.

import { Matrix4 } from 'three';
import { loadDocument } from './document.js';
import { el } from './dom.js';
import { SplatTarget } from './splat_renderer.js';
import { Screen } from './screen.js';
import { CameraPair } from './camera_sync.js';
import { RoiBoxes } from './roi_boxes.js';
import { MODES, SIDES, colourFrame } from './colour_modes.js';
import { quantile } from './stats.js';
import { FIXED, PICK_MARK, PARTNER_MARK, SEPARATOR } from './palettes.js';
import { renderLegend } from './legend.js';
import { describePick, renderInfo } from './info_panel.js';
import { renderSummary } from './summary_panel.js';
import { renderRoiTable } from './roi_table.js';
import { Toolbar, POINT_SIZES } from './controls_ui.js';
import STYLES from './styles.css';

const LAYOUTS = ['side-by-side', 'overlay'];
const SIDE_BIT = { real: 0, sim: 1 };
// A press that moves less than this [CSS px] before release is a click (pick), not a drag.
const CLICK_SLOP_PX = 4;
// Marks of the picked point and its partner [px, half-width]: concentric squares of different
// sizes, so both show where the two points project to the same pixel.
const MARK_RADIUS_PX = { pick: 7, partner: 4 };
// The home view's distance follows this quantile of the first frame's ranges.
const HOME_RANGE_QUANTILE = 0.75;
// Embedded in a page [CSS px]: see #fitContainer.
const MIN_CONTAINER_HEIGHT_PX = 100;
const DEFAULT_HEIGHT_PX = 520;
const NARROW_WIDTH_PX = 800;
// Benchmark orbit speed [rad per animation frame]: a full turn in about 12 s at 60 Hz.
const BENCH_STEP_RAD = (2 * Math.PI) / 720;

export class Viewer {
  #container; #root; #stage; #canvas; #viewEls; #panel; #boxes; #errorBox; #loadingBox;
  #toolbar; #target = new SplatTarget(); #screen = null; #cameras; #rois = new RoiBoxes();
  #viewProj = new Matrix4(); #resizeObserver;
  #status = 'loading'; #error = null; #doc = null;
  #frame = 0; #layout = 'side-by-side'; #colourBy = 'intensity'; #pointSize = 1;
  #colours = null; #selection = null; #info = null;
  #frameRequest = 0; #benchmarking = false; #disposed = false; #resolveReady; #rejectReady;

  /** @param {HTMLElement} container @param {object} source passed to loadDocument */
  constructor(container, source) {
    this.#container = container;
    this.ready = new Promise((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    this.ready.catch(() => {}); // the error is shown on the page; callers may still await it
    this.#buildDom();
    this.#cameras = new CameraPair(this.#viewEls.real.element, this.#viewEls.sim.element,
      () => this.#requestRender());
    this.#resizeObserver = new ResizeObserver(() => this.#resize());
    this.#resizeObserver.observe(this.#stage);
    this.#load(source);
  }

  // ---- controller ---------------------------------------------------------------------------

  state() {
    return { status: this.#status, error: this.#error, frame: this.#frame, layout: this.#layout,
      colourBy: this.#colourBy, pointSize: this.#pointSize };
  }

  /** Points shown now per side, or null before the document is loaded. */
  counts() {
    if (!this.#doc) return null;
    const f = this.#doc.frames[this.#frame];
    return { frame: this.#frame, real: f.real.count, sim: f.sim.count };
  }

  /** The decoded document (viewer/DOCUMENT.md), or null before it is loaded. */
  document() {
    return this.#doc;
  }

  setColourBy(mode) {
    const entry = MODES.find((m) => m.id === mode);
    if (!entry) throw new Error(`unknown colour mode '${mode}'; one of ${MODES.map((m) => m.id).join(', ')}`);
    if (entry.overlayOnly && this.#layout !== 'overlay') {
      throw new Error(`colour mode '${mode}' needs the overlay layout`);
    }
    this.#colourBy = mode;
    this.#recolour();
  }

  setLayout(layout) {
    if (!LAYOUTS.includes(layout)) throw new Error(`unknown layout '${layout}'; one of ${LAYOUTS.join(', ')}`);
    this.#layout = layout;
    // "source" tells the clouds apart in one view; side by side each view is one source already.
    if (layout !== 'overlay' && MODES.find((m) => m.id === this.#colourBy).overlayOnly) {
      this.#colourBy = 'agreement';
      this.#recolour();
    }
    this.#cameras.setOverlay(layout === 'overlay');
    this.#arrangeViews();
    this.#refreshUi();
    this.#requestRender();
  }

  setFrame(k) {
    if (!this.#doc) throw new Error('the document is not loaded yet');
    if (!Number.isInteger(k) || k < 0 || k >= this.#doc.frames.length) {
      throw new Error(`frame ${JSON.stringify(k)} does not exist: a whole number 0..${this.#doc.frames.length - 1}`);
    }
    if (k === this.#frame && this.#colours) return;
    this.#frame = k;
    this.#selection = null;
    this.#info = null;
    this.#showFrame();
  }

  setPointSize(px) {
    if (!POINT_SIZES.includes(px)) throw new Error(`point size must be one of ${POINT_SIZES.join(', ')} px`);
    this.#pointSize = px;
    this.#refreshUi();
    this.#requestRender();
  }

  cameraState(side) {
    if (!SIDES.includes(side)) throw new Error(`side must be 'real' or 'sim'`);
    return this.#cameras.state(side);
  }

  /** Sets both views' camera: {position, target, up} as [x, y, z] in the sensor frame [m]. */
  setCamera(camera) {
    this.#cameras.setState(camera);
    this.#requestRender();
  }

  /** A copy of the current per-point colours of `side` (0xAABBGGRR), or null before loading. */
  pointColours(side) {
    if (!SIDES.includes(side)) throw new Error(`side must be 'real' or 'sim'`);
    return this.#colours ? this.#colours[side].slice() : null;
  }

  /** The packed colour of 'both', 'real only', 'sim only', 'no data' (and 'real', 'sim'). */
  colourOf(category) {
    if (!(category in FIXED)) throw new Error(`no fixed colour for '${category}'`);
    return FIXED[category];
  }

  /** Picks the point drawn nearest the camera under (clientX, clientY); its info or null. */
  pickAt(clientX, clientY) {
    if (this.#status !== 'ready') return null;
    if (this.#frameRequest) this.renderNow(); // the id buffer must show the current state
    const rect = this.#canvas.getBoundingClientRect();
    const x = clientX - rect.left, y = clientY - rect.top;
    let hit = null;
    if (x >= 0 && y >= 0 && x < rect.width && y < rect.height) {
      const bx = Math.floor(x * this.#target.width / rect.width);
      const by = this.#target.height - 1 - Math.floor(y * this.#target.height / rect.height);
      hit = this.#target.pick(bx, by, this.#pointSize + 2);
    }
    const side = hit && (hit.side === 0 ? 'real' : 'sim');
    this.#selection = hit && { side, index: hit.index };
    this.#info = hit && describePick(this.#doc, this.#frame, side, hit.index);
    renderInfo(this.#boxes.info, this.#doc, this.#info);
    this.#requestRender();
    return this.#info;
  }

  renderNow() {
    if (this.#frameRequest) cancelAnimationFrame(this.#frameRequest);
    this.#frameRequest = 0;
    this.#render();
  }

  /**
   * Orbits the camera and redraws on every animation frame for `seconds`, then puts the camera
   * back. Resolves {fps, frames, ms_per_frame, render_ms (CPU time inside a redraw), width, height}.
   */
  benchmark(seconds = 5) {
    if (this.#status !== 'ready') return Promise.reject(new Error('the viewer is not ready'));
    if (this.#benchmarking) return Promise.reject(new Error('a benchmark is running'));
    const saved = this.#cameras.state('real');
    this.#benchmarking = true;
    return new Promise((resolve) => {
      let frames = 0, renderMs = 0;
      const start = performance.now();
      const step = () => {
        this.#cameras.orbit(BENCH_STEP_RAD);
        const t = performance.now();
        this.#render();
        renderMs += performance.now() - t;
        frames++;
        const elapsed = performance.now() - start;
        if (elapsed < seconds * 1000) {
          requestAnimationFrame(step);
          return;
        }
        this.#benchmarking = false;
        this.#cameras.setState(saved);
        resolve({ fps: frames / (elapsed / 1000), frames, ms_per_frame: elapsed / frames,
          render_ms: renderMs / frames, width: this.#target.width, height: this.#target.height });
      };
      requestAnimationFrame(step);
    });
  }

  dispose() {
    this.#disposed = true;
    if (this.#frameRequest) cancelAnimationFrame(this.#frameRequest);
    this.#frameRequest = 0;
    this.#resizeObserver.disconnect();
    this.#cameras.dispose();
    this.#rois.dispose();
    this.#screen?.dispose();
    this.#root.remove();
    this.#container.classList.remove('ltv-standalone');
  }

  // ---- loading ------------------------------------------------------------------------------

  async #load(source) {
    try {
      this.#screen = new Screen(this.#canvas);
      const doc = await loadDocument(source);
      if (this.#disposed) return;
      checkDocument(doc);
      this.#doc = doc;
      if (doc.title && this.#container === document.body) document.title = doc.title;
      // The home view is scaled to the first frame: far enough back to see most of the points.
      const first = doc.frames[0].real.count ? doc.frames[0].real : doc.frames[0].sim;
      this.#cameras.setHome(quantile(first.range, HOME_RANGE_QUANTILE) || 10);
      this.#cameras.reset();
      this.#loadingBox.hidden = true;
      this.#showFrame();
      this.#arrangeViews();
      this.#resize();
      // A page of its own: keys (r, 1-9) work without clicking into the viewer first.
      if (this.#container === document.body) this.#root.focus({ preventScroll: true });
    } catch (error) {
      this.#fail(error);
    }
  }

  #setStatus(status) {
    this.#status = status;
    this.#root.dataset.status = status; // styles.css shows the controls only once ready
  }

  #fail(error) {
    this.#setStatus('error');
    this.#error = error?.message || String(error);
    this.#loadingBox.hidden = true;
    this.#errorBox.replaceChildren(el('strong', {}, 'The viewer could not show this comparison'),
      el('div', {}, this.#error));
    this.#errorBox.hidden = false;
    this.#rejectReady(error instanceof Error ? error : new Error(this.#error));
  }

  // ---- DOM ----------------------------------------------------------------------------------

  #buildDom() {
    const standalone = this.#container === document.body;
    if (standalone) this.#container.classList.add('ltv-standalone');
    injectStyles(this.#container.ownerDocument);
    this.#toolbar = new Toolbar({
      setLayout: (l) => this.setLayout(l),
      setColourBy: (m) => this.setColourBy(m),
      setPointSize: (px) => this.setPointSize(px),
      setFrame: (k) => this.setFrame(k),
      resetView: () => this.#cameras.reset(),
      togglePanel: () => {
        this.#panel.hidden = !this.#panel.hidden;
      },
    });
    this.#canvas = el('canvas', { className: 'ltv-canvas' });
    // Per view: an empty element over its part of the canvas that takes the pointer (orbit
    // controls, picking), and a heading above the canvas. Nothing is drawn over the canvas:
    // under software compositing every layer over it costs frame rate.
    this.#viewEls = {};
    for (const side of SIDES) {
      const element = el('div', { className: 'ltv-view' });
      const heading = el('div', { className: `ltv-view-heading ltv-${side}` });
      this.#listenForClicks(element);
      this.#viewEls[side] = { element, heading };
    }
    // An id is given only once per page: several viewers may share a page (the report).
    const errorId = document.getElementById('ltv-error') ? '' : 'ltv-error';
    this.#errorBox = el('div', { className: 'ltv-error', id: errorId, hidden: true, role: 'alert' });
    this.#loadingBox = el('div', { className: 'ltv-loading' }, 'loading…');
    this.#stage = el('div', { className: 'ltv-stage' }, this.#canvas,
      this.#viewEls.real.element, this.#viewEls.sim.element, this.#loadingBox, this.#errorBox);
    // Panel order: what the colours mean, then the picked point (the reason to click), then
    // what is compared and the ROI statistics.
    this.#boxes = {
      legend: el('section', { className: 'ltv-legend' }),
      info: el('section', { className: 'ltv-info' }),
      summary: el('section', { className: 'ltv-summary' }),
      rois: el('section', { className: 'ltv-roi-table' }),
    };
    this.#panel = el('aside', { className: 'ltv-panel' }, ...Object.values(this.#boxes));
    this.#root = el('div', { className: 'ltv-root', tabIndex: 0 },
      this.#toolbar.element,
      el('div', { className: 'ltv-body' },
        el('div', { className: 'ltv-views' },
          el('div', { className: 'ltv-view-headings' }, this.#viewEls.real.heading, this.#viewEls.sim.heading),
          this.#stage),
        this.#panel));
    this.#root.dataset.status = this.#status;
    this.#root.addEventListener('keydown', (e) => this.#onKey(e));
    this.#container.append(this.#root);
    if (!standalone) this.#fitContainer();
  }

  // Inside a larger page the viewer fills its container; a container that gives it no height
  // (a bare div) gets a default one, and a narrow one starts with the side panel folded away.
  #fitContainer() {
    if (this.#container.clientHeight < MIN_CONTAINER_HEIGHT_PX) this.#root.style.height = `${DEFAULT_HEIGHT_PX}px`;
    if (this.#container.clientWidth < NARROW_WIDTH_PX) this.#panel.hidden = true;
  }

  #listenForClicks(element) {
    let down = null;
    element.addEventListener('pointerdown', (e) => {
      down = e.button === 0 ? { x: e.clientX, y: e.clientY } : null;
      this.#root.focus({ preventScroll: true }); // keys go to this viewer, not another on the page
    });
    element.addEventListener('pointerup', (e) => {
      if (down && Math.hypot(e.clientX - down.x, e.clientY - down.y) < CLICK_SLOP_PX) {
        this.pickAt(e.clientX, e.clientY);
      }
      down = null;
    });
  }

  #onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.target.closest('input, select, textarea')) return;
    if (this.#status !== 'ready') return;
    if (e.key === 'r') {
      this.#cameras.reset();
    } else if (e.key >= '1' && e.key <= '9') {
      const modes = MODES.filter((m) => !m.overlayOnly || this.#layout === 'overlay');
      const mode = modes[Number(e.key) - 1];
      if (mode) this.setColourBy(mode.id);
    } else {
      return;
    }
    e.preventDefault();
  }

  #refreshUi() {
    if (!this.#doc) return;
    this.#toolbar.update(this.#doc, this.state());
  }

  /** Positions the view elements and headings over the canvas halves (or all of it in overlay). */
  #arrangeViews() {
    for (const view of this.#views()) {
      const { element, heading } = this.#viewEls[view.camera];
      for (const e of [element, heading]) {
        e.style.left = `${view.vp.x}px`;
        e.style.width = `${view.vp.w}px`;
      }
      heading.textContent = view.sides.join(' + ');
      if (this.#doc && view.sides.length === 1) {
        const { file } = this.#doc[view.sides[0]];
        heading.textContent += ` · ${file.split(/[\\/]/).pop()}`;
        heading.title = file;
      }
    }
    const overlay = this.#layout === 'overlay';
    this.#viewEls.sim.element.hidden = overlay;
    this.#viewEls.sim.heading.hidden = overlay;
  }

  // ---- frame and colours --------------------------------------------------------------------

  #showFrame() {
    const frame = this.#doc.frames[this.#frame];
    this.#rois.setRois(frame.rois);
    renderSummary(this.#boxes.summary, this.#doc, this.#frame);
    renderRoiTable(this.#boxes.rois, this.#doc, frame.rois);
    renderInfo(this.#boxes.info, this.#doc, this.#info);
    this.#recolour();
  }

  #recolour() {
    if (!this.#doc) return;
    const { real, sim, legend } = colourFrame(this.#doc, this.#doc.frames[this.#frame], this.#colourBy);
    this.#colours = { real, sim };
    renderLegend(this.#boxes.legend, legend);
    this.#refreshUi();
    this.#requestRender();
  }

  // ---- drawing ------------------------------------------------------------------------------

  /** The views now shown: which camera, which clouds, and where (buffer pixels, y up). */
  #views() {
    const W = this.#target.width, H = this.#target.height;
    if (this.#layout === 'overlay') {
      return [{ camera: 'real', sides: ['real', 'sim'], vp: { x: 0, y: 0, w: W, h: H } }];
    }
    const half = Math.floor(W / 2);
    return [
      { camera: 'real', sides: ['real'], vp: { x: 0, y: 0, w: half, h: H } },
      { camera: 'sim', sides: ['sim'], vp: { x: half, y: 0, w: W - half, h: H } },
    ];
  }

  #resize() {
    const w = this.#stage.clientWidth, h = this.#stage.clientHeight;
    if (!this.#screen || w === 0 || h === 0) return;
    if (this.#target.resize(w, h)) this.#screen.attach(this.#target);
    this.#arrangeViews();
    if (this.#doc) this.renderNow(); // at once: a resize cleared the canvas
  }

  #requestRender() {
    if (this.#frameRequest || this.#benchmarking || this.#disposed || !this.#doc) return;
    this.#frameRequest = requestAnimationFrame(() => {
      this.#frameRequest = 0;
      this.#render();
    });
  }

  #render() {
    const target = this.#target;
    if (!this.#colours || target.width === 0) return;
    const frame = this.#doc.frames[this.#frame];
    const views = this.#views();
    target.clear();
    for (const view of views) {
      const camera = this.#cameras.cameras[view.camera];
      this.#cameras.setAspect(view.camera, view.vp.w / view.vp.h);
      camera.updateMatrixWorld();
      const m = this.#viewProj.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse).elements;
      for (const side of view.sides) {
        const cloud = frame[side];
        target.splat(cloud.position, this.#colours[side], cloud.count, m, view.vp, this.#pointSize, SIDE_BIT[side]);
      }
      this.#markSelection(frame, m, view.vp);
    }
    if (views.length === 2) target.fillColumn(views[1].vp.x, SEPARATOR);
    // All views are equally high and share the field of view, so one fit serves them all.
    this.#rois.fitLabels(this.#cameras.cameras[views[0].camera], target.height);
    this.#screen.present(views.map((v) => ({ viewport: v.vp, camera: this.#cameras.cameras[v.camera],
      scene: this.#rois.scene })));
    if (this.#status === 'loading') {
      this.#setStatus('ready');
      this.#resolveReady(this);
    }
  }

  // The picked point and its partner are marked in every view, so either can be found in both.
  #markSelection(frame, m, vp) {
    if (!this.#selection) return;
    const { side, index } = this.#selection;
    const other = side === 'real' ? 'sim' : 'real';
    const partner = frame[side].partner[index];
    const marks = [[side, index, PICK_MARK, MARK_RADIUS_PX.pick]];
    if (partner >= 0) marks.push([other, partner, PARTNER_MARK, MARK_RADIUS_PX.partner]);
    for (const [s, i, colour, radius] of marks) {
      const p = frame[s].position;
      this.#target.mark(p[3 * i], p[3 * i + 1], p[3 * i + 2], m, vp, radius, colour);
    }
  }
}

/** The few structural checks the drawing code relies on; a clear message instead of a crash. */
function checkDocument(doc) {
  if (!doc || typeof doc !== 'object') throw new Error('no document was given to the viewer');
  if (!Array.isArray(doc.frames) || doc.frames.length === 0) throw new Error('the document has no frames');
  doc.frames.forEach((f, k) => {
    for (const side of SIDES) {
      const c = f[side];
      if (!c || !(c.position instanceof Float32Array) || c.position.length !== 3 * c.count
        || !(c.partner instanceof Int32Array) || c.partner.length !== c.count) {
        throw new Error(`frame ${k}: the ${side} cloud is malformed (position or partner arrays)`);
      }
    }
  });
}

// One <style> per page, shared by every viewer on it; all rules are scoped to .ltv-* classes.
function injectStyles(doc) {
  if (doc.querySelector('style[data-ltv-styles]')) return;
  const style = doc.createElement('style');
  style.dataset.ltvStyles = '';
  style.textContent = STYLES;
  doc.head.append(style);
}
