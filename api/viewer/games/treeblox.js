// Treeblox: the tree layer by layer (z = 0 is the board), side by side;
// branches as squares, leaves as circles, active leaves with a sun (a
// yellow dot: the page's gold marks the last action).
//
// Notation (as in the timeline and the domain's refusals, treeblox §1): a
// cell is written [x, y, z]. Each layer is a square grid seen from above,
// titled with its z ("z = 0 · the board", "z = 1", …); the x of
// each column is written above and below the grid, the y of each row on
// both sides of it, y growing upwards. The board's 16 holes are the tan
// cells [0..3, 0..3, 0].
//
// `data-at` keys (for highlighting and play by clicking):
//   cell:X,Y,Z             every drawn cell, empty or holding a cube, e.g.
//                          `cell:2,-3,1` for [2, -3, 1]; the cube drawn in it
//                          (its `data-piece`, `cube:X,Y,Z:kind:colour`) is
//                          inside that element
//   reserve:SEAT:KIND      a seat's branches or leaves not yet placed, e.g.
//                          `reserve:dark:branch`
import { board, boardWidth, html, label, svg } from '../svg.js';

export const title = 'Treeblox';

// Events that stepping may skip (setup, deals, turn changes).
export const bookkeeping = ['game_set_up', 'turn_started'];

export const cellName = (cell) => `[${cell.join(', ')}]`;
export const cellKey = (cell) => `cell:${cell.join(',')}`;
const reserveKey = (seat, kind) => `reserve:${seat}:${kind}`;

const REASONS = {
  no_active_leaves: 'a placement left a seat with no active leaf',
  no_active_leaves_at_turn_start: 'a seat started its turn with no active leaf',
  two_consecutive_passes: 'both seats passed, one after the other',
  final_growth_completed: 'the final growth is complete',
};
const reason = (name) => REASONS[name] ?? String(name).replaceAll('_', ' ');

// Each event in words, for the timeline (words.js spells out the rest).
export const phrases = {
  game_set_up: (p) => `set up: ${p.branches_per_seat} branches and ${p.leaves_per_seat} leaves each, ${p.first_to_act} first`,
  cube_placed: (p) => `${p.seat} places a ${p.kind} at ${cellName(p.cell)}`,
  turn_started: (p) => `${p.seat}'s turn (${p.turn.replaceAll('_', ' ')}${p.growth_rate == null ? ', no limit' : `, growth rate ${p.growth_rate}`})`,
  turn_passed: (p) => `${p.seat} passes${p.timed_out ? ' (timed out)' : ''}`,
  game_ended: (p) => `the game ends (${reason(p.reason)}): ${p.winner ? `${p.winner} wins` : 'a draw'}`
    + `${p.active_leaves ? `, active leaves dark ${p.active_leaves.dark}, light ${p.active_leaves.light}` : ''}`,
};

const CELL = 24;
const MARGIN = 22; // room for the row labels on each side of a layer
const GAP = 16; // between layers
const COLOURS = { dark: '#3b4a3f', light: '#cfe8b0' };
const INK = { dark: '#fff', light: '#1b1b1b' };
const SUN = { fill: '#ffd21f', stroke: '#8a6400' };

// The mark of an active leaf: a small sun at the cell's top right corner.
const sun = (cx, cy, r = 4.5) => svg('circle', { cx, cy, r, fill: SUN.fill, stroke: SUN.stroke, 'stroke-width': 1.2, class: 'active-sun' });

// The cells to draw: the board, every cube, and the cells around the
// branches of the seat to act (where it may grow), so that a legal cell is
// on the board to be clicked.
function bounds(view) {
  const box = { minX: 0, maxX: 3, minY: 0, maxY: 3, maxZ: 0 };
  const grow = (x, y, z) => {
    box.minX = Math.min(box.minX, x); box.maxX = Math.max(box.maxX, x);
    box.minY = Math.min(box.minY, y); box.maxY = Math.max(box.maxY, y);
    box.maxZ = Math.max(box.maxZ, z);
  };
  for (const { cell: [x, y, z], kind, colour } of view.cubes ?? []) {
    grow(x, y, z);
    if (kind === 'branch' && colour === view.to_act) {
      grow(x - 1, y - 1, z + 1);
      grow(x + 1, y + 1, z);
    }
  }
  return box;
}

