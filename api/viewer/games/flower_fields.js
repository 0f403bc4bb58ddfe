// Between Flower Fields: the five 5×5 fields (face down where this viewer
// may not look), each seat's hand, garnets and submission (face down when
// hidden), and the bags when the viewer may see them. Only what the view
// holds is drawn: a spectator's view has every secret taken out already.
//
// Notation (docs/rules/flower-fields.md, "Notation"), as the domain writes
// it in events and refusals: cells `A1`…`E5`, column letter A–E left to
// right, row number 1–5 top to bottom, in a field `0`…`4` (field `i` lies
// between seats `i` and `i+1`); pieces `red-blue`, the first flower on the
// first cell named.
//
// `data-at` keys (for highlighting and play by clicking):
//   field3            field 3's title (or its face-down back)
//   field3:C4         cell C4 of field 3 (with its flower, if any)
//   field3:revealed   the piece revealed in field 3, waiting to be placed
//   seat:4            seat 4's name
//   seat4:garnets     seat 4's garnets
//   seat4:submission  seat 4's pending submission
//   seat4:hand:red-blue    seat 4's (earliest-dealt) red-blue in hand;
//   seat4:hand:red-blue:2  a second one of the same kind
//   flower:red        red in the legend of flowers and their scoring
import { board, boardWidth, faceDown, html, label, svg } from '../svg.js';
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
  piece_replaced: (p) => `seat ${p.seat} replaces ${p.piece} with ${p.with} for ${p.garnets ?? 3} garnets`,
  submission_missed: (p) => `seat ${p.seat} misses round ${p.round}: ${p.piece ? `${p.piece} leaves its hand, ` : ''}${p.points ?? 10} points off`,
  piece_revealed: (p) => `seat ${p.from_seat}'s missed ${p.piece} is shown to seat ${p.to_seat}, to place in field ${p.field}`,
  piece_discarded: (p) => `seat ${p.owner}'s ${p.piece} leaves the game unplaced`,
  round_resolved: (p) => `round ${p.round} resolved`,
  break_penalty_taken: (p) => `seat ${p.seat} pays ${p.amount ?? (p.penalty === 'garnets' ? 3 : 10)} ${p.penalty} for a break in field ${p.break_field}`,
  garnets_earned: (p) => `seat ${p.seat} earns ${p.garnets} garnets from white flowers`,
  ruling_set: (p) => `turns ${p.rule.replaceAll('_', ' ')} ${p.enabled ? 'on' : 'off'}`,
  game_ended: () => 'the game ends: empty cells turn black',
  result_declared: (p) => (p.winner != null
    ? `seat ${p.winner} wins; Elimination Candidate ${p.candidates.length > 1 ? `to choose among seats ${list(p.candidates)}` : `seat ${p.candidates[0]}`}`
    : `no winner; Elimination Candidate ${p.candidates.length > 1 ? `to choose among seats ${list(p.candidates)}` : `seat ${p.candidates[0]}`}`),
  candidate_chosen: (p) => `seat ${p.seat} is chosen as Elimination Candidate`,
};

export const FLOWER_COLOURS = {
  white: '#ffffff', red: '#e05a4f', yellow: '#f3d34a', blue: '#5b8fd9',
  purple: '#9b6bc9', orange: '#f09a3e', black: '#222222',
};
// A letter on every flower, so a flower reads without its colour.
const INITIALS = { white: 'W', red: 'R', yellow: 'Y', blue: 'B', purple: 'P', orange: 'O', black: '' };
const INK = { white: '#333', yellow: '#333', black: '#fff' };
const FLOWERS = ['white', 'red', 'yellow', 'blue', 'purple', 'orange'];
const CELL = 26;
const GRID = 5 * CELL;
const MARGIN = 14; // room for the coordinates
const PITCH = MARGIN + GRID + 22;
const COLUMNS = 'ABCDE';
const SEATS = 5;

const clockwiseOf = (seat) => Number(seat);
const counterclockwiseOf = (seat) => (Number(seat) + SEATS - 1) % SEATS;

