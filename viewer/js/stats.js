// Order statistics of point fields, from a sample: colour limits and the home view's distance.

// Quantiles are taken from an evenly strided sample of at most this many values: exact enough
// for colour limits and keeps a mode switch on 2 x 131k points well under 50 ms.
const MAX_SAMPLES = 65536;

/** [low, high] quantiles of the finite values of several arrays together; never an empty span. */
export function robustLimits(arrays, lowQ, highQ) {
  const sorted = sortedSample(arrays);
  if (sorted.length === 0) return [0, 1];
  let lo = sorted[Math.floor(lowQ * (sorted.length - 1))];
  let hi = sorted[Math.ceil(highQ * (sorted.length - 1))];
  if (!(hi > lo)) { lo -= 0.5; hi += 0.5; }
  return [lo, hi];
}

/** Quantile `q` (0..1) of the finite values of `values`, or NaN if it has none. */
export function quantile(values, q) {
  const sorted = sortedSample([values]);
  return sorted.length ? sorted[Math.round(q * (sorted.length - 1))] : NaN;
}

// The finite values of an evenly strided sample of the arrays, sorted.
function sortedSample(arrays) {
  const total = arrays.reduce((n, a) => n + a.length, 0);
  const stride = Math.max(1, Math.ceil(total / MAX_SAMPLES));
  const sample = new Float32Array(Math.ceil(total / stride) + arrays.length);
  let n = 0;
  for (const a of arrays) {
    for (let i = 0; i < a.length; i += stride) if (Number.isFinite(a[i])) sample[n++] = a[i];
  }
  return sample.subarray(0, n).sort();
}
