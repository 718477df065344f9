// Number formatting shared by the panels and the legend.

/** Three significant digits, without exponent for the magnitudes a scan has. */
export function formatValue(v) {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a === 0) return '0';
  if (a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a < 1e-3) return v.toExponential(2);
  return String(Number(v.toPrecision(3)));
}

/** Metres to the document's 1 mm resolution. */
export function formatMetres(v) {
  return v.toFixed(3);
}

export function formatCount(n) {
  return n.toLocaleString('en-US');
}