// The width the board is shown in: its box on the page (the drawing is
// scaled down to fit it, so layers are put side by side only as far as they
// stay readable), else the window's.
function available() {
  return boardWidth();
}

// A cell is drawn CELL units wide; scaled to the board's width it should
// be at least this many pixels, for a finger.
const TARGET_CELL = 36;

const isHole = (x, y, z) => z === 0 && x >= 0 && x <= 3 && y >= 0 && y <= 3;

function cube(cx, cy, { cell, kind, colour }, active) {
  const key = cell.join(',');
  const words = `${colour} ${kind} at ${cellName(cell)}${active ? ', an active leaf (nothing above it)' : ''}`;
  const shape = kind === 'leaf'
    ? svg('circle', { cx: cx + CELL / 2, cy: cy + CELL / 2, r: CELL / 2 - 3, fill: COLOURS[colour], stroke: '#333' })
    : svg('rect', { x: cx + 2, y: cy + 2, width: CELL - 4, height: CELL - 4, rx: 2, fill: COLOURS[colour], stroke: '#333' });
  return svg('g', { class: `cube ${kind} ${colour}${active ? ' active' : ''}`, 'data-piece': `cube:${key}:${kind}:${colour}` },
    svg('title', { text: words }), shape,
    svg('text', { x: cx + CELL / 2, y: cy + CELL / 2 + 4, 'text-anchor': 'middle', class: 'cube-label', fill: INK[colour], text: kind === 'leaf' ? 'L' : 'B' }),
    active ? sun(cx + CELL - 5, cy + 5) : null);
}

function layer(ox, oy, z, box, byCell, active) {
  const nodes = [label(ox, oy + 11, z === 0 ? 'z = 0 · the board' : `z = ${z}`, 'label layer-title')];
  const top = oy + 28;
  const left = ox + MARGIN;
  const columns = box.maxX - box.minX + 1;
  const rows = box.maxY - box.minY + 1;
  for (let x = box.minX; x <= box.maxX; x += 1) {
    const cx = left + (x - box.minX) * CELL + CELL / 2;
    nodes.push(svg('text', { x: cx, y: top - 4, 'text-anchor': 'middle', class: 'coord axis x-axis', fill: '#555', text: String(x) }));
    nodes.push(svg('text', { x: cx, y: top + rows * CELL + 11, 'text-anchor': 'middle', class: 'coord axis x-axis', fill: '#555', text: String(x) }));
  }
  for (let y = box.minY; y <= box.maxY; y += 1) {
    const cy = top + (box.maxY - y) * CELL + CELL / 2 + 4;
    nodes.push(svg('text', { x: left - 4, y: cy, 'text-anchor': 'end', class: 'coord axis y-axis', fill: '#555', text: String(y) }));
    nodes.push(svg('text', { x: left + columns * CELL + 4, y: cy, class: 'coord axis y-axis', fill: '#555', text: String(y) }));
  }
  nodes.push(svg('text', { x: left - 4, y: top - 4, 'text-anchor': 'end', class: 'coord axis', fill: '#888', text: 'y\\x' },
    svg('title', { text: 'x across (written above and below), y up (written at the sides): the cell [x, y, z]' })));
  for (let x = box.minX; x <= box.maxX; x += 1) {
    for (let y = box.minY; y <= box.maxY; y += 1) {
      const cx = left + (x - box.minX) * CELL;
      const cy = top + (box.maxY - y) * CELL;
      const key = `${x},${y},${z}`;
      const here = byCell.get(key);
      const hole = isHole(x, y, z);
      const words = `${cellName([x, y, z])}${hole ? ', a board hole' : ''}${here ? '' : ', empty'}`;
      nodes.push(svg('g', { class: 'cell', 'data-at': `cell:${key}` },
        svg('rect', {
          x: cx, y: cy, width: CELL, height: CELL, class: hole ? 'hole' : 'air',
          fill: hole ? '#e7dcc6' : '#f7f7f7', stroke: hole ? '#c9b998' : '#e4e4e4',
        }, here ? null : svg('title', { text: words })),
        here ? cube(cx, cy, here, active.has(key)) : null));
    }
  }
  return svg('g', { class: 'layer', 'data-z': z }, nodes);
}

