// Taking a seat: `/join#<code>`, an umpire's invitation or a seat's own
// link to another device. The code is read from the fragment (which the
// browser sends to no server and puts in no Referer), the fragment is
// wiped, and the code is exchanged once by POST for the seat, kept by this
// browser: the answer sets an HttpOnly cookie scoped to the game's API
// (`keep: 'cookie'`), which no script can read, so every tab of the game
// and the browser after a restart are the seat, and no token is ever shown
// or stored by the page. Then the game opens as that seat.

import { Api } from './api.js';

const status = document.getElementById('join-status');
const choice = document.getElementById('join-choice');

function say(message, outcome) {
  status.textContent = message;
  document.body.dataset.join = outcome;
}

// The game a code belongs to: its first 32 hex digits are the game's id.
function gameOf(code) {
  if (!/^[0-9a-f]{64}$/.test(code)) return null;
  const hex = code.slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// The seat this browser already holds in the game by its cookie, if any
// (asked without any token this tab may keep).
async function seatHeld(gameId) {
  try {
    const response = await fetch(`/v1/games/${gameId}`, {
      headers: { Accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin',
    });
    const summary = response.ok ? await response.json() : {};
    return summary.viewer?.startsWith('seat:') ? summary.viewer.slice(5) : null;
  } catch {
    return null;
  }
}

async function redeem(code) {
  let response;
  try {
    response = await fetch('/v1/invitations/redeem', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ code, keep: 'cookie' }),
      cache: 'no-store',
      credentials: 'same-origin',
    });
  } catch (error) {
    say(`The service could not be reached (${error.message}); reload to try again.`, 'failed');
    history.replaceState(null, '', `/join#${code}`);
    return;
  }
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    const plain = {
      invitation_used: 'This link has already been used: each link works once. If it was not you, ask the umpire to reissue your seat.',
      invitation_expired: 'This link has expired (an umpire\'s invitation lasts 7 days, a link to another device 10 minutes). Ask for a new one.',
      invitation_revoked: 'This link was replaced: the umpire has reissued this seat. Ask the umpire for the new link.',
      invitation_unknown: 'This link is not known: check that the whole link was copied.',
    }[answer.code];
    say(plain ?? answer.message ?? `The link was refused (HTTP ${response.status}).`, 'refused');
    document.body.dataset.refusal = answer.code ?? '';
    return;
  }
  // A token pasted in this tab would win over the cookie: forget it.
  new Api(answer.game_id).token = null;
  say(`You are seat ${answer.seat}; this browser keeps the seat. Opening the game…`, 'joined');
  location.replace(`/games/${answer.game_id}`);
}

function offer(gameId, seat, code) {
  say(`This browser already holds seat ${seat} of this game. Taking this link's seat here ends ${seat} on this browser (the link works once).`, 'choosing');
  const open = document.createElement('button');
  open.type = 'button';
  open.id = 'open-held';
  open.textContent = `Open the game as ${seat}`;
  open.addEventListener('click', () => location.replace(`/games/${gameId}`));
  const take = document.createElement('button');
  take.type = 'button';
  take.id = 'take-instead';
  take.textContent = 'Take this link\'s seat instead';
  take.addEventListener('click', async () => {
    choice.replaceChildren();
    say('Taking the seat…', 'taking');
    await new Api(gameId).leaveDevice().catch(() => null);
    redeem(code);
  });
  choice.replaceChildren(open, take);
}

async function join() {
  const code = decodeURIComponent(location.hash.slice(1)).trim();
  // The code leaves the address bar and the tab's history at once.
  history.replaceState(null, '', '/join');
  if (!code) {
    say('This link holds no invitation: ask the umpire for the whole link.', 'refused');
    return;
  }
  const gameId = gameOf(code);
  const held = gameId ? await seatHeld(gameId) : null;
  if (held) {
    offer(gameId, held, code);
    return;
  }
  redeem(code);
}

join();
