// The umpire's desk: one game, any version, as any viewer. Everything comes
// from /v1 with the viewer's token; the page keeps nothing else.
import { Api, ApiError } from './api.js';
import { html } from './svg.js';
import { actorName, isBookkeeping } from './words.js';
import { archiveButton, diff, diffTable, dryRunForm, dryRunVerdict, refusal, rulingForm, scoreSheet, whatIfReport } from './tools.js';
import { reader } from './changes.js';
import { copyField, deskLink } from './links.js';
import { loadGame } from './game.js';
import { Timeline, actionInWords, seatOf } from './timeline.js';
import { Play } from './play.js';
import { clearMarks, mark, touched } from './marks.js';
import { showClocks, showTimeouts } from './clock.js';
import { seatsPanel } from './seats.js';
import { devicePanel } from './device.js';

const STATES_KEPT = 64;
const POLL_MS = 3000;

const $ = (id) => document.getElementById(id);
// Lower case, as the seat's cookie is scoped to `/v1/games/<id>`.
const gameId = decodeURIComponent(location.pathname.split('/')[2] ?? '').toLowerCase();
const api = new Api(gameId);

const desk = {
  summary: null,
  game: null, // the game's module (game.js)
  events: [], // events[i] is version i + 1
  at: 0,
  viewer: 'spectator',
  // Who the credential is (the summary's viewer); `viewer` is whom the page
  // shows the game as, which differs while the umpire looks as a seat.
  caller: 'spectator',
  states: new Map(),
  audit: null,
  drawing: 0,
  stopFollowing: null,
  lastRenderMs: 0,
  openedMs: null,
  timeline: null,
  // What a refusal or a disputed verdict is about, marked on the board at
  // its version until another version is shown.
  disputed: null,
  play: null,
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

function renderTimeline() {
  desk.timeline = new Timeline($('timeline'), { game: desk.game, seats: desk.summary.seats, onShow: (version) => show(version) });
  desk.timeline.render(desk.events);
  fillTimelineFilters();
  if (desk.audit) markAudit();
}

// The timeline's filters by who decided and by round, and the round to
// jump to: each lists what the log holds so far.
function fillTimelineFilters() {
  const options = (select, first, entries) => {
    const kept = select.value;
    select.replaceChildren(html('option', { value: '', text: first }),
      ...entries.map(([value, text]) => html('option', { value, text })));
    if ([...select.options].some((option) => option.value === kept)) select.value = kept;
  };
  const actors = desk.timeline.actors().filter((actor) => actor !== 'system');
  options($('timeline-seat'), 'everyone', actors.map((actor) => [actor, actorName(actor)]));
  const rounds = desk.timeline.rounds();
  options($('timeline-round'), 'every round', rounds.map(({ round }) => [String(round), `round ${round}`]));
  options($('timeline-jump'), '…', rounds.map(({ round, first }) => [String(first), `round ${round} (v${first})`]));
  $('timeline-round').closest('label').hidden = rounds.length === 0;
  $('timeline-jump').closest('label').hidden = rounds.length === 0;
}

function appendEvents(events) {
  const from = latest();
  const fresh = events.filter((event) => event.seq === latest() + 1 ? (desk.events.push(event), true) : false);
  if (fresh.length) {
    desk.timeline.append(desk.events, from);
    fillTimelineFilters();
    $('latest').textContent = latest();
    $('at').max = String(latest());
    refreshAccepted();
    if (desk.audit) loadAudit();
  }
  return fresh.length;
}

// Scrolls the timeline (only the timeline, not the page) to show `item`.
function keepInView(list, item) {
  let top = 0;
  for (let node = item; node && node !== list; node = node.offsetParent) top += node.offsetTop;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top + item.offsetHeight - list.clientHeight;
  }
}

