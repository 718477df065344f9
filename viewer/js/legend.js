// The legend: colour-scale bars (gradient, ticks, unit) for continuous modes, swatches with
// names for categorical ones, and notes (points without the field, repeated colours).

import { el } from './dom.js';
import { cssGradient, cssOf } from './palettes.js';
import { formatValue } from './format.js';

const TARGET_TICKS = 5;

/** Replaces the content of `box` with `legend` (see colour_modes.js colourFrame). */
export function renderLegend(box, legend) {
  const parts = [el('div', { className: 'ltv-legend-title' }, legend.title), ...legend.scales.map(renderScale)];
  if (legend.entriesHeader) parts.push(el('div', { className: 'ltv-legend-header' }, legend.entriesHeader));
  if (legend.entries.length) parts.push(el('ul', { className: 'ltv-legend-entries' }, ...legend.entries.map(renderEntry)));
  parts.push(...legend.notes.map((note) => el('div', { className: 'ltv-legend-note' }, note)));
  box.replaceChildren(...parts);
}

function renderScale(scale) {
  const span = scale.hi - scale.lo;
  const ticks = niceTicks(scale.lo, scale.hi, TARGET_TICKS).map((v) =>
    el('span', { className: 'ltv-tick', style: { left: `${((v - scale.lo) / span) * 100}%` } }, formatValue(v)));
  return el('div', { className: 'ltv-scale' },
    el('div', { className: 'ltv-scale-label' }, scale.label,
      scale.unit ? el('span', { className: 'ltv-unit' }, ` [${scale.unit}]`) : null),
    el('div', { className: 'ltv-scale-bar', style: { background: cssGradient(scale.lut) } }),
    el('div', { className: 'ltv-scale-ticks' }, ...ticks));
}

function renderEntry({ colour, label, detail }) {
  return el('li', {},
    el('span', { className: 'ltv-swatch', style: { background: cssOf(colour) } }),
    el('span', { className: 'ltv-entry-label', title: label }, label),
    detail ? el('span', { className: 'ltv-entry-detail' }, detail) : null);
}

/** Round values (1, 2 or 5 times a power of ten apart) inside [lo, hi], about `count` of them. */
export function niceTicks(lo, hi, count) {
  const raw = (hi - lo) / Math.max(count - 1, 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * power).find((s) => s >= raw * 0.999);
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-6; v += step) {
    ticks.push(Math.abs(v) < step * 1e-9 ? 0 : Number(v.toPrecision(12)));
  }
  return ticks;
}