// How a flower scores, in words, from the setup's mapping (§7).
export function ruleWords(rule) {
  switch (rule?.rule) {
    case 'garnets': return 'earns garnets, not points (§4)';
    case 'largest_group': return `largest group × ${rule.per_flower}`;
    case 'neighbour_variety': return `kinds of neighbours × ${rule.per_type}`;
    case 'mirror': return `same cell in the other field × ${rule.points}`;
    case 'majority': return `majority over the other field: ${rule.more}/${rule.equal}/${rule.fewer} each`;
    case 'edges': return `edge × ${rule.edge}, corner × ${rule.corner}`;
    case 'per_flower': return `× ${rule.points} each`;
    default: return rule ? rule.rule.replaceAll('_', ' ') : 'not scored';
  }
}

function flowerDot(cx, cy, r, flower, attrs = {}) {
  return [
    svg('circle', { cx, cy, r, fill: FLOWER_COLOURS[flower] ?? '#ccc', stroke: '#333', ...attrs }),
    INITIALS[flower] ? svg('text', { x: cx, y: cy + 4, 'text-anchor': 'middle', fill: INK[flower] ?? '#fff', 'font-size': 11, 'font-weight': 700, 'pointer-events': 'none', text: INITIALS[flower] }) : null,
  ];
}

// A two-flower piece as a domino: each half its flower's colour and letter.
function domino(x, y, name, attrs, titleText) {
  const [a, b] = name.split('-');
  return svg('g', { ...attrs, transform: `translate(${x} ${y})`, cursor: 'pointer' },
    svg('title', { text: titleText ?? name }),
    svg('rect', { x: -2, y: -2, width: 48, height: 26, rx: 4, fill: '#fff', stroke: '#888' }),
    svg('rect', { width: 22, height: 22, rx: 3, fill: FLOWER_COLOURS[a] ?? '#ccc', stroke: '#444' }),
    svg('rect', { x: 22, width: 22, height: 22, rx: 3, fill: FLOWER_COLOURS[b] ?? '#ccc', stroke: '#444' }),
    svg('text', { x: 11, y: 15, 'text-anchor': 'middle', fill: INK[a] ?? '#fff', 'font-weight': 700, text: INITIALS[a] ?? '?' }),
    svg('text', { x: 33, y: 15, 'text-anchor': 'middle', fill: INK[b] ?? '#fff', 'font-weight': 700, text: INITIALS[b] ?? '?' }));
}

// Text a person may point at: a group with the key and a frame that the
// page's marks (legal, chosen, last-action) outline.
function tagged(key, x, y, width, ...children) {
  return svg('g', { 'data-at': key },
    // Taller than the text, so that a finger can take it (a seat's name is
    // clicked to choose the Elimination Candidate).
    svg('rect', { x: x - 3, y: y - 19, width, height: 28, rx: 3, fill: '#fff', 'fill-opacity': 0, stroke: 'none' }),
    ...children);
}

const textWidth = (text, size = 12) => text.length * size * 0.56 + 6;

const cellName = (c, r) => `${COLUMNS[c]}${r + 1}`;
const cellPlace = (cell) => [COLUMNS.indexOf(cell[0]), Number(cell.slice(1)) - 1];

// Cells a seat's pending submission names, drawn as dashed ghosts.
function pendingOn(view, field) {
  const ghosts = new Map();
  for (const seat of view.seats) {
    const s = seat.submission;
    if (!s || s.field !== field) continue;
    const put = (placement, by) => placement.cells.forEach((cell, i) => ghosts.set(cell, { flower: placement.piece.split('-')[i], by }));
    if (s.revealed) put(s.revealed, seat.seat);
    put(s, seat.seat);
  }
  return ghosts;
}

