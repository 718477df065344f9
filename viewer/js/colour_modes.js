// Per-point colours of one frame for each "colour by" mode, and the legend that explains them.
// Runs once per mode or frame change (O(n) plus a sort of a sample), never per redraw.

import {
  FIXED, SEQUENTIAL_LUT, DIVERGING_LUT, CATEGORICAL_SIZE, categoryColour, instanceColour,
} from './palettes.js';
import { formatCount } from './format.js';
import { robustLimits, quantile } from './stats.js';

export const MODES = [
  { id: 'intensity', label: 'intensity' },
  { id: 'range', label: 'range' },
  { id: 'range_error', label: 'range error' },
  { id: 'material', label: 'material' },
  { id: 'semantic', label: 'semantic class' },
  { id: 'instance', label: 'instance' },
  { id: 'return_index', label: 'return index' },
  { id: 'agreement', label: 'agreement' },
  { id: 'source', label: 'source', overlayOnly: true },
];

export const SIDES = ['real', 'sim'];

// Robust colour limits: the 2nd and 98th percentiles, so a few outliers (a retro-reflector's
// intensity, a stray far return) do not squeeze every other point into one end of the map.
const LOW_QUANTILE = 0.02;
const HIGH_QUANTILE = 0.98;
// Range errors are heavy-tailed (mixed pixels at edges are metres off while surfaces agree to
// centimetres; docs/validation.md): the scale ends at the 90th percentile of |error| so the
// centimetres show, and the tail saturates.
const ERROR_QUANTILE = 0.9;
// Legend lines listed for a categorical mode; the rest are summarised in one line.
const MAX_LEGEND_ENTRIES = 12;

/**
 * Colours every point of frame `frame` of `doc` for `mode`.
 * @returns {{real: Uint32Array, sim: Uint32Array, legend: Legend}} where
 *   Legend = {title, scales: [{label, unit, lo, hi, lut}], entriesHeader (what `detail` is),
 *             entries: [{colour, label, detail}], notes: [string]}
 */
export function colourFrame(doc, frame, mode) {
  const builder = BUILDERS[mode];
  if (!builder) throw new Error(`unknown colour mode '${mode}'`);
  const out = {
    real: new Uint32Array(frame.real.count),
    sim: new Uint32Array(frame.sim.count),
  };
  const legend = { title: MODES.find((m) => m.id === mode).label, scales: [], entriesHeader: '',
    entries: [], notes: [] };
  builder(doc, frame, out, legend);
  return { real: out.real, sim: out.sim, legend };
}

/** Range error of every point that has a partner (sim minus real [m]); NaN where none. */
export function rangeErrors(frame, side) {
  const cloud = frame[side];
  const other = frame[side === 'real' ? 'sim' : 'real'];
  const sign = side === 'real' ? 1 : -1;
  const err = new Float32Array(cloud.count);
  for (let i = 0; i < cloud.count; i++) {
    const j = cloud.partner[i];
    err[i] = j < 0 ? NaN : sign * (other.range[j] - cloud.range[i]);
  }
  return err;
}

