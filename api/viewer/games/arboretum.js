// Build Your Arboretum: each seat's 6×6 arboretum, advertising board, bid
// and parrots; the offering area, refuse pile, cards out of the game, the
// deck (face down), the round's turn order and its once-a-round specials.
//
// Notation (docs/rules/arboretum.md, "Notation"): a card is its suit letter
// P–W and its value 1–8 (`W7`); a cell is its column A–F and row 1–6 (`C4`),
// as the events and the refusals write them. Each grid is labelled so.
//
// `data-at` keys (what `touches` and `steps` name):
//   red:seat, blue:seat            the seat's name (choose_start)
//   red:parrots                    its parrots (hire)
//   red:C4                         a cell of red's arboretum, empty or planted
//   red:ad, red:ad:Q3              red's advertising board, a card on it
//   red:bid, red:bid:0             red's bid, its first group
//   offer:W7, refuse:W7, out:W7    a card in the offering area, the refuse
//                                  pile, out of the game
//   deck                           the deck
//   turn:1 … turn:9                the round's turns, in order
//   special:dig, special:hire, special:start   the once-a-round actions
import { board, faceDown, html, label, svg } from '../svg.js';
import { ruleLink, ruleUrl } from '../rules.js';
import { list } from '../words.js';

export const title = 'Build Your Arboretum';

// Events that stepping may skip (setup, deals, turn changes).
export const bookkeeping = ['deck_shuffled', 'round_started', 'cards_dealt', 'bids_revealed', 'round_ended', 'turn_skipped'];

const groupWords = (groups) => groups.map((g) => `${g.size} ${g.plan}`).join(', ');

// Each event in words, for the timeline (words.js spells out the rest).
export const phrases = {
  deck_shuffled: (p) => `the deck of ${p.card_count} cards is shuffled`,
  // The seat holding the DM Advantage chooses (the timeline names it first).
  starting_player_chosen: (p) => `chooses ${p.seat} to start`,
  round_started: (p) => `round ${p.round} starts, ${p.starting_player} first`,
  cards_dealt: (p) => (p.cards ? `round ${p.round}: ${list(p.cards)} dealt to the offering area` : `round ${p.round}: cards dealt`),
  bid_submitted: (p) => (p.groups
    ? `${p.seat} bids ${p.groups.length ? groupWords(p.groups) : 'nothing'}${p.replaced ? ' (replacing the last bid)' : ''}`
    : `${p.seat} bids, sealed${p.replaced ? ' (replacing the last bid)' : ''}`),
  bid_timed_out: (p) => `${p.seat} is timed out of bidding: no turns in round ${p.round}`,
  bids_revealed: (p) => `bids revealed for round ${p.round}`,
  card_planted: (p) => `${p.seat} plants ${p.card} on ${p.cell}`,
  card_dug: (p) => `${p.seat} digs ${p.card} onto ${p.cell}`,
  card_taken: (p) => `${p.seat} takes ${p.card}${p.discard ? `, giving back ${p.discard}` : ''}`,
  parrot_hired: (p) => `${p.seat} hires a parrot with ${list(p.cards)} (${p.parrots} parrots)`,
  start_taken: (p) => `${p.seat} takes the start`,
  turn_skipped: (p) => `${p.seat}'s turn ${p.turn} is ${p.reason.replaceAll('_', ' ')}`,
  round_ended: (p) => `round ${p.round} ends${p.moved_to_refuse?.length ? `; ${list(p.moved_to_refuse)} to the refuse pile` : ''}`,
  game_ended: (p) => `the game ends: ${Object.entries(p.totals ?? {}).map(([s, t]) => `${s} ${t}`).join(', ')}; ${p.winner ?? 'no one'} wins`,
};

