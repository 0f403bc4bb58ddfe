// The umpire's desk: one game, any version, as any viewer. Everything comes
// from /v1 with the viewer's token; the page keeps nothing else.
import { Api, ApiError } from './api.js';
import { html } from './svg.js';
import { actorName, describe, isBookkeeping } from './words.js';
import { diff, diffTable, refusal, scoreSheet, whatIfReport } from './tools.js';
import { loadGame } from './game.js';

const STATES_KEPT = 64;
const POLL_MS = 3000;
const LEGAL_ACTIONS_SHOWN = 300;

const $ = (id) => document.getElementById(id);
const gameId = decodeURIComponent(location.pathname.split('/')[2] ?? '');
const api = new Api(gameId);

const desk = {
  summary: null,
  game: null, // the game's module (game.js)
  events: [], // events[i] is version i + 1
  at: 0,
  viewer: 'spectator',
  states: new Map(),
  audit: null,
  drawing: 0,
  stopFollowing: null,
  lastRenderMs: 0,
  openedMs: null,
};
// For the browser test and for people measuring the page.
window.umpireDesk = desk;

const latest = () => desk.events.length;

function notice(text) {
  const box = $('notice');
  box.hidden = !text;
  box.textContent = text ?? '';
}

async function stateAt(version) {
  if (desk.states.has(version)) return desk.states.get(version);
  const answer = await api.state(version);
  desk.states.set(version, answer);
  if (desk.states.size > STATES_KEPT) desk.states.delete(desk.states.keys().next().value);
  return answer;
}

// ---- the timeline -------------------------------------------------------

function timelineItem(version, event) {
  const bookkeeping = event ? isBookkeeping(desk.game, event) : false;
  const who = event ? actorName(event.actor) : null;
  let text = event ? describe(desk.game, event) : 'the game is created';
  // "red: red plants Q7" reads better as "red plants Q7".
  // Otherwise the actor is the one whose action led to the event.
  const own = who && text.startsWith(`${who} `);
  if (own) text = text.slice(who.length + 1);
  // A timeout the clock recorded, not a person: its first event marked
  // (the events of one decision share their recorded time), with its
  // deadline where the viewer is shown the action.
  const before = desk.events[version - 2];
  const byClock = event?.actor === 'clock'
    && !(before?.actor === 'clock' && before.recorded_at === event.recorded_at);
  const deadline = event?.action?.deadline;
  return html('li', { 'data-version': version, class: [bookkeeping ? 'bookkeeping' : '', byClock ? 'clock-timeout' : ''].join(' ').trim() || null },
    html('button', { type: 'button', onclick: () => show(version) },
      html('span', { class: 'v', text: `v${version}` }),
      byClock ? html('span', { class: 'clock-mark', role: 'img', 'aria-label': 'timed out by the clock', title: deadline ? `timed out by the clock at its deadline ${deadline}` : 'timed out by the clock' }) : null,
      who ? html('span', { class: 'who', text: own ? who : `${who}:`, title: own ? null : `after an action of ${who}` }) : null,
      text));
}

function renderTimeline() {
  const items = [timelineItem(0, null)];
  desk.events.forEach((event, i) => items.push(timelineItem(i + 1, event)));
  $('timeline').replaceChildren(...items);
  if (desk.audit) markAudit();
}

function appendEvents(events) {
  const fresh = events.filter((event) => event.seq === latest() + 1 ? (desk.events.push(event), true) : false);
  for (const event of fresh) $('timeline').append(timelineItem(event.seq, event));
  if (fresh.length) {
    $('latest').textContent = latest();
    if (desk.audit) loadAudit();
  }
  return fresh.length;
}

// Scrolls the timeline (only the timeline, not the page) to show `item`.
function keepInView(list, item) {
  const top = item.offsetTop; // the list is positioned: relative to it
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top + item.offsetHeight - list.clientHeight;
  }
}

function timelineEntry(version) {
  return $('timeline').querySelector(`li[data-version="${version}"]`);
}

// ---- the umpire's audit: rejected attempts and today's verdicts ----------

