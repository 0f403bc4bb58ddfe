// Draft & Cider: the communal hand, each seat's orchard (its eight batches)
// and the deck (face down unless this viewer is the umpire).
//
// There is no grid: a card is named by its notation, `gold h3 s5` (colour,
// height 1–5, sweetness 1–5), as in the timeline, the events and the
// refusals; a place is a seat's batch (`feather`, `bad`, …).
//
// `data-at` keys (every one a person may point at or click):
//   hand                   the communal hand (its heading)
//   hand:<card>            a card of the communal hand, e.g. `hand:gold h3 s5`
//   <seat>:<batch>         a seat's batch (its column and its "next" slot), e.g. `1:feather`
//   <seat>:<batch>:<card>  a card in a seat's batch, e.g. `1:feather:gold h3 s5`
//   orchard:<seat>         a seat's orchard (its title)
//   deck                   the deck, face down (everyone but the umpire)
//   deck:<card>            a card of the deck, in order (the umpire only)
// `data-piece` keys (compared with the state by the browser test) are
// `communal:<card>`, `<seat>:<batch>:<card>` and `deck:<card>`.
import { board, faceDown, html, label, svg } from '../svg.js';

export const title = 'Draft & Cider';

// Events that stepping may skip (setup, deals, turn changes).
export const bookkeeping = ['game_set_up', 'deck_shuffled', 'round_dealt'];

// The batches in the rule book's order (§3): id, name, short name for a column.
export const BATCHES = [
  ['monochrome', 'Monochrome', 'Monochrome'],
  ['feather', 'Apples of a Feather', 'Feather'],
  ['special_tree', 'Special Colour Tree', 'Special Tree'],
  ['unlucky', 'Unlucky', 'Unlucky'],
  ['fortepiano', 'Fortepiano Height', 'Fortepiano'],
  ['sweet_couple', 'Sweet Couple', 'Sweet Couple'],
  ['steady', 'Steady Height', 'Steady'],
  ['bad', 'Bad', 'Bad'],
];
const BATCH_NAME = Object.fromEntries(BATCHES.map(([id, name]) => [id, name]));
export const batchName = (id) => BATCH_NAME[id] ?? String(id).replaceAll('_', ' ');

// `gold h3 s5` → { colour: 'gold', height: 3, sweetness: 5 }.
export function readCard(name) {
  const [colour, height, sweetness] = String(name).split(' ');
  return { colour, height: Number(height?.slice(1)), sweetness: Number(sweetness?.slice(1)) };
}

// `gold h3 s5` in words: "gold h3 s5 (gold, height 3, sweetness 5)".
export function cardWords(name) {
  const c = readCard(name);
  return `${name} (${c.colour}, height ${c.height}, sweetness ${c.sweetness})`;
}

const seatWord = (seat) => `seat ${seat}`;
const seatList = (seats) => {
  const names = (seats ?? []).map(seatWord);
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
};

const DECIDED = {
  highest_total: 'highest total',
  most_non_empty_batches: 'tied on total; most non-empty batches',
  shared_win: 'tied on total and on non-empty batches: a shared win',
  solo: 'a solo game: its result is the total',
};

// Each event in words, for the timeline (words.js spells out the rest).
export const phrases = {
  game_set_up: (p) => `set up for ${p.players} player${p.players === 1 ? '' : 's'}: ${p.rounds} rounds of ${p.cards_per_player} cards a player`,
  deck_shuffled: () => 'the 75 cards are shuffled (the order is the umpire\'s only)',
  round_dealt: (p) => `round ${p.round} dealt face up${p.cards ? `: ${p.cards.join(', ')}` : ''}; ${seatWord(p.first_picker)} picks first`,
  card_picked: (p) => `${seatWord(p.seat)} picks ${p.card} into ${batchName(p.batch)}${p.timed_out ? ' (timed out: the umpire picked the first card, into Bad)' : ''}`,
  game_finished: (p) => `the game ends: ${(p.totals ?? []).map((t, i) => `${seatWord(i)} ${t}`).join(', ')}; ${
    (p.winners ?? []).length ? `${seatList(p.winners)} win${p.winners.length === 1 ? 's' : ''}` : 'no winner'
  }${DECIDED[p.decided_by] ? ` (${DECIDED[p.decided_by]})` : ''}`,
};

