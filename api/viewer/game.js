// A game's module, looked up by the game's id: games/<game>.js gives its
// title, how its state is drawn, its events in words and its bookkeeping.
// What the desk asks of a module (all but `title` and `draw` optional):
//   draw(view, {seats, viewer, status}) → SVG; every element a person can
//     point at or click carries `data-at="<key>"` in the game's notation,
//     every piece `data-piece` (the browser test compares it with the state);
//   touches(item, {seats, viewer, view, seat}) → the keys an event (its
//     payload with its type) or an action touches: marked `last-action`
//     for the last decision, `disputed` for a refusal or a disputed verdict;
//   steps(action, ctx) → [{at?, label}]: the clicks that choose a legal
//     action (a key on the board, else a button labelled); play.js;
//   actionWords(action, ctx) → the action in words;
//   scoreSheet(score, {seats, viewer, final}) → a node showing how each
//     total is made; legend(ctx) → the board's key.
//   changeSubjects → [[pattern, (match, at) → words]]: what a path of its
//     state names in the game's notation, for diffs in words (changes.js).
// A game without one — a game registered since the page was written — is
// shown all the same: its state as JSON, its events spelt out from their
// payloads (words.js), so adding a game needs no change here.
import { html } from './svg.js';

// What the page uses of a game's module, for a game that has none.
function generic(id) {
  return {
    title: id.replaceAll('_', ' '),
    bookkeeping: [],
    phrases: {},
    draw: (view) => html('pre', { class: 'state-json', 'data-state-json': '', text: JSON.stringify(view, null, 2) }),
  };
}

export async function loadGame(id) {
  const fallback = generic(id);
  // Ids are snake_case (the registry's); anything else is no module's name.
  if (!/^[a-z0-9_]+$/.test(id)) return fallback;
  try {
    return { ...fallback, ...(await import(`./games/${id}.js`)) };
  } catch {
    return fallback;
  }
}
