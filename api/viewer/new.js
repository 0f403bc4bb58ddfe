// Creating a game from a page: the game, its options (the defaults shown
// as JSON) and its clock, the admin token when the service asks for one;
// then the umpire's link and one invitation link per seat. The umpire's
// token is kept in this tab's session storage (as the game's page keeps
// it), so opening the umpire's link here is the umpire's view.

import { Api } from './api.js';
import { linkRow } from './links.js';

const $ = (id) => document.getElementById(id);
let types = [];

function chosen() {
  return types.find((type) => type.game === $('game').value);
}

function showDefaults() {
  const type = chosen();
  if (!type) return;
  $('options').value = JSON.stringify(type.default_options, null, 2);
  $('seats').textContent = `Seats: ${type.seats.join(', ')}`;
}

function fail(message) {
  $('create-error').textContent = message;
  $('create-error').hidden = false;
}

async function loadTypes() {
  const response = await fetch('/v1/game-types', { headers: { Accept: 'application/json' } });
  if (!response.ok) throw new Error(`The games could not be listed (HTTP ${response.status}).`);
  const answer = await response.json();
  types = answer.games;
  for (const type of types) {
    const option = document.createElement('option');
    option.value = type.game;
    option.textContent = type.game;
    $('game').append(option);
  }
  showDefaults();
}

function request() {
  let options;
  try {
    options = JSON.parse($('options').value || '{}');
  } catch (error) {
    throw new Error(`The options are not JSON: ${error.message}`);
  }
  const body = { game: $('game').value, options };
  if ($('clocked').checked) {
    body.clock = {
      per_move_ms: Math.round(Number($('per-move').value) * 1000),
      reserve_ms: Math.round(Number($('reserve').value) * 1000),
    };
  }
  return body;
}

async function create(event) {
  event.preventDefault();
  $('create-error').hidden = true;
  let body;
  try {
    body = request();
  } catch (error) {
    fail(error.message);
    return;
  }
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
  const admin = $('admin-token').value.trim();
  if (admin) headers.Authorization = `Bearer ${admin}`;
  $('create').disabled = true;
  try {
    const response = await fetch('/v1/games', { method: 'POST', headers, body: JSON.stringify(body), cache: 'no-store' });
    const answer = await response.json().catch(() => ({}));
    if (response.status === 401) {
      $('admin-field').hidden = false;
      $('admin-token').focus();
      fail(admin ? `${answer.message ?? 'This is not the admin token.'}` : 'This service needs its admin token to create games: paste it below.');
      return;
    }
    if (!response.ok) {
      fail(answer.message ?? `The game was not created (HTTP ${response.status}).`);
      return;
    }
    created(answer);
  } catch (error) {
    fail(`The service could not be reached: ${error.message}`);
  } finally {
    $('create').disabled = false;
  }
}

function created(answer) {
  // The game's page reads the umpire's token from this tab's session.
  new Api(answer.id).token = answer.umpire_token;
  const umpire = $('umpire-links');
  umpire.replaceChildren(
    linkRow('umpire', `/games/${answer.id}`, { id: 'umpire-link' }),
  );
  const token = document.createElement('li');
  const label = document.createElement('span');
  label.className = 'who';
  label.textContent = 'umpire token';
  const field = document.createElement('input');
  field.type = 'text';
  field.readOnly = true;
  field.id = 'umpire-token';
  field.value = answer.umpire_token;
  field.setAttribute('aria-label', 'The umpire token, shown once');
  token.append(label, field);
  umpire.append(token);
  const invitations = $('invitation-links');
  invitations.replaceChildren(
    ...Object.values(answer.invitations).map((invitation) =>
      linkRow(invitation.seat, invitation.link, { id: `invitation-${invitation.seat}` })),
  );
  $('created').hidden = false;
  $('create-form').hidden = true;
  document.body.dataset.created = answer.id;
}

$('game').addEventListener('change', showDefaults);
$('clocked').addEventListener('change', () => { $('clock-fields').hidden = !$('clocked').checked; });
$('create-form').addEventListener('submit', create);
loadTypes().catch((error) => fail(error.message));
