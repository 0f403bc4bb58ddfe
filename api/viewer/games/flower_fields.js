// Between Flower Fields: the five 5×5 fields (face down where this viewer
// may not look), each seat's hand, garnets and submission (face down when
// hidden), and the bags when the viewer may see them.
import { board, faceDown, label, svg } from '../svg.js';
import { list } from '../words.js';

export const title = 'Between Flower Fields';

// Events that stepping may skip (setup, deals, turn changes).
export const bookkeeping = ['game_set_up', 'bags_shuffled', 'round_started', 'piece_dealt', 'break_notice_given', 'round_resolved', 'hidden'];

// Each event in words, for the timeline (words.js spells out the rest).
export const phrases = {
  game_set_up: (p) => `set up: ${p.starting_garnets} garnets each, piece replacement ${p.piece_replacement ? 'on' : 'off'}`,
  bags_shuffled: () => 'the bags are shuffled',
  round_started: (p) => `round ${p.round} starts`,
  piece_dealt: (p) => `seat ${p.seat} is dealt ${p.piece ?? 'a piece'}`,
  break_notice_given: (p) => `field ${p.field} ${p.must_break ? 'must' : 'need not'} break in round ${p.round}`,
  submission_made: (p) => (p.submission
    ? `seat ${p.seat} submits ${p.submission.piece} for field ${p.submission.field} at ${list(p.submission.cells)}`
    : `seat ${p.seat} submits, face down`),
  piece_placed: (p) => `seat ${p.seat} places ${p.piece} on field ${p.field} at ${list(p.cells)}${p.broken ? ', broken' : ''}`,
  round_resolved: (p) => `round ${p.round} resolved`,
  break_penalty_taken: (p) => `seat ${p.seat} takes a ${p.penalty} penalty for breaking field ${p.break_field}`,
  garnets_earned: (p) => `seat ${p.seat} earns ${p.garnets} garnets`,
  ruling_set: (p) => `turns ${p.rule.replaceAll('_', ' ')} ${p.enabled ? 'on' : 'off'}`,
  game_ended: () => 'the game ends',
  result_declared: (p) => `seat ${p.winner} wins`,
};

export const FLOWER_COLOURS = {
  white: '#ffffff', red: '#e05a4f', yellow: '#f3d34a', blue: '#5b8fd9',
  purple: '#9b6bc9', orange: '#f09a3e', black: '#222222',
};
const CELL = 24;
const FIELD = 5 * CELL;
const COLUMNS = 'ABCDE';

function piece(x, y, key, name) {
  const [a, b] = name.split('-');
  return svg('g', { class: 'piece', 'data-piece': key, transform: `translate(${x} ${y})` },
    svg('title', { text: name }),
    svg('rect', { width: 20, height: 20, fill: FLOWER_COLOURS[a] ?? '#ccc', stroke: '#444' }),
    svg('rect', { x: 20, width: 20, height: 20, fill: FLOWER_COLOURS[b] ?? '#ccc', stroke: '#444' }));
}

function field(view, x, y) {
  const nodes = [label(x, y - 6, `field ${view.field} (${view.managers.join(' & ')})${view.next_must_break ? ' · must break' : ''}`)];
  if (!view.cells) {
    nodes.push(faceDown(x, y, { width: FIELD, height: FIELD, label: 'hidden', title: `field ${view.field}: not visible to this viewer` }));
    return nodes;
  }
  const lastCells = new Set(view.last_piece?.cells ?? []);
  for (let c = 0; c < 5; c += 1) {
    for (let r = 0; r < 5; r += 1) {
      nodes.push(svg('rect', { x: x + c * CELL, y: y + r * CELL, width: CELL, height: CELL, class: 'soil' }, svg('title', { text: `${COLUMNS[c]}${r + 1}` })));
    }
  }
  for (const { cell, flower } of view.cells) {
    const c = COLUMNS.indexOf(cell[0]);
    const r = Number(cell.slice(1)) - 1;
    nodes.push(svg('g', { class: `flower${lastCells.has(cell) ? ' last' : ''}`, 'data-piece': `field${view.field}:${cell}:${flower}` },
      svg('title', { text: `${flower} at ${cell}` }),
      svg('circle', { cx: x + c * CELL + CELL / 2, cy: y + r * CELL + CELL / 2, r: CELL / 2 - 2, fill: FLOWER_COLOURS[flower] ?? '#ccc', stroke: '#333' })));
  }
  return nodes;
}

export function draw(view) {
  const nodes = [];
  view.fields.forEach((f, i) => nodes.push(...field(f, 10 + i * (FIELD + 24), 24)));
  let y = 24 + FIELD + 30;
  nodes.push(label(10, y, `round ${view.round} · ${view.phase}${view.ended ? ' · ended' : ''} · piece replacement ${view.piece_replacement ? 'on' : 'off'}`, 'muted'));
  y += 22;
  for (const seat of view.seats) {
    const parts = [`seat ${seat.seat}`];
    if (seat.garnets) parts.push(`${seat.garnets.balance} garnets`);
    if (seat.waiting_for_submission) parts.push('to submit');
    nodes.push(label(10, y + 14, parts.join(' · '), `label seat-${seat.seat}`));
    let x = 250;
    if (seat.hand) {
      seat.hand.forEach((held, i) => nodes.push(piece(x + i * 46, y, `seat${seat.seat}:hand:${held.piece}`, held.piece)));
      x += Math.max(1, seat.hand.length) * 46 + 10;
    } else {
      nodes.push(faceDown(x, y, { width: 40, height: 20, label: 'hand', title: `seat ${seat.seat}'s hand: hidden` }));
      x += 50;
    }
    if (seat.submission) {
      const s = seat.submission;
      nodes.push(label(x, y + 14, `submits ${s.piece} to field ${s.field} at ${s.cells.join(' ')}${s.broken ? ' (broken)' : ''}`, 'small'));
    }
    y += 28;
  }
  if (view.bags) nodes.push(label(10, y + 10, `bags: ${view.bags.map((bag) => bag.length).join(', ')} pieces left`, 'muted'));
  return board(10 + 5 * (FIELD + 24), y + 20, 'Flower Fields: five fields', ...nodes);
}
