// Marks on the board: what the last decision touched, what a refusal or a
// disputed verdict is about, and what may be clicked. A game's module names
// the elements an event or action touches by their `data-at` keys
// (games/<game>.js, `touches`); the page only adds classes to them.

export function atKey(key) {
  return `[data-at="${CSS.escape(key)}"]`;
}

export function clearMarks(board, cls) {
  for (const node of board.querySelectorAll(`.${cls}`)) node.classList.remove(cls);
}

// Adds `cls` to every element drawn with one of `keys`; returns how many.
export function mark(board, keys, cls) {
  let marked = 0;
  for (const key of new Set(keys)) {
    for (const node of board.querySelectorAll(atKey(key))) {
      node.classList.add(cls);
      marked += 1;
    }
  }
  return marked;
}

// What an event (its payload with its type) or an action touches, by the
// game's module; nothing when it has no say or does not know the shape.
export function touched(game, item, ctx) {
  if (!item || typeof game.touches !== 'function') return [];
  try {
    return game.touches(item, ctx) ?? [];
  } catch {
    return [];
  }
}