// The eight suits: a colour each, named by their letter on every card.
const SUITS = 'PQRSTUVW';
const SUIT_COLOURS = {
  P: '#f2b8c6', Q: '#b8d8f2', R: '#f4c27a', S: '#c9e6a8',
  T: '#d8c2ef', U: '#f6e58d', V: '#a8e6df', W: '#e0c4a8',
};
const SEAT_INK = { red: '#b3261e', blue: '#1f4fa3' };
const COLUMNS = 'ABCDEF';
const W = 40;
const H = 52;
const GAP = 4;
const AXIS = 16;
// A seat's panel: wide enough for its grid and for the seven cards of its
// advertising board (the wider), so that the seventh is never cut off.
const PANEL = Math.max(AXIS + 6 * (W + GAP), 7 * (W + GAP)) + 10;

const cardWords = (name) => `${name}: suit ${name[0]}, value ${name.slice(1)}`;

// A tree card: its suit's colour, the suit letter and (larger) the value.
function treeCard(x, y, name, { piece, at, where = '' }) {
  return svg('g', { class: 'card', 'data-piece': piece, 'data-at': at, transform: `translate(${x} ${y})` },
    svg('title', { text: `${cardWords(name)}${where}` }),
    svg('rect', { width: W, height: H, rx: 4, fill: SUIT_COLOURS[name[0]] ?? '#eee', stroke: '#555' }),
    svg('text', { x: W / 2, y: H / 2 + 8, 'text-anchor': 'middle', fill: '#1b1b1b', class: 'card-label' },
      svg('tspan', { 'font-size': 15, text: name[0] }), svg('tspan', { 'font-size': 21, text: name.slice(1) })));
}

// A pill (a rounded box with words) that can be pointed at.
function pill(x, y, width, text, { at, fill = '#f4f4f4', stroke = '#bbb', ink, title: hint, cls } = {}) {
  return svg('g', { 'data-at': at, class: cls },
    hint ? svg('title', { text: hint }) : null,
    // 30 units high: a seat's name, its parrots and the start are clicked.
    svg('rect', { x, y, width, height: 30, rx: 15, fill, stroke }),
    svg('text', { x: x + 9, y: y + 20, fill: ink, text }));
}

function row(x, y, cards, key, { max = 16, at = (name) => `${key}:${name}`, where = '' } = {}) {
  const shown = cards.slice(0, max);
  const nodes = shown.map((name, i) => treeCard(x + i * (W + GAP), y, name, { piece: `${key}:${name}`, at: at(name), where }));
  if (cards.length > max) nodes.push(label(x + max * (W + GAP), y + H / 2, `+${cards.length - max}`));
  // Cards beyond the row are still counted as drawn, for the checker.
  for (const name of cards.slice(max)) nodes.push(svg('g', { 'data-piece': `${key}:${name}`, class: 'elided' }));
  return nodes;
}

function bidPanel(seatName, seat, x, y, view) {
  const playing = view.current_turn == null ? null : view.turn_order?.[view.current_turn];
  const nodes = [];
  const groups = seat.bid ?? [];
  const rows = Math.max(1, Math.ceil(groups.length / 3));
  const hint = seat.bid ? `${seatName}'s bid: ${groups.length ? groupWords(groups) : 'nothing'}`
    : seat.has_bid ? `${seatName} has bid (sealed)` : `${seatName} has not bid yet`;
  nodes.push(svg('g', { 'data-at': `${seatName}:bid` }, svg('title', { text: hint }),
    svg('rect', { x: x - 4, y: y - 14, width: 3 * 80 + 8, height: 20 + rows * 28, rx: 6, fill: '#fff', stroke: '#e3e3e3' }),
    label(x, y, 'bid')));
  if (seat.bid) {
    if (!groups.length) nodes.push(label(x + 30, y, 'nothing: no turns', 'muted'));
    // Three groups to a row, so that a long bid stays within its seat.
    groups.forEach((group, i) => {
      const bx = x + (i % 3) * 80;
      const by = y + 6 + Math.floor(i / 3) * 28;
      const now = playing?.seat === seatName && playing.group === i;
      nodes.push(svg('g', { class: 'bid', 'data-piece': `${seatName}:bid:${i}:${group.size}:${group.plan}`, 'data-at': `${seatName}:bid:${i}` },
        svg('title', { text: `group ${i + 1}: ${group.size} parrot${group.size === 1 ? '' : 's'}, ${group.plan} (${group.plan === 'garden' ? 'plant, dig or start' : 'take, hire or start'})${now ? ', playing its turn now' : ''}` }),
        svg('rect', { x: bx, y: by, width: 76, height: 24, rx: 12, class: `bid-${group.plan}` }),
        now ? svg('rect', { x: bx - 2, y: by - 2, width: 80, height: 28, rx: 14, class: 'active-ring' }) : null,
        label(bx + 8, by + 16, `${group.size} ${group.plan}`, 'bid-label')));
    });
  } else if (seat.has_bid) {
    nodes.push(faceDown(x, y + 6, { width: 54, height: 24, label: 'bid', title: 'a sealed bid' }));
  } else {
    nodes.push(label(x + 30, y, 'not yet', 'muted'));
  }
  return nodes;
}