function field(view, f, x, y) {
  const key = `field${f.field}`;
  const notes = [];
  if (f.next_must_break) notes.push('must break');
  const heading = `field ${f.field} · seats ${f.managers.join(' & ')}${notes.length ? ` · ${notes.join(', ')}` : ''}`;
  const nodes = [tagged(key, x, y + 10, textWidth(heading), svg('text', { x, y: y + 10, class: 'label', text: heading },
    svg('title', { text: `field ${f.field}, managed by seats ${f.managers.join(' and ')}${f.placer_this_round != null ? `; seat ${f.placer_this_round} plants here this round` : ''}` })))];
  const top = y + 16 + MARGIN;
  const left = x + MARGIN;
  for (let c = 0; c < 5; c += 1) {
    nodes.push(svg('text', { x: left + c * CELL + CELL / 2, y: top - 3, 'text-anchor': 'middle', class: 'small muted', text: COLUMNS[c] }));
  }
  for (let r = 0; r < 5; r += 1) {
    nodes.push(svg('text', { x: x + MARGIN / 2, y: top + r * CELL + CELL / 2 + 4, 'text-anchor': 'middle', class: 'small muted', text: String(r + 1) }));
  }
  if (!f.cells) {
    const back = faceDown(left, top, { width: GRID, height: GRID, label: 'hidden', title: `field ${f.field}: seen only by seats ${f.managers.join(' and ')} until the end` });
    back.setAttribute('data-at', key);
    nodes.push(back);
    return nodes;
  }
  const planted = new Map(f.cells.map(({ cell, flower }) => [cell, flower]));
  const lastCells = new Set(f.last_piece?.cells ?? []);
  const ghosts = pendingOn(view, f.field);
  for (let c = 0; c < 5; c += 1) {
    for (let r = 0; r < 5; r += 1) {
      const cell = cellName(c, r);
      const flower = planted.get(cell);
      const ghost = ghosts.get(cell);
      const cx = left + c * CELL + CELL / 2;
      const cy = top + r * CELL + CELL / 2;
      const words = flower ? `${flower}` : ghost ? `empty; seat ${ghost.by} submits ${ghost.flower} here` : 'empty';
      nodes.push(svg('g', { 'data-at': `${key}:${cell}`, class: 'cell' },
        svg('title', { text: `field ${f.field} ${cell}: ${words}${lastCells.has(cell) ? ` (last piece, round ${f.last_piece.round})` : ''}` }),
        svg('rect', { x: left + c * CELL, y: top + r * CELL, width: CELL, height: CELL, class: 'soil' }),
        flower ? svg('g', { class: `flower${lastCells.has(cell) ? ' last' : ''}`, 'data-piece': `${key}:${cell}:${flower}` },
          ...flowerDot(cx, cy, CELL / 2 - 3, flower)) : null,
        !flower && ghost ? svg('g', { class: 'pending', opacity: 0.55 },
          ...flowerDot(cx, cy, CELL / 2 - 4, ghost.flower, { 'stroke-dasharray': '3 2' })) : null));
    }
  }
  const below = top + GRID + 6;
  if (f.revealed_piece) {
    const p = f.revealed_piece;
    nodes.push(domino(left, below, p.piece, { 'data-at': `${key}:revealed`, class: 'revealed' },
      `${p.piece}: seat ${p.from_seat}'s missed piece, to place here in round ${p.due_round}`));
    nodes.push(label(left + 52, below + 15, `revealed, round ${p.due_round}`, 'small'));
  } else if (f.last_piece) {
    const last = f.last_piece;
    nodes.push(svg('text', { x: left, y: below + 12, class: 'small muted' },
      svg('title', { text: `last piece: ${last.piece} at ${list(last.cells)}, round ${last.round}, by seat ${last.placed_by}${last.broken ? ', broken' : ''}` }),
      `last: ${list(last.cells)} (r${last.round}${last.broken ? ', broken' : ''})`));
  }
  return nodes;
}

// The hand keys of a seat, in hand order: the earliest-dealt of a kind
// gets the plain key (it is the one a submission naming it takes).
function handKeys(seat) {
  const hand = seat.hand ?? [];
  const order = hand.map((held, i) => [held, i]).sort((a, b) => a[0].dealt_round - b[0].dealt_round);
  const keys = new Array(hand.length);
  const seen = new Map();
  for (const [held, i] of order) {
    const n = (seen.get(held.piece) ?? 0) + 1;
    seen.set(held.piece, n);
    keys[i] = `seat${seat.seat}:hand:${held.piece}${n > 1 ? `:${n}` : ''}`;
  }
  return keys;
}