function markAudit() {
  for (const node of $('timeline').querySelectorAll('.rejections, .verdict')) node.remove();
  const rejectedAt = new Map();
  for (const entry of desk.audit.entries) {
    if (entry.kind === 'rejected') {
      const list = rejectedAt.get(entry.at_version) ?? [];
      list.push(entry);
      rejectedAt.set(entry.at_version, list);
    } else if (entry.kind === 'accepted' && entry.events?.length) {
      const item = timelineEntry(entry.events[0].seq);
      const agrees = entry.today?.agrees !== false;
      item?.firstChild.append(html('span', {
        class: `verdict ${agrees ? 'agrees' : 'disagrees'}`,
        title: agrees ? "today's rule book agrees" : "today's rule book decides otherwise",
        text: agrees ? '✓' : '✗ disputed',
      }));
    }
  }
  for (const [version, entries] of rejectedAt) {
    const item = timelineEntry(version);
    if (!item) continue;
    item.append(html('ul', { class: 'rejections' }, entries.map((entry) => html('li', {
      class: 'rejected', 'data-rejected-at': version,
    }, `✗ ${actorName(entry.actor)} tried ${JSON.stringify(entry.action)}${entry.repeats > 1 ? ` ×${entry.repeats}` : ''}: `,
    html('code', { text: entry.violation?.code ?? '' }), ` ${entry.violation?.message ?? ''}`,
    entry.violation?.rule ? ` (${entry.violation.rule})` : '',
    entry.today && entry.today.agrees === false ? ' — today the rules decide otherwise' : ''))));
  }
}

async function loadAudit() {
  try {
    desk.audit = await api.audit();
    const chain = desk.audit.chain;
    $('chain').replaceChildren(html('p', { class: chain.intact ? 'accepted' : 'refusal', 'data-chain': chain.intact ? 'intact' : 'broken' },
      chain.intact
        ? `Hash chain intact over ${chain.events} events (head ${chain.head.slice(0, 16)}…).`
        : `Hash chain broken: ${JSON.stringify(chain)}`),
    html('p', { text: `${desk.audit.valid ? 'Every action is still upheld by today\'s rule book.' : 'Today\'s rule book disagrees with the record somewhere: see ✗ in the timeline.'} Disputed rejections: ${desk.audit.disputed_rejections}.` }));
    markAudit();
  } catch (error) {
    $('chain').replaceChildren(refusal(error));
  }
}

// ---- showing a version ---------------------------------------------------

function setUrl() {
  const params = new URLSearchParams({ at: String(desk.at), as: desk.viewer });
  history.replaceState(null, '', `${location.pathname}?${params}`);
}

async function show(version) {
  const at = Math.max(0, Math.min(latest(), Number.isFinite(version) ? Math.trunc(version) : latest()));
  desk.at = at;
  const drawing = ++desk.drawing;
  const started = performance.now();
  document.body.dataset.rendered = 'false';
  let answer;
  try {
    answer = await stateAt(at);
  } catch (error) {
    if (drawing === desk.drawing) $('board').replaceChildren(refusal(error));
    return;
  }
  if (drawing !== desk.drawing) return;
  $('board').replaceChildren(desk.game.draw(answer.state, { seats: desk.summary.seats, viewer: desk.viewer }));
  const status = answer.status;
  $('status').textContent = `Version ${at} of ${latest()} · ${status.finished ? 'finished' : `${status.phase}; to act: ${status.to_act.join(', ') || 'nobody'}`}`;
  showClocks(status.clock, at === latest() && !status.finished);
  $('at').value = String(at);
  $('timeline').querySelector('li.current')?.classList.remove('current');
  const item = timelineEntry(at);
  item?.classList.add('current');
  if (item) keepInView($('timeline'), item);
  setUrl();
  desk.lastRenderMs = performance.now() - started;
  // From the start of navigation to the first board drawn.
  desk.openedMs ??= performance.now();
  document.body.dataset.version = String(at);
  document.body.dataset.rendered = 'true';
  refreshScore(at, drawing);
  refreshPlay();
}

// ---- the clock ------------------------------------------------------------

let clockTicker = null;

function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  return `${minutes}:${String(total % 60).padStart(2, '0')}`;
}

// Every seat's clock at the version shown: at the latest version the due
// seats' time runs down on the page; at a past one it stands as it was.
function showClocks(clock, running) {
  clearInterval(clockTicker);
  const box = $('clocks');
  if (!clock) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const rows = Object.entries(clock.seats).map(([seat, state]) => {
    const left = html('span', { class: 'left', 'data-deadline': state.deadline ?? '' });
    const row = html('li', { class: state.due_since ? 'due' : null, 'data-seat': seat },
      html('strong', { text: /^\d+$/.test(seat) ? `seat ${seat}` : seat }), ' ', left,
      html('span', { class: 'reserve', text: ` reserve ${clockText(state.reserve_left_ms)}` }));
    if (state.deadline) left.textContent = running ? '' : `until ${state.deadline.slice(11, 19)}`;
    else if (state.left_ms !== undefined) left.textContent = `${clockText(state.left_ms)} left (paused)`;
    else left.textContent = 'waiting';
    return row;
  });
  box.replaceChildren(
    html('span', { class: `clock-title${clock.paused_since ? ' paused' : ''}`, text: clock.paused_since ? 'clock paused' : `${clockText(clock.per_move_ms)} a move` }),
    html('ul', {}, rows));
  if (!running || clock.paused_since) return;
  const tick = () => {
    for (const left of box.querySelectorAll('.left[data-deadline]:not([data-deadline=""])')) {
      const ms = Date.parse(left.dataset.deadline) - Date.now();
      left.textContent = ms > 0 ? `${clockText(ms)} left` : 'time is up';
      left.closest('li').classList.toggle('overdue', ms <= 0);
    }
  };
  tick();
  clockTicker = setInterval(tick, 250);
}

