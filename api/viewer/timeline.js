// The timeline of decisions: one entry per recorded decision — who decided,
// what in words, and today's verdict on it — with the events it caused
// folded beneath it, each a version to step to. The events a decision
// caused beyond the actor's own move (a deal, a round's end, a result) are
// the game's, and say so. The umpire's audit adds rejected attempts in
// place, between the decisions they came between.
import { html } from './svg.js';
import { actorName, describe, isBookkeeping, sharedActionWords } from './words.js';
import { ruleLink } from './rules.js';

// The events of one decision were appended together: the same actor, the
// same recorded time (one transaction) and, where this viewer sees it, the
// same action. The setup's events are one decision, the game's creation.
export function sameDecision(a, b) {
  if (a.actor !== b.actor || a.recorded_at !== b.recorded_at) return false;
  return JSON.stringify(a.action ?? null) === JSON.stringify(b.action ?? null);
}

// Groups events (events[i] is version i + 1) into decisions, appending to
// `decisions` as new events arrive.
export function groupDecisions(decisions, events, from) {
  for (let i = from; i < events.length; i += 1) {
    const event = events[i];
    const open = decisions[decisions.length - 1];
    if (open && sameDecision(events[open.last - 1], event)) open.last = i + 1;
    else decisions.push({ first: i + 1, last: i + 1, actor: event.actor, action: event.action ?? null });
  }
  return decisions;
}

// When an event was recorded, in milliseconds since the epoch (the answer's
// `recorded_at` carries microseconds, more than Date reads everywhere).
export function recordedMs(event) {
  const at = Date.parse(String(event?.recorded_at ?? '').replace(/(\.\d{3})\d+/, '$1'));
  return Number.isFinite(at) ? at : null;
}

// A recorded time as an umpire quotes it: the clock time, in UTC.
export function clockTime(ms) {
  return new Date(ms).toISOString().slice(11, 19);
}

// How long a decision took since the one before it: "0.4 s", "12 s",
// "3 min 05 s", "2 h 03 min", "3 days".
export function duration(ms) {
  if (ms < 10_000) return `${Math.round(ms / 100) / 10} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const pad = (n) => String(n).padStart(2, '0');
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${pad(seconds % 60)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)} h ${pad(minutes % 60)} min`;
  return `${Math.floor(minutes / 1440)} days`;
}

// Whether `event` starts a round, and which: a game's module may name its
// round-starting events (`roundStarts`); else an event `round_started` or
// `round_dealt` carrying its round's number, as every game with rounds has.
function roundStarted(game, event) {
  const starts = game?.roundStarts ?? ['round_started', 'round_dealt'];
  const round = Number(event?.payload?.round);
  return starts.includes(event?.type) && Number.isFinite(round) ? round : null;
}

export function seatOf(actor) {
  return actor?.startsWith('seat:') ? actor.slice(5) : null;
}

// The action in words: the game's own sentence, else its JSON.
export function actionInWords(game, action, ctx) {
  return knownWords(game, action, ctx) ?? (action ? JSON.stringify(action) : null);
}

// The action in words where they are known — an action every game shares,
// else the game's module's — or null.
function knownWords(game, action, ctx) {
  if (!action) return null;
  const shared = sharedActionWords(action);
  if (shared) return shared;
  try {
    return game.actionWords?.(action, ctx) || null;
  } catch {
    return null; // A shape the game's module does not know.
  }
}

export class Timeline {
  constructor(list, { game, seats, onShow }) {
    this.list = list;
    this.game = game;
    this.seats = seats;
    this.onShow = onShow;
    this.decisions = [];
    this.events = [];
    this.verdicts = new Map(); // first version of a decision → today's verdict
    this.roundOf = []; // roundOf[v]: the round version v is in, or null
    this.filters = { seat: '', round: '' };
  }

  // The round of every version up to the newest, extended as events come.
  measureRounds() {
    for (let version = this.roundOf.length || 1; version <= this.events.length; version += 1) {
      const started = roundStarted(this.game, this.events[version - 1]);
      this.roundOf[version] = started ?? this.roundOf[version - 1] ?? null;
    }
  }

  // Every round the log has reached, with its first version.
  rounds() {
    const firsts = new Map();
    for (let version = 1; version < this.roundOf.length; version += 1) {
      const round = this.roundOf[version];
      if (round != null && !firsts.has(round)) firsts.set(round, version);
    }
    return [...firsts].map(([round, first]) => ({ round, first }));
  }

  // Every actor of a decision in the log: seats, the umpire, the clock.
  actors() {
    return [...new Set(this.decisions.map((decision) => decision.actor))];
  }

  // Shows only the decisions (and refused attempts) of one actor and one
  // round; '' is any. The versions stay where they were: stepping and the
  // keys still walk every version.
  filter({ seat = this.filters.seat, round = this.filters.round } = {}) {
    this.filters = { seat, round };
    for (const item of this.list.querySelectorAll('li.decision, li.attempt')) {
      const bySeat = !seat || item.dataset.actor === seat;
      const byRound = !round || item.dataset.round === String(round);
      item.classList.toggle('filtered-out', !(bySeat && byRound));
    }
  }