// ---- the cards ----------------------------------------------------------------

const PAPER = { red: '#f8cdc9', green: '#d3eec9', gold: '#f8e6a6' };
const APPLE = { red: '#c0392b', green: '#4c9a2a', gold: '#d4a017' };
const W = 78;
const H = 46;
const GAP = 4;
const COLUMN = W + 10;

// A card a person reads: its colour named, its height and sweetness in words,
// an apple of its colour; its notation in its title.
function cider(x, y, name, { piece, at, faded = false } = {}) {
  const c = readCard(name);
  return svg('g', { class: 'card cider', 'data-piece': piece, 'data-at': at, transform: `translate(${x} ${y})`, opacity: faded ? 0.55 : null },
    svg('title', { text: `${name}: a ${c.colour} apple, height ${c.height}, sweetness ${c.sweetness}` }),
    svg('rect', { width: W, height: H, rx: 4, fill: PAPER[c.colour] ?? '#eee', stroke: '#555' }),
    // The apple in its own group, so that the marks (last action, legal
    // choice) outline the card, not the apple.
    svg('g', { 'aria-hidden': 'true' },
      svg('circle', { cx: W - 11, cy: 12, r: 6, fill: APPLE[c.colour] ?? '#999', stroke: '#333', 'stroke-width': 0.5 }),
      svg('path', { d: `M${W - 11} 6 l1.5 -3.5`, stroke: '#5a3d1e', 'stroke-width': 1.5 })),
    svg('text', { x: 6, y: 14, class: 'card-label', text: c.colour }),
    svg('text', { x: 6, y: 29, class: 'small', text: `height ${c.height}` }),
    svg('text', { x: 6, y: 41, class: 'small', text: `sweetness ${c.sweetness}` }));
}

// ---- what a batch takes next (a hint; the legal actions decide) ---------------

function nextHint(batch, cards, orchard) {
  const last = cards.length ? readCard(cards.at(-1)) : null;
  const pairing = cards.length % 2 === 1;
  switch (batch) {
    case 'monochrome': return orchard.monochrome_colour ? `${orchard.monochrome_colour} only` : 'any card';
    case 'feather': {
      const chain = orchard.feather_chain;
      if (!chain) return 'any card';
      const live = [chain.sweetness != null ? `sweet ${chain.sweetness}` : null, chain.height != null ? `height ${chain.height}` : null].filter(Boolean);
      return live.join(' or ');
    }
    case 'special_tree': {
      if (cards.length) return 'full';
      const used = new Set();
      for (const [id, held] of Object.entries(orchard.batches)) {
        if (id !== 'bad' && id !== 'special_tree') for (const card of held) used.add(readCard(card).colour);
      }
      const free = ['green', 'gold', 'red'].filter((colour) => !used.has(colour));
      return free.length ? `${free.join('/')}` : 'no colour left';
    }
    case 'unlucky': {
      if (!cards.length) return 'any card';
      const values = cards.map((card) => readCard(card).sweetness);
      const low = Math.min(...values);
      const high = Math.max(...values);
      return low === high ? `sweet ${Math.max(1, low - 1)}–${Math.min(5, low + 1)}` : `sweet ${low}–${high}`;
    }
    case 'fortepiano': return pairing ? `height ≠ ${last.height}` : 'any card';
    case 'sweet_couple': return pairing ? `sweet ${last.sweetness}` : 'any card';
    case 'steady': return last ? `height ${Math.max(1, last.height - 1)}–${Math.min(5, last.height + 1)}` : 'any card';
    default: return 'any card';
  }
}

// How many batch columns fit in a row: all eight on a wide screen, four on a
// narrow one (a phone), so that the cards stay legible without zooming.
// "next: sweet 2" / "or height 4": the hint in the slot, in two short lines.
function slotLines(hint) {
  const [first, second] = hint.split(' or ');
  return second ? [`next: ${first}`, `or ${second}`] : ['next:', hint];
}

function columnsPerRow() {
  const wide = typeof globalThis.innerWidth !== 'number' || globalThis.innerWidth >= 760;
  return wide ? 8 : 4;
}

