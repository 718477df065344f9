// A synthetic viewer document for development and the benchmark: an OS0-128-like scan
// (128 channels over +-45 degrees elevation x 1024 columns) of a hall with a pillar and a few
// boxes, seen by a "real" and a "simulated" sensor that differ the way real data does: range
// noise, a range bias on one material, a glass window the real sensor sees through, random
// drops, and intensities in different units. Two frames (the sensor moves), two ROIs.
// The points are associated by beam (channel, column), as compare's "beam" method does.

const CHANNELS = 128;
const COLUMNS = 1024;
const ELEVATION_DEG = 45; // top and bottom beam
const SCAN_PERIOD_S = 0.1;

const MATERIALS = ['concrete', 'plaster', 'wood', 'painted metal', 'acoustic panel'];
const REFLECTIVITY = [0.3, 0.6, 0.45, 0.8, 0.15]; // per material, fraction
const CLASSES = ['floor', 'wall', 'ceiling', 'pillar', 'object'];

// The hall in world coordinates [m]; the sensor of frame 0 sits at the origin, 1.6 m above the floor.
const HALL = { min: [-18, -12, -1.6], max: [22, 12, 4.4] };
// Boxes: centre, half size, yaw about z [rad], material, class, instance.
const BOXES = [
  { name: 'crate', centre: [6, -3, -0.6], half: [1.5, 1, 1], yaw: 0, material: 2, semantic: 4, instance: 10 },
  { name: 'cabinet', centre: [9, 5, -0.35], half: [2, 0.8, 1.25], yaw: Math.PI / 6, material: 3, semantic: 4, instance: 11 },
  { name: 'pillar', centre: [-5, 6, 1.4], half: [0.4, 0.4, 3], yaw: 0, material: 0, semantic: 3, instance: 12 },
  { name: 'stool', centre: [3, 1.5, -1.2], half: [0.5, 0.5, 0.4], yaw: 0.3, material: 2, semantic: 4, instance: 13 },
];
const ROI_BOXES = ['crate', 'cabinet'];
const ROI_MARGIN_M = 0.1;
// Glass in the far wall (x = max): the real sensor sees through it (no return), the simulator does not.
const WINDOW = { y: [-4, 4], z: [0, 3] };
const SIM_METAL_BIAS_M = 0.05; // the simulated painted metal reads 5 cm long
const NOISE_M = { real: 0.015, sim: 0.005 };
const DROP_RATE = { real: 0.004, sim: 0.002 };
// Frame poses: sensor position [m] and yaw [rad] in the world.
const POSES = [
  { position: [0, 0, 0], yaw: 0 },
  { position: [1.2, 0.5, 0], yaw: 0.14 },
];

/** The decoded document (DOCUMENT.md) of the synthetic comparison. */
export function makeDocument() {
  const random = seededRandom(13);
  const frames = POSES.map((pose, k) => makeFrame(pose, k, random));
  return {
    version: 1,
    title: 'synthetic hall: os0-128 vs simulation',
    real: { file: 'dev/synthetic-real.pcap', reader: 'synthetic', sensor: 'OS-0-128', intensity_unit: 'counts' },
    sim: { file: 'dev/synthetic-sim.bin', reader: 'synthetic', sensor: 'OS-0-128', intensity_unit: 'percent' },
    association: { method: 'beam', reason: 'both clouds carry channel and column' },
    materials: MATERIALS,
    semantic_classes: CLASSES,
    notes: ['synthetic data made by viewer/dev/synthetic.js'],
    frames,
  };
}

