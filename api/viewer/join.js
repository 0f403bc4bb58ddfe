// Taking a seat: `/join#<code>`. The code is read from the fragment (which
// the browser sends to no server and puts in no Referer), exchanged once by
// POST for the seat's token, kept in this tab's session storage as the
// game's page keeps tokens, and the fragment is wiped; then the game opens
// as that seat.

import { Api } from './api.js';

const status = document.getElementById('join-status');

function say(message, outcome) {
  status.textContent = message;
  document.body.dataset.join = outcome;
}

async function join() {
  const code = decodeURIComponent(location.hash.slice(1)).trim();
  // The code leaves the address bar and the tab's history at once.
  history.replaceState(null, '', '/join');
  if (!code) {
    say('This link holds no invitation: ask the umpire for the whole link.', 'refused');
    return;
  }
  let response;
  try {
    response = await fetch('/v1/invitations/redeem', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ code }),
      cache: 'no-store',
    });
  } catch (error) {
    say(`The service could not be reached (${error.message}); reload to try again.`, 'failed');
    history.replaceState(null, '', `/join#${code}`);
    return;
  }
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    const plain = {
      invitation_used: 'This invitation has already been used: each link works once. If it was not you, ask the umpire to reissue your seat.',
      invitation_expired: 'This invitation has expired. Ask the umpire for a new link.',
      invitation_revoked: 'This invitation was replaced: the umpire has reissued this seat. Ask the umpire for the new link.',
      invitation_unknown: 'This invitation is not known: check that the whole link was copied.',
    }[answer.code];
    say(plain ?? answer.message ?? `The invitation was refused (HTTP ${response.status}).`, 'refused');
    document.body.dataset.refusal = answer.code ?? '';
    return;
  }
  new Api(answer.game_id).token = answer.token;
  say(`You are seat ${answer.seat}. Opening the game…`, 'joined');
  location.replace(`/games/${answer.game_id}`);
}

join();
