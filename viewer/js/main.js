// Entry point of the bundle (global LidartwinViewer): mount(container, source) puts a viewer in
// `container` and returns its controller. On load, a page that carries a document (the
// standalone page of `lidartwin view`) gets one mounted on <body> by itself.
//
// source: {document} (decoded), {elementId} (an inlined <script type="application/octet-stream">)
// or {url}; it goes to loadDocument (document.js) as is.
//
// Controller (window.lidartwinViewer is the first one made on the page):
//   ready                 Promise: resolves once the first frame is drawn, rejects with the error
//   state()               {status: 'loading'|'ready'|'error', error, frame, layout, colourBy, pointSize}
//   counts()              {frame, real, sim}: points shown now (null before loading)
//   document()            the decoded document (viewer/DOCUMENT.md; null before loading)
//   setColourBy(mode)     'intensity', 'range', 'range_error', 'material', 'semantic', 'instance',
//                         'return_index', 'agreement', 'source' (overlay only)
//   setLayout(layout)     'side-by-side' | 'overlay'
//   setFrame(k)           0-based frame number
//   setPointSize(px)      1, 2 or 3
//   cameraState(side)     {position, target, up} of 'real' or 'sim' ([x, y, z], sensor frame, m)
//   setCamera(state)      sets both cameras ({position, target, up})
//   pointColours(side)    copy of the per-point colours (Uint32Array, 0xAABBGGRR)
//   colourOf(category)    'both', 'real only', 'sim only', 'no data' (also 'real', 'sim')
//   pickAt(clientX, clientY)  picks like a click; the info object the panel shows, or null
//   renderNow()           redraws synchronously
//   benchmark(seconds)    Promise<{fps, frames, ms_per_frame, render_ms, width, height}>
//   dispose()

import { Viewer } from './viewer.js';

export function mount(container, source) {
  const viewer = new Viewer(container, source);
  if (!window.lidartwinViewer) window.lidartwinViewer = viewer;
  return viewer;
}

function autoMount() {
  const data = document.getElementById('lidartwin-data');
  const meta = document.querySelector('meta[name="lidartwin-document-url"]');
  if (data) mount(document.body, { elementId: 'lidartwin-data' });
  else if (meta) mount(document.body, { url: meta.content });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', autoMount);
else autoMount();