function seatPanel(seatName, seat, x, y, view) {
  const ink = SEAT_INK[seatName];
  const usable = seat.usable_parrots !== seat.parrots ? ` (${seat.usable_parrots} usable)` : '';
  const starts = view.starting_player === seatName ? ' · starting player' : '';
  const nodes = [
    pill(x, y, 58, seatName, { at: `${seatName}:seat`, ink, fill: '#fff', stroke: ink, title: `${seatName}${starts}${view.dm_advantage === seatName ? ' · holds the DM Advantage' : ''}` }),
    pill(x + 64, y, usable ? 140 : 84, `${seat.parrots} parrots${usable}`, { at: `${seatName}:parrots`, title: `${seatName} has ${seat.parrots} parrots` }),
    label(x + (usable ? 210 : 154), y + 20, [starts && 'starts', seat.forfeited_round && 'out this round'].filter(Boolean).join(' · '), 'muted'),
  ];
  const left = x + AXIS;
  const top = y + 50;
  const byCell = new Map((seat.arboretum ?? []).map(({ cell, card: name }) => [cell, name]));
  for (let column = 0; column < 6; column += 1) {
    nodes.push(svg('text', { x: left + column * (W + GAP) + W / 2, y: top - 6, 'text-anchor': 'middle', class: 'label axis', text: COLUMNS[column] }));
  }
  for (let rowIndex = 0; rowIndex < 6; rowIndex += 1) {
    nodes.push(svg('text', { x: x + AXIS / 2 - 2, y: top + rowIndex * (H + GAP) + H / 2 + 4, 'text-anchor': 'middle', class: 'label axis', text: String(rowIndex + 1) }));
    for (let column = 0; column < 6; column += 1) {
      const cell = `${COLUMNS[column]}${rowIndex + 1}`;
      const cx = left + column * (W + GAP);
      const cy = top + rowIndex * (H + GAP);
      const name = byCell.get(cell);
      nodes.push(name
        ? treeCard(cx, cy, name, { piece: `${seatName}:grid:${cell}:${name}`, at: `${seatName}:${cell}`, where: ` on ${seatName}'s ${cell}` })
        : svg('g', { 'data-at': `${seatName}:${cell}`, class: 'cell' },
          svg('title', { text: `${seatName}'s ${cell} (empty)` }),
          svg('rect', { x: cx, y: cy, width: W, height: H, rx: 4, class: 'empty-cell' }),
          svg('text', { x: cx + W / 2, y: cy + H / 2 + 4, 'text-anchor': 'middle', fill: '#c4c0b4', text: cell })));
    }
  }
  let below = top + 6 * (H + GAP) + 14;
  const ad = seat.ad_board ?? [];
  nodes.push(svg('g', { 'data-at': `${seatName}:ad` }, svg('title', { text: `${seatName}'s advertising board: ${ad.length} of 7 cards` }),
    svg('rect', { x: x - 4, y: below - 14, width: 7 * (W + GAP) + 4, height: H + 24, rx: 6, fill: 'none', stroke: 'none' }),
    label(x, below, `advertising board (${ad.length}/7)`)));
  nodes.push(...row(x, below + 6, ad, `${seatName}:ad`, { max: 8, where: ` on ${seatName}'s advertising board` }));
  below += H + 30;
  nodes.push(...bidPanel(seatName, seat, x, below, view));
  return nodes;
}

