// The two views' cameras and their orbit controls, kept identical: orbiting, panning or zooming
// in either half moves both, so the real and simulated scans are always seen from one viewpoint.

import { PerspectiveCamera, Vector3 } from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const FOV_DEG = 50;
const NEAR_M = 0.05;
const FAR_M = 5000;
const Z_UP = [0, 0, 1]; // the sensor frame's up

export class CameraPair {
  /**
   * @param {HTMLElement} realElement element whose pointer events steer the real view
   * @param {HTMLElement} simElement same for the simulated view
   * @param {() => void} onChange called after any camera moved
   */
  constructor(realElement, simElement, onChange) {
    this.cameras = { real: makeCamera(), sim: makeCamera() };
    this.elements = { real: realElement, sim: simElement };
    this.controls = {};
    this.home = { position: [-10, 0, 6], target: [0, 0, 0], up: Z_UP };
    this.onChange = onChange;
    this.syncing = false;
    this.attachControls();
  }

  // OrbitControls takes its orbit axis from camera.up when constructed, so a new `up` needs new
  // controls (see setState).
  attachControls() {
    for (const side of ['real', 'sim']) {
      this.controls[side]?.dispose();
      const controls = new OrbitControls(this.cameras[side], this.elements[side]);
      controls.enableDamping = false; // damping would need a redraw every animation frame
      controls.screenSpacePanning = true;
      controls.addEventListener('change', () => this.follow(side));
      this.controls[side] = controls;
    }
  }

  /** Copies the camera of `side` onto the other one, then reports the change. */
  follow(side) {
    if (this.syncing) return;
    this.syncing = true;
    const other = side === 'real' ? 'sim' : 'real';
    const from = this.cameras[side], to = this.cameras[other];
    to.position.copy(from.position);
    to.quaternion.copy(from.quaternion);
    to.up.copy(from.up);
    this.controls[other].target.copy(this.controls[side].target);
    if (to.zoom !== from.zoom) {
      to.zoom = from.zoom;
      to.updateProjectionMatrix();
    }
    this.syncing = false;
    this.onChange();
  }

  setAspect(side, aspect) {
    const camera = this.cameras[side];
    if (camera.aspect === aspect) return;
    camera.aspect = aspect;
    camera.updateProjectionMatrix();
  }

  /** The viewpoint "r" returns to: above and behind the sensor, looking at it (z up). */
  setHome(typicalRangeM) {
    const r = Math.max(typicalRangeM, 1);
    this.home = { position: [-0.9 * r, 0, 0.45 * r], target: [0.15 * r, 0, 0], up: Z_UP };
  }

  reset() {
    this.setState(this.home);
  }

  /** {position, target, up} of one side, as plain arrays. */
  state(side) {
    return {
      position: this.cameras[side].position.toArray(),
      target: this.controls[side].target.toArray(),
      up: this.cameras[side].up.toArray(),
    };
  }

  /** Sets both cameras to {position, target, up} ([x, y, z] each, m; up defaults to z). */
  setState({ position, target, up = Z_UP }) {
    for (const v of [position, target, up]) {
      if (!Array.isArray(v) || v.length !== 3 || !v.every(Number.isFinite)) {
        throw new Error('camera position, target and up must be [x, y, z] arrays of finite numbers');
      }
    }
    const upChanged = !this.cameras.real.up.equals(new Vector3(...up).normalize());
    for (const camera of Object.values(this.cameras)) {
      camera.up.set(...up).normalize();
      camera.position.set(...position);
    }
    if (upChanged) this.attachControls();
    this.controls.real.target.set(...target);
    this.controls.real.update(); // points the camera at the target and fires 'change'
    this.follow('real');
  }

  /** Turns the view about the up axis through the target by `angle` [rad] (for benchmark). */
  orbit(angle) {
    const camera = this.cameras.real, target = this.controls.real.target;
    camera.position.sub(target).applyAxisAngle(camera.up, angle).add(target);
    this.controls.real.update();
    this.follow('real');
  }

  /** Overlay shows one view only: the simulated view's controls are switched off. */
  setOverlay(overlay) {
    this.controls.sim.enabled = !overlay;
  }

  dispose() {
    for (const controls of Object.values(this.controls)) controls.dispose();
  }
}

function makeCamera() {
  const camera = new PerspectiveCamera(FOV_DEG, 1, NEAR_M, FAR_M);
  camera.up.set(...Z_UP); // before the controls are made: they read their orbit axis from it
  return camera;
}
