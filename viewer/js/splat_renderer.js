// Software rasteriser for the point clouds: every point is projected on the CPU and written into
// a colour / depth / id buffer the size of the canvas, which screen.js then shows as one texture.
//
// Why not GL_POINTS: the CI machines render with SwiftShader or llvmpipe, where the fixed-function
// point pipeline is vertex/primitive bound at about 2.3 M points/s (6-9 fps for 2 x 131,072
// points at 1280x720). A tight typed-array loop splats the same points in about 6 ms. Software
// rasterisation of points beating the point pipeline is also what Schuetz, Kerbl and Wimmer found
// on GPUs: "Rendering Point Clouds with Compute Shaders and Vertex Order Optimization", 2021.
//
// Buffers are in GL order (row 0 is the bottom row) so they upload without flipping.
// The id buffer holds (point index << 1) | side (0 real, 1 sim), -1 where no point: picking
// a clicked point is a look-up, not a search through the cloud.

import { BACKGROUND } from './palettes.js';

const NO_ID = -1;
// Points nearer to the camera than this [m, along the view axis] are skipped: it keeps the
// division by w finite and matches the camera's near plane.
const MIN_DEPTH = 0.05;

export class SplatTarget {
  constructor() {
    this.width = 0;
    this.height = 0;
    this.colour = new Uint32Array(0); // 0xAABBGGRR, uploaded as RGBA8
    this.depth = new Float32Array(0); // view-space depth [m]
    this.id = new Int32Array(0);
  }

  /** Reallocates the buffers for a canvas of width x height pixels; returns whether it did. */
  resize(width, height) {
    if (width === this.width && height === this.height) return false;
    this.width = width;
    this.height = height;
    const n = width * height;
    this.colour = new Uint32Array(n);
    this.depth = new Float32Array(n);
    this.id = new Int32Array(n);
    return true;
  }

  clear() {
    this.colour.fill(BACKGROUND);
    this.depth.fill(Infinity);
    this.id.fill(NO_ID);
  }

  /**
   * Splats `count` points into viewport `vp` ({x, y, w, h} in buffer pixels, y from the bottom)
   * as squares of `size` pixels, depth-tested.
   * @param {Float32Array} positions x, y, z per point [m]
   * @param {Uint32Array} colours packed colour per point
   * @param {ArrayLike<number>} m view-projection matrix, column-major (THREE.Matrix4.elements)
   * @param {number} side 0 real, 1 sim (stored in the id buffer)
   */
  splat(positions, colours, count, m, vp, size, side) {
    const W = this.width;
    const cbuf = this.colour, dbuf = this.depth, ibuf = this.id;
    // Matrix elements in locals: the loop then touches only the typed arrays.
    const m0 = m[0], m1 = m[1], m3 = m[3], m4 = m[4], m5 = m[5], m7 = m[7];
    const m8 = m[8], m9 = m[9], m11 = m[11], m12 = m[12], m13 = m[13], m15 = m[15];
    // NDC [-1, 1] -> buffer pixels: px = ndc * halfW + centreX.
    const halfW = vp.w * 0.5, halfH = vp.h * 0.5;
    const cx = vp.x + halfW, cy = vp.y + halfH;
    const x0 = vp.x, y0 = vp.y, x1 = vp.x + vp.w, y1 = vp.y + vp.h;

    if (size === 1) {
      for (let i = 0, p = 0; i < count; i++, p += 3) {
        const x = positions[p], y = positions[p + 1], z = positions[p + 2];
        const w = m3 * x + m7 * y + m11 * z + m15; // view-space depth for a perspective camera
        if (!(w >= MIN_DEPTH)) continue; // written so that NaN is skipped too
        const inv = 1 / w;
        const fx = (m0 * x + m4 * y + m8 * z + m12) * inv * halfW + cx;
        if (!(fx >= x0 && fx < x1)) continue;
        const fy = (m1 * x + m5 * y + m9 * z + m13) * inv * halfH + cy;
        if (!(fy >= y0 && fy < y1)) continue;
        const k = (fy | 0) * W + (fx | 0); // fx, fy >= 0 here, so | 0 floors
        if (w < dbuf[k]) {
          dbuf[k] = w;
          cbuf[k] = colours[i];
          ibuf[k] = (i << 1) | side;
        }
      }
      return;
    }

    // Squares of size x size pixels centred on the projected point, clipped to the viewport.
    const half = (size - 1) * 0.5;
    for (let i = 0, p = 0; i < count; i++, p += 3) {
      const x = positions[p], y = positions[p + 1], z = positions[p + 2];
      const w = m3 * x + m7 * y + m11 * z + m15;
      if (!(w >= MIN_DEPTH)) continue;
      const inv = 1 / w;
      const fx = (m0 * x + m4 * y + m8 * z + m12) * inv * halfW + cx - half;
      const fy = (m1 * x + m5 * y + m9 * z + m13) * inv * halfH + cy - half;
      if (!(fx < x1 && fy < y1 && fx + size > x0 && fy + size > y0)) continue;
      let sx = Math.floor(fx), sy = Math.floor(fy);
      let ex = sx + size, ey = sy + size;
      if (sx < x0) sx = x0;
      if (sy < y0) sy = y0;
      if (ex > x1) ex = x1;
      if (ey > y1) ey = y1;
      const c = colours[i], id = (i << 1) | side;
      for (let py = sy; py < ey; py++) {
        for (let k = py * W + sx, kEnd = py * W + ex; k < kEnd; k++) {
          if (w < dbuf[k]) {
            dbuf[k] = w;
            cbuf[k] = c;
            ibuf[k] = id;
          }
        }
      }
    }
  }