function seatRow(view, seat, x, y, wide) {
  const s = seat.seat;
  const status = [];
  if (seat.field_due != null) status.push(`plants in field ${seat.field_due}`);
  if (seat.waiting_for_submission) status.push('to submit');
  else if (view.phase === 'submitting') status.push(seat.missed_this_round ? 'missed' : 'submitted');
  if (view.result?.winner === s) status.push('winner');
  if (view.result?.elimination_candidate === s) status.push('Elimination Candidate');
  const nodes = [tagged(`seat:${s}`, x, y + 14, textWidth(`seat ${s}`) + 2, svg('text', { x, y: y + 14, class: `label seat-${s}` },
    svg('title', { text: `seat ${s}: manages field ${clockwiseOf(s)} (clockwise) and field ${counterclockwiseOf(s)} (counterclockwise)` }),
    `seat ${s}`)),
  svg('text', { x: x + textWidth(`seat ${s}`) + 2, y: y + 14, class: 'muted', text: `fields ${clockwiseOf(s)} & ${counterclockwiseOf(s)}${status.length ? ` · ${status.join(' · ')}` : ''}` })];
  let line = y + 30;
  if (seat.garnets) {
    const g = seat.garnets;
    nodes.push(tagged(`seat${s}:garnets`, x, line, textWidth(`${g.balance} garnets`, 10), svg('text', { x, y: line, class: 'small' },
      svg('title', { text: `started ${g.starting}, earned ${g.earned}, spent ${g.spent_on_breaks} on breaks and ${g.spent_on_replacements} on replacements` }),
      `${g.balance} garnets`)));
  }
  if (seat.submission) {
    const sub = seat.submission;
    const revealed = sub.revealed ? `${sub.revealed.piece} at ${list(sub.revealed.cells)}, then ` : '';
    const words = `submits ${revealed}${sub.piece} at ${list(sub.cells)}${sub.broken ? ' (broken)' : ''}`;
    const sx = x + (seat.garnets ? 70 : 0);
    nodes.push(tagged(`seat${s}:submission`, sx, line, textWidth(words, 10), svg('text', { x: sx, y: line, class: 'small', text: words })));
  }
  let hx = wide ? x + 420 : x;
  const hy = wide ? y + 2 : seat.hand ? line + 8 : y + 20;
  if (seat.hand?.length === 0) return { nodes, height: wide ? 44 : 40 };
  if (seat.hand) {
    const keys = handKeys(seat);
    seat.hand.forEach((held, i) => {
      const overdue = held.play_by_round <= view.round;
      nodes.push(domino(hx, hy, held.piece, { class: 'piece', 'data-piece': `seat${s}:hand:${held.piece}`, 'data-at': keys[i] },
        `${held.piece}: dealt in round ${held.dealt_round}, to play by round ${held.play_by_round}`));
      nodes.push(label(hx + 50, hy + 9, held.piece, 'small'));
      nodes.push(label(hx + 50, hy + 21, `play by r${held.play_by_round}${overdue ? ' (now)' : ''}`, 'small muted'));
      hx += 160;
    });
  } else {
    nodes.push(faceDown(hx, hy, { width: 44, height: 22, label: 'hand', title: `seat ${s}'s hand: hidden from this viewer` }));
  }
  return { nodes, height: wide ? 44 : seat.hand ? 76 : 50 };
}

function legendNodes(view, x, y, width) {
  const nodes = [];
  let cx = x;
  let cy = y;
  const entries = FLOWERS.map((flower) => [flower, `${flower}: ${ruleWords(view.scoring?.[flower])}`]);
  entries.push(['black', 'black: empty at the end']);
  for (const [flower, words] of entries) {
    const w = 22 + words.length * 5.3;
    if (cx + w > x + width && cx > x) {
      cx = x;
      cy += 20;
    }
    nodes.push(svg('g', { 'data-at': `flower:${flower}` }, svg('title', { text: words }),
      ...flowerDot(cx + 8, cy + 8, 8, flower), label(cx + 20, cy + 12, words, 'small')));
    cx += w + 12;
  }
  return { nodes, height: cy - y + 22 };
}

