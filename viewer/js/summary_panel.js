// What is being compared: point counts of the current frame per side, the files and sensors,
// the association method, points left out, and the document's notes.

import { SIDES } from './colour_modes.js';
import { el } from './dom.js';
import { formatCount } from './format.js';

/** Replaces the content of `box` with the summary of frame `frameIndex` of `doc`. */
export function renderSummary(box, doc, frameIndex) {
  const frame = doc.frames[frameIndex];
  const rows = SIDES.map((side) => {
    const source = doc[side];
    const leftOut = frame.left_out?.[side] ?? 0;
    return el('div', { className: `ltv-source ltv-${side}` },
      el('div', { className: 'ltv-count', dataset: { side } },
        `${side}: ${formatCount(frame[side].count)} points`),
      // The box is right-to-left so a long path loses its start, not its file name; the
      // left-to-right marks keep "/" and "." where they belong in that box.
      el('div', { className: 'ltv-file', title: source.file }, `\u200e${source.file}\u200e`),
      el('div', { className: 'ltv-dim' },
        [source.reader, source.sensor].filter(Boolean).join(' · '),
        leftOut ? ` · ${formatCount(leftOut)} left out (non-finite or too near)` : ''));
  });
  const association = doc.association ?? {};
  const parts = [...rows, el('div', { className: 'ltv-association' }, 'association: ',
    el('b', {}, association.method || 'none'),
    association.reason ? el('div', { className: 'ltv-dim' }, association.reason) : null)];
  if (doc.notes.length) parts.push(el('ul', { className: 'ltv-notes' }, ...doc.notes.map((n) => el('li', {}, n))));
  box.replaceChildren(...parts);
}
