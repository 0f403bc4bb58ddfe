// Treeblox: the tree layer by layer (z = 0 is the board), side by side;
// branches as squares, leaves as circles, active leaves ringed.
import { board, label, svg } from '../svg.js';

export const title = 'Treeblox';

// Events that stepping may skip (setup, deals, turn changes).
export const bookkeeping = ['game_set_up', 'turn_started'];

// Each event in words, for the timeline (words.js spells out the rest).
export const phrases = {
  game_set_up: (p) => `set up: ${p.branches_per_seat} branches and ${p.leaves_per_seat} leaves each, ${p.first_to_act} first`,
  cube_placed: (p) => `${p.seat} places a ${p.kind} at [${p.cell.join(', ')}]`,
  turn_started: (p) => `${p.seat}'s turn (${p.turn.replace('_', ' ')}, growth ${p.growth_rate})`,
  turn_passed: (p) => `${p.seat} passes${p.timed_out ? ' (timed out)' : ''}`,
  game_ended: (p) => `the game ends (${p.reason.replaceAll('_', ' ')}): ${p.winner ?? 'a draw'}${p.winner ? ' wins' : ''}`,
};

const CELL = 26;
const COLOURS = { dark: '#3b4a3f', light: '#cfe8b0' };
const INK = { dark: '#fff', light: '#1b1b1b' };

export function draw(view) {
  const cubes = view.cubes ?? [];
  const active = new Set();
  for (const seat of view.seats ?? []) {
    for (const cell of seat.active_leaf_cells ?? []) active.add(cell.join(','));
  }
  let minX = 0; let maxX = 3; let minY = 0; let maxY = 3; let maxZ = 0;
  for (const { cell: [x, y, z] } of cubes) {
    minX = Math.min(minX, x); maxX = Math.max(maxX, x);
    minY = Math.min(minY, y); maxY = Math.max(maxY, y);
    maxZ = Math.max(maxZ, z);
  }
  const layerWidth = (maxX - minX + 1) * CELL;
  const layerHeight = (maxY - minY + 1) * CELL;
  const perRow = Math.max(1, Math.floor(900 / (layerWidth + 24)));
  const nodes = [];
  for (let z = 0; z <= maxZ; z += 1) {
    const ox = 10 + (z % perRow) * (layerWidth + 24);
    const oy = 20 + Math.floor(z / perRow) * (layerHeight + 40);
    nodes.push(label(ox, oy - 6, z === 0 ? 'z = 0 (board)' : `z = ${z}`));
    for (let x = minX; x <= maxX; x += 1) {
      for (let y = minY; y <= maxY; y += 1) {
        const hole = z === 0 && x >= 0 && x <= 3 && y >= 0 && y <= 3;
        nodes.push(svg('rect', {
          x: ox + (x - minX) * CELL, y: oy + (maxY - y) * CELL, width: CELL, height: CELL,
          class: hole ? 'hole' : 'air',
        }));
      }
    }
    for (const { cell, kind, colour } of cubes) {
      const [x, y, cz] = cell;
      if (cz !== z) continue;
      const cx = ox + (x - minX) * CELL;
      const cy = oy + (maxY - y) * CELL;
      const key = cell.join(',');
      const title = `${colour} ${kind} at [${key}]${active.has(key) ? ', active' : ''}`;
      const shape = kind === 'leaf'
        ? svg('circle', { cx: cx + CELL / 2, cy: cy + CELL / 2, r: CELL / 2 - 3, fill: COLOURS[colour], stroke: '#333' })
        : svg('rect', { x: cx + 2, y: cy + 2, width: CELL - 4, height: CELL - 4, fill: COLOURS[colour], stroke: '#333' });
      nodes.push(svg('g', { class: `cube ${kind}${active.has(key) ? ' active' : ''}`, 'data-piece': `cube:${key}:${kind}:${colour}` },
        svg('title', { text: title }), shape,
        active.has(key) ? svg('circle', { cx: cx + CELL / 2, cy: cy + CELL / 2, r: CELL / 2 - 0.5, class: 'active-ring' }) : null,
        svg('text', { x: cx + CELL / 2, y: cy + CELL / 2 + 4, 'text-anchor': 'middle', class: 'cube-label', fill: INK[colour], text: kind === 'leaf' ? 'L' : 'B' })));
    }
  }
  const rows = Math.floor(maxZ / perRow) + 1;
  let y = 20 + rows * (layerHeight + 40);
  for (const seat of view.seats ?? []) {
    nodes.push(label(10, y, `${seat.seat}: ${seat.remaining_branches} branches and ${seat.remaining_leaves} leaves left, ${seat.active_leaves} active leaves`, `label seat-${seat.seat}`));
    y += 20;
  }
  nodes.push(label(10, y, `${view.phase ?? ''} · growth rate ${view.growth_rate ?? '-'} · passes in a row ${view.consecutive_passes ?? 0}`, 'muted'));
  const width = Math.max(420, 20 + Math.min(maxZ + 1, perRow) * (layerWidth + 24));
  return board(width, y + 10, 'Treeblox tree, layer by layer', ...nodes);
}
