// What the viewer knows about a clicked point: its fields, its partner's, and the errors between
// them; as a plain object (pickAt returns it) and as the panel that shows it.

import { el } from './dom.js';
import { formatValue, formatMetres } from './format.js';
import { PICK_MARK, PARTNER_MARK, cssOf } from './palettes.js';

const OTHER = { real: 'sim', sim: 'real' };

// Every per-point field of DOCUMENT.md, in the order the panel lists them, with its unit.
// Intensity is in each source's own unit (see unitSuffix).
const FIELDS = [
  { key: 'index_in_file', label: 'index in file' },
  { key: 'position', label: 'x, y, z', unit: 'm' },
  { key: 'range', label: 'range', unit: 'm' },
  { key: 'intensity', label: 'intensity', unit: (doc) => doc.real.intensity_unit },
  { key: 'reflectance', label: 'reflectance', unit: 'fraction' },
  { key: 'channel', label: 'channel' },
  { key: 'column', label: 'column' },
  { key: 'time', label: 'time', unit: 's' },
  { key: 'return_index', label: 'return index' },
  { key: 'material', label: 'material' },
  { key: 'semantic', label: 'semantic class' },
  { key: 'instance', label: 'instance' },
  { key: 'partner', label: 'partner index' },
];

/**
 * The fields of point `index` of `side` in `frame` and of its partner:
 * {frame, point: PointInfo, partner: PointInfo | null, errors: Errors | null} where
 * PointInfo = {side, index, index_in_file, position: [x, y, z], range, ...every non-null field,
 *              material_name?, semantic_name?} (units as in DOCUMENT.md) and
 * Errors = {range_m: sim - real, distance_m: 3-D distance, intensity: sim - real (as compare
 *           computes it) or null when a side has none, intensity_unit, units_differ}.
 */
export function describePick(doc, frameIndex, side, index) {
  const frame = doc.frames[frameIndex];
  const point = pointInfo(doc, frame, side, index);
  const j = frame[side].partner[index];
  const partner = j >= 0 ? pointInfo(doc, frame, OTHER[side], j) : null;
  let errors = null;
  if (partner) {
    const real = side === 'real' ? point : partner;
    const sim = side === 'real' ? partner : point;
    const sameUnit = sameIntensityUnit(doc);
    errors = {
      range_m: sim.range - real.range,
      distance_m: Math.hypot(sim.position[0] - real.position[0], sim.position[1] - real.position[1],
        sim.position[2] - real.position[2]),
      intensity: real.intensity !== undefined && sim.intensity !== undefined
        ? sim.intensity - real.intensity : null,
      intensity_unit: sameUnit ? doc.real.intensity_unit : null,
      units_differ: !sameUnit,
    };
  }
  return { frame: frameIndex, point, partner, errors };
}

function pointInfo(doc, frame, side, index) {
  const cloud = frame[side];
  const info = { side, index };
  for (const { key } of FIELDS) {
    if (key === 'position') {
      info.position = Array.from(cloud.position.subarray(3 * index, 3 * index + 3));
    } else if (cloud[key]) {
      info[key] = cloud[key][index];
    }
  }
  // Names only where the document has them (materials may be shorter than the ids in use).
  const material = info.material !== undefined && doc.materials[info.material];
  if (material) info.material_name = material;
  const semantic = info.semantic !== undefined && doc.semantic_classes[info.semantic];
  if (semantic) info.semantic_name = semantic;
  return info;
}

/** Replaces the content of `box` with a table of `info` (from describePick), or a hint if null. */
export function renderInfo(box, doc, info) {
  if (!info) {
    box.replaceChildren(el('div', { className: 'ltv-hint' }, 'Click a point to see its fields.'));
    return;
  }
  const { point, partner, errors } = info;
  const head = el('tr', {}, el('th', {}, ''),
    el('th', { className: `ltv-${point.side}` }, `${point.side} #${point.index}`),
    el('th', { className: partner ? `ltv-${partner.side}` : '' }, partner ? `${partner.side} #${partner.index}` : 'no partner'));
  const rows = [];
  for (const field of FIELDS) {
    if (point[field.key] === undefined && partner?.[field.key] === undefined) continue;
    rows.push(el('tr', {},
      el('th', {}, field.label, unitSuffix(field, doc)),
      el('td', {}, cellText(field.key, point, doc)),
      el('td', {}, partner ? cellText(field.key, partner, doc) : '')));
  }
  const parts = [el('div', { className: 'ltv-section-title' }, 'picked point'),
    el('div', { className: 'ltv-hint' }, 'marked in the views: ', markSwatch(PICK_MARK), ' this point',
      partner ? [', ', markSwatch(PARTNER_MARK), ' its partner'] : ' (it has no partner)')];
  if (errors) {
    let intensity;
    if (errors.intensity !== null && !errors.units_differ) {
      intensity = `${formatValue(errors.intensity)}${errors.intensity_unit ? ` ${errors.intensity_unit}` : ''}`;
    } else if (errors.intensity !== null) {
      // compare's intensity error is this difference too; the units say how far it means much.
      intensity = `${formatValue(errors.intensity)} (real in ${doc.real.intensity_unit || 'its unit'}, ` +
        `sim in ${doc.sim.intensity_unit || 'its unit'})`;
    } else {
      intensity = 'n/a: no intensity on one side';
    }
    parts.push(el('table', { className: 'ltv-errors' }, el('tbody', {},
      errorRow('range error (sim − real)', `${formatMetres(errors.range_m)} m`),
      errorRow('intensity error (sim − real)', intensity),
      errorRow('3-D distance', `${formatMetres(errors.distance_m)} m`))));
  }
  parts.push(el('table', { className: 'ltv-fields' }, el('thead', {}, head), el('tbody', {}, ...rows)));
  box.replaceChildren(...parts);
}

function markSwatch(colour) {
  return el('span', { className: 'ltv-mark', style: { borderColor: cssOf(colour) } });
}

function errorRow(label, value) {
  return el('tr', {}, el('th', {}, label), el('td', {}, value));
}

// Intensity units may differ between the sides (counts vs percent): then each cell carries its
// own unit instead of the row header.
function unitSuffix(field, doc) {
  const unit = typeof field.unit === 'function'
    ? (sameIntensityUnit(doc) ? field.unit(doc) : '') : field.unit;
  return unit ? el('span', { className: 'ltv-unit' }, ` [${unit}]`) : null;
}

function sameIntensityUnit(doc) {
  return doc.real.intensity_unit === doc.sim.intensity_unit;
}

function cellText(key, info, doc) {
  const v = info[key];
  if (v === undefined) return '–';
  switch (key) {
    case 'position': return v.map(formatMetres).join(', ');
    case 'range': return formatMetres(v);
    case 'time': return v.toFixed(6);
    case 'material': return info.material_name ? `${info.material_name} (${v})` : `id ${v}`;
    case 'semantic': return info.semantic_name ? `${info.semantic_name} (${v})` : `id ${v}`;
    case 'intensity': {
      const unit = doc[info.side].intensity_unit;
      return sameIntensityUnit(doc) || !unit ? formatValue(v) : `${formatValue(v)} ${unit}`;
    }
    case 'reflectance': return formatValue(v);
    case 'partner': return v < 0 ? 'none' : String(v);
    default: return String(v);
  }
}
