// Changes in words: a diff of two states, or a what-if, said in the game's
// own notation ("blue's score 12 → 14", "the deck's top card P4 → P6")
// beside the JSON paths, which stay for developers. A game's own phrases
// for the parts of its state are its module's `changeSubjects` (game.js):
// [a pattern over the path, (match, at) → the subject it names], where
// `at(path)` reads the state (after, else before) at a path, for what an
// index stands for (the cell a card is planted at). Every other path is
// read generically: a seat's name is its possessive, an index into a list
// of seats is that seat, other indices count from one.

export const seatWords = (seat) => (/^\d+$/.test(String(seat)) ? `seat ${seat}` : String(seat));

// A segment of a path in words: a seat's name is its possessive; a list's
// index counts from one.
export function generic(segments, { seats = [], at = () => undefined, prefix = [] }) {
  const words = [];
  const path = [...prefix];
  for (let index = 0; index < segments.length; index += 1) {
    const segment = segments[index];
    const parent = path.join('.');
    path.push(segment);
    const named = seats.map(String).includes(segment) && !/^\d+$/.test(segment);
    if (named) {
      words.push(`${segment}'s`);
      continue;
    }
    if (/^\d+$/.test(segment)) {
      // An entry of a list of seats (`seats.1` whose `seat` is 1) is that
      // seat; any other entry its place in the list.
      const seat = at(`${path.join('.')}.seat`);
      if (seat != null && (parent.endsWith('seats') || parent.endsWith('orchards') || parent === '')) {
        words.pop();
        words.push(`${seatWords(seat)}'s`);
      } else {
        words.push(`no. ${Number(segment) + 1}`);
      }
      continue;
    }
    if (segment === 'totals' || segment === 'total') {
      words.push('score');
      continue;
    }
    words.push(segment.replaceAll('_', ' '));
  }
  return arrange(words);
}

// "score score blue's" (from `score.totals.blue`) reads "blue's score":
// a word once, and whose it is first.
function arrange(words) {
  const once = words.filter((word, index) => word !== words[index - 1]);
  const owner = once.findLastIndex((word) => word.endsWith("'s"));
  if (owner > 0 && once.slice(owner + 1).length === 0) {
    return [once[owner], ...once.slice(0, owner)].join(' ');
  }
  return once.join(' ');
}

// A value as a person reads it.
export function valueWords(value) {
  if (value === undefined) return 'nothing';
  if (value === null) return 'none';
  if (Array.isArray(value)) return value.length ? value.map(valueWords).join(', ') : 'none';
  if (typeof value === 'object') return JSON.stringify(value);
  if (value === true) return 'yes';
  if (value === false) return 'no';
  return String(value);
}

// What a path of a state names, in words.
export function subjectOf(game, path, ctx = {}) {
  const at = ctx.at ?? (() => undefined);
  for (const [pattern, phrase] of game?.changeSubjects ?? []) {
    const match = pattern.exec(path);
    if (match) {
      try {
        return phrase(match, at);
      } catch {
        break; // A state shaped otherwise: read generically.
      }
    }
  }
  return generic(String(path).split('.'), { seats: ctx.seats ?? [], at });
}

// One change in words: "blue's score 12 → 14".
export function changeWords(game, [path, before, after], ctx = {}) {
  const subject = subjectOf(game, path, ctx);
  if (before === undefined) return `${subject}: now ${valueWords(after)}`;
  if (after === undefined) return `${subject}: ${valueWords(before)}, gone`;
  return `${subject} ${valueWords(before)} → ${valueWords(after)}`;
}

// A list of things on cells (a seat's planted cards, the cubes, a field's
// flowers) is sorted, so a thing added shifts every later index: compared
// by index, "the 2nd card F3 → E3" would say a card moved that never did.
// For words, such a list becomes an object by cell ("E3": "W5"; a thing
// with more than its cell, its other values joined), compared cell by cell.
export function byCell(value) {
  if (Array.isArray(value)) {
    const onCells = value.length > 0 && value.every((item) => item && typeof item === 'object' && !Array.isArray(item) && item.cell != null);
    if (!onCells) return value.map(byCell);
    return Object.fromEntries(value.map(({ cell, ...rest }) => {
      const key = Array.isArray(cell) ? `[${cell.join(', ')}]` : String(cell);
      const parts = Object.values(rest);
      const plain = parts.every((part) => part === null || typeof part !== 'object');
      return [key, plain ? parts.join(' ') : byCell(rest)];
    }));
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, byCell(child)]));
  }
  return value;
}

// Every leaf of a JSON value with its path ("red.hand.3").
function leavesOf(value, path = '', out = new Map()) {
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) out.set(path || '(root)', Array.isArray(value) ? '[]' : '{}');
    for (const [key, child] of entries) leavesOf(child, path === '' ? key : `${path}.${key}`, out);
  } else {
    out.set(path || '(root)', value);
  }
  return out;
}

// The changes from `before` to `after` in words, things on cells compared
// by cell; an empty list's placeholder filling up is not a change to say.
export function changesInWords(game, before, after, ctx = {}) {
  const a = leavesOf(byCell(before));
  const b = leavesOf(byCell(after));
  const empty = (value) => value === '[]' || value === '{}';
  // In the order of the later state, where what was added stands beside
  // what changed around it; what is gone after it.
  const changes = [];
  for (const [path, value] of b) {
    if (!a.has(path)) {
      if (!empty(value)) changes.push([path, undefined, value]);
    } else if (a.get(path) !== value) changes.push([path, a.get(path), value]);
  }
  for (const [path, value] of a) if (!b.has(path) && !empty(value)) changes.push([path, value, undefined]);
  return changes.map((change) => changeWords(game, change, ctx));
}

// A reader of a path in a JSON value ("red.hand.3").
export function reader(...values) {
  return (path) => {
    for (const value of values) {
      let node = value;
      for (const key of path.split('.')) node = node == null ? undefined : node[key];
      if (node !== undefined) return node;
    }
    return undefined;
  };
}