// The fields abreast: as many as leave a cell at least TARGET_CELL px once
// the drawing is scaled to the board's width (five, four, three, else two).
const TARGET_CELL = 34;
function fieldsPerRow(shownWidth) {
  return [5, 4, 3].find((n) => (shownWidth * CELL) / (10 + n * PITCH) >= TARGET_CELL) ?? 2;
}

export function draw(view) {
  const perRow = fieldsPerRow(boardWidth());
  // The seats' hands beside their names only with all five fields abreast
  // (the drawing is then wide enough); else under them.
  const wide = perRow === 5;
  const width = 10 + perRow * PITCH;
  const nodes = [];
  const fieldHeight = 16 + MARGIN + GRID + 36;
  view.fields.forEach((f, i) => nodes.push(...field(view, f, 10 + (i % perRow) * PITCH, 8 + Math.floor(i / perRow) * fieldHeight)));
  let y = 8 + Math.ceil(view.fields.length / perRow) * fieldHeight;
  const legend = legendNodes(view, 10, y, width - 20);
  nodes.push(...legend.nodes);
  y += legend.height + 8;
  const result = view.result;
  const phase = view.ended && view.phase === 'finished' ? 'ended' : `${view.phase.replaceAll('_', ' ')}${view.ended ? ', ended' : ''}`;
  nodes.push(label(10, y + 10, `round ${view.round} of 12 · ${phase}${result?.winner != null ? ` · seat ${result.winner} wins` : ''}`, 'muted'));
  nodes.push(label(wide ? 330 : 10, wide ? y + 10 : y + 26, `piece replacement (§6) ${view.piece_replacement ? 'on' : 'off'}`, 'muted'));
  y += wide ? 20 : 36;
  for (const seat of view.seats) {
    const row = seatRow(view, seat, 10, y, wide);
    nodes.push(...row.nodes);
    y += row.height;
  }
  if (view.bags) {
    // The deal order, one piece a round from round 0: the umpire's alone.
    nodes.push(svg('text', { x: 10, y: y + 10, class: 'muted' },
      svg('title', { text: view.bags.map((bag, i) => `seat ${i}: ${bag.join(', ')}`).join('\n') }),
      `bags (umpire only): the deal order, ${view.bags[0]?.length ?? 0} pieces each`));
    y += 18;
  }
  return board(width, y + 8, 'Flower Fields: five fields', ...nodes);
}

// ---- what an event or an action touches --------------------------------

function placementKeys(f, cells) {
  return (cells ?? []).map((cell) => `field${f}:${cell}`);
}

function handKeyOf(view, seat, piece) {
  const mine = view?.seats?.find((s) => String(s.seat) === String(seat));
  if (mine?.hand) {
    const keys = handKeys(mine);
    const i = keys.findIndex((key) => key === `seat${seat}:hand:${piece}`);
    if (i >= 0) return keys[i];
  }
  return `seat${seat}:hand:${piece}`;
}

export function touches(item, ctx = {}) {
  const seat = item.seat ?? ctx.seat;
  switch (item.type) {
    case 'submit':
      return [
        `field${item.field}`,
        ...(item.revealed ? [`field${item.field}:revealed`, ...placementKeys(item.field, item.revealed.cells)] : []),
        handKeyOf(ctx.view, seat, item.piece), ...placementKeys(item.field, item.cells)];
    case 'submission_made': {
      const s = item.submission;
      if (!s) return [`seat:${item.seat}`];
      return [`seat:${item.seat}`, `seat${item.seat}:submission`,
        ...(s.revealed ? placementKeys(s.field, s.revealed.cells) : []), ...placementKeys(s.field, s.cells)];
    }
    case 'piece_placed': return [`field${item.field}`, ...placementKeys(item.field, item.cells)];
    case 'replace_piece': return [handKeyOf(ctx.view, seat, item.piece)];
    case 'piece_replaced': return [`seat:${item.seat}`, `seat${item.seat}:garnets`, handKeyOf(ctx.view, item.seat, item.with)];
    case 'piece_dealt': return [`seat:${item.seat}`, ...(item.piece ? [handKeyOf(ctx.view, item.seat, item.piece)] : [])];
    case 'timeout':
    case 'submission_missed':
    case 'choose_candidate':
    case 'candidate_chosen': return [`seat:${item.seat}`];
    case 'piece_revealed': return [`field${item.field}`, `field${item.field}:revealed`, `seat:${item.to_seat}`];
    case 'piece_discarded': return [`seat:${item.owner}`, ...(item.field != null ? [`field${item.field}`] : [])];
    case 'break_notice_given': return [`field${item.field}`];
    case 'break_penalty_taken': return [`seat:${item.seat}`, `field${item.break_field}`, ...(item.penalty === 'garnets' ? [`seat${item.seat}:garnets`] : [])];
    case 'garnets_earned': return [`seat:${item.seat}`, `seat${item.seat}:garnets`];
    case 'result_declared': return [...(item.winner != null ? [`seat:${item.winner}`] : []), ...(item.candidates ?? []).map((s) => `seat:${s}`)];
    case 'close_round': return (ctx.view?.seats ?? []).filter((s) => s.waiting_for_submission).map((s) => `seat:${s.seat}`);
    default: return [];
  }
}

