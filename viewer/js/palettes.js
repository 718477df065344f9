// Colours of the viewer, all packed as 0xAABBGGRR: the byte order of an RGBA texel on a
// little-endian machine, so a Uint32Array of them can be uploaded as an RGBA8 texture as is.

/** Packs 8-bit sRGB components (0..255) into 0xAABBGGRR with alpha 255. */
export function packRgb(r, g, b) {
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

/** '#rrggbb' -> packed colour. */
export function packHex(hex) {
  const v = parseInt(hex.slice(1), 16);
  return packRgb((v >> 16) & 255, (v >> 8) & 255, v & 255);
}

/** Packed colour -> '#rrggbb' for CSS. */
export function cssOf(packed) {
  const r = packed & 255, g = (packed >>> 8) & 255, b = (packed >>> 16) & 255;
  return '#' + ((r << 16) | (g << 8) | b).toString(16).padStart(6, '0');
}

export const BACKGROUND = packHex('#12151b');
export const SEPARATOR = packHex('#2b313d'); // the line between the two views

// Fixed colours with a meaning of their own. "real only" and "sim only" are shared by the
// agreement and range-error modes, so they must stay clear of the diverging map's blue-white-red.
export const FIXED = Object.freeze({
  'both': packHex('#8c9bb0'),
  'real only': packHex('#2fd36a'),
  'sim only': packHex('#ff9a1f'),
  'no data': packHex('#4d5360'),
  'real': packHex('#45c4f5'),
  'sim': packHex('#f2508f'),
});

// Markers of the picked point and its partner (drawn over the points, ignoring depth).
export const PICK_MARK = packHex('#ffffff');
export const PARTNER_MARK = packHex('#ffe14d');

// Qualitative palette for categories (materials, classes, instances, returns): 16 hues picked
// by hand to stay apart from each other on a dark background.
const CATEGORICAL_HEX = [
  '#e6194b', '#3cb44b', '#ffe119', '#4363d8', '#f58231', '#42d4f4', '#f032e6', '#bfef45',
  '#fabed4', '#469990', '#dcbeff', '#9a6324', '#fffac8', '#aaffc3', '#a9a9ff', '#ff7a5c',
];
const CATEGORICAL = CATEGORICAL_HEX.map(packHex);

/** Colour of category `id`; ids past the palette wrap around (the legend says so). */
export function categoryColour(id) {
  return CATEGORICAL[id % CATEGORICAL.length];
}

/** Instances are numerous and often consecutive: scramble the id so neighbours differ. */
export function instanceColour(id) {
  let h = Math.imul(id ^ (id >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return CATEGORICAL[((h ^ (h >>> 16)) >>> 0) % CATEGORICAL.length];
}

export const CATEGORICAL_SIZE = CATEGORICAL.length;

// Continuous maps as anchor colours, linearly interpolated in sRGB into a 256-entry table.
// Sequential: violet -> blue -> teal -> green -> yellow, rising in lightness, so larger values
// read as brighter; it starts well above the background's lightness so that the lowest values
// stay visible. Diverging: blue -> light grey -> red, zero in the middle.
const SEQUENTIAL_ANCHORS = ['#5b3a9e', '#3f6fb5', '#2a9d8f', '#7cc65a', '#f4e04d'];
const DIVERGING_ANCHORS = ['#2b5fd9', '#7fa3ee', '#e4e4e4', '#ef8a6f', '#d7301f'];

function buildLut(anchorsHex) {
  const anchors = anchorsHex.map((h) => {
    const v = parseInt(h.slice(1), 16);
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  });
  const lut = new Uint32Array(256);
  const segments = anchors.length - 1;
  for (let i = 0; i < 256; i++) {
    const t = (i / 255) * segments;
    const k = Math.min(Math.floor(t), segments - 1);
    const f = t - k;
    const a = anchors[k], b = anchors[k + 1];
    lut[i] = packRgb(
      Math.round(a[0] + (b[0] - a[0]) * f),
      Math.round(a[1] + (b[1] - a[1]) * f),
      Math.round(a[2] + (b[2] - a[2]) * f));
  }
  return lut;
}

export const SEQUENTIAL_LUT = buildLut(SEQUENTIAL_ANCHORS);
export const DIVERGING_LUT = buildLut(DIVERGING_ANCHORS);

/** CSS linear-gradient (left to right) showing a 256-entry table, for the colour-scale bar. */
export function cssGradient(lut) {
  const stops = [];
  for (let k = 0; k <= 16; k++) {
    const i = Math.round((k / 16) * 255);
    stops.push(`${cssOf(lut[i])} ${((k / 16) * 100).toFixed(2)}%`);
  }
  return `linear-gradient(to right, ${stops.join(', ')})`;
}
