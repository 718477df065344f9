// The GPU side, kept small: one WebGLRenderer shows the splatted point buffer as a single
// texture on a full-screen quad, then draws each view's line overlays (ROI boxes) with that
// view's perspective camera, clipped to the view's viewport.

import {
  WebGLRenderer, Scene, Mesh, PlaneGeometry, ShaderMaterial, OrthographicCamera, DataTexture,
  RGBAFormat, UnsignedByteType, NearestFilter, NoColorSpace,
} from 'three';

// Passes the splat colours through untouched: they are already sRGB bytes, and no colour-space
// conversion means the screen shows exactly the colours pointColours() reports.
const QUAD_VERTEX = `
varying vec2 vUv;
void main() {
  vUv = uv;
  gl_Position = vec4(position.xy, 0.0, 1.0);
}`;
const QUAD_FRAGMENT = `
uniform sampler2D map;
varying vec2 vUv;
void main() {
  gl_FragColor = texture2D(map, vUv);
}`;

export class Screen {
  /** Throws an Error with a readable message when the browser cannot give a WebGL 2 context. */
  constructor(canvas) {
    const gl = canvas.getContext('webgl2', { antialias: false, alpha: false, depth: true,
      stencil: false, preserveDrawingBuffer: false });
    if (!gl) {
      throw new Error('This browser could not create a WebGL 2 context, which the viewer needs '
        + '(hardware acceleration switched off, or too many open views?).');
    }
    this.renderer = new WebGLRenderer({ canvas, context: gl, antialias: false });
    // One buffer pixel per CSS pixel: points are sized in CSS pixels and the splat cost grows
    // with the pixel count, so a high-DPI screen does not quadruple the work.
    this.renderer.setPixelRatio(1);
    this.renderer.autoClear = false;
    this.material = new ShaderMaterial({
      uniforms: { map: { value: null } },
      vertexShader: QUAD_VERTEX,
      fragmentShader: QUAD_FRAGMENT,
      depthTest: false,
      depthWrite: false,
    });
    this.quad = new Mesh(new PlaneGeometry(2, 2), this.material);
    this.quad.frustumCulled = false;
    this.quadScene = new Scene().add(this.quad);
    this.quadCamera = new OrthographicCamera(-1, 1, 1, -1, 0, 1);
    this.texture = null;
    this.width = 0;
    this.height = 0;
  }

  /** Sizes the canvas to the splat target and wraps the target's colour buffer as the texture. */
  attach(target) {
    this.width = target.width;
    this.height = target.height;
    this.renderer.setSize(target.width, target.height, false);
    this.texture?.dispose();
    const bytes = new Uint8Array(target.colour.buffer);
    this.texture = new DataTexture(bytes, target.width, target.height, RGBAFormat, UnsignedByteType);
    this.texture.minFilter = NearestFilter;
    this.texture.magFilter = NearestFilter;
    this.texture.generateMipmaps = false;
    this.texture.colorSpace = NoColorSpace;
    this.material.uniforms.map.value = this.texture;
  }

  /**
   * Shows the splat buffer, then each overlay {viewport: {x, y, w, h} (pixels, y from the bottom),
   * camera, scene} on top of it.
   */
  present(overlays) {
    const r = this.renderer;
    this.texture.needsUpdate = true;
    r.setScissorTest(false);
    r.setViewport(0, 0, this.width, this.height);
    r.render(this.quadScene, this.quadCamera);
    r.setScissorTest(true);
    for (const { viewport: vp, camera, scene } of overlays) {
      r.setViewport(vp.x, vp.y, vp.w, vp.h);
      r.setScissor(vp.x, vp.y, vp.w, vp.h);
      r.render(scene, camera);
    }
  }

  dispose() {
    this.texture?.dispose();
    this.material.dispose();
    this.quad.geometry.dispose();
    this.renderer.dispose();
    this.renderer.forceContextLoss(); // browsers cap live contexts; a report may hold several views
  }
}