function reserve(x, y, seat, kind, count) {
  const key = reserveKey(seat, kind);
  const words = `${seat}'s ${count} ${kindWords(kind, count)} not yet placed`;
  const shape = kind === 'leaf'
    ? svg('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL / 2 - 3, fill: COLOURS[seat], stroke: '#333' })
    : svg('rect', { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, rx: 2, fill: COLOURS[seat], stroke: '#333' });
  return svg('g', { class: `reserve ${kind} ${seat}`, 'data-at': key, 'data-count': count, opacity: count ? 1 : 0.35 },
    svg('title', { text: words }),
    svg('rect', { x: x - 2, y: y - 2, width: 108, height: CELL + 4, rx: 4, fill: '#fff', stroke: '#ccc' }),
    shape,
    svg('text', { x: x + CELL / 2, y: y + CELL / 2 + 4, 'text-anchor': 'middle', class: 'cube-label', fill: INK[seat], text: kind === 'leaf' ? 'L' : 'B' }),
    svg('text', { x: x + CELL + 6, y: y + CELL / 2 + 4, text: `${count} ${kindWords(kind, count)}` }));
}

export function draw(view) {
  const box = bounds(view);
  const byCell = new Map((view.cubes ?? []).map((c) => [c.cell.join(','), c]));
  const active = new Set();
  for (const seat of view.seats ?? []) {
    for (const cell of seat.active_leaf_cells ?? []) active.add(cell.join(','));
  }
  const layerWidth = 2 * MARGIN + (box.maxX - box.minX + 1) * CELL;
  const layerHeight = 28 + (box.maxY - box.minY + 1) * CELL + 16;
  // As many layers abreast as leave a cell TARGET_CELL px wide once the
  // drawing is scaled to the board's width; then the layers go in rows as
  // even as can be (5 layers: 3 and 2, not 4 and 1).
  const fits = Math.max(1, Math.floor((available() * (CELL / TARGET_CELL) + GAP) / (layerWidth + GAP)));
  const perRow = Math.ceil((box.maxZ + 1) / Math.ceil((box.maxZ + 1) / fits));
  const nodes = [];
  for (let z = 0; z <= box.maxZ; z += 1) {
    const ox = 6 + (z % perRow) * (layerWidth + GAP);
    const oy = 4 + Math.floor(z / perRow) * (layerHeight + 10);
    nodes.push(layer(ox, oy, z, box, byCell, active));
  }
  const layerRows = Math.floor(box.maxZ / perRow) + 1;
  let y = 4 + layerRows * (layerHeight + 10) + 6;
  const seatLines = [];
  for (const seat of view.seats ?? []) {
    const acting = view.to_act === seat.seat;
    const rate = acting ? (view.growth_rate == null ? ' · to act, no limit (final growth)' : ` · to act, growth rate ${view.growth_rate}`) : '';
    const line = `${seat.seat}: ${seat.active_leaves} active ${seat.active_leaves === 1 ? 'leaf' : 'leaves'}${rate}`;
    seatLines.push(line);
    nodes.push(label(6, y + 10, line, `label seat-${seat.seat}`));
    nodes.push(reserve(6, y + 18, seat.seat, 'branch', seat.remaining_branches));
    nodes.push(reserve(124, y + 18, seat.seat, 'leaf', seat.remaining_leaves));
    y += 56;
  }
  const phase = String(view.phase ?? '').replaceAll('_', ' ');
  const passes = view.consecutive_passes ? ` · ${view.consecutive_passes} pass in a row (two end the game)` : '';
  nodes.push(label(6, y + 4, `${phase}${passes}`, 'muted'));
  // Wide enough for the longest line written under the layers (a seat's
  // leaves and growth rate), which would otherwise be cut off.
  const longest = Math.max(0, ...seatLines.map((line) => line.length));
  const width = Math.max(280, 12 + longest * 7, 12 + Math.min(box.maxZ + 1, perRow) * (layerWidth + GAP) - GAP);
  return board(width, y + 12, 'Treeblox tree, layer by layer: cells [x, y, z]', ...nodes);
}

// ---- the desk: what an event or an action touches, and play by clicking ----

const placementsOf = (item) => (Array.isArray(item.placements) ? item.placements : []);

// Only cubes placed (or tried) touch the board: a pass, a turn starting or
// the end of the game changes no cell (the score sheet names the cells that
// count).
export function touches(item) {
  switch (item?.type) {
    case 'cube_placed':
      return Array.isArray(item.cell) ? [cellKey(item.cell)] : [];
    case 'grow':
      return placementsOf(item).filter((p) => Array.isArray(p?.cell)).map((p) => cellKey(p.cell));
    default:
      return [];
  }
}

const kindWord = (kind) => (kind === 'leaf' ? 'leaf' : 'branch');
// "1 leaf", "2 leaves", "0 branches".
function kindWords(kind, count) {
  if (kind === 'leaf') return count === 1 ? 'leaf' : 'leaves';
  return count === 1 ? 'branch' : 'branches';
}
const counted = (count, kind) => `${count} ${kindWords(kind, count)}`;
const placementWords = (p) => `a ${kindWord(p.kind)} at ${Array.isArray(p.cell) ? cellName(p.cell) : '?'}`;

export function actionWords(action) {
  if (action?.type === 'timeout') return `times out ${action.seat} (a pass)`;
  if (action?.type !== 'grow') return JSON.stringify(action);
  const placements = placementsOf(action);
  if (!placements.length) return 'passes';
  const words = placements.map(placementWords);
  if (placements.length <= 2) return `places ${words.join(' and ')}`;
  return `places ${placements.length} cubes: ${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

// The clicks that choose an action. A placement is its cell on the board,
// then the kind from the seat's reserve (in the first turn a leaf is the
// only kind, so the cell alone). At growth rate 2 a single placement is
// the start of the pairs that begin with it: the page offers to submit it
// or to click on for a second cube. A final growth (every cube the seat holds, in one list) is
// chosen whole from the few the umpire offers, by buttons.
export function steps(action, ctx) {
  if (action?.type === 'timeout') return [{ label: `time out ${action.seat}: it passes` }];
  if (action?.type !== 'grow') return [{ label: JSON.stringify(action) }];
  const placements = placementsOf(action);
  if (!placements.length) return [{ label: 'pass (place nothing)' }];
  const view = ctx?.view ?? {};
  const seat = ctx?.seat ?? view.to_act;
  if (view.phase === 'final_growth') {
    const branches = placements.filter((p) => p.kind === 'branch').length;
    return [
      { label: `final growth: ${placements.length} ${placements.length === 1 ? 'cube' : 'cubes'} (${counted(branches, 'branch')}, ${counted(placements.length - branches, 'leaf')})` },
      { label: placements.map((p) => `${kindWord(p.kind)} ${cellName(p.cell)}`).join(', ') },
    ];
  }
  const clicks = placements.flatMap((p) => (view.phase === 'first_turn'
    ? [{ at: cellKey(p.cell), label: cellName(p.cell) }]
    : [{ at: cellKey(p.cell), label: cellName(p.cell) }, { at: reserveKey(seat, p.kind), label: kindWord(p.kind) }]));
  return clicks;
}

// ---- the score --------------------------------------------------------------

export function scoreSheet(score) {
  const seats = score?.seats ?? [];
  const most = Math.max(0, ...seats.map((s) => s.active_leaves ?? 0));
  // Ahead alone, or tied with the other seat: never both "ahead".
  const leaders = seats.filter((s) => (s.active_leaves ?? 0) === most).length;
  const standing = (line) => (line.active_leaves === most && most ? (leaders > 1 ? 'tied' : 'ahead') : '');
  const rows = seats.map((line) => html('tr', { 'data-seat': line.seat },
    html('th', { text: line.seat }),
    html('td', { class: 'num', text: String(line.active_leaves) }),
    html('td', { text: (line.active_leaf_cells ?? []).length ? line.active_leaf_cells.map(cellName).join(' ') : 'none' }),
    html('td', { text: score.winner === line.seat ? 'wins' : (score.draw ? 'draws' : (score.final ? '' : standing(line))) })));
  const sudden = score?.end_reason === 'no_active_leaves' || score?.end_reason === 'no_active_leaves_at_turn_start';
  return html('div', { class: 'score-sheet treeblox-score' },
    html('p', {},
      'Each seat scores one point per ', html('strong', { text: 'active leaf' }),
      ': a leaf of its colour with nothing of either colour above it in its column (marked with a yellow sun on the board). ',
      'More active leaves wins; equal is a draw. A seat left without any active leaf loses at once, whatever the count (treeblox §1, §2).'),
    html('table', { class: 'treeblox-tally' },
      html('thead', {}, html('tr', {},
        html('th', { text: 'seat' }), html('th', { text: 'active leaves' }),
        html('th', { text: 'where: cells [x, y, z]' }), html('th', { text: score?.final ? 'result' : '' }))),
      html('tbody', {}, rows)),
    html('p', { class: `treeblox-result${sudden ? ' sudden' : ''}` }, html('strong', { text: resultSentence(score, seats, sudden) })));
}

// The totals set against each other: why the result is what it is.
function resultSentence(score, seats, sudden) {
  const count = (n) => `${n} active ${n === 1 ? 'leaf' : 'leaves'}`;
  const [first, second] = [...seats].sort((a, b) => (b.active_leaves ?? 0) - (a.active_leaves ?? 0));
  if (!first || !second) return score?.explanation ?? '';
  if (score.final && sudden && score.winner) {
    const loser = seats.find((s) => s.seat !== score.winner)?.seat;
    return `${loser} was left without an active leaf, so ${score.winner} wins whatever the count (treeblox §2).`;
  }
  if (score.final && score.winner) {
    const winner = seats.find((s) => s.seat === score.winner) ?? first;
    const other = seats.find((s) => s.seat !== score.winner) ?? second;
    return `${winner.seat} wins: ${count(winner.active_leaves)} against ${other.seat}'s ${other.active_leaves}.`;
  }
  if (score.final) return `A draw: ${count(first.active_leaves)} each.`;
  if (first.active_leaves === second.active_leaves) return `So far level, ${count(first.active_leaves)} each; the game goes on.`;
  return `So far ${first.seat} leads with ${count(first.active_leaves)} against ${second.seat}'s ${second.active_leaves}; the game goes on.`;
}