// The board's key (colours, symbols, notation), when the game's module
// draws one.
function showLegend() {
  let legend = null;
  try {
    legend = desk.game.legend?.({ seats: desk.summary.seats, viewer: desk.viewer }) ?? null;
  } catch {
    legend = null;
  }
  $('legend').hidden = !legend;
  $('legend').replaceChildren(...(legend ? [legend] : []));
}

// ---- the umpire's audit: rejected attempts and today's verdicts ----------

function markAudit() {
  desk.timeline.markAudit(desk.audit, { onDispute: dispute });
}

// A refused attempt or a disputed decision: the version it was decided at,
// with what its action touches marked on the board.
function dispute(entry) {
  const at = entry.kind === 'rejected' ? entry.at_version : entry.at_version ?? Math.max(0, (entry.events?.[0]?.seq ?? 1) - 1);
  desk.disputed = { at, action: entry.action, seat: seatOf(entry.actor) };
  show(at);
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
  const params = new URLSearchParams({ at: String(desk.at), as: desk.caller });
  if (api.lookingAs) params.set('look', api.lookingAs);
  history.replaceState(null, '', `${location.pathname}?${params}`);
  if (!$('copy-link-url').hidden) $('copy-link-url').value = currentLink();
}

function currentLink() {
  return deskLink({ at: desk.at, viewer: desk.caller, lookingAs: api.lookingAs });
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
  $('board').replaceChildren(desk.game.draw(answer.state, { seats: desk.summary.seats, viewer: desk.viewer, status: answer.status }));
  markBoard(at, answer.state);
  const status = answer.status;
  $('status').textContent = `Version ${at} of ${latest()} · ${status.finished ? 'finished' : `${status.phase}; to act: ${status.to_act.join(', ') || 'nobody'}`}`;
  showClocks(status.clock, at === latest() && !status.finished, desk.viewer === 'umpire' ? { act: submit } : null);
  $('at').value = String(at);
  followDiff(at);
  const item = desk.timeline.current(at);
  if (item) keepInView($('timeline'), item);
  setUrl();
  desk.lastRenderMs = performance.now() - started;
  // From the start of navigation to the first board drawn.
  desk.openedMs ??= performance.now();
  document.body.dataset.version = String(at);
  document.body.dataset.rendered = 'true';
  const dryRunAt = document.querySelector('#dry-run .dry-run-at');
  if (dryRunAt) {
    dryRunAt.textContent = at === latest()
      ? `Try an action at the latest version, ${at}, without appending it:`
      : `Try an action at version ${at}, as the game stood then, without appending it:`;
  }
  refreshScore(at, drawing);
  refreshPlay(answer.state);
}

// What the last decision before this version touched; what a selected
// refusal or verdict is about.
function markBoard(at, view) {
  const board = $('board');
  const decision = at > 0 ? desk.timeline.decisionOf(at) : null;
  if (decision) {
    const ctx = { seats: desk.summary.seats, viewer: desk.viewer, view, seat: seatOf(decision.actor) };
    const keys = [...touched(desk.game, decision.action, ctx)];
    for (let version = decision.first; version <= at; version += 1) {
      const event = desk.events[version - 1];
      keys.push(...touched(desk.game, { ...(event.payload ?? {}), type: event.type }, ctx));
    }
    mark(board, keys, 'last-action');
  }
  if (desk.disputed && desk.disputed.at !== at) desk.disputed = null;
  if (desk.disputed) {
    const ctx = { seats: desk.summary.seats, viewer: desk.viewer, view, seat: desk.disputed.seat };
    mark(board, touched(desk.game, desk.disputed.action, ctx), 'disputed');
  }
}

async function refreshScore(at, drawing) {
  if (!$('score-panel').open) return;
  try {
    const answer = await api.score(at);
    if (drawing === desk.drawing) $('score').replaceChildren(scoreSheet(answer, desk.game, { seats: desk.summary.seats, viewer: desk.viewer, final: answer.final }));
  } catch (error) {
    if (drawing === desk.drawing) $('score').replaceChildren(refusal(error));
  }
}

