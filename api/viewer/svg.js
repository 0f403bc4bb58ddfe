// Small helpers to build DOM and SVG without a framework.

const SVG_NS = 'http://www.w3.org/2000/svg';

function fill(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value == null || value === false) continue;
    if (name === 'text') node.textContent = value;
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child == null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function svg(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

export function html(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

// A card or piece: a rounded rectangle with a label, marked with
// `data-piece` so that what is drawn can be checked against the state.
export function card(x, y, { piece, label, colour = '#fff', ink = '#1b1b1b', width = 34, height = 46, title }) {
  return svg('g', { class: 'card', 'data-piece': piece, transform: `translate(${x} ${y})` },
    svg('title', { text: title ?? label }),
    svg('rect', { width, height, rx: 4, fill: colour, stroke: '#555' }),
    svg('text', { x: width / 2, y: height / 2 + 5, 'text-anchor': 'middle', fill: ink, class: 'card-label', text: label }));
}

// Something the viewer may not see, drawn face down.
export function faceDown(x, y, { label = '?', width = 34, height = 46, title = 'hidden from this viewer' } = {}) {
  return svg('g', { class: 'face-down', transform: `translate(${x} ${y})` },
    svg('title', { text: title }),
    svg('rect', { width, height, rx: 4, class: 'back' }),
    svg('text', { x: width / 2, y: height / 2 + 5, 'text-anchor': 'middle', class: 'back-label', text: label }));
}

export function label(x, y, text, cls = 'label') {
  return svg('text', { x, y, class: cls, text });
}

// An <svg> sized to its content's box.
export function board(width, height, title, ...children) {
  return svg('svg', {
    class: 'board', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': title,
  }, svg('title', { text: title }), ...children);
}
