// The score sheet, state diffs and the what-if report, as tables; and the
// umpire's tools for settling a dispute on the record: a ruling written
// onto the log, a dry run at any version, the archive to download.
import { html } from './svg.js';
import { ruleLink } from './rules.js';
import { changeWords, changesInWords, valueWords } from './changes.js';
import { describe } from './words.js';

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

// The changes in words first ("blue's score 12 → 14"), in the game's own
// notation (changes.js); the paths and values as JSON beneath, for
// developers. `ctx`: the game's module, its seats, a reader of the states
// and the states themselves (`before`, `after`).
export function diffTable(from, to, changes, ctx = {}) {
  if (changes.length === 0) return html('p', { text: `The states at versions ${from} and ${to} are the same for this viewer.` });
  const shown = changes.slice(0, 500);
  const words = ctx.before === undefined ? [] : changesInWords(ctx.game, ctx.before, ctx.after, ctx).slice(0, 500);
  return html('div', { class: 'diff' },
    html('p', { text: `From version ${from} to ${to}, in words (${changes.length} change${changes.length === 1 ? '' : 's'} of JSON paths beneath):` }),
    html('ul', { class: 'in-words' }, words.map((sentence) => html('li', { text: sentence }))),
    html('details', { class: 'as-json' }, html('summary', { text: 'As JSON paths, for developers' }),
      table(['where', `at ${from}`, `at ${to}`], shown)));
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

// The what-if report in sentences: what the patched options change, seat
// by seat, and where the two games first part.
export function whatIfWords(report, ctx = {}) {
  const lines = [`The game is re-run over ${report.actions} action${report.actions === 1 ? '' : 's'} under the patched options.`];
  if (report.setup_differs) lines.push('The setup differs: another deal, or the options it records.');
  for (const [seat, change] of Object.entries(report.changes ?? {})) {
    const sign = change.delta > 0 ? `+${change.delta}` : String(change.delta);
    lines.push(changeWords(ctx.game, [`totals.${seat}`, change.recorded, change.alternative], ctx) + (change.delta ? ` (${sign})` : ' (unchanged)'));
  }
  const winners = (summary) => valueWords(summary?.winners?.length ? summary.winners : undefined).replace('nothing', 'nobody yet');
  lines.push(report.winners_change
    ? `The winners change: ${winners(report.recorded)} → ${winners(report.alternative)}.`
    : `The winners stay ${winners(report.recorded)}.`);
  const first = report.first_difference;
  if (first) {
    const verdict = (outcome) => (outcome.accepted ? 'accepted' : `refused (${outcome.violation?.code ?? 'no code'})`);
    lines.push(`The two games first part at version ${first.version}, on ${first.actor}'s action ${JSON.stringify(first.action)}: recorded ${verdict(first.recorded)}, re-run ${verdict(first.alternative)}.`);
    for (const [seat, total] of Object.entries(first.recorded?.score?.totals ?? {})) {
      const other = first.alternative?.score?.totals?.[seat];
      if (other !== total) lines.push(`There, ${changeWords(ctx.game, [`totals.${seat}`, total, other], ctx)}.`);
    }
  }
  if (report.refused?.length) lines.push(`${report.refused.length} recorded action${report.refused.length === 1 ? ' is' : 's are'} refused under the patched options (first: ${report.refused[0].violation?.code}).`);
  return lines;
}

export function whatIfReport(report, ctx = {}) {
  const rows = leaves(report).filter(([path]) => !/\.events\.|\.entries\./.test(path));
  return html('div', {},
    html('p', { text: 'The game re-run under the patched options:' }),
    html('ul', { class: 'in-words' }, whatIfWords(report, ctx).map((line) => html('li', { text: line }))),
    html('details', { class: 'as-json' }, html('summary', { text: 'Every item as a JSON path, for developers' }),
      table(['item', 'value'], rows.slice(0, 300))),
    html('details', {}, html('summary', { text: 'The whole report (JSON)' }),
      html('pre', { text: JSON.stringify(report, null, 1).slice(0, 60000) })));
}

// ---- the umpire's tools on the record ------------------------------------

// The longest ruling the rules take (docs/rules/umpire.md §1).
export const MAX_RULING_CHARS = 2000;

// A ruling written onto the record at the latest version: `onRecord(text)`
// submits it and says what became of it.
export function rulingForm({ onRecord }) {
  const text = html('textarea', { id: 'ruling-text', rows: 3, maxlength: MAX_RULING_CHARS, spellcheck: 'true', placeholder: 'e.g. Blue\'s card was shown by accident; it stays in play.' });
  const count = html('span', { class: 'count', 'aria-live': 'polite', text: `0 / ${MAX_RULING_CHARS}` });
  const result = html('div', { id: 'ruling-result', 'aria-live': 'polite' });
  text.addEventListener('input', () => { count.textContent = `${[...text.value].length} / ${MAX_RULING_CHARS}`; });
  const form = html('form', { id: 'ruling-form', class: 'ruling-form' },
    html('label', { for: 'ruling-text' }, html('strong', { text: 'A ruling' }), ' written onto the record at the latest version, for every viewer to see:'),
    text,
    html('div', { class: 'inline' }, html('button', { type: 'submit', text: 'Write onto the record' }), count),
    result);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const written = text.value;
    if (!written.trim()) {
      result.replaceChildren(html('p', { class: 'refusal', role: 'alert', text: 'A ruling says something: write it first.' }));
      return;
    }
    const outcome = await onRecord(written);
    result.replaceChildren(outcome);
    if (outcome?.classList?.contains('accepted')) {
      text.value = '';
      count.textContent = `0 / ${MAX_RULING_CHARS}`;
    }
  });
  return form;
}

