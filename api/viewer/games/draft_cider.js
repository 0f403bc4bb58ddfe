// Draft & Cider: the communal hand, each seat's orchard (its batches), and
// the deck (face down unless this viewer may see it).
import { board, card, faceDown, label, svg } from '../svg.js';
import { list } from '../words.js';

export const title = 'Draft & Cider';

// Events that stepping may skip (setup, deals, turn changes).
export const bookkeeping = ['game_set_up', 'deck_shuffled', 'round_dealt'];

// Each event in words, for the timeline (words.js spells out the rest).
export const phrases = {
  game_set_up: (p) => `set up for ${p.players} players, ${p.rounds} rounds`,
  deck_shuffled: () => 'the deck is shuffled',
  round_dealt: (p) => `round ${p.round} dealt${p.cards ? `: ${p.cards.join(', ')}` : ''}`,
  card_picked: (p) => `seat ${p.seat} picks ${p.card} into ${p.batch.replace('_', ' ')}${p.timed_out ? ' (timed out)' : ''}`,
  game_finished: (p) => `the game ends: ${(p.totals ?? []).map((t, i) => `seat ${i} ${t}`).join(', ')}; winner ${list((p.winners ?? []).map((w) => `seat ${w}`))}`,
};

const COLOURS = { red: '#f2a6a0', green: '#b6e3a8', gold: '#f6d97a' };
const W = 64;
const H = 40;
const GAP = 4;

// "red h1 s5": colour, height, sweetness.
function cider(x, y, piece, name) {
  const [colour, height, sweetness] = name.split(' ');
  return card(x, y, {
    piece, label: `${height} ${sweetness}`, colour: COLOURS[colour] ?? '#eee', width: W, height: H,
    title: `${colour}, height ${height.slice(1)}, sweetness ${sweetness.slice(1)}`,
  });
}

export function draw(view) {
  const nodes = [];
  let y = 18;
  const toAct = view.to_act == null ? 'nobody' : `seat ${view.to_act}`;
  nodes.push(label(10, y, `round ${view.round} of ${view.rounds} · ${view.players} players · to pick: ${toAct}${view.finished ? ' · finished' : ''}`, 'muted'));
  y += 14;
  nodes.push(label(10, y + 14, `communal hand (${view.communal_hand.length})`));
  view.communal_hand.forEach((name, i) => nodes.push(cider(10 + i * (W + GAP), y + 20, `communal:${name}`, name)));
  y += H + 40;
  let width = 10 + Math.max(6, view.communal_hand.length) * (W + GAP);
  for (const orchard of view.orchards) {
    const extras = [];
    if (orchard.monochrome_colour) extras.push(`monochrome ${orchard.monochrome_colour}`);
    if (orchard.feather_chain) extras.push(`feather chain at sweetness ${orchard.feather_chain.sweetness}, height ${orchard.feather_chain.height}`);
    nodes.push(label(10, y, `seat ${orchard.seat}'s orchard${extras.length ? ` · ${extras.join(' · ')}` : ''}`, `label seat-${orchard.seat}`));
    y += 8;
    let x = 10;
    for (const [batch, cards] of Object.entries(orchard.batches)) {
      const columnHeight = Math.max(1, cards.length) * (H + GAP);
      nodes.push(svg('rect', { x: x - 2, y: y - 2, width: W + 4, height: columnHeight + 18, rx: 5, class: 'batch' }));
      nodes.push(label(x, y + 12, batch.replace('_', ' '), 'small'));
      cards.forEach((name, i) => nodes.push(cider(x, y + 16 + i * (H + GAP), `${orchard.seat}:${batch}:${name}`, name)));
      x += W + 10;
    }
    width = Math.max(width, x);
    const tallest = Math.max(1, ...Object.values(orchard.batches).map((cards) => cards.length));
    y += tallest * (H + GAP) + 36;
  }
  if (view.deck) {
    nodes.push(label(10, y, `deck (${view.deck.length}), in order`));
    const perRow = Math.max(6, Math.floor((width - 10) / (W + GAP)));
    view.deck.forEach((name, i) => nodes.push(cider(10 + (i % perRow) * (W + GAP), y + 6 + Math.floor(i / perRow) * (H + GAP), `deck:${name}`, name)));
    y += Math.ceil(view.deck.length / perRow) * (H + GAP) + 20;
  } else {
    nodes.push(label(10, y, `deck: ${view.cards_dealt ?? '?'} cards dealt so far`));
    nodes.push(faceDown(10, y + 6, { width: W, height: H, label: 'deck', title: 'the deck, face down' }));
    y += H + 20;
  }
  return board(width, y, 'Draft & Cider table', ...nodes);
}
