// The clock on the page: every seat's time at the version shown (docs/rules/clock.md).
import { html } from './svg.js';

let clockTicker = null;

function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  return `${minutes}:${String(total % 60).padStart(2, '0')}`;
}

// Every seat's clock at the version shown: at the latest version the due
// seats' time runs down on the page; at a past one it stands as it was.
export function showClocks(clock, running) {
  clearInterval(clockTicker);
  const box = document.getElementById('clocks');
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
    // Paused, a seat shows a deadline only if it passed before the pause:
    // its timeout is owed all the same (docs/rules/clock.md §R).
    if (state.deadline && clock.paused_since) {
      left.textContent = 'time is up';
      row.classList.add('overdue');
    } else if (state.deadline) left.textContent = running ? '' : `until ${state.deadline.slice(11, 19)}`;
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