// A dry run at the version shown: an action tried there, as a seat or the
// umpire, and the rules' verdict, with nothing appended. `try_(action,
// as)` asks the service; `suggest()` the action recorded next, to start
// from.
export function dryRunForm({ seats, onTry, suggest }) {
  const as = html('select', { id: 'dry-run-as', 'aria-label': 'Try the action as' },
    html('option', { value: '', text: 'the umpire' }),
    seats.map((seat) => html('option', { value: seat, text: /^\d+$/.test(seat) ? `seat ${seat}` : seat })));
  const action = html('textarea', { id: 'dry-run-action', rows: 2, spellcheck: 'false', 'aria-label': 'The action to try, as JSON' });
  const result = html('div', { id: 'dry-run-result', 'aria-live': 'polite' });
  const form = html('form', { id: 'dry-run-form', class: 'dry-run-form' },
    html('p', { class: 'dry-run-at' }),
    html('div', { class: 'inline' }, html('label', { for: 'dry-run-as', text: 'as' }), as,
      html('button', { type: 'button', class: 'suggest', text: 'The action recorded next', onclick: () => {
        const next = suggest();
        if (next) {
          action.value = JSON.stringify(next.action);
          as.value = next.seat ?? '';
        }
      } })),
    action,
    html('button', { type: 'submit', text: 'Try it here (nothing is stored)' }),
    result);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    let parsed;
    try {
      parsed = JSON.parse(action.value);
    } catch {
      result.replaceChildren(html('p', { class: 'refusal', role: 'alert', text: 'That is not JSON: an action is an object such as {"type": "pass"}.' }));
      return;
    }
    result.replaceChildren(await onTry(parsed, as.value || null));
  });
  return form;
}

// The verdict of a dry run: accepted, with the events it would record in
// words; or refused, with its code, its sentence and the rule that decides.
export function dryRunVerdict(check, game) {
  if (check.legal) {
    // Tried as a seat, the answer is the seat's own, which never says what
    // the action would cause (it could tell another seat's secret).
    const events = check.events ?? [];
    return html('div', { class: 'accepted', 'data-dry-run': 'accepted' },
      html('p', { text: `Accepted at version ${check.at}${events.length ? `: it would record ${events.length} event${events.length === 1 ? '' : 's'}` : ''}. Nothing was stored.` }),
      events.length ? html('ul', {}, events.map((event) => html('li', { text: describe(game, { type: event.type, payload: event }) }))) : null);
  }
  const violation = check.violation ?? {};
  return html('div', { 'data-dry-run': 'refused' },
    refusal({ body: violation, status: 422 }),
    html('p', { text: `Refused at version ${check.at}. Nothing was stored.` }));
}

// The whole archive of the game, as a file: what an umpire hands on with
// a ruling, and what `umpire audit` reads.
export function archiveButton({ onDownload }) {
  const result = html('span', { id: 'archive-result', 'aria-live': 'polite' });
  return html('p', { class: 'inline' },
    html('button', { type: 'button', id: 'archive-download', text: 'Download the archive', onclick: async () => {
      result.replaceChildren(await onDownload());
    } }), result);
}
