// Build Your Arboretum: each seat's 6×6 arboretum, advertising board, bid
// and parrots; the offering area, refuse pile, cards out of the game and
// the deck (face down).
import { board, card, faceDown, label, svg } from '../svg.js';
import { list } from '../words.js';

export const title = 'Build Your Arboretum';

// Events that stepping may skip (setup, deals, turn changes).
export const bookkeeping = ['deck_shuffled', 'round_started', 'cards_dealt', 'bids_revealed', 'round_ended', 'turn_skipped'];

// Each event in words, for the timeline (words.js spells out the rest).
export const phrases = {
  deck_shuffled: (p) => `the deck of ${p.card_count} cards is shuffled`,
  starting_player_chosen: (p) => `${p.seat} is chosen to start`,
  round_started: (p) => `round ${p.round} starts, ${p.starting_player} first`,
  cards_dealt: (p) => (p.cards ? `round ${p.round}: ${list(p.cards)} dealt to the offering area` : `round ${p.round}: cards dealt`),
  bid_submitted: (p) => (p.groups
    ? `${p.seat} bids ${p.groups.map((g) => `${g.size} ${g.plan}`).join(', ')}${p.replaced ? ' (replacing the last bid)' : ''}`
    : `${p.seat} bids, sealed${p.replaced ? ' (replacing the last bid)' : ''}`),
  bids_revealed: (p) => `bids revealed for round ${p.round}`,
  card_planted: (p) => `${p.seat} plants ${p.card} on ${p.cell}`,
  card_dug: (p) => `${p.seat} digs ${p.card} onto ${p.cell}`,
  card_taken: (p) => `${p.seat} takes ${p.card}`,
  parrot_hired: (p) => `${p.seat} hires a parrot with ${list(p.cards)} (${p.parrots} parrots)`,
  start_taken: (p) => `${p.seat} takes the start`,
  turn_skipped: (p) => `${p.seat}'s turn ${p.turn} is ${p.reason}`,
  round_ended: (p) => `round ${p.round} ends${p.moved_to_refuse?.length ? `; ${list(p.moved_to_refuse)} to the refuse pile` : ''}`,
  game_ended: (p) => `the game ends: ${Object.entries(p.totals ?? {}).map(([s, t]) => `${s} ${t}`).join(', ')}; ${p.winner ?? 'no one'} wins`,
};

const SUIT_COLOURS = {
  P: '#f2b8c6', Q: '#b8d8f2', R: '#f4c27a', S: '#c9e6a8',
  T: '#d8c2ef', U: '#f6e58d', V: '#a8e6df', W: '#e0c4a8',
};
const COLUMNS = 'ABCDEF';
const W = 34;
const H = 46;
const GAP = 4;

function arboretumCard(x, y, piece, name) {
  return card(x, y, { piece, label: name, colour: SUIT_COLOURS[name[0]] ?? '#eee', title: `${name[0]} ${name.slice(1)}` });
}

function row(x, y, cards, key, max = 16) {
  const shown = cards.slice(0, max);
  const nodes = shown.map((name, i) => arboretumCard(x + i * (W + GAP), y, `${key}:${name}`, name));
  if (cards.length > max) nodes.push(label(x + max * (W + GAP), y + H / 2, `+${cards.length - max}`));
  // Cards beyond the row are still counted as drawn, for the checker.
  for (const name of cards.slice(max)) nodes.push(svg('g', { 'data-piece': `${key}:${name}`, class: 'elided' }));
  return nodes;
}

function seatPanel(seatName, seat, x, y) {
  const nodes = [label(x, y + 14, `${seatName} · ${seat.parrots} parrots (${seat.usable_parrots} usable)${seat.forfeited_round ? ' · forfeited this round' : ''}`, `label seat-${seatName}`)];
  const top = y + 24;
  const byCell = new Map((seat.arboretum ?? []).map(({ cell, card: name }) => [cell, name]));
  for (let column = 0; column < 6; column += 1) {
    for (let rowIndex = 0; rowIndex < 6; rowIndex += 1) {
      const cell = `${COLUMNS[column]}${rowIndex + 1}`;
      const cx = x + column * (W + GAP);
      const cy = top + rowIndex * (H + GAP);
      const name = byCell.get(cell);
      nodes.push(name
        ? arboretumCard(cx, cy, `${seatName}:grid:${cell}:${name}`, name)
        : svg('rect', { x: cx, y: cy, width: W, height: H, rx: 4, class: 'empty-cell' }, svg('title', { text: cell })));
    }
  }
  let below = top + 6 * (H + GAP) + 16;
  nodes.push(label(x, below, 'advertising board'));
  nodes.push(...row(x, below + 6, seat.ad_board ?? [], `${seatName}:ad`, 6));
  below += H + 24;
  nodes.push(label(x, below, 'bid'));
  if (seat.bid) {
    // Three groups to a row, so that a long bid stays within its seat.
    seat.bid.forEach((group, i) => {
      const bx = x + (i % 3) * 76;
      const by = below + 6 + Math.floor(i / 3) * 28;
      nodes.push(svg('g', { class: 'bid', 'data-piece': `${seatName}:bid:${i}:${group.size}:${group.plan}` },
        svg('rect', { x: bx, y: by, width: 72, height: 24, rx: 12, class: `bid-${group.plan}` }),
        label(bx + 8, by + 16, `${group.size} ${group.plan}`, 'bid-label')));
    });
  } else if (seat.has_bid) {
    nodes.push(faceDown(x, below + 6, { width: 54, height: 24, label: 'bid', title: 'a sealed bid' }));
  } else {
    nodes.push(label(x, below + 22, 'no bid yet', 'muted'));
  }
  return nodes;
}

export function draw(view, { seats }) {
  const width = 2 * (6 * (W + GAP)) + 60;
  const nodes = [];
  seats.forEach((seat, i) => nodes.push(...seatPanel(seat, view[seat] ?? {}, 10 + i * (6 * (W + GAP) + 40), 0)));
  const bidRows = Math.max(1, ...seats.map((seat) => Math.ceil((view[seat]?.bid?.length ?? 0) / 3)));
  let y = 24 + 6 * (H + GAP) + 16 + H + 24 + 22 + bidRows * 28;
  const shared = [
    ['offering area', view.offering_area ?? [], 'offer'],
    ['refuse pile', view.refuse_pile ?? [], 'refuse'],
    ['out of the game', view.out_of_game ?? [], 'out'],
  ];
  for (const [title, cards, key] of shared) {
    nodes.push(label(10, y, `${title} (${cards.length})`));
    nodes.push(...row(10, y + 6, cards, key, 12));
    y += H + 28;
  }
  nodes.push(label(10, y, `deck: ${view.cards_left_in_deck ?? 0} cards`));
  if (view.cards_left_in_deck) nodes.push(faceDown(10, y + 6, { label: String(view.cards_left_in_deck), title: 'the deck, face down' }));
  y += H + 20;
  const phase = `round ${view.round ?? 0} · ${view.phase ?? ''}${view.dm_advantage ? ` · advantage ${view.dm_advantage}` : ''}`;
  nodes.push(label(10, y, phase, 'muted'));
  return board(width, y + 10, 'Arboretum board', ...nodes);
}