async function refreshScore(at, drawing) {
  if (!$('score-panel').open) return;
  try {
    const answer = await api.score(at);
    if (drawing === desk.drawing) $('score').replaceChildren(scoreSheet(answer));
  } catch (error) {
    if (drawing === desk.drawing) $('score').replaceChildren(refusal(error));
  }
}

function step(direction) {
  const skip = $('skip').checked;
  let version = desk.at + direction;
  while (skip && version > 0 && version < latest() && isBookkeeping(desk.game, desk.events[version - 1])) {
    version += direction;
  }
  show(version);
}

// ---- playing from the page ----------------------------------------------

let playFor = -1;

async function refreshPlay() {
  const panel = $('play-panel');
  const canPlay = desk.viewer !== 'spectator' && !desk.summary.status.finished;
  panel.hidden = !canPlay;
  if (!canPlay) return;
  if (desk.at !== latest()) {
    playFor = -1;
    $('play').replaceChildren(html('p', { text: `Actions are taken at the latest version (${latest()}).` }),
      html('button', { type: 'button', onclick: () => show(latest()), text: 'Go to the latest version' }));
    return;
  }
  if (playFor === latest()) return;
  playFor = latest();
  let legal;
  try {
    legal = await api.legalActions();
  } catch (error) {
    $('play').replaceChildren(refusal(error));
    return;
  }
  const shown = legal.actions.slice(0, LEGAL_ACTIONS_SHOWN);
  const editor = html('textarea', { id: 'action', rows: 3, spellcheck: 'false', 'aria-label': 'An action as JSON' });
  editor.value = shown.length ? JSON.stringify(shown[0]) : '';
  $('play').replaceChildren(
    html('p', { text: legal.actions.length
      ? `${desk.viewer} may take ${legal.actions.length} action${legal.actions.length === 1 ? '' : 's'} now${legal.actions.length > shown.length ? ` (the first ${shown.length} listed)` : ''}; pick one or write one:`
      : `${desk.viewer} has nothing to do now.` }),
    html('div', { class: 'actions', id: 'legal-actions' }, shown.map((action) => html('button', {
      type: 'button', class: 'legal-action', onclick: () => { editor.value = JSON.stringify(action); editor.focus(); },
      text: JSON.stringify(action),
    }))),
    html('form', { id: 'submit-form', onsubmit: submitAction }, editor,
      html('button', { type: 'submit', text: `Submit at version ${latest()}` })));
}

async function submitAction(event) {
  event.preventDefault();
  const result = $('submit-result');
  let action;
  try {
    action = JSON.parse($('action').value);
  } catch {
    result.replaceChildren(html('p', { class: 'refusal', role: 'alert', text: 'That is not JSON: an action is an object such as {"type": "pass"}.' }));
    return;
  }
  try {
    const accepted = await api.submit(action, latest());
    result.replaceChildren(html('p', { class: 'accepted', 'data-accepted-version': accepted.version, text: `Accepted: the game is at version ${accepted.version}.` }));
    await catchUp();
    show(latest());
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    result.replaceChildren(refusal(error));
  }
}

// ---- following the game live ---------------------------------------------

async function catchUp() {
  const followingLatest = desk.at === latest();
  const added = appendEvents(await api.eventsAfter(latest()));
  if (added) {
    desk.summary = await api.summary();
    if (followingLatest) show(latest());
  }
  return added;
}

function live(text, on) {
  $('live').textContent = text;
  $('live').classList.toggle('live', on);
}

function follow() {
  desk.stopFollowing?.();
  if (desk.summary.status.finished) {
    live('finished', false);
    return;
  }
  live('live', true);
  desk.stopFollowing = api.follow(latest(), {
    // A stream message is the entry `/events` gives this viewer (seq, type,
    // actor, payload, …) with the game and the status after it.
    onEvent: (message) => {
      const followingLatest = desk.at === latest();
      if (appendEvents([message])) {
        desk.summary.status = message.status;
        desk.summary.version = latest();
        if (followingLatest) show(latest());
      }
    },
    onEnd: (end) => {
      if (end.reason === 'finished') {
        desk.summary.status = end.status ?? desk.summary.status;
        live('finished', false);
        refreshPlay();
      } else {
        setTimeout(follow, 1000);
      }
    },
    onFailure: () => {
      // No stream (say, the instance's limit): poll until it comes back.
      live('polling', false);
      setTimeout(async () => {
        try {
          await catchUp();
        } finally {
          follow();
        }
      }, POLL_MS);
    },
  });
}