function drawOrchard(nodes, orchard, top, perRow, finished) {
  const seat = orchard.seat;
  const extras = [];
  if (orchard.monochrome_colour) extras.push(`Monochrome is ${orchard.monochrome_colour}`);
  const chain = orchard.feather_chain;
  if (chain) {
    const live = [chain.sweetness != null ? `sweetness ${chain.sweetness}` : null, chain.height != null ? `height ${chain.height}` : null].filter(Boolean);
    extras.push(`Feather chain: ${live.join(' or ')}`);
  }
  const count = Object.values(orchard.batches).reduce((sum, cards) => sum + cards.length, 0);
  nodes.push(svg('text', { x: 10, y: top, class: `label seat-${seat}`, 'data-at': `orchard:${seat}`, text: `seat ${seat}'s orchard (${count} card${count === 1 ? '' : 's'})` }));
  if (extras.length) nodes.push(label(10, top + 13, extras.join(' · '), 'small muted'));
  let y = top + (extras.length ? 20 : 8);
  let width = 0;
  for (let start = 0; start < BATCHES.length; start += perRow) {
    const row = BATCHES.slice(start, start + perRow);
    const tallest = Math.max(0, ...row.map(([id]) => (orchard.batches[id] ?? []).length));
    // Room for the cards and, while the game runs, the slot for the next.
    const columnHeight = 16 + (tallest + (finished ? 0 : 1)) * (H + GAP) + 2;
    row.forEach(([id, , short], i) => {
      const x = 10 + i * COLUMN;
      const cards = orchard.batches[id] ?? [];
      const slotY = y + 16 + cards.length * (H + GAP);
      nodes.push(svg('g', { class: 'batch-place', 'data-at': `${seat}:${id}` },
        svg('title', { text: `seat ${seat}'s ${batchName(id)} (${id}): ${cards.length} card${cards.length === 1 ? '' : 's'}${finished ? '' : `; next: ${nextHint(id, cards, orchard)}`}` }),
        svg('rect', { x: x - 3, y: y - 2, width: W + 6, height: columnHeight, rx: 5, class: 'batch' }),
        svg('text', { x, y: y + 11, class: 'small label', text: short }),
        finished ? null : svg('rect', { x, y: slotY, width: W, height: H, rx: 4, fill: '#fff', stroke: '#aaa', 'stroke-dasharray': '4 3' }),
        finished ? null : slotLines(nextHint(id, cards, orchard)).map((line, k) => svg('text', { x: x + W / 2, y: slotY + 19 + k * 14, 'text-anchor': 'middle', class: 'small muted', text: line })),
        // The cards inside the batch's group: a click on one, when the batch
        // is a legal choice, chooses the batch.
        cards.map((name, k) => cider(x, y + 16 + k * (H + GAP), name, { piece: `${seat}:${id}:${name}`, at: `${seat}:${id}:${name}` }))));
      width = Math.max(width, x + W + 6);
    });
    y += columnHeight + 8;
  }
  return { bottom: y + 14, width };
}

// The deck: the umpire sees it in order, split by what was dealt, what each
// later round will deal and what is never dealt; everyone else sees what
// may be known of it (its size and how much is dealt), face down.
function drawDeck(nodes, view, top, width) {
  const players = view.players;
  const perRound = view.cards_per_player * players;
  const inPlay = view.rounds * perRound;
  const dealt = view.cards_dealt ?? Math.min(view.round, view.rounds) * perRound;
  const later = Math.max(0, inPlay - dealt);
  const facts = [
    `dealt so far: ${dealt} (${Math.min(view.round, view.rounds)} of ${view.rounds} rounds, ${perRound} a round)`,
    `still to come: ${later}`,
    `never dealt: ${75 - inPlay}`,
  ];
  nodes.push(label(10, top, `deck: 75 cards${view.deck ? ', in order' : ', face down'}`));
  let y = top + 8;
  if (!view.deck) {
    const deck = faceDown(10, y, { width: W, height: H, label: `${75 - dealt} in it`, title: 'the deck, face down: its order is the umpire\'s only, for good (cards never dealt are never shown)' });
    deck.setAttribute('data-at', 'deck');
    nodes.push(deck);
    [...facts, 'order: the umpire\'s only, for good'].forEach((fact, i) => nodes.push(label(W + 20, y + 10 + i * 13, fact, 'small muted')));
    return y + Math.max(H, 4 * 13) + 20;
  }
  facts.forEach((fact, i) => nodes.push(label(10, y + 10 + i * 13, fact, 'small muted')));
  y += 3 * 13;
  const perRow = Math.max(4, Math.floor((width - 10) / (W + GAP)));
  const groups = [[`dealt (${dealt}), faded`, 0, dealt, true]];
  for (let round = view.round + 1; round <= view.rounds; round += 1) {
    const start = (round - 1) * perRound;
    groups.push([`round ${round} will deal`, start, start + perRound, false]);
  }
  groups.push([`never dealt (${75 - inPlay})`, Math.max(inPlay, dealt), 75, false]);
  y += 10;
  for (const [heading, start, end, faded] of groups) {
    const cards = view.deck.slice(start, end);
    if (!cards.length) continue;
    nodes.push(label(10, y + 10, heading, 'small label'));
    y += 16;
    cards.forEach((name, i) => nodes.push(cider(10 + (i % perRow) * (W + GAP), y + Math.floor(i / perRow) * (H + GAP), name, { piece: `deck:${name}`, at: `deck:${name}`, faded })));
    y += Math.ceil(cards.length / perRow) * (H + GAP) + 6;
  }
  return y + 10;
}