// The umpire's diff compares the version shown with the one before, and
// follows the page (a step, a live event) until the umpire types a version.
function followDiff(at) {
  if ($('diff-form').dataset.typed === 'true') return;
  $('diff-from').value = String(Math.max(0, at - 1));
  $('diff-to').value = String(at);
}

// The umpire's seats panel as the game stands: once it is over, no seat is
// reissued (seats.js disables its buttons).
function refreshSeats() {
  if (desk.viewer === 'umpire') $('seats').replaceChildren(seatsPanel(api, desk.summary));
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

async function refreshPlay(view) {
  const panel = $('play-panel');
  // The umpire looking as a seat sees as it, and acts only as itself.
  const canPlay = desk.viewer !== 'spectator' && !api.lookingAs && !desk.summary.status.finished;
  panel.hidden = !canPlay;
  if (!canPlay) {
    desk.play?.stop();
    showTimeouts([]);
    return;
  }
  if (desk.at !== latest()) {
    playFor = -1;
    desk.play.stop();
    showTimeouts([]);
    $('play').replaceChildren(html('p', { text: `Actions are taken at the latest version (${latest()}).` }),
      html('button', { type: 'button', onclick: () => show(latest()), text: 'Go to the latest version' }));
    $('play-json').hidden = true;
    return;
  }
  if (playFor === latest()) {
    desk.play.remark();
    return;
  }
  playFor = latest();
  let legal;
  try {
    legal = await api.legalActions();
  } catch (error) {
    $('play').replaceChildren(refusal(error));
    return;
  }
  if (playFor !== latest() || desk.at !== latest()) return;
  desk.legal = legal.actions;
  const ctx = { seats: desk.summary.seats, viewer: desk.viewer, view, seat: seatOf(desk.viewer) };
  // A timeout is the clock's decision, offered by the clock (clock.js);
  // the Play panel offers the game's moves.
  const isTimeout = (action) => action?.type === 'timeout';
  desk.play.offer(desk.game, legal.actions.filter((action) => !isTimeout(action)), ctx);
  showTimeouts(legal.actions.filter(isTimeout), { words: (action) => actionInWords(desk.game, action, ctx), act: submit });
  $('play-json').hidden = false;
  if ($('play-json').open) listLegalJson();
}

// What the last action sent from this page did, and where the game is now:
// the stream moves the game on, and the sentence follows it.
function acceptedWords(version) {
  return latest() > version
    ? `Accepted at version ${version}; the game is now at version ${latest()}.`
    : `Accepted: the game is at version ${version}.`;
}

function refreshAccepted() {
  const accepted = document.querySelector('#submit-result .accepted[data-accepted-version]');
  if (accepted) accepted.textContent = acceptedWords(Number(accepted.dataset.acceptedVersion));
}

// For developers: every legal action as JSON, and an editor to send any.
function listLegalJson() {
  const actions = desk.legal ?? [];
  $('legal-actions').replaceChildren(...actions.map((action) => html('button', {
    type: 'button', class: 'legal-action', onclick: () => { $('action').value = JSON.stringify(action); $('action').focus(); },
    text: JSON.stringify(action),
  })));
  if (!$('action').value && actions.length) $('action').value = JSON.stringify(actions[0]);
}

async function submit(action) {
  const result = $('submit-result');
  try {
    const accepted = await api.submit(action, latest());
    desk.disputed = null;
    result.replaceChildren(html('p', { class: 'accepted', 'data-accepted-version': accepted.version, text: acceptedWords(accepted.version) }));
    await catchUp();
    show(latest());
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    // The refusal beside the board, with what the action touched marked.
    result.replaceChildren(refusal(error));
    desk.disputed = { at: latest(), action, seat: seatOf(desk.viewer) };
    clearMarks($('board'), 'disputed');
    const answer = desk.states.get(latest());
    mark($('board'), touched(desk.game, action, { seats: desk.summary.seats, viewer: desk.viewer, view: answer?.state, seat: seatOf(desk.viewer) }), 'disputed');
  }
}

function submitJson(event) {
  event.preventDefault();
  let action;
  try {
    action = JSON.parse($('action').value);
  } catch {
    $('submit-result').replaceChildren(html('p', { class: 'refusal', role: 'alert', text: 'That is not JSON: an action is an object such as {"type": "pass"}.' }));
    return;
  }
  submit(action);
}

// ---- following the game live ---------------------------------------------

async function catchUp() {
  const followingLatest = desk.at === latest();
  const added = appendEvents(await api.eventsAfter(latest()));
  if (added) {
    const wasFinished = desk.summary.status.finished;
    desk.summary = await api.summary();
    if (desk.summary.status.finished && !wasFinished) refreshSeats();
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
        const ended = message.status?.finished && !desk.summary.status.finished;
        desk.summary.status = message.status;
        desk.summary.version = latest();
        if (ended) refreshSeats();
        if (followingLatest) show(latest());
      }
    },
    onEnd: (end) => {
      if (end.reason === 'revoked') {
        // The umpire reissued this seat: its token, or this browser's
        // cookie, shows nothing more.
        api.token = null;
        notice('The umpire has reissued this seat: this browser no longer holds it. Ask the umpire for your new invitation link. Showing the spectator\'s view.');
        history.replaceState(null, '', `${location.pathname}?at=${desk.at}`);
        $('notice').scrollIntoView({ block: 'nearest' });
        load({ keepVersion: true });
      } else if (end.reason === 'finished') {
        desk.summary.status = end.status ?? desk.summary.status;
        live('finished', false);
        refreshSeats();
        refreshPlay(desk.states.get(desk.at)?.state);
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

async function load({ keepVersion, retried } = {}) {
  // Everything is drawn again, perhaps for another viewer: until then the
  // page is not a drawing of what it will say it shows.
  document.body.dataset.rendered = 'false';
  const params = new URLSearchParams(location.search);
  const wanted = params.get('as');
  const look = params.get('look');
  api.anonymous = wanted === 'spectator';
  api.lookingAs = null;
  let summary;
  try {
    summary = await api.summary();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401 && api.token) {
      api.token = null;
      notice('That token is not valid for this game: showing the spectator\'s view.');
      return load({ keepVersion });
    }
    // The seat's cookie has ended; the answer cleared it.
    if (error instanceof ApiError && error.body.code === 'page_session_ended' && !retried) {
      // Unless the page already said why (a reissue seen on the stream).
      if ($('notice').hidden) notice('This browser no longer holds a seat in this game: it left this device, its 30 days ran out, or the umpire reissued the seat. Ask for a new link. Showing the spectator\'s view.');
      // The address no longer names that seat.
      const at = keepVersion ? String(desk.at) : params.get('at');
      history.replaceState(null, '', at == null ? location.pathname : `${location.pathname}?at=${at}`);
      return load({ keepVersion, retried: true });
    }
    $('title').textContent = error.status === 404 ? 'No such game' : 'The game cannot be shown';
    $('board').replaceChildren(refusal(error));
    return;
  }
  desk.summary = summary;
  desk.caller = summary.viewer;
  desk.viewer = summary.viewer;
  desk.states.clear();
  desk.audit = null;
  if (wanted && wanted !== desk.caller) {
    notice(`This link shows the game as ${wanted}: paste that viewer's token to see what it saw. Showing it as ${desk.caller}.`);
  }
  // The umpire looks as a seat (or a spectator) with its own token: the
  // reads carry `as=`, and the service answers what that viewer is
  // answered. Anyone else's link that asks it is shown as itself.
  if (look && look !== 'umpire') {
    const known = look === 'spectator' || summary.seats.includes(look);
    if (desk.caller === 'umpire' && known) {
      api.lookingAs = look;
      desk.viewer = look === 'spectator' ? 'spectator' : `seat:${look}`;
    } else if (desk.caller !== 'umpire') {
      notice(`This link looks at the game as ${look}, which only the umpire's desk can. Showing it as ${desk.caller}.`);
    }
  }
  desk.game ??= await loadGame(summary.game);
  document.title = `Umpire · ${desk.game.title} · ${gameId.slice(0, 8)}`;
  $('rules-link').href = `/rules/${encodeURIComponent(summary.game)}`;
  $('rules-link').textContent = `Rules of ${desk.game.title}`;
  showLegend();
  $('title').textContent = `${desk.game.title} · game ${gameId.slice(0, 8)}`;
  $('viewer-name').textContent = api.lookingAs ? `umpire, looking as ${api.lookingAs}` : desk.viewer;
  document.body.dataset.viewer = desk.viewer;
  document.body.dataset.caller = desk.caller;
  lookAsControl();
  desk.events = await api.eventsAfter(0);
  $('latest').textContent = latest();
  $('at').max = String(latest());
  renderTimeline();
  const umpire = desk.caller === 'umpire';
  const seat = desk.caller.startsWith('seat:') ? seatOf(desk.caller) : null;
  $('device-panel').hidden = !seat;
  $('device').replaceChildren(...(seat ? [devicePanel(api, seat, { onLeft: leftDevice })] : []));
  $('umpire-panel').hidden = !umpire;
  $('seats').replaceChildren(...(umpire ? [seatsPanel(api, summary)] : []));
  umpireRecordTools(umpire);
  playFor = -1;
  const at = keepVersion ? desk.at : Number(params.get('at') ?? latest());
  await show(Number.isNaN(at) ? latest() : at);
  if (umpire) loadAudit();
  follow();
}

// "Look as: umpire | red | blue | spectator", for the umpire's desk: one
// click shows the game as that seat is shown it, with no token pasted.
function lookAsControl() {
  const nav = $('look-as');
  nav.hidden = desk.caller !== 'umpire';
  if (nav.hidden) {
    nav.replaceChildren();
    return;
  }
  const current = api.lookingAs ?? 'umpire';
  const choices = ['umpire', ...desk.summary.seats, 'spectator'];
  nav.replaceChildren(html('span', { class: 'look-label', text: 'Look as:' }),
    ...choices.map((choice) => html('button', {
      type: 'button', 'data-look': choice, 'aria-pressed': String(choice === current),
      text: /^\d+$/.test(choice) ? `seat ${choice}` : choice,
      onclick: () => lookAs(choice),
    })));
}

function lookAs(choice) {
  const params = new URLSearchParams({ at: String(desk.at), as: desk.caller });
  if (choice !== 'umpire') params.set('look', choice);
  history.replaceState(null, '', `${location.pathname}?${params}`);
  desk.stopFollowing?.();
  load({ keepVersion: true });
}

// The umpire's tools that work on the record: the archive to download, a
// ruling written onto the log, a dry run at the version shown.
function umpireRecordTools(umpire) {
  if (!umpire) {
    for (const id of ['archive', 'ruling', 'dry-run']) $(id).replaceChildren();
    return;
  }
  $('archive').replaceChildren(archiveButton({ onDownload: downloadArchive }));
  $('ruling').replaceChildren(rulingForm({ onRecord: recordRuling }));
  $('dry-run').replaceChildren(html('h3', { text: 'Dry run' }), dryRunForm({
    seats: desk.summary.seats,
    onTry: async (action, as) => {
      try {
        return dryRunVerdict(await api.check(action, desk.at, as), desk.game);
      } catch (error) {
        return refusal(error);
      }
    },
    // The decision the log records right after the version shown.
    suggest: () => {
      const next = desk.timeline.decisionOf(desk.at + 1);
      return next?.action ? { action: next.action, seat: seatOf(next.actor) } : null;
    },
  }));
}

async function downloadArchive() {
  try {
    const blob = await api.exportArchive();
    const link = html('a', { href: URL.createObjectURL(blob), download: `umpire-${desk.summary.game}-${gameId}.json` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    return html('span', { class: 'accepted', 'data-archive-bytes': blob.size, text: ` Downloaded (${Math.ceil(blob.size / 1024)} KiB): every event, chained, as \`umpire audit\` reads it.` });
  } catch (error) {
    return refusal(error);
  }
}

// A ruling at the latest version, appended like any action of the umpire's.
async function recordRuling(text) {
  try {
    const accepted = await api.submit({ type: 'record_ruling', text }, latest());
    await catchUp();
    show(latest());
    return html('p', { class: 'accepted', 'data-ruling-version': accepted.version, text: `Recorded at version ${accepted.version}: every viewer sees it in the timeline.` });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return refusal(error);
  }
}

// This browser left its seat (device.js): shown again as the spectator.
function leftDevice(message) {
  api.token = null;
  notice(message);
  $('notice').scrollIntoView({ block: 'nearest' });
  history.replaceState(null, '', `${location.pathname}?at=${desk.at}`);
  desk.stopFollowing?.();
  load({ keepVersion: true });
}

// Another tab may have left the seat, or taken another seat of this game,
// in this browser (one cookie per game): when this tab is looked at again,
// it shows whom the browser now is.
async function recheckViewer() {
  if (document.visibilityState !== 'visible' || !desk.summary || api.anonymous) return;
  let now = null;
  try {
    now = (await api.summary()).viewer;
  } catch {
    now = null;
  }
  if (now !== desk.caller) {
    desk.stopFollowing?.();
    load({ keepVersion: true });
  }
}

function wire() {
  document.addEventListener('visibilitychange', recheckViewer);
  desk.play = new Play({ panel: $('play'), board: $('board'), onSubmit: submit });
  $('submit-form').addEventListener('submit', submitJson);
  $('play-json').addEventListener('toggle', () => { if ($('play-json').open) listLegalJson(); });
  $('first').addEventListener('click', () => show(0));
  $('last').addEventListener('click', () => show(latest()));
  $('prev').addEventListener('click', () => step(-1));
  $('next').addEventListener('click', () => step(1));
  $('at').addEventListener('change', () => show(Number($('at').value)));
  $('skip').addEventListener('change', () => document.body.classList.toggle('skipping', $('skip').checked));
  document.body.classList.toggle('skipping', $('skip').checked);
  $('score-panel').addEventListener('toggle', () => refreshScore(desk.at, desk.drawing));
  const filterTimeline = () => desk.timeline?.filter({ seat: $('timeline-seat').value, round: $('timeline-round').value });
  $('timeline-seat').addEventListener('change', filterTimeline);
  $('timeline-round').addEventListener('change', filterTimeline);
  $('timeline-jump').addEventListener('change', () => {
    const first = Number($('timeline-jump').value);
    if ($('timeline-jump').value !== '') show(first);
    $('timeline-jump').value = '';
  });
  $('copy-link').addEventListener('click', () => {
    const field = $('copy-link-url');
    field.hidden = false;
    field.value = currentLink();
    copyField(field, $('copy-link'));
  });
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
    // Without the seat's cookie either, which this browser may keep.
    history.replaceState(null, '', `${location.pathname}?at=${desk.at}&as=spectator`);
    desk.stopFollowing?.();
    load({ keepVersion: true });
  });
  for (const field of ['diff-from', 'diff-to']) {
    $(field).addEventListener('input', () => { $('diff-form').dataset.typed = 'true'; });
  }
  $('diff-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const from = Number($('diff-from').value);
    const to = Number($('diff-to').value);
    try {
      const [a, b] = await Promise.all([stateAt(from), stateAt(to)]);
      $('diff').replaceChildren(diffTable(from, to, diff(a.state, b.state), { game: desk.game, seats: desk.summary.seats, at: reader(b.state, a.state), before: a.state, after: b.state }));
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
      $('what-if').replaceChildren(whatIfReport(await api.whatIf(patch), { game: desk.game, seats: desk.summary.seats }));
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