// The round's turns: who plays which group, the one being played ringed.
function turnOrder(view, x, y, perRow) {
  const turns = view.turn_order ?? [];
  const nodes = [label(x, y, turns.length ? `turn order, round ${view.round}${view.dropped_turns?.length ? ` (${view.dropped_turns.length} more dropped)` : ''}` : 'turn order: when both bids are in')];
  turns.forEach((turn, i) => {
    const tx = x + (i % perRow) * 60;
    const ty = y + Math.floor(i / perRow) * 40;
    const current = view.current_turn === i;
    const done = view.current_turn == null ? view.phase !== 'playing' : i < view.current_turn;
    nodes.push(svg('g', { 'data-at': `turn:${i + 1}`, class: `turn${current ? ' current' : ''}${done ? ' done' : ''}` },
      svg('title', { text: `turn ${i + 1}: ${turn.seat}'s group ${turn.group + 1}, ${turn.size} ${turn.plan}${current ? ' (being played)' : ''}` }),
      svg('rect', { x: tx, y: ty + 6, width: 56, height: 34, rx: 5, fill: current ? '#fff4d6' : '#fff', stroke: current ? '#e0a100' : '#ccc', 'stroke-width': current ? 2.5 : 1, opacity: done ? 0.55 : 1 }),
      svg('text', { x: tx + 5, y: ty + 20, fill: SEAT_INK[turn.seat], text: `${i + 1} ${turn.seat}` }),
      svg('text', { x: tx + 5, y: ty + 35, class: 'small', text: `${turn.size} ${turn.plan}` })));
  });
  return nodes;
}

function specials(view, x, y) {
  const taken = view.specials ?? {};
  return [['dig', taken.dig_taken_by], ['hire', taken.hire_taken_by], ['start', taken.start_taken_by]].map(([name, by], i) =>
    pill(x + i * 100, y, 96, `${name}: ${by ?? 'free'}`, {
      at: `special:${name}`, ink: by ? SEAT_INK[by] : '#666', fill: by ? '#fff' : '#f4f4f4',
      title: by ? `${by} took ${name} this round (once a round)` : `${name}: not taken this round (once a round, either seat)`,
    }));
}

// The legend: what a card and a cell are written as, and the suits' colours.
function legendNodes(x, y) {
  const nodes = [label(x, y, 'card W7: suit W (of P–W), value 7 (of 1–8)', 'muted'),
    label(x, y + 16, 'cell C4: column C (of A–F), row 4 (of 1–6)', 'muted')];
  [...SUITS].forEach((suit, i) => nodes.push(svg('g', {},
    svg('title', { text: `suit ${suit}` }),
    svg('rect', { x: x + i * 36, y: y + 24, width: 32, height: 18, rx: 3, fill: SUIT_COLOURS[suit], stroke: '#555' }),
    svg('text', { x: x + i * 36 + 16, y: y + 37, 'text-anchor': 'middle', text: suit, class: 'label' }))));
  return nodes;
}