function makeFrame(pose, k, random) {
  const hits = { real: [], sim: [] };
  const cos = Math.cos(pose.yaw), sin = Math.sin(pose.yaw);
  const dir = [0, 0, 0];
  for (let col = 0; col < COLUMNS; col++) {
    const azimuth = Math.PI - (2 * Math.PI * col) / COLUMNS;
    for (let ch = 0; ch < CHANNELS; ch++) {
      const elevation = ((ELEVATION_DEG - (2 * ELEVATION_DEG * ch) / (CHANNELS - 1)) * Math.PI) / 180;
      // The beam in the sensor frame, then turned into the world.
      const sx = Math.cos(elevation) * Math.cos(azimuth), sy = Math.cos(elevation) * Math.sin(azimuth);
      dir[0] = cos * sx - sin * sy;
      dir[1] = sin * sx + cos * sy;
      dir[2] = Math.sin(elevation);
      const hit = castRay(pose.position, dir);
      const beam = { ch, col, sx, sy, sz: dir[2], hit };
      for (const side of ['real', 'sim']) {
        if (random() < DROP_RATE[side]) continue;
        if (side === 'real' && hit.window) continue;
        let range = hit.t + gaussian(random) * NOISE_M[side];
        if (side === 'sim' && hit.material === 3) range += SIM_METAL_BIAS_M;
        hits[side].push({ beam, range });
      }
    }
  }
  const real = makeCloud(hits.real, 'real', random);
  const sim = makeCloud(hits.sim, 'sim', random);
  linkPartners(real, sim);
  return {
    label: `frame ${k}`,
    real_index: k,
    sim_index: k,
    real,
    sim,
    rois: makeRois(pose, real, sim),
    left_out: { real: k === 0 ? 0 : 17, sim: 0 },
  };
}

/** Nearest surface along a ray from `o` with unit direction `d`: {t, material, semantic, instance, cosine, window}. */
function castRay(o, d) {
  // Inside the hall: the ray leaves through the nearest wall, floor or ceiling.
  let best = { t: Infinity };
  for (let a = 0; a < 3; a++) {
    if (d[a] === 0) continue;
    const positive = d[a] > 0;
    const t = ((positive ? HALL.max[a] : HALL.min[a]) - o[a]) / d[a];
    if (t < best.t) best = { t, axis: a, positive };
  }
  const p = [o[0] + best.t * d[0], o[1] + best.t * d[1], o[2] + best.t * d[2]];
  const surface = best.axis === 2
    ? (best.positive ? { material: 4, semantic: 2, instance: 6 } : { material: 0, semantic: 0, instance: 1 })
    : { material: 1, semantic: 1, instance: 2 + best.axis * 2 + (best.positive ? 1 : 0) };
  let hit = { t: best.t, ...surface, cosine: Math.abs(d[best.axis]),
    window: best.axis === 0 && best.positive && p[1] > WINDOW.y[0] && p[1] < WINDOW.y[1]
      && p[2] > WINDOW.z[0] && p[2] < WINDOW.z[1] };
  for (const box of BOXES) {
    const h = hitBox(o, d, box);
    if (h && h.t < hit.t) {
      hit = { t: h.t, material: box.material, semantic: box.semantic, instance: box.instance,
        cosine: h.cosine, window: false };
    }
  }
  return hit;
}

// Slab test in the box frame (boxes turn about z only).
function hitBox(o, d, box) {
  const c = Math.cos(-box.yaw), s = Math.sin(-box.yaw);
  const ox = o[0] - box.centre[0], oy = o[1] - box.centre[1];
  const lo = [c * ox - s * oy, s * ox + c * oy, o[2] - box.centre[2]];
  const ld = [c * d[0] - s * d[1], s * d[0] + c * d[1], d[2]];
  let tNear = -Infinity, tFar = Infinity, axis = 0;
  for (let a = 0; a < 3; a++) {
    if (Math.abs(ld[a]) < 1e-12) {
      if (Math.abs(lo[a]) > box.half[a]) return null;
      continue;
    }
    let t0 = (-box.half[a] - lo[a]) / ld[a], t1 = (box.half[a] - lo[a]) / ld[a];
    if (t0 > t1) [t0, t1] = [t1, t0];
    if (t0 > tNear) { tNear = t0; axis = a; }
    tFar = Math.min(tFar, t1);
  }
  if (tNear > tFar || tNear <= 0) return null;
  return { t: tNear, cosine: Math.abs(ld[axis]) };
}

