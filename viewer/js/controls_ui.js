// The toolbar: layout, colour mode, point size, frame slider, view reset and the side-panel
// toggle. It only reports what the user chose (through `actions`) and shows the state it is
// given; the viewer decides.

import { el } from './dom.js';
import { MODES } from './colour_modes.js';

export const POINT_SIZES = [1, 2, 3];

export class Toolbar {
  /**
   * @param {{setLayout, setColourBy, setPointSize, setFrame, resetView, togglePanel}} actions
   */
  constructor(actions) {
    this.title = el('div', { className: 'ltv-title' }, 'lidartwin view');
    this.layoutButtons = {
      'side-by-side': el('button', { type: 'button', textContent: 'side by side',
        onclick: () => actions.setLayout('side-by-side') }),
      overlay: el('button', { type: 'button', textContent: 'overlay',
        onclick: () => actions.setLayout('overlay') }),
    };
    this.colourSelect = el('select', { className: 'ltv-colour-by', title: 'colour by (keys 1-9)',
      onchange: () => actions.setColourBy(this.colourSelect.value) },
    ...MODES.map((m) => el('option', { value: m.id, textContent: m.label })));
    this.sizeSelect = el('select', { className: 'ltv-point-size', title: 'point size',
      onchange: () => actions.setPointSize(Number(this.sizeSelect.value)) },
    ...POINT_SIZES.map((px) => el('option', { value: String(px), textContent: `${px} px` })));
    this.slider = el('input', { type: 'range', className: 'ltv-frame-slider', min: '0', step: '1',
      oninput: () => actions.setFrame(Number(this.slider.value)) });
    this.frameLabel = el('span', { className: 'ltv-frame-label' });
    this.frameGroup = el('label', { className: 'ltv-group ltv-frames' }, this.slider, this.frameLabel);
    this.element = el('div', { className: 'ltv-toolbar' },
      this.title,
      el('div', { className: 'ltv-group ltv-segmented' }, ...Object.values(this.layoutButtons)),
      el('label', { className: 'ltv-group' }, 'colour by ', this.colourSelect),
      el('label', { className: 'ltv-group' }, 'points ', this.sizeSelect),
      this.frameGroup,
      el('div', { className: 'ltv-spacer' }),
      el('button', { type: 'button', className: 'ltv-reset', textContent: 'reset view',
        title: 'reset the view (r)', onclick: actions.resetView }),
      el('button', { type: 'button', className: 'ltv-panel-toggle', textContent: 'panel',
        title: 'show or hide the side panel', onclick: actions.togglePanel }));
  }

  /** Shows `state` ({layout, colourBy, pointSize, frame}) of document `doc`. */
  update(doc, state) {
    this.title.textContent = doc.title || 'lidartwin view';
    this.title.title = this.title.textContent;
    for (const [layout, button] of Object.entries(this.layoutButtons)) {
      button.setAttribute('aria-pressed', String(layout === state.layout));
    }
    for (const option of this.colourSelect.options) {
      const mode = MODES.find((m) => m.id === option.value);
      option.hidden = option.disabled = mode.overlayOnly && state.layout !== 'overlay';
    }
    this.colourSelect.value = state.colourBy;
    this.sizeSelect.value = String(state.pointSize);
    const frames = doc.frames;
    this.frameGroup.hidden = frames.length <= 1;
    this.slider.max = String(frames.length - 1);
    this.slider.value = String(state.frame);
    const f = frames[state.frame];
    this.frameLabel.textContent = `${f.label} (real ${f.real_index} / sim ${f.sim_index})`;
  }
}