  decisionOf(version) {
    // Decisions are in version order: a binary search.
    let low = 0;
    let high = this.decisions.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const decision = this.decisions[middle];
      if (version < decision.first) high = middle - 1;
      else if (version > decision.last) low = middle + 1;
      else return decision;
    }
    return null;
  }

  render(events) {
    this.events = events;
    this.roundOf = [];
    this.measureRounds();
    this.decisions = groupDecisions([], events, 0);
    const created = html('li', { 'data-version': 0, class: 'created' },
      html('button', { type: 'button', onclick: () => this.onShow(0) },
        html('span', { class: 'v', text: 'v0' }), 'the game is created'));
    this.list.replaceChildren(created, ...this.decisions.map((decision) => this.entry(decision)));
    this.filter();
  }

  // New events at the head: into the open decision or new ones.
  append(events, from) {
    this.events = events;
    this.measureRounds();
    const before = this.decisions.length;
    const last = this.decisions[before - 1];
    const lastEnd = last?.last;
    groupDecisions(this.decisions, events, from);
    if (last && last.last !== lastEnd) {
      this.list.querySelector(`li.decision[data-first="${last.first}"]`)?.replaceWith(this.entry(last));
    }
    for (const decision of this.decisions.slice(before)) this.list.append(this.entry(decision));
    if (this.filters.seat || this.filters.round) this.filter();
  }

  // When a decision was recorded and how long it took since the decision
  // before it: what a dispute over time ("they took forever") turns on.
  timing(decision) {
    const at = recordedMs(this.events[decision.first - 1]);
    if (at == null) return null;
    const previous = decision.first > 1 ? this.decisionOf(decision.first - 1) : null;
    const before = previous ? recordedMs(this.events[previous.last - 1]) : null;
    const iso = new Date(at).toISOString();
    return html('span', { class: 'timing' },
      html('time', { class: 'at', datetime: iso, title: `recorded at ${iso} (UTC)`, text: clockTime(at) }),
      before == null ? null : html('span', {
        class: 'took', 'data-took-ms': Math.max(0, at - before),
        title: 'the time since the decision before it was recorded',
        text: `+${duration(Math.max(0, at - before))}`,
      }));
  }

  // Who each event of a decision belongs to: the first is the actor's own
  // move, and so are more of the same kind for the same seat (a second cube
  // placed in one turn); the rest is the game's doing (a round resolved,
  // pieces placed for everyone, a result), even when it names the actor.
  eventOwner(decision, version) {
    if (decision.actor === 'system') return 'game';
    const who = actorName(decision.actor);
    if (version === decision.first) return who;
    const first = this.events[decision.first - 1];
    const event = this.events[version - 1];
    const seat = seatOf(decision.actor);
    const subject = event.payload?.seat;
    const same = event.type === first.type && (subject === undefined || String(subject) === seat);
    return same ? who : 'game';
  }

  eventItem(decision, version) {
    const event = this.events[version - 1];
    const owner = this.eventOwner(decision, version);
    let text = describe(this.game, event);
    const own = owner !== 'game' && text.startsWith(`${owner} `);
    if (own) text = text.slice(owner.length + 1);
    const classes = [isBookkeeping(this.game, event) ? 'bookkeeping' : '', owner === 'game' ? 'by-game' : ''];
    return html('li', { 'data-version': version, class: classes.join(' ').trim() || null },
      html('button', { type: 'button', onclick: () => this.onShow(version) },
        html('span', { class: 'v', text: `v${version}` }),
        html('span', { class: 'who', text: own ? owner : `${owner}:` }),
        text));
  }

  headline(decision) {
    const who = decision.actor === 'system' ? 'setup' : actorName(decision.actor);
    // The action in the game's words where its module has them: its JSON
    // would say less than the first event's sentence.
    const words = knownWords(this.game, decision.action, { seats: this.seats, seat: seatOf(decision.actor) });
    if (words) return { who, words };
    // No action this viewer may see (or a setup): its first event says it.
    let text = describe(this.game, this.events[decision.first - 1]);
    if (text.startsWith(`${who} `)) text = text.slice(who.length + 1);
    return { who, words: text };
  }

  entry(decision) {
    const { who, words } = this.headline(decision);
    const count = decision.last - decision.first + 1;
    const single = count === 1;
    const versions = single ? `v${decision.first}` : `v${decision.first}–${decision.last}`;
    const actorClass = decision.actor === 'system' ? 'by-game' : decision.actor === 'clock' ? 'by-clock clock-timeout' : 'by-person';
    const deadline = this.events[decision.first - 1]?.action?.deadline;
    const byClock = decision.actor === 'clock'
      ? html('span', { class: 'clock-mark', role: 'img', 'aria-label': 'timed out by the clock', title: deadline ? `timed out by the clock at its deadline ${deadline}` : 'timed out by the clock' })
      : null;
    const head = html('div', { class: 'decision-head' },
      html('button', { type: 'button', class: 'decision-show', onclick: () => this.onShow(decision.last), title: `show the state after this decision (version ${decision.last})` },
        html('span', { class: 'v', text: versions }), byClock,
        html('span', { class: 'who', text: who }),
        html('span', { class: 'words', text: words }),
        this.timing(decision)),
      single ? null : html('button', {
        type: 'button', class: 'fold', 'aria-expanded': 'false', title: `the ${count} events of this decision`,
        onclick: (event) => this.toggle(event.currentTarget.closest('li.decision')),
        text: `${count} events`,
      }));
    // A decision of one event is that event's entry: nothing to fold (and
    // a long game's page stays light).
    // The umpire's ruling stands out: it is what settled a dispute.
    const ruling = this.events[decision.first - 1]?.type === 'ruling_recorded' ? ' ruling' : '';
    const round = this.roundOf[decision.first];
    const filtering = { 'data-actor': decision.actor, 'data-round': round ?? null };
    if (single) {
      const bookkeeping = isBookkeeping(this.game, this.events[decision.first - 1]);
      return html('li', {
        class: `decision single ${actorClass}${bookkeeping ? ' bookkeeping' : ''}${ruling}`,
        'data-first': decision.first, 'data-last': decision.last, 'data-version': decision.first, ...filtering,
      }, head);
    }
    const items = [];
    for (let version = decision.first; version <= decision.last; version += 1) items.push(this.eventItem(decision, version));
    const allBookkeeping = items.every((item) => item.classList.contains('bookkeeping'));
    return html('li', {
      class: `decision ${actorClass}${allBookkeeping ? ' bookkeeping' : ''}${ruling}`,
      'data-first': decision.first, 'data-last': decision.last, ...filtering,
    }, head, html('ol', { class: 'events' }, items));
  }

  toggle(item, open) {
    if (!item) return;
    const now = item.classList.toggle('open', open);
    item.querySelector('.fold')?.setAttribute('aria-expanded', String(now));
  }

  eventEntry(version) {
    return this.list.querySelector(`li[data-version="${version}"]`);
  }

  // The version shown: its decision open and current, its event current.
  // A decision opened by stepping into it folds again when stepping out;
  // one opened by hand stays open.
  current(version) {
    for (const node of this.list.querySelectorAll('li.current')) node.classList.remove('current');
    const item = this.eventEntry(version);
    item?.classList.add('current');
    const decision = item?.closest('li.decision');
    if (this.autoOpened && this.autoOpened !== decision) this.toggle(this.autoOpened, false);
    this.autoOpened = null;
    if (decision) {
      decision.classList.add('current');
      if (!decision.classList.contains('single') && !decision.classList.contains('open')) {
        this.toggle(decision, true);
        this.autoOpened = decision;
      }
    }
    return item;
  }

  // ---- the umpire's audit -------------------------------------------------

  markAudit(audit, { onDispute }) {
    for (const node of this.list.querySelectorAll('.attempt, .verdict')) node.remove();
    for (const entry of audit.entries) {
      if (entry.kind !== 'accepted' || !entry.events?.length) continue;
      const decision = this.list.querySelector(`li.decision[data-first="${entry.events[0].seq}"]`);
      if (!decision) continue;
      const agrees = entry.today?.agrees !== false;
      const mark = agrees
        ? html('span', { class: 'verdict agrees', title: "today's rule book upholds this decision", text: '✓' })
        : html('button', {
          type: 'button', class: 'verdict disagrees', title: "today's rule book decides otherwise: show it on the board",
          onclick: () => onDispute(entry), text: '✗ disputed',
        });
      decision.querySelector('.decision-head').append(mark);
    }
    // Rejected attempts, in place: after the decision that left the game at
    // the version they were tried at.
    const attempts = new Map();
    for (const entry of audit.entries) {
      if (entry.kind !== 'rejected') continue;
      const list = attempts.get(entry.at_version) ?? [];
      list.push(entry);
      attempts.set(entry.at_version, list);
    }
    for (const [version, entries] of attempts) {
      const anchor = version === 0
        ? this.list.querySelector('li.created')
        : this.list.querySelector(`li.decision[data-last="${version}"]`);
      if (!anchor) continue;
      anchor.after(...entries.map((entry) => this.attempt(entry, version, onDispute)));
    }
    this.filter();
  }

  attempt(entry, version, onDispute) {
    const who = actorName(entry.actor);
    const words = actionInWords(this.game, entry.action, { seats: this.seats, seat: seatOf(entry.actor) });
    const violation = entry.violation ?? {};
    return html('li', { class: 'attempt rejected', 'data-rejected-at': version, 'data-actor': entry.actor, 'data-round': this.roundOf[version] ?? null },
      html('button', { type: 'button', onclick: () => onDispute(entry), title: `show version ${version}, where this was tried, with what it touched` },
        html('span', { class: 'v', text: '✗' }),
        html('span', { class: 'who', text: who }),
        `${words}${entry.repeats > 1 ? ` (×${entry.repeats})` : ''} — refused: `,
        html('code', { text: violation.code ?? '' }), ` ${violation.message ?? ''}`,
        entry.today && entry.today.agrees === false ? ' — today the rules decide otherwise' : ''),
      violation.rule ? html('span', { class: 'rule' }, ' ', ruleLink(violation.rule, violation.rule_url)) : null);
  }
}