export function draw(view, { seats }) {
  // A narrow screen stacks the two arboretums, so that each stays legible.
  const stacked = (globalThis.innerWidth ?? 1400) < 700;
  const panelHeight = 50 + 6 * (H + GAP) + 14 + H + 30 + 20;
  const bidRows = Math.max(1, ...seats.map((seat) => Math.ceil((view[seat]?.bid?.length ?? 0) / 3)));
  const seatHeight = panelHeight + bidRows * 28;
  const nodes = [];
  seats.forEach((seat, i) => nodes.push(...seatPanel(seat, view[seat] ?? {}, stacked ? 10 : 10 + i * (PANEL + 24), stacked ? 6 + i * (seatHeight + 10) : 6, view)));
  let y = (stacked ? seats.length * (seatHeight + 10) : seatHeight) + 20;
  const perTurnRow = stacked ? 5 : 9;
  nodes.push(...turnOrder(view, 10, y, perTurnRow));
  y += 22 + 40 * Math.max(1, Math.ceil((view.turn_order?.length ?? 0) / perTurnRow));
  nodes.push(label(10, y, 'once this round'));
  nodes.push(...specials(view, 10, y + 6));
  y += 50;
  const shared = [
    ['offering area', view.offering_area ?? [], 'offer'],
    ['refuse pile', view.refuse_pile ?? [], 'refuse'],
    ['out of the game', view.out_of_game ?? [], 'out'],
  ];
  const perRow = stacked ? 6 : 12;
  for (const [name, cards, key] of shared) {
    nodes.push(label(10, y, `${name} (${cards.length})`));
    nodes.push(...row(10, y + 6, cards, key, { max: perRow, where: ` in the ${name}` }));
    y += cards.length ? H + 30 : 24;
  }
  nodes.push(svg('g', { 'data-at': 'deck' },
    svg('rect', { x: 6, y: y - 14, width: 90, height: H + 24, rx: 6, fill: 'none', stroke: 'none' }),
    label(10, y, `deck: ${view.cards_left_in_deck ?? 0} cards`),
    view.cards_left_in_deck ? faceDown(10, y + 6, { label: String(view.cards_left_in_deck), title: 'the deck, face down' }) : null));
  y += H + 24;
  nodes.push(label(10, y, `round ${view.round ?? 0} of 11 · ${(view.phase ?? '').replaceAll('_', ' ')}`, 'muted'));
  nodes.push(label(10, y + 16, `DM Advantage ${view.dm_advantage ?? '?'}${view.starting_player ? ` · ${view.starting_player} starts` : ''}`, 'muted'));
  y += 22;
  const width = stacked ? PANEL + 20 : Math.max(2 * PANEL + 44, 12 * (W + GAP) + 20);
  return board(width, y + 6, 'Arboretum board', ...nodes);
}

// ---- the desk: what an action touches, how it is clicked, its words ----

const seatOf = (item, ctx) => item.seat ?? ctx?.seat ?? null;

export function touches(item, ctx = {}) {
  const seat = seatOf(item, ctx);
  const view = ctx.view ?? {};
  switch (item.type) {
    case 'starting_player_chosen': case 'choose_start': return [`${item.seat}:seat`];
    case 'round_started': return [`${item.starting_player}:seat`];
    case 'cards_dealt': return (item.cards ?? []).map((c) => `offer:${c}`).concat('deck');
    case 'bid_submitted': case 'bid_timed_out': case 'bid': return [`${seat}:bid`];
    case 'bids_revealed': return ['red:bid', 'blue:bid', ...(item.turn_order ?? []).map((_, i) => `turn:${i + 1}`)];
    case 'card_planted': case 'plant': return [`${seat}:${item.cell}`, `offer:${item.card}`];
    case 'card_dug': case 'dig': return [`${seat}:${item.cell}`, `refuse:${item.card}`, 'special:dig'];
    case 'card_taken': case 'take':
      return [`offer:${item.card}`, `${seat}:ad:${item.card}`, ...(item.discard ? [`${seat}:ad:${item.discard}`, `offer:${item.discard}`] : [])];
    case 'parrot_hired': case 'hire':
      return [`${seat}:parrots`, 'special:hire', ...(item.cards ?? []).flatMap((c) => [`${seat}:ad:${c}`, `offer:${c}`])];
    case 'start_taken': case 'start': return ['special:start', `${seat}:seat`];
    case 'turn_skipped': {
      const turn = view.turn_order?.[item.turn - 1];
      return [`turn:${item.turn}`, ...(turn ? [`${seat}:bid:${turn.group}`] : [])];
    }
    // The turns lost are named by their `turn_skipped` events; the view
    // may be the one before the action (a refusal) or after it.
    case 'skip': case 'timeout': return [`${seat}:bid`];
    case 'round_ended':
      return [...(item.moved_to_refuse ?? []).map((c) => `refuse:${c}`), ...(item.removed_from_game ?? []).map((c) => `out:${c}`)];
    default: return [];
  }
}