  /**
   * Draws a square ring (outer half-width `radius` pixels, 2 px thick) around the projection of
   * (x, y, z) in viewport `vp`, over everything: it marks a picked point however deep it lies.
   */
  mark(x, y, z, m, vp, radius, colour) {
    const w = m[3] * x + m[7] * y + m[11] * z + m[15];
    if (!(w >= MIN_DEPTH)) return;
    const px = Math.floor((m[0] * x + m[4] * y + m[8] * z + m[12]) / w * vp.w * 0.5 + vp.x + vp.w * 0.5);
    const py = Math.floor((m[1] * x + m[5] * y + m[9] * z + m[13]) / w * vp.h * 0.5 + vp.y + vp.h * 0.5);
    const W = this.width;
    for (let dy = -radius; dy <= radius; dy++) {
      const yy = py + dy;
      if (yy < vp.y || yy >= vp.y + vp.h) continue;
      const edgeY = dy <= -radius + 1 || dy >= radius - 1;
      for (let dx = -radius; dx <= radius; dx++) {
        if (!edgeY && dx > -radius + 1 && dx < radius - 1) continue; // hollow inside
        const xx = px + dx;
        if (xx < vp.x || xx >= vp.x + vp.w) continue;
        this.colour[yy * W + xx] = colour;
      }
    }
  }

  /** Paints pixel column `x` (the border between two views). */
  fillColumn(x, colour) {
    for (let k = x; k < this.colour.length; k += this.width) this.colour[k] = colour;
  }

  /**
   * The point drawn nearest to the camera within `radius` pixels of buffer pixel (bx, by):
   * {side: 0|1, index} or null.
   */
  pick(bx, by, radius) {
    let best = NO_ID, bestDepth = Infinity;
    for (let y = Math.max(0, by - radius); y <= Math.min(this.height - 1, by + radius); y++) {
      for (let x = Math.max(0, bx - radius); x <= Math.min(this.width - 1, bx + radius); x++) {
        const k = y * this.width + x;
        if (this.id[k] !== NO_ID && this.depth[k] < bestDepth) {
          bestDepth = this.depth[k];
          best = this.id[k];
        }
      }
    }
    return best === NO_ID ? null : { side: best & 1, index: best >>> 1 };
  }
}
