// Temporary entry until the viewer UI lands: loads the document and lists its frames.
import { loadDocument } from './document.js';

export async function mount(container, source) {
  try {
    const doc = await loadDocument(source);
    container.textContent = doc.frames.map((f) => `${f.label}: real ${f.real.count}, sim ${f.sim.count}`).join('\n');
    return doc;
  } catch (e) {
    container.textContent = e.message;
    throw e;
  }
}

function autoMount() {
  const url = document.querySelector('meta[name="lidartwin-document-url"]');
  if (document.getElementById('lidartwin-data')) window.lidartwinDoc = mount(document.body, { elementId: 'lidartwin-data' });
  else if (url) window.lidartwinDoc = mount(document.body, { url: url.content });
}
if (typeof document !== 'undefined') document.addEventListener('DOMContentLoaded', autoMount);