const sizesWords = (groups) => (groups.length ? `${groups.map((g) => g.size).join(' + ')} parrots` : 'nothing (no turns)');

// The clicks for an action. Where two actions could share every click
// (a hire with Q3 and one with Q3 and P5), a last button ends the list.
export function steps(action, ctx = {}) {
  const seat = seatOf(action, ctx);
  switch (action.type) {
    case 'choose_start': return [{ at: `${action.seat}:seat`, label: `${action.seat} starts round 1` }];
    case 'bid': {
      const groups = action.groups ?? [];
      const first = [{ at: `${seat}:bid`, label: 'bid' }, { label: sizesWords(groups) }];
      return groups.length ? [...first, { label: groupWords(groups) }] : first;
    }
    case 'plant': return [{ at: `offer:${action.card}`, label: action.card }, { at: `${seat}:${action.cell}`, label: action.cell }];
    case 'dig': return [{ at: `refuse:${action.card}`, label: `dig ${action.card}` }, { at: `${seat}:${action.cell}`, label: action.cell }];
    case 'take': return [{ at: `offer:${action.card}`, label: `take ${action.card}` },
      ...(action.discard ? [{ at: `${seat}:ad:${action.discard}`, label: `giving back ${action.discard}` }] : [])];
    case 'hire': return [{ at: `${seat}:parrots`, label: 'hire a parrot' },
      ...(action.cards ?? []).map((c) => ({ at: `${seat}:ad:${c}`, label: c })),
      { label: `hire with ${list(action.cards)}` }];
    case 'start': return [{ at: 'special:start', label: 'take the start' }];
    case 'skip': return [{ label: 'skip the rest of the round' }];
    case 'timeout': return [{ label: `time out ${action.seat}` }];
    default: return [{ label: JSON.stringify(action) }];
  }
}

export function actionWords(action) {
  switch (action.type) {
    case 'choose_start': return `chooses ${action.seat} to start round 1`;
    case 'bid': return `bids ${action.groups?.length ? groupWords(action.groups) : 'nothing'}`;
    case 'plant': return `plants ${action.card} on ${action.cell}`;
    case 'dig': return `digs ${action.card} onto ${action.cell}`;
    case 'take': return `takes ${action.card}${action.discard ? `, giving back ${action.discard}` : ''}`;
    case 'hire': return `hires a parrot with ${list(action.cards) || 'no cards'}`;
    case 'start': return 'takes the start';
    case 'skip': return 'skips the rest of the round';
    case 'timeout': return `times ${action.seat} out`;
    default: return JSON.stringify(action);
  }
}

// ---- the score sheet: how each total is made (§5) ----

