// The regions of interest of a frame as 3-D wireframe boxes (one LineSegments for all of them),
// each with its name on a sprite above the top face.
//
// The names are drawn by WebGL with the boxes, not as HTML over the canvas: under software
// compositing, moving HTML labels on every frame of an orbit cost about a quarter of the frame rate.

import {
  Scene, LineSegments, BufferGeometry, Float32BufferAttribute, LineBasicMaterial, Vector3,
  Quaternion, Sprite, SpriteMaterial, CanvasTexture, NearestFilter, SRGBColorSpace,
} from 'three';

const BOX_COLOUR = '#ffd23f';
const LABEL_FONT = '600 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const LABEL_BACKGROUND = 'rgba(10, 12, 16, 0.75)';
const LABEL_HEIGHT_PX = 18;
const LABEL_PADDING_PX = 5;
const LABEL_GAP_PX = 3; // between the box's top face and the label

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
    this.labels = []; // {sprite, width}: width in pixels
  }

  /** Rebuilds the boxes for `rois` (DOCUMENT.md Roi: centre, half_size [m], rotation w,x,y,z). */
  setRois(rois) {
    this.clear();
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
      const label = makeLabel(roi.name);
      label.sprite.position.copy(new Vector3(0, 0, hz).applyQuaternion(q).add(centre));
      this.labels.push(label);
      this.scene.add(label.sprite);
    }
    const geometry = new BufferGeometry();
    geometry.setAttribute('position', new Float32BufferAttribute(vertices, 3));
    this.lines = new LineSegments(geometry, this.material);
    this.scene.add(this.lines);
  }

  /**
   * Sizes the labels to whole pixels for a view `heightPx` pixels high seen through `camera`
   * (a sprite without size attenuation measures in NDC units scaled by the projection).
   */
  fitLabels(camera, heightPx) {
    const toScale = 2 / (heightPx * camera.projectionMatrix.elements[5]);
    for (const { sprite, width } of this.labels) sprite.scale.set(width * toScale, LABEL_HEIGHT_PX * toScale, 1);
  }

  clear() {
    if (this.lines) {
      this.scene.remove(this.lines);
      this.lines.geometry.dispose();
      this.lines = null;
    }
    for (const { sprite } of this.labels) {
      this.scene.remove(sprite);
      sprite.material.map.dispose();
      sprite.material.dispose();
    }
    this.labels = [];
  }

  dispose() {
    this.clear();
    this.material.dispose();
  }
}

// The name on a dark rounded plate, drawn once into a canvas the sprite shows 1:1 in pixels.
function makeLabel(text) {
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d');
  ctx.font = LABEL_FONT;
  const width = Math.ceil(ctx.measureText(text).width) + 2 * LABEL_PADDING_PX;
  canvas.width = width;
  canvas.height = LABEL_HEIGHT_PX;
  ctx.fillStyle = LABEL_BACKGROUND;
  ctx.beginPath();
  ctx.roundRect(0, 0, width, LABEL_HEIGHT_PX, 3);
  ctx.fill();
  ctx.font = LABEL_FONT; // resizing the canvas reset the context
  ctx.fillStyle = BOX_COLOUR;
  ctx.textBaseline = 'middle';
  ctx.fillText(text, LABEL_PADDING_PX, LABEL_HEIGHT_PX / 2 + 0.5);
  const texture = new CanvasTexture(canvas);
  texture.colorSpace = SRGBColorSpace;
  texture.minFilter = NearestFilter;
  texture.magFilter = NearestFilter;
  texture.generateMipmaps = false;
  const sprite = new Sprite(new SpriteMaterial({ map: texture, depthTest: false, depthWrite: false,
    sizeAttenuation: false, transparent: true }));
  sprite.center.set(0.5, -LABEL_GAP_PX / LABEL_HEIGHT_PX); // bottom-centre, just above the anchor
  sprite.renderOrder = 1; // over the box lines
  return { sprite, width };
}