export function draw(view) {
  const nodes = [];
  const perRow = columnsPerRow();
  let width = 10 + perRow * COLUMN;
  let y = 18;
  const toAct = view.to_act == null ? 'nobody' : `seat ${view.to_act}`;
  nodes.push(label(10, y, `round ${view.round} of ${view.rounds} · to pick: ${toAct}${view.finished ? ' · finished' : ''}`, 'label'));
  nodes.push(label(10, y + 15, `${view.players} player${view.players === 1 ? '' : 's'}, ${view.cards_per_player} cards each a round`, 'small muted'));
  y += 38;
  const hand = view.communal_hand;
  nodes.push(svg('text', { x: 10, y, class: 'label', 'data-at': 'hand', text: `communal hand (${hand.length}), in deal order${hand.length ? '' : ': empty'}` }));
  const handPerRow = Math.max(perRow, Math.floor((width - 10) / (W + GAP)));
  hand.forEach((name, i) => nodes.push(cider(10 + (i % handPerRow) * (W + GAP), y + 8 + Math.floor(i / handPerRow) * (H + GAP), name, { piece: `communal:${name}`, at: `hand:${name}` })));
  y += hand.length ? 8 + Math.ceil(hand.length / handPerRow) * (H + GAP) + 22 : 24;
  for (const orchard of view.orchards) {
    const drawn = drawOrchard(nodes, orchard, y, perRow, view.finished);
    width = Math.max(width, drawn.width);
    y = drawn.bottom;
  }
  y = drawDeck(nodes, view, y, width);
  return board(width + 6, y, 'Draft & Cider table', ...nodes);
}

// ---- the last action, a disputed action ------------------------------------------

export function touches(item, ctx = {}) {
  const seat = item.seat ?? ctx.seat;
  switch (item.type) {
    case 'pick':
    case 'card_picked':
      return [`hand:${item.card}`, `${seat}:${item.batch}`, `${seat}:${item.batch}:${item.card}`];
    case 'timeout':
      // Not the hand's first card: drawn after the timeout, that is
      // another card; the event (`card_picked`) names the card taken.
      return [`${seat}:bad`, `orchard:${seat}`];
    case 'round_dealt':
      // The hand's heading, not its cards: marking a whole new hand would
      // drown the pick that emptied the last one.
      return ['hand'];
    case 'deck_shuffled':
      return ['deck'];
    case 'game_finished':
      return (item.winners ?? []).map((winner) => `orchard:${winner}`);
    default:
      return [];
  }
}

// ---- play by clicking: a card of the hand, then the batch ------------------------

export function steps(action, ctx = {}) {
  if (action.type === 'pick') {
    const seat = ctx.seat ?? ctx.view?.to_act;
    return [
      { at: `hand:${action.card}`, label: action.card },
      { at: `${seat}:${action.batch}`, label: `into ${batchName(action.batch)}` },
    ];
  }
  if (action.type === 'timeout') {
    return [{ label: `seat ${action.seat} is out of time (first card of the hand into Bad)` }];
  }
  return [{ label: JSON.stringify(action) }];
}

