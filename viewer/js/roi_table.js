// The table of the current frame's regions of interest: points and mean intensity per side.

import { el } from './dom.js';
import { formatCount, formatValue } from './format.js';

/** Replaces the content of `box` with a table of `rois` (DOCUMENT.md Roi), or nothing if none. */
export function renderRoiTable(box, doc, rois) {
  box.hidden = rois.length === 0;
  if (!rois.length) {
    box.replaceChildren();
    return;
  }
  const unit = (side) => doc[side].intensity_unit ? ` [${doc[side].intensity_unit}]` : '';
  const head = el('tr', {},
    el('th', {}, 'ROI'), el('th', {}, 'N real'), el('th', {}, 'N sim'),
    el('th', {}, `I real${unit('real')}`), el('th', {}, `I sim${unit('sim')}`));
  const body = rois.map((roi) => el('tr', {},
    el('th', { title: roi.material ? `material: ${roi.material}` : '' }, roi.name),
    el('td', {}, formatCount(roi.n_real)),
    el('td', {}, formatCount(roi.n_sim)),
    el('td', {}, mean(roi.i_mean_real)),
    el('td', {}, mean(roi.i_mean_sim))));
  box.replaceChildren(el('div', { className: 'ltv-section-title' }, 'regions of interest (mean intensity I)'),
    el('table', { className: 'ltv-rois' }, el('thead', {}, head), el('tbody', {}, ...body)));
}

// A mean over no points is written as null (or NaN) by the document.
function mean(v) {
  return v === null || v === undefined || Number.isNaN(v) ? '–' : formatValue(v);
}