// The board's key, shown once under it by the page: shapes, colours, the
// sun, and how to find a cell.
export function legend() {
  const swatch = (fill, shape, text) => html('span', { class: `legend-item ${shape}` },
    svg('svg', { width: 14, height: 14, viewBox: '0 0 18 18', 'aria-hidden': 'true' },
      shape === 'leaf'
        ? svg('circle', { cx: 9, cy: 9, r: 7.5, fill, stroke: '#333' })
        : shape === 'sun'
          ? sun(9, 9, 7)
          : svg('rect', { x: 1.5, y: 1.5, width: 15, height: 15, fill, stroke: shape === 'hole' ? '#c9b998' : '#333' })),
    ` ${text}`);
  return html('div', { class: 'treeblox-legend' },
    html('p', {},
      html('strong', { text: 'Cells are [x, y, z]. ' }),
      'Each grid is one layer z, seen from above (z = 0 is the board); x is written above and below its columns, y beside its rows, growing upwards.'),
    html('p', {},
      swatch(COLOURS.dark, 'branch', 'B, a square: a branch, here dark\'s (dark green)'), ' · ',
      swatch(COLOURS.light, 'leaf', 'L, a circle: a leaf, here light\'s (pale green)'), ' · ',
      swatch(null, 'sun', 'sun: an active leaf, nothing above it: 1 point'), ' · ',
      swatch('#e7dcc6', 'hole', 'tan: the 16 board holes')));
}

// Changes between two states in words (changes.js, which compares things
// on cells by cell): a cube by its cell, in the board's notation.
export const changeSubjects = [
  [/^cubes\.(\[[^\]]*\])$/, ([, cell]) => `the cube at ${cell}`],
];
