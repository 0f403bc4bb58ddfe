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

// How far a drawing is scaled up to fill its box: a small board (a tree's
// first cubes) grows until a finger finds its cells, not until it fills a
// wide screen with one huge square.
export const MOST_SCALED = 2.4;

// An <svg> of its content's box, scaled by the page's CSS to the width it
// is given, at most MOST_SCALED times its own (set through the CSSOM: the
// page's policy allows no inline style attribute).
export function board(width, height, title, ...children) {
  const node = svg('svg', {
    class: 'board', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': title,
  }, svg('title', { text: title }), ...children);
  node.style.maxWidth = `${Math.round(width * MOST_SCALED)}px`;
  return node;
}

// The width a game's drawing is shown at: its box on the page, else the
// window's. A game lays its board out for it (fields abreast or two by two)
// so that, scaled to it, every cell stays big enough to click.
export function boardWidth() {
  if (typeof document === 'undefined') return 940;
  const box = document.getElementById('board');
  const inner = box ? box.clientWidth - 12 : 0;
  return Math.max(260, inner > 0 ? inner : (globalThis.innerWidth ?? 1000) - 60);
}
