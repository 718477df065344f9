// The regions of interest of a frame as 3-D wireframe boxes (one LineSegments for all of them)
// and HTML labels that follow the boxes' top faces in every view.

import {
  Scene, LineSegments, BufferGeometry, Float32BufferAttribute, LineBasicMaterial, Vector3,
  Quaternion, Vector4,
} from 'three';

const BOX_COLOUR = '#ffd23f';

// The 12 edges of a box as pairs of corner numbers; corner k has sign bits (x: 1, y: 2, z: 4).
const EDGES = [
  [0, 1], [2, 3], [4, 5], [6, 7], // along x
  [0, 2], [1, 3], [4, 6], [5, 7], // along y
  [0, 4], [1, 5], [2, 6], [3, 7], // along z
];

export class RoiBoxes {
  constructor() {
    this.scene = new Scene();
    this.material = new LineBasicMaterial({ color: BOX_COLOUR, depthTest: false });
    this.lines = null;
    this.anchors = []; // {name, point: Vector3}: where each box's label goes (top face centre)
  }

  /** Rebuilds the boxes for `rois` (DOCUMENT.md Roi: centre, half_size [m], rotation w,x,y,z). */
  setRois(rois) {
    if (this.lines) {
      this.scene.remove(this.lines);
      this.lines.geometry.dispose();
      this.lines = null;
    }
    this.anchors = [];
    if (!rois.length) return;
    const vertices = [];
    const corner = new Vector3();
    for (const roi of rois) {
      const [w, x, y, z] = roi.rotation;
      const q = new Quaternion(x, y, z, w).normalize();
      const centre = new Vector3(...roi.centre);
      const [hx, hy, hz] = roi.half_size;
      const corners = [];
      for (let k = 0; k < 8; k++) {
        corner.set(k & 1 ? hx : -hx, k & 2 ? hy : -hy, k & 4 ? hz : -hz);
        corners.push(corner.clone().applyQuaternion(q).add(centre));
      }
      for (const [a, b] of EDGES) vertices.push(...corners[a].toArray(), ...corners[b].toArray());
      this.anchors.push({ name: roi.name, point: new Vector3(0, 0, hz).applyQuaternion(q).add(centre) });
    }
    const geometry = new BufferGeometry();
    geometry.setAttribute('position', new Float32BufferAttribute(vertices, 3));
    this.lines = new LineSegments(geometry, this.material);
    this.scene.add(this.lines);
  }

  /**
   * Places one label element per box over a view: `labels` are absolutely positioned children
   * of an element of viewport size `vp` ({w, h} pixels) shown through `camera`.
   */
  placeLabels(labels, camera, vp) {
    const p = new Vector4();
    this.anchors.forEach(({ point }, i) => {
      const label = labels[i];
      p.set(point.x, point.y, point.z, 1).applyMatrix4(camera.matrixWorldInverse)
        .applyMatrix4(camera.projectionMatrix);
      const visible = p.w > 0 && Math.abs(p.x / p.w) <= 1 && Math.abs(p.y / p.w) <= 1;
      label.hidden = !visible;
      if (!visible) return;
      const left = (p.x / p.w * 0.5 + 0.5) * vp.w;
      const top = (0.5 - p.y / p.w * 0.5) * vp.h;
      label.style.transform = `translate(${left.toFixed(1)}px, ${top.toFixed(1)}px) translate(-50%, -100%)`;
    });
  }

  dispose() {
    this.lines?.geometry.dispose();
    this.material.dispose();
  }
}