function makeCloud(hits, side, random) {
  const n = hits.length;
  const cloud = {
    count: n,
    position: new Float32Array(3 * n),
    range: new Float32Array(n),
    intensity: new Float32Array(n),
    reflectance: side === 'sim' ? new Float32Array(n) : null,
    channel: new Uint16Array(n),
    column: new Uint32Array(n),
    time: new Float32Array(n),
    return_index: new Uint8Array(n),
    // The real sensor knows nothing about materials or objects.
    material: side === 'sim' ? new Uint16Array(n) : null,
    instance: side === 'sim' ? new Uint32Array(n) : null,
    semantic: side === 'sim' ? new Uint16Array(n) : null,
    partner: new Int32Array(n).fill(-1),
    index_in_file: new Uint32Array(n),
  };
  hits.forEach(({ beam, range }, i) => {
    const { hit } = beam;
    const r = Math.round(range * 1000) / 1000; // the document keeps 1 mm
    cloud.range[i] = r;
    cloud.position[3 * i] = Math.round(beam.sx * r * 1000) / 1000;
    cloud.position[3 * i + 1] = Math.round(beam.sy * r * 1000) / 1000;
    cloud.position[3 * i + 2] = Math.round(beam.sz * r * 1000) / 1000;
    const reflect = REFLECTIVITY[hit.material] * hit.cosine;
    cloud.intensity[i] = side === 'real'
      // counts: falls off with range, with shot noise
      ? Math.max(0, Math.round(2500 * reflect / (1 + 0.01 * r * r) + 25 * gaussian(random)))
      // percent: the simulator reports the surface's reflectance under the beam
      : Math.round(1000 * reflect) / 10;
    cloud.channel[i] = beam.ch;
    cloud.column[i] = beam.col;
    cloud.time[i] = (beam.col * SCAN_PERIOD_S) / COLUMNS;
    cloud.index_in_file[i] = beam.col * CHANNELS + beam.ch;
    if (side === 'sim') {
      cloud.reflectance[i] = REFLECTIVITY[hit.material];
      cloud.material[i] = hit.material;
      cloud.instance[i] = hit.instance;
      cloud.semantic[i] = hit.semantic;
    }
  });
  return cloud;
}

// Beam association: the points of the same (channel, column) are partners.
function linkPartners(real, sim) {
  const simByBeam = new Int32Array(CHANNELS * COLUMNS).fill(-1);
  for (let j = 0; j < sim.count; j++) simByBeam[sim.index_in_file[j]] = j;
  for (let i = 0; i < real.count; i++) {
    const j = simByBeam[real.index_in_file[i]];
    if (j >= 0) {
      real.partner[i] = j;
      sim.partner[j] = i;
    }
  }
}

// The ROIs in the sensor frame of this pose, with their point statistics.
function makeRois(pose, real, sim) {
  return ROI_BOXES.map((name) => {
    const box = BOXES.find((b) => b.name === name);
    const cos = Math.cos(-pose.yaw), sin = Math.sin(-pose.yaw);
    const dx = box.centre[0] - pose.position[0], dy = box.centre[1] - pose.position[1];
    const centre = [cos * dx - sin * dy, sin * dx + cos * dy, box.centre[2] - pose.position[2]];
    const yaw = box.yaw - pose.yaw;
    const half = box.half.map((h) => h + ROI_MARGIN_M);
    const stats = (cloud) => {
      let n = 0, iSum = 0, dSum = 0;
      const c = Math.cos(-yaw), s = Math.sin(-yaw);
      for (let i = 0; i < cloud.count; i++) {
        const px = cloud.position[3 * i] - centre[0], py = cloud.position[3 * i + 1] - centre[1];
        const pz = cloud.position[3 * i + 2] - centre[2];
        if (Math.abs(c * px - s * py) <= half[0] && Math.abs(s * px + c * py) <= half[1] && Math.abs(pz) <= half[2]) {
          n++;
          iSum += cloud.intensity[i];
          dSum += cloud.range[i];
        }
      }
      return n ? { n, i: iSum / n, d: dSum / n } : { n, i: null, d: null };
    };
    const r = stats(real), s = stats(sim);
    return {
      name, material: MATERIALS[box.material], centre, half_size: half,
      rotation: [Math.cos(yaw / 2), 0, 0, Math.sin(yaw / 2)],
      n_real: r.n, n_sim: s.n, i_mean_real: r.i, i_mean_sim: s.i, d_mean_real: r.d, d_mean_sim: s.d,
    };
  });
}

// A 32-bit linear congruential generator: reproducible noise, nothing more is asked of it.
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state >>> 8) / 16777216; // the top 24 bits, in [0, 1)
  };
}

function gaussian(random) {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}