// ---- playing by clicking -------------------------------------------------

function penaltyWords(penalties, seat) {
  const cw = penalties?.clockwise;
  const ccw = penalties?.counterclockwise;
  if (!cw && !ccw) return 'breaks cost points (nothing chosen)';
  const say = (choice, f) => `${choice ?? 'points'} in field ${f}`;
  if (seat == null) return `breaks cost ${cw ?? 'points'} clockwise, ${ccw ?? 'points'} counterclockwise`;
  return `breaks cost ${say(cw, clockwiseOf(seat))}, ${say(ccw, counterclockwiseOf(seat))}`;
}

function placementSteps(f, piece, cells, broken) {
  const [a, b] = piece.split('-');
  return [
    { at: `field${f}:${cells[0]}`, label: `${a} on ${cells[0]}` },
    { at: `field${f}:${cells[1]}`, label: `${b} on ${cells[1]}${broken ? ' (broken)' : ''}` },
  ];
}

export function steps(action, ctx = {}) {
  const seat = ctx.seat;
  switch (action.type) {
    case 'submit': {
      const out = [];
      if (action.revealed) {
        const r = action.revealed;
        out.push({ at: `field${action.field}:revealed`, label: `revealed ${r.piece}` }, ...placementSteps(action.field, r.piece, r.cells, r.broken));
      }
      out.push({ at: handKeyOf(ctx.view, seat, action.piece), label: action.piece },
        ...placementSteps(action.field, action.piece, action.cells, action.broken),
        { label: `${action.replaces_previous ? 'resubmit: ' : ''}${penaltyWords(action.penalties, seat)}` });
      return out;
    }
    case 'replace_piece':
      return [{ at: handKeyOf(ctx.view, seat, action.piece), label: action.piece }, { label: `replace it with ${action.with} (3 garnets)` }];
    case 'timeout': return [{ label: 'time out a seat' }, { at: `seat:${action.seat}`, label: `seat ${action.seat}` }];
    case 'close_round': return [{ label: 'close the round (every waiting seat misses)' }];
    case 'set_ruling': return [{ label: `turn ${action.rule.replaceAll('_', ' ')} ${action.enabled ? 'on' : 'off'}` }];
    case 'choose_candidate': return [{ label: 'choose the Elimination Candidate' }, { at: `seat:${action.seat}`, label: `seat ${action.seat}` }];
    default: return [{ label: JSON.stringify(action) }];
  }
}

export function actionWords(action, ctx = {}) {
  const seat = ctx.seat;
  switch (action.type) {
    case 'submit': {
      const revealed = action.revealed ? `the revealed ${action.revealed.piece} at ${list(action.revealed.cells)}, then ` : '';
      return `${action.replaces_previous ? 'resubmits' : 'submits'} ${revealed}${action.piece} for field ${action.field} at ${list(action.cells)}`
        + `${action.broken ? ', broken' : ''}; ${penaltyWords(action.penalties, seat)}`;
    }
    case 'replace_piece': return `replaces ${action.piece} with ${action.with} for 3 garnets`;
    case 'timeout': return `times out seat ${action.seat}`;
    case 'close_round': return 'closes the round';
    case 'set_ruling': return `turns ${action.rule.replaceAll('_', ' ')} ${action.enabled ? 'on' : 'off'}`;
    case 'choose_candidate': return `chooses seat ${action.seat} as Elimination Candidate`;
    default: return JSON.stringify(action);
  }
}