// ---- who is looking -------------------------------------------------------

async function load({ keepVersion } = {}) {
  const params = new URLSearchParams(location.search);
  const wanted = params.get('as');
  api.anonymous = wanted === 'spectator';
  let summary;
  try {
    summary = await api.summary();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401 && api.token) {
      api.token = null;
      notice('That token is not valid for this game: showing the spectator\'s view.');
      return load({ keepVersion });
    }
    $('title').textContent = error.status === 404 ? 'No such game' : 'The game cannot be shown';
    $('board').replaceChildren(refusal(error));
    return;
  }
  desk.summary = summary;
  desk.viewer = summary.viewer;
  desk.states.clear();
  desk.audit = null;
  if (wanted && wanted !== desk.viewer) {
    notice(`This link shows the game as ${wanted}: paste that viewer's token to see what it saw. Showing it as ${desk.viewer}.`);
  }
  desk.game ??= await loadGame(summary.game);
  document.title = `Umpire · ${desk.game.title} · ${gameId.slice(0, 8)}`;
  $('title').textContent = `${desk.game.title} · game ${gameId.slice(0, 8)}`;
  $('viewer-name').textContent = desk.viewer;
  document.body.dataset.viewer = desk.viewer;
  desk.events = await api.eventsAfter(0);
  $('latest').textContent = latest();
  $('at').max = String(latest());
  renderTimeline();
  const umpire = desk.viewer === 'umpire';
  $('umpire-panel').hidden = !umpire;
  playFor = -1;
  const at = keepVersion ? desk.at : Number(params.get('at') ?? latest());
  await show(Number.isNaN(at) ? latest() : at);
  $('diff-from').value = String(Math.max(0, desk.at - 1));
  $('diff-to').value = String(desk.at);
  if (umpire) loadAudit();
  follow();
}

function wire() {
  $('first').addEventListener('click', () => show(0));
  $('last').addEventListener('click', () => show(latest()));
  $('prev').addEventListener('click', () => step(-1));
  $('next').addEventListener('click', () => step(1));
  $('at').addEventListener('change', () => show(Number($('at').value)));
  $('skip').addEventListener('change', () => document.body.classList.toggle('skipping', $('skip').checked));
  document.body.classList.toggle('skipping', $('skip').checked);
  $('score-panel').addEventListener('toggle', () => refreshScore(desk.at, desk.drawing));
  document.addEventListener('keydown', (event) => {
    if (event.target.closest?.('input, textarea, select') || event.altKey || event.ctrlKey || event.metaKey) return;
    const moves = { ArrowLeft: () => step(-1), ArrowRight: () => step(1), Home: () => show(0), End: () => show(latest()) };
    if (moves[event.key]) {
      event.preventDefault();
      moves[event.key]();
    }
  });
  $('viewer-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const token = $('token').value.trim();
    $('token').value = '';
    if (!token) return;
    api.token = token;
    notice(null);
    history.replaceState(null, '', `${location.pathname}?at=${desk.at}`);
    desk.stopFollowing?.();
    load({ keepVersion: true });
  });
  $('forget').addEventListener('click', () => {
    api.token = null;
    notice(null);
    history.replaceState(null, '', `${location.pathname}?at=${desk.at}`);
    desk.stopFollowing?.();
    load({ keepVersion: true });
  });
  $('diff-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const from = Number($('diff-from').value);
    const to = Number($('diff-to').value);
    try {
      const [a, b] = await Promise.all([stateAt(from), stateAt(to)]);
      $('diff').replaceChildren(diffTable(from, to, diff(a.state, b.state)));
    } catch (error) {
      $('diff').replaceChildren(refusal(error));
    }
  });
  $('what-if-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    let patch;
    try {
      patch = JSON.parse($('what-if-patch').value);
    } catch {
      $('what-if').replaceChildren(html('p', { class: 'refusal', role: 'alert', text: 'The patch must be JSON: an object of the options to change, merged over the game\'s options.' }));
      return;
    }
    $('what-if').replaceChildren(html('p', { text: 'Re-running…' }));
    try {
      $('what-if').replaceChildren(whatIfReport(await api.whatIf(patch)));
    } catch (error) {
      $('what-if').replaceChildren(refusal(error));
    }
  });
}

if (!/^[0-9a-f-]{36}$/i.test(gameId)) {
  $('title').textContent = 'Not a game id';
} else {
  wire();
  load();
}
