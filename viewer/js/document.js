// Loads the viewer document (viewer/DOCUMENT.md): from an object, from the base64 block an
// exported page inlines, or from the local server. The bytes are a zlib stream (the browser's
// own DecompressionStream inflates it) holding a JSON header and one column per field, which
// this file turns back into the typed arrays of DOCUMENT.md. Mirrors
// viewer/src/document_codec.cpp.

const FORMAT_VERSION = 1;

// Where a document comes from: {document}, {elementId} (inlined base64) or {url}.
export async function loadDocument(source) {
  if (source.document) return source.document;
  let bytes;
  if (source.elementId) {
    const element = document.getElementById(source.elementId);
    if (!element) throw new Error(`this page has no data block #${source.elementId}`);
    bytes = base64ToBytes(element.textContent);
  } else if (source.url) {
    bytes = await fetchBytes(source.url);
  } else {
    throw new Error('no document given (document, elementId or url)');
  }
  return parseDocument(await inflate(bytes));
}

// The server answers an error with JSON {error}; its message is what the page shows.
async function fetchBytes(url) {
  let response;
  try {
    response = await fetch(url, { cache: 'no-store' });
  } catch (e) {
    throw new Error(`cannot reach the lidartwin view server (${e.message}); is it still running?`);
  }
  if (!response.ok) {
    const text = await response.text();
    let message = text;
    try {
      message = JSON.parse(text).error || text;
    } catch (_) {
      // not JSON: the text itself
    }
    throw new Error(message || `the server answered ${response.status}`);
  }
  return new Uint8Array(await response.arrayBuffer());
}

function base64ToBytes(text) {
  let binary;
  try {
    binary = atob(text.replace(/\s+/g, ''));
  } catch (e) {
    throw new Error('the viewer data is damaged (its base64 text is not valid); export the page again');
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
  try {
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch (e) {
    // The browser's own message ("Failed to fetch") would mislead: the data never left the page.
    throw new Error('the viewer data is damaged (its compressed stream does not check out); export the page again');
  }
}

export function parseDocument(raw) {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const magic = String.fromCharCode(raw[0], raw[1], raw[2], raw[3]);
  if (raw.length < 12 || magic !== 'LTVD') throw new Error('the viewer data does not start with LTVD');
  const version = view.getUint32(4, true);
  if (version !== FORMAT_VERSION)
    throw new Error(`viewer data format ${version}; this page reads ${FORMAT_VERSION}`);
  const headerBytes = view.getUint32(8, true);
  if (12 + headerBytes > raw.length) throw new Error('the viewer data header runs past its end');
  const header = JSON.parse(new TextDecoder().decode(raw.subarray(12, 12 + headerBytes)));
  const payload = raw.subarray(12 + headerBytes);
  return {
    version,
    title: header.title,
    real: header.real,
    sim: header.sim,
    association: header.association,
    materials: header.materials || [],
    semantic_classes: header.semantic_classes || [],
    notes: header.notes || [],
    frames: header.frames.map((f) => ({
      label: f.label,
      real_index: f.real_index,
      sim_index: f.sim_index,
      left_out: f.left_out,
      real: decodeCloud(f.real, payload),
      sim: decodeCloud(f.sim, payload),
      rois: header.targets.map((t, i) => ({ ...t, ...f.rois[i] })),
    })),
  };
}

// The byte planes of a column back into 32-bit words, then the predictor undone.
function columnWords(column, payload, channel) {
  const n = column.count;
  const at = column.offset;
  if (at + 4 * n > payload.length) throw new Error(`viewer data column ${column.name} runs past the end`);
  const words = new Uint32Array(n);
  for (let b = 0; b < 4; b++) {
    const plane = payload.subarray(at + b * n, at + (b + 1) * n);
    const shift = 8 * b;
    for (let i = 0; i < n; i++) words[i] |= plane[i] << shift;
  }
  if (column.predictor === 'none') return words;
  const byChannel = column.predictor === 'channel';
  if (byChannel && (!channel || channel.length !== n))
    throw new Error(`viewer data column ${column.name} needs the channel column`);
  const last = byChannel ? new Uint32Array(65536) : null;
  const seen = byChannel ? new Uint8Array(65536) : null;
  let previous = 0;
  for (let i = 0; i < n; i++) {
    const z = words[i];
    const delta = (z >>> 1) ^ -(z & 1); // zig-zag back to a signed step
    const c = byChannel ? channel[i] : 0;
    const prediction = byChannel && seen[c] ? last[c] : previous;
    const value = (prediction + delta) >>> 0;
    words[i] = value;
    previous = value;
    if (byChannel) {
      last[c] = value;
      seen[c] = 1;
    }
  }
  return words;
}

const INTEGER_TYPES = {
  channel: Uint16Array,
  column: Uint32Array,
  return_index: Uint8Array,
  material: Uint16Array,
  instance: Uint32Array,
  semantic: Uint16Array,
  partner: Int32Array,
  index_in_file: Uint32Array,
};

function decodeCloud(cloud, payload) {
  const n = cloud.count;
  const columns = {};
  let channel = null;
  for (const column of cloud.columns) {
    const words = columnWords(column, payload, channel);
    let values;
    if (column.quant === 'mm') {
      values = new Float32Array(n);
      const signed = new Int32Array(words.buffer);
      for (let i = 0; i < n; i++) values[i] = signed[i] / 1000;
    } else if (column.quant === 't100ns') {
      values = new Float32Array(n);
      const signed = new Int32Array(words.buffer);
      for (let i = 0; i < n; i++) values[i] = signed[i] * 1e-7;
    } else if (column.quant === 'f12') {
      values = new Float32Array(words.buffer); // the words are the float's bits
    } else {
      const Type = INTEGER_TYPES[column.name] || Uint32Array;
      values = Type === Uint32Array ? words : Type.from(new Int32Array(words.buffer));
    }
    columns[column.name] = values;
    if (column.name === 'channel') channel = values;
  }
  const position = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) {
    position[3 * i] = columns.x[i];
    position[3 * i + 1] = columns.y[i];
    position[3 * i + 2] = columns.z[i];
  }
  return {
    count: n,
    position,
    range: columns.range,
    intensity: columns.intensity || null,
    reflectance: columns.reflectance || null,
    channel: columns.channel || null,
    column: columns.column || null,
    time: columns.time || null,
    return_index: columns.return_index || null,
    material: columns.material || null,
    instance: columns.instance || null,
    semantic: columns.semantic || null,
    partner: columns.partner,
    index_in_file: columns.index_in_file,
  };
}