// ---- the score sheet ---------------------------------------------------------

function styled(node, style) {
  // Through the CSSOM: the page's policy forbids style attributes.
  Object.assign(node.style, style);
  return node;
}

const signed = (n) => (n < 0 ? `− ${-n}` : `${n}`);

function cell(main, detail, title) {
  const lines = Array.isArray(detail) ? detail : detail ? [detail] : [];
  return html('td', { title },
    html('strong', { text: main }),
    lines.flatMap((line) => [html('br'), html('small', { class: 'muted', text: line })]));
}

export function scoreSheet(score, ctx = {}) {
  const seats = score?.seats ?? [];
  const result = score?.result;
  const final = score?.final ?? ctx.final;
  if (!seats.length) {
    return html('div', { class: 'ff-score' }, html('p', { text: 'No seat\'s score is visible to this viewer before the end: a seat sees only its own line (§R).' }));
  }
  const head = html('tr', {}, html('th', { scope: 'col', text: 'points' }),
    seats.map((s) => html('th', { scope: 'col', 'data-seat': s.seat },
      `seat ${s.seat}`, html('br'), html('small', { class: 'muted', text: `fields ${s.clockwise.field} + ${s.counterclockwise.field}` }))));
  const rows = [];
  for (const flower of FLOWERS) {
    const lines = seats.map((s) => [s.clockwise.flowers.find((l) => l.flower === flower), s.counterclockwise.flowers.find((l) => l.flower === flower)]);
    if (lines.every(([a, b]) => !a && !b)) continue;
    const rule = lines.find(([a]) => a)?.[0]?.rule;
    rows.push(html('tr', { 'data-flower': flower },
      html('th', { scope: 'row' }, `${flower}`, html('br'), html('small', { class: 'muted', text: ruleWords(rule) })),
      lines.map(([a, b], i) => cell(
        `${(a?.points ?? 0) + (b?.points ?? 0)}`,
        `${a?.points ?? 0} + ${b?.points ?? 0}`,
        `field ${seats[i].clockwise.field}: ${a?.why ?? 'not scored'}; field ${seats[i].counterclockwise.field}: ${b?.why ?? 'not scored'}`))));
  }
  rows.push(html('tr', { class: 'ff-fields' }, html('th', { scope: 'row', text: 'both fields' }),
    seats.map((s) => cell(`${s.clockwise.points + s.counterclockwise.points}`, `${s.clockwise.points} + ${s.counterclockwise.points}`,
      `field ${s.clockwise.field} scores ${s.clockwise.points} against field ${s.clockwise.other_field}; field ${s.counterclockwise.field} scores ${s.counterclockwise.points} against field ${s.counterclockwise.other_field}`))));
  rows.push(html('tr', { class: 'ff-penalties' }, html('th', { scope: 'row' }, 'penalties', html('br'), html('small', { class: 'muted', text: 'a break\'s field or a missed round' })),
    seats.map((s) => cell(signed(-s.penalty_points), s.penalties.length ? s.penalties.map((p) => `${p.reason.kind === 'break' ? `field ${p.reason.break_field}` : 'missed'}, r${p.round}`) : 'none',
      s.penalties.map((p) => `round ${p.round}: ${p.reason.kind === 'break' ? `a break in field ${p.reason.break_field}` : 'a missed submission'}, ${p.points} points`).join('; ') || 'no penalty'))));
  rows.push(html('tr', { class: 'ff-total' }, html('th', { scope: 'row', text: 'total' }),
    seats.map((s) => cell(`${s.total}${result?.winner === s.seat ? ' ★' : ''}`,
      `${s.clockwise.points} + ${s.counterclockwise.points} − ${s.penalty_points}`,
      `${s.total} = field ${s.clockwise.field} ${s.clockwise.points} + field ${s.counterclockwise.field} ${s.counterclockwise.points} − penalties ${s.penalty_points}`))));
  rows.push(html('tr', { class: 'ff-garnets' }, html('th', { scope: 'row' }, 'garnets', html('br'), html('small', { class: 'muted', text: 'not points, not in the total: start + earned − spent' })),
    seats.map((s) => {
      const g = s.garnets;
      return cell(`${g.balance}`, `${g.starting} + ${g.earned} − ${g.spent_on_breaks + g.spent_on_replacements}`,
        `started with ${g.starting}, earned ${g.earned} from white flowers, spent ${g.spent_on_breaks} on breaks and ${g.spent_on_replacements} on replacements`);
    })));
  const table = html('table', { class: 'ff-score-table' }, html('thead', {}, head), html('tbody', {}, rows));
  const sentences = [];
  if (result?.winner != null) {
    const top = seats.find((s) => s.seat === result.winner);
    sentences.push(`Seat ${result.winner} wins with the highest total${top ? `, ${top.total} points` : ''} (§7).`);
  } else if (final) sentences.push('No single highest total: no winner (§7).');
  if (result?.candidates?.length) {
    sentences.push(result.elimination_candidate != null
      ? `Elimination Candidate: seat ${result.elimination_candidate}${result.winner != null ? `, the lower of seats ${(result.winner + 2) % SEATS} and ${(result.winner + 3) % SEATS}, opposite the winner` : ', the lowest total'}.`
      : `Elimination Candidate: a tie between seats ${list(result.candidates)}, for the umpire to choose.`);
  }
  const most = seats.reduce((a, b) => (b.garnets.balance > a.garnets.balance ? b : a), seats[0]);
  const garnetNote = 'Each seat scores its two fields, each against the other, flower by flower, minus its penalties (§7). '
    + 'Garnets are not points: white flowers earn garnets instead (§4), and garnets pay for breaks and replacements.'
    + `${seats.length > 1 && result?.winner != null && result.winner !== most.seat ? ` So seat ${most.seat} has the most garnets (${most.garnets.balance}), yet seat ${result.winner} wins.` : ''}`;
  return html('div', { class: 'ff-score' },
    html('p', { text: `${final ? 'Final' : 'Provisional'} sheet. ${garnetNote}` }),
    sentences.length ? html('p', { class: 'ff-result', text: sentences.join(' ') }) : null,
    styled(html('div', { class: 'ff-score-scroll' }, table), { overflowX: 'auto', maxWidth: '100%' }),
    html('details', {}, html('summary', { text: 'Why, flower by flower' }),
      seats.map((s) => html('div', { 'data-seat': s.seat },
        html('strong', { text: `seat ${s.seat}: ${s.total} = ${s.clockwise.points} + ${s.counterclockwise.points} − ${s.penalty_points}` }),
        html('ul', {}, [s.clockwise, s.counterclockwise].map((f) => html('li', {},
          `field ${f.field} against field ${f.other_field}: ${f.points} points — `,
          f.flowers.map((l) => `${l.flower} ${l.points} (${l.why})`).join('; '))))))));
}

// ---- the legend -----------------------------------------------------------

export function legend() {
  return html('p', { class: 'ff-legend small' },
    'Cells are written column A–E (left to right) and row 1–5 (top to bottom), in field 0–4: field i lies between seats i and i+1. ',
    'Each flower carries its letter: W white, R red, Y yellow, B blue, P purple, O orange; black fills empty cells at the end. ',
    'A piece "red-blue" is drawn as a domino, its first flower going on the first cell named. ',
    'A gold ring marks a field\'s last piece; dashed flowers are a pending, secret submission; a blue back is what this viewer may not see.');
}

// Changes between two states in words (changes.js, which compares things
// on cells by cell): a field by its number, a flower by its cell.
export const changeSubjects = [
  [/^fields\.(\d+)\.cells\.([A-E]\d)$/, ([, i, cell], at) => `field ${at(`fields.${i}.field`) ?? Number(i) + 1} at ${cell}`],
  [/^fields\.(\d+)\.(.+)$/, ([, i, rest], at) => `field ${at(`fields.${i}.field`) ?? Number(i) + 1}: ${rest.replaceAll('.', ' ').replaceAll('_', ' ')}`],
];
