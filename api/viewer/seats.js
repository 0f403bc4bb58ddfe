// The umpire's seats panel for the desk: one "Reissue <seat>'s token"
// button per seat. A reissue revokes every earlier token of the seat at
// once and is recorded in the game's log; the panel shows the seat's new
// invitation link (never a token) to hand to the player.
//
//   import { seatsPanel } from './seats.js';
//   umpirePanel.append(seatsPanel(api, summary));   // api: Api, summary: GET /v1/games/{id}

import { ensureLinkStyles, linkRow } from './links.js';

// A seat named by a number is "seat 0", not a bare "0".
const seatName = (seat) => (/^\d+$/.test(String(seat)) ? `seat ${seat}` : String(seat));

export function seatsPanel(api, summary) {
  ensureLinkStyles();
  const panel = document.createElement('div');
  panel.className = 'seats-panel';
  const title = document.createElement('strong');
  title.textContent = 'Seats';
  const note = document.createElement('p');
  note.className = 'muted';
  note.textContent = 'A seat that lost its link, or whose token leaked: reissue it. Its old token stops working at once.';
  const list = document.createElement('ul');
  const links = document.createElement('ul');
  links.className = 'links';
  const result = document.createElement('p');
  result.setAttribute('role', 'status');
  for (const seat of summary.seats) {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    const name = seatName(seat);
    button.textContent = `Reissue ${name}'s token`;
    button.dataset.seat = seat;
    button.disabled = Boolean(summary.status?.finished);
    button.addEventListener('click', async () => {
      if (!confirm(`Reissue ${name}'s token? Every earlier token of ${name} stops working now, and the game's log records it.`)) return;
      button.disabled = true;
      try {
        const answer = await api.request(`/seats/${encodeURIComponent(seat)}/reissue`, { method: 'POST' });
        result.textContent = `${name}'s token was reissued. Hand ${name} this link (it works once, for 7 days):`;
        links.replaceChildren(linkRow(name, answer.invitation.link, { id: `reissued-${seat}` }));
      } catch (error) {
        result.textContent = error.message;
        links.replaceChildren();
      } finally {
        button.disabled = false;
      }
    });
    item.append(button);
    list.append(item);
  }
  if (summary.status?.finished) note.textContent = 'The game is over: its log is closed, and no seat is reissued.';
  panel.append(title, note, list, result, links);
  return panel;
}