function suitLine(seatName, mine, theirs, other) {
  const sums = `ad board ${mine.ad_board_sum} against ${other}'s ${theirs.ad_board_sum}${mine.eight_cancelled ? ` (its ${mine.suit}8 counts 0: ${other} holds ${mine.suit}1)` : ''}`;
  const right = mine.has_right ? (theirs.has_right ? 'equal: both may score it' : 'the right to score it') : 'no right to score it';
  const path = mine.best_path;
  if (!path) return `${sums}: ${right}; no path of ${mine.suit} in the arboretum`;
  const parts = [`${path.length} card${path.length === 1 ? '' : 's'}${path.doubled ? ` × 2 (4 or more, all ${mine.suit})` : ''}`];
  if (path.starts_with_one) parts.push(`1 for starting with ${mine.suit}1`);
  if (path.ends_with_eight) parts.push(`2 for ending with ${mine.suit}8`);
  const worth = `path ${path.cards.join(' ')} on ${path.cells.join(' ')}: ${parts.join(' + ')} = ${path.value}`;
  return `${sums}: ${right}; ${worth}${mine.has_right ? '' : ', scores 0'}`;
}

function seatSheet(seatName, mine, theirs, other) {
  const rows = [
    ['parrots', `${mine.parrots} against ${other}'s ${theirs.parrots}${mine.parrot_points ? `: 2 × (${mine.parrots} − ${theirs.parrots})` : ': not more'}`, mine.parrot_points],
    ['start', mine.starting_player ? 'the starting player' : 'not the starting player', mine.starting_player_points],
    ...mine.suits.map((suit, i) => [`suit ${suit.suit}`, suitLine(seatName, suit, theirs.suits[i], other), suit.points]),
  ];
  const scored = mine.suits.filter((s) => s.points).map((s) => `${s.suit} ${s.points}`);
  return html('section', { class: 'seat-score', 'data-seat': seatName },
    html('h4', { text: `${seatName}: ${mine.total} = ${mine.parrot_points} parrots + ${mine.starting_player_points} start + ${mine.suit_points} suits${scored.length ? ` (${scored.join(', ')})` : ''}` }),
    html('table', {},
      html('thead', {}, html('tr', {}, ['part', 'how', 'points'].map((h) => html('th', { scope: 'col', text: h })))),
      html('tbody', {}, rows.map(([part, how, points]) => html('tr', {},
        html('th', { scope: 'row', text: part }), html('td', { text: how }), html('td', { text: String(points) })))),
      html('tfoot', {}, html('tr', {}, html('th', { scope: 'row', text: 'total' }), html('td', { text: '' }), html('td', { text: String(mine.total) })))));
}

export function scoreSheet(score, { seats = ['red', 'blue'] } = {}) {
  const [a, b] = seats;
  if (!score?.[a] || !score?.[b]) return html('p', { text: 'No score sheet yet.' });
  return html('div', { class: 'arboretum-score' },
    html('p', {}, 'A seat scores 2 per parrot it has more than the other, 1 if it starts, and for each suit whose right it has (its ad-board sum of that suit is at least the other\'s) its best path of that suit (',
      ruleLink('§5', ruleUrl('arboretum', '5')), ').'),
    seatSheet(a, score[a], score[b], b),
    seatSheet(b, score[b], score[a], a));
}

// Under the board (app.js): how cards and cells are written, the suits' colours.
export function legend() {
  return board(300, 62, 'How cards and cells are written', ...legendNodes(10, 16));
}

// Changes between two states in words (changes.js, which compares things
// on cells by cell): the deck's top card, a seat's arboretum at a cell.
export const changeSubjects = [
  [/^deck\.0$/, () => "the deck's top card"],
  [/^deck\.(\d+)$/, ([, i]) => `the deck's card ${Number(i) + 1} from the top`],
  [/^(\w+)\.arboretum\.([A-F]\d)$/, ([, seat, cell]) => `${seat}'s arboretum at ${cell}`],
  [/^(\w+)\.hand\.(\d+)$/, ([, seat, i]) => `${seat}'s hand, card ${Number(i) + 1}`],
  [/^offering_area\.(\d+)$/, ([, i]) => `the offering area's card ${Number(i) + 1}`],
  [/^cards_left_in_deck$/, () => 'cards left in the deck'],
];
