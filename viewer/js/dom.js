// A tiny helper for building the viewer's DOM without innerHTML (document text is never parsed
// as markup).

/** el('div', {className: 'ltv-x', title: '...'}, child, 'text', ...) -> HTMLElement */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'style') Object.assign(node.style, value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else node[key] = value;
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}
