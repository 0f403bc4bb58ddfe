// The clock on the page: every seat's time at the version shown, and the
// umpire's hand on it (docs/rules/clock.md).
import { html } from './svg.js';

let clockTicker = null;

function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  return `${minutes}:${String(total % 60).padStart(2, '0')}`;
}

const seatName = (seat) => (/^\d+$/.test(seat) ? `seat ${seat}` : seat);

function title(clock) {
  if (clock.waiting_for) {
    return { text: `clock waits for ${clock.waiting_for.map(seatName).join(', ')} to join`, class: 'clock-title waiting' };
  }
  if (clock.paused_since) return { text: 'clock paused', class: 'clock-title paused' };
  return { text: `${clockText(clock.per_move_ms)} a move`, class: 'clock-title' };
}

// The umpire's controls, at the latest version of a game not over: start a
// clock that waits for its seats, pause or resume it, give a seat time. Each
// is an action like any other, recorded in the log (§3, §5).
function umpireControls(clock, act) {
  const button = (text, action, extra = {}) => html('button', {
    type: 'button', class: 'clock-control', 'data-clock-action': action.type, onclick: () => act(action), text, ...extra,
  });
  const controls = [];
  if (clock.waiting_for) controls.push(button('Start the clock now', { type: 'clock_start' }, { title: 'without waiting for every seat to join' }));
  else if (clock.paused_since) controls.push(button('Resume the clock', { type: 'clock_resume' }));
  else controls.push(button('Pause the clock', { type: 'clock_pause' }));
  const seat = html('select', { 'aria-label': 'seat to give time to', class: 'clock-seat' },
    Object.keys(clock.seats).map((name) => html('option', { value: name, text: seatName(name) })));
  const seconds = html('input', { type: 'number', min: '1', max: '86400', value: '30', 'aria-label': 'seconds to give', class: 'clock-seconds' });
  const give = html('form', { class: 'clock-give' },
    html('span', { text: 'Give ' }), seat, ' ', seconds, html('span', { text: ' s ' }),
    html('button', { type: 'submit', class: 'clock-control', 'data-clock-action': 'clock_add_time', text: 'Give time' }));
  give.addEventListener('submit', (event) => {
    event.preventDefault();
    const ms = Math.round(Number(seconds.value) * 1000);
    act({ type: 'clock_add_time', seat: seat.value, ms });
  });
  controls.push(give);
  return html('div', { class: 'clock-tools', role: 'group', 'aria-label': "The umpire's clock" }, controls);
}

// Every seat's clock at the version shown: at the latest version the due
// seats' time runs down on the page; at a past one it stands as it was.
// `umpire` is given (with `act`, to send an action) when the viewer is the
// umpire at the latest version of a game not over.
export function showClocks(clock, running, umpire = null) {
  clearInterval(clockTicker);
  const box = document.getElementById('clocks');
  if (!clock) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const waiting = new Set(clock.waiting_for ?? []);
  const rows = Object.entries(clock.seats).map(([seat, state]) => {
    const left = html('span', { class: 'left', 'data-deadline': state.deadline ?? '' });
    const row = html('li', { class: state.due_since ? 'due' : null, 'data-seat': seat },
      html('strong', { text: seatName(seat) }), ' ', left,
      html('span', { class: 'reserve', text: ` reserve ${clockText(state.reserve_left_ms)}` }));
    if (clock.waiting_for) {
      // Nobody's time runs yet (§5): who has sat down, and what each has.
      left.textContent = waiting.has(seat) ? 'not joined yet' : 'joined';
      row.classList.add(waiting.has(seat) ? 'not-joined' : 'joined');
    } else if (state.deadline && clock.paused_since) {
      // Paused, a seat shows a deadline only if it passed before the
      // pause: its timeout is owed all the same (§R).
      left.textContent = 'time is up';
      row.classList.add('overdue');
    } else if (state.deadline) left.textContent = running ? '' : `until ${state.deadline.slice(11, 19)}`;
    else if (state.left_ms !== undefined) left.textContent = `${clockText(state.left_ms)} left (paused)`;
    else left.textContent = 'waiting';
    return row;
  });
  const head = title(clock);
  // An event arriving while the umpire types the time to give redraws the
  // controls: what was chosen and typed (and the focus) is carried over.
  const typed = {
    seat: box.querySelector('.clock-seat')?.value,
    seconds: box.querySelector('.clock-seconds')?.value,
    focused: box.contains(document.activeElement) ? document.activeElement.className : null,
  };
  // replaceChildren writes a null out as the word "null": left out instead.
  box.replaceChildren(...[
    html('span', { class: head.class, text: head.text }),
    html('ul', {}, rows),
    umpire && running ? umpireControls(clock, umpire.act) : null].filter(Boolean));
  const seat = box.querySelector('.clock-seat');
  if (seat && typed.seat !== undefined && clock.seats[typed.seat]) seat.value = typed.seat;
  const seconds = box.querySelector('.clock-seconds');
  if (seconds && typed.seconds !== undefined) seconds.value = typed.seconds;
  if (typed.focused === 'clock-seat') seat?.focus();
  if (typed.focused === 'clock-seconds') seconds?.focus();
  if (!running || clock.paused_since || clock.waiting_for) return;
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

// The clock's own decision, made by the umpire: a seat is timed out (each
// game says what a timeout does: a pass, a card into Bad). The rules let the
// umpire do so at any time, not only once a seat's time is up, so the
// heading does not say the seat is out of time.
// It is the clock's, not a move of the game, so it is offered here beside
// the seats' time rather than among the moves in the Play panel. `actions`
// are the umpire's legal `timeout` actions; `words(action)` says what each
// does; `act(action)` submits one.
export function showTimeouts(actions, { words, act } = {}) {
  const box = document.getElementById('clock-timeouts');
  if (!box) return;
  box.hidden = !actions.length;
  if (!actions.length) {
    box.replaceChildren();
    return;
  }
  box.replaceChildren(
    html('span', { class: 'clock-title', text: 'The umpire may time out' }),
    ...actions.map((action) => html('button', {
      type: 'button', class: 'clock-control clock-timeout-control', 'data-clock-action': 'timeout',
      'data-action': JSON.stringify(action), onclick: () => act(action),
      text: `Time out ${seatName(String(action.seat))}`, title: words(action),
    })));
}
