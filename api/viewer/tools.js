// The score sheet, state diffs and the what-if report, as tables.
import { html } from './svg.js';
import { ruleLink } from './rules.js';

// Every leaf of a JSON value with its path, in document order.
export function leaves(value, path = '', out = []) {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    if (entries.length === 0) out.push([path || '(root)', Array.isArray(value) ? '[]' : '{}']);
    for (const [key, child] of entries) {
      leaves(child, path === '' ? String(key) : `${path}.${key}`, out);
    }
  } else {
    out.push([path || '(root)', value]);
  }
  return out;
}

function table(head, rows) {
  return html('table', {},
    html('thead', {}, html('tr', {}, head.map((h) => html('th', { scope: 'col', text: h })))),
    html('tbody', {}, rows.map((cells) => html('tr', {}, cells.map((c) => html('td', { text: c == null ? '—' : String(c) }))))));
}

// Totals by seat, wherever the game's score keeps them.
function totals(score) {
  if (score?.totals && typeof score.totals === 'object') {
    return Object.entries(score.totals).map(([seat, total]) => [seat, total]);
  }
  if (Array.isArray(score?.seats)) {
    // A total of points, or of what else a game counts (active leaves).
    const figure = (s) => s.total ?? s.active_leaves;
    return score.seats.filter((s) => figure(s) != null).map((s) => [s.seat, figure(s)]);
  }
  return Object.entries(score ?? {})
    .filter(([, v]) => v && typeof v === 'object' && typeof v.total === 'number')
    .map(([seat, v]) => [seat, v.total]);
}

// The game's own sheet, showing how each total is made, when its module
// draws one (games/<game>.js, `scoreSheet`); else the totals. Every line of
// the answer below, for whoever wants the figures themselves.
function explained(game, score, ctx) {
  try {
    return game?.scoreSheet?.(score, ctx) ?? null;
  } catch {
    return null;
  }
}

export function scoreSheet(answer, game, ctx) {
  const score = answer.score;
  const rows = totals(score);
  const sheet = leaves(score).filter(([path]) => path !== 'final');
  const sentence = score?.verdict ?? score?.explanation;
  const own = explained(game, score, ctx);
  return html('div', { 'data-score-version': answer.version },
    html('p', { text: `${answer.final ? 'Final score' : 'Score so far'} at version ${answer.version}.${sentence ? ` ${sentence}` : ''}` }),
    own ? html('div', { class: 'score-explained' }, own) : rows.length ? table(['seat', 'total'], rows) : null,
    html('details', {}, html('summary', { text: `Every line of the sheet (${sheet.length})` }),
      table(['item', 'value'], sheet.slice(0, 600))));
}

// What changed between two states, leaf by leaf.
export function diff(before, after) {
  const a = new Map(leaves(before));
  const b = new Map(leaves(after));
  const changes = [];
  for (const [path, value] of a) {
    if (!b.has(path)) changes.push([path, value, undefined]);
    else if (b.get(path) !== value) changes.push([path, value, b.get(path)]);
  }
  for (const [path, value] of b) if (!a.has(path)) changes.push([path, undefined, value]);
  return changes;
}

export function diffTable(from, to, changes) {
  if (changes.length === 0) return html('p', { text: `The states at versions ${from} and ${to} are the same for this viewer.` });
  return html('div', {},
    html('p', { text: `${changes.length} change${changes.length === 1 ? '' : 's'} from version ${from} to ${to}:` }),
    table(['where', `at ${from}`, `at ${to}`], changes.slice(0, 500)));
}

// A refusal or error as a person reads it, with the rule that decided it.
export function refusal(error) {
  const body = error.body ?? {};
  const rule = body.rule ?? body.details?.rule;
  const url = body.rule_url ?? body.details?.rule_url;
  return html('p', { class: 'refusal', role: 'alert' },
    html('code', { text: body.code ?? `HTTP ${error.status}` }), ` ${body.message ?? error.message}`,
    rule ? html('span', {}, ' (', ruleLink(rule, url), ')') : '');
}

export function whatIfReport(report) {
  const rows = leaves(report).filter(([path]) => !/\.events\.|\.entries\./.test(path));
  return html('div', {},
    html('p', { text: 'The game re-run under the patched options:' }),
    table(['item', 'value'], rows.slice(0, 300)),
    html('details', {}, html('summary', { text: 'The whole report (JSON)' }),
      html('pre', { text: JSON.stringify(report, null, 1).slice(0, 60000) })));
}