const BUILDERS = {
  intensity(doc, frame, out, legend) {
    // Per side: real and simulated intensities may be in different units (counts vs percent).
    for (const side of SIDES) {
      const values = frame[side].intensity;
      if (!values) {
        out[side].fill(FIXED['no data']);
        legend.notes.push(`${side}: no intensity (grey)`);
        continue;
      }
      const [lo, hi] = robustLimits([values], LOW_QUANTILE, HIGH_QUANTILE);
      colourContinuous(values, lo, hi, SEQUENTIAL_LUT, out[side]);
      legend.scales.push({ label: `${side} intensity`, unit: doc[side].intensity_unit || '',
        lo, hi, lut: SEQUENTIAL_LUT });
    }
  },

  range(doc, frame, out, legend) {
    // Shared limits: the same range must have the same colour on both sides.
    const [lo, hi] = robustLimits([frame.real.range, frame.sim.range], LOW_QUANTILE, HIGH_QUANTILE);
    for (const side of SIDES) colourContinuous(frame[side].range, lo, hi, SEQUENTIAL_LUT, out[side]);
    legend.scales.push({ label: 'range', unit: 'm', lo, hi, lut: SEQUENTIAL_LUT });
  },

  range_error(doc, frame, out, legend) {
    const errors = { real: rangeErrors(frame, 'real'), sim: rangeErrors(frame, 'sim') };
    // Symmetric around 0: light grey is "no error", the hue gives the sign.
    const abs = errors.real.map(Math.abs);
    // At least the document's 1 mm resolution (also the limit when nothing is paired).
    const limit = Math.max(quantile(abs, ERROR_QUANTILE) || 0, 1e-3);
    for (const side of SIDES) {
      const unpaired = FIXED[`${side} only`];
      const err = errors[side], colours = out[side];
      colourContinuous(err, -limit, limit, DIVERGING_LUT, colours);
      for (let i = 0; i < err.length; i++) if (Number.isNaN(err[i])) colours[i] = unpaired;
    }
    legend.title = 'range error (sim − real)';
    legend.scales.push({ label: 'range error', unit: 'm', lo: -limit, hi: limit, lut: DIVERGING_LUT });
    addAgreementEntries(frame, legend, false);
  },

  material(doc, frame, out, legend) {
    colourCategories(frame, 'material', out, legend, categoryColour,
      (id) => doc.materials[id] || `id ${id}`);
  },

  semantic(doc, frame, out, legend) {
    colourCategories(frame, 'semantic', out, legend, categoryColour,
      (id) => doc.semantic_classes[id] || `id ${id}`);
  },

  instance(doc, frame, out, legend) {
    colourCategories(frame, 'instance', out, legend, instanceColour, (id) => `instance ${id}`);
  },

  return_index(doc, frame, out, legend) {
    colourCategories(frame, 'return_index', out, legend, categoryColour, (id) => `return ${id}`);
  },

  agreement(doc, frame, out, legend) {
    for (const side of SIDES) {
      const { partner } = frame[side];
      const paired = FIXED.both, unpaired = FIXED[`${side} only`], colours = out[side];
      for (let i = 0; i < partner.length; i++) colours[i] = partner[i] < 0 ? unpaired : paired;
    }
    legend.title = `agreement (${doc.association.method || 'association'})`;
    addAgreementEntries(frame, legend, true);
  },

  source(doc, frame, out, legend) {
    legend.entriesHeader = 'points';
    for (const side of SIDES) {
      out[side].fill(FIXED[side]);
      legend.entries.push({ colour: FIXED[side], label: side,
        detail: formatCount(frame[side].count) });
    }
  },
};

function addAgreementEntries(frame, legend, withBoth) {
  legend.entriesHeader = withBoth ? 'points real / sim' : 'points';
  const unpaired = { real: 0, sim: 0 };
  for (const side of SIDES) for (const j of frame[side].partner) if (j < 0) unpaired[side]++;
  if (withBoth) {
    legend.entries.push({ colour: FIXED.both, label: 'both',
      detail: `${formatCount(frame.real.count - unpaired.real)} / ${formatCount(frame.sim.count - unpaired.sim)}` });
  }
  legend.entries.push({ colour: FIXED['real only'], label: 'real only', detail: formatCount(unpaired.real) });
  legend.entries.push({ colour: FIXED['sim only'], label: 'sim only', detail: formatCount(unpaired.sim) });
}

function colourCategories(frame, field, out, legend, colourFn, nameOf) {
  const counts = new Map(); // id -> [real count, sim count]
  SIDES.forEach((side, s) => {
    const ids = frame[side][field];
    if (!ids) {
      out[side].fill(FIXED['no data']);
      legend.notes.push(`${side}: no ${field.replace('_', ' ')} data (grey)`);
      return;
    }
    const colours = out[side];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      colours[i] = colourFn(id);
      let c = counts.get(id);
      if (!c) counts.set(id, (c = [0, 0]));
      c[s]++;
    }
  });
  const sorted = [...counts].sort((a, b) => (b[1][0] + b[1][1]) - (a[1][0] + a[1][1]) || a[0] - b[0]);
  for (const [id, [nr, ns]] of sorted.slice(0, MAX_LEGEND_ENTRIES)) {
    legend.entries.push({ colour: colourFn(id), label: nameOf(id),
      detail: `${formatCount(nr)} / ${formatCount(ns)}` });
  }
  if (sorted.length > MAX_LEGEND_ENTRIES) {
    legend.notes.push(`${sorted.length - MAX_LEGEND_ENTRIES} more not listed`);
  }
  if (sorted.length > CATEGORICAL_SIZE) {
    legend.notes.push(`${sorted.length} ids, ${CATEGORICAL_SIZE} colours: colours repeat`);
  }
  if (sorted.length) legend.entriesHeader = 'points real / sim';
}

function colourContinuous(values, lo, hi, lut, colours) {
  const scale = 255 / (hi - lo);
  for (let i = 0; i < values.length; i++) {
    let k = ((values[i] - lo) * scale) | 0; // NaN -> 0; callers recolour NaNs they care about
    if (k < 0) k = 0; else if (k > 255) k = 255;
    colours[i] = lut[k];
  }
}