export function actionWords(action) {
  if (action.type === 'pick') return `picks ${action.card} into ${batchName(action.batch)}`;
  if (action.type === 'timeout') return `declares seat ${action.seat} out of time: the first card of the hand goes into Bad`;
  return JSON.stringify(action);
}

// ---- the score sheet -----------------------------------------------------------------

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
// −4, not -4, where people read it (the table's cells stay plain numbers).
const signed = (n) => (n < 0 ? `−${Math.abs(n)}` : String(n));

export function scoreSheet(score, ctx = {}) {
  const seats = score?.seats ?? [];
  const best = Math.max(...seats.map((s) => s.total));
  const sentence = score.final
    ? (score.winners?.length
      ? `${capital(seatList(score.winners))} win${score.winners.length === 1 ? 's' : ''} with ${best}${DECIDED[score.decided_by] ? ` (${DECIDED[score.decided_by]})` : ''}.`
      : `No winner${DECIDED[score.decided_by] ? `: ${DECIDED[score.decided_by]}` : ''}.`)
    : 'Provisional: each batch scored as it lies now; no winner until the last round is over.';
  const byBatch = (seat, id) => seat.batches.find((b) => b.batch === id);
  const head = html('tr', {}, html('th', { text: 'batch' }), ...seats.map((s) => html('th', { text: `seat ${s.seat}` })));
  const rows = BATCHES.map(([id, name]) => html('tr', { 'data-batch': id }, html('th', { text: name }),
    ...seats.map((s) => {
      const b = byBatch(s, id);
      return html('td', { title: b ? `${b.reason}${b.cards.length ? ` — ${b.cards.join(', ')}` : ''}` : '', text: b ? String(b.points) : '' });
    })));
  const total = html('tr', { class: 'total' }, html('th', { text: 'total' }),
    ...seats.map((s) => html('td', { 'data-total': s.seat, text: String(s.total) }, (score.winners ?? []).includes(s.seat) ? ' ★' : '')));
  const tieBreak = html('tr', {}, html('th', { text: 'non-empty batches (tie-breaker)' }),
    ...seats.map((s) => html('td', { text: String(s.non_empty_batches) })));
  const why = seats.map((s) => html('details', { class: 'dc-seat', 'data-seat': s.seat },
    html('summary', { text: `seat ${s.seat}: ${signed(s.total)} = ${s.batches.filter((b) => b.points).map((b) => `${signed(b.points)} ${batchName(b.batch)}`).join(' + ').replaceAll('+ −', '− ') || '0'}` }),
    html('ul', {}, ...s.batches.map((b) => html('li', {},
      html('strong', { text: `${batchName(b.batch)} ${b.points}: ` }), b.reason,
      b.cards.length ? ` — ${b.cards.join(', ')}` : '')))));
  return html('div', { class: 'dc-score', 'data-final': score.final ? 'true' : 'false' },
    html('p', { text: sentence }),
    html('table', {}, html('thead', {}, head), html('tbody', {}, ...rows, total, tieBreak)),
    ...why);
}

// ---- the legend ----------------------------------------------------------------------

export function legend() {
  return html('div', { class: 'dc-legend' },
    html('p', {}, 'A card is an apple: its colour (green, gold, red), its height 1–5 and its sweetness 1–5, written ',
      html('code', { text: 'gold h3 s5' }), ' in the timeline, the events and the refusals (75 cards, one of each).'),
    html('p', { text: 'No grid: a card is named by its notation, a place by its seat and batch (seat 1\'s Feather). '
      + 'Under each batch a dashed slot says what the batch takes next (a hint; the legal actions decide). '
      + 'To pick: click a card of the communal hand, then one of your batches.' }),
    html('p', { text: 'The deck\'s order is the umpire\'s only, for good: others see how many cards are dealt, still to come and never dealt.' }));
}

// Changes between two states in words (changes.js): a card of a seat's
// orchard by its batch, the communal hand's cards.
export const changeSubjects = [
  [/^orchards\.(\d+)\.batches\.(\w+)\.(\d+)$/, ([, i, batch, card], at) => `seat ${at(`orchards.${i}.seat`) ?? i}'s orchard, ${batch.replaceAll('_', ' ')} batch, card ${Number(card) + 1}`],
  [/^communal_hand\.(\d+)$/, ([, i]) => `the communal hand's card ${Number(i) + 1}`],
  [/^deck\.0$/, () => "the deck's top card"],
];
