// Creating a game from a page: the game (by its name), its options (a
// field for each the game's `options_schema` describes simply, the whole as
// JSON a click away) and its clock, the admin token when the service asks
// for one; then the umpire's link and one invitation link per seat, in the
// game's seat order. The umpire's token is kept in this tab's session
// storage (as the game's page keeps it), so opening the umpire's link here
// is the umpire's view.

import { Api } from './api.js';
import { linkRow } from './links.js';
import { loadGame } from './game.js';

const $ = (id) => document.getElementById(id);
let types = [];
// The game's name for people ("Draft & Cider"), by its id.
const titles = new Map();

function chosen() {
  return types.find((type) => type.game === $('game').value);
}

// The schemas of every game's options: `options_schema` names one of the
// OpenAPI document's components (`ArboretumOptions`), read once.
let components = null;
async function loadComponents() {
  try {
    const response = await fetch('/openapi.json', { headers: { Accept: 'application/json' } });
    components = response.ok ? (await response.json()).components?.schemas ?? {} : {};
  } catch {
    components = {};
  }
}

// A schema with its `$ref`s to the document's components followed (what
// the property itself says — its default, its description — kept).
function resolve(property) {
  let node = property ?? {};
  for (let hops = 0; node.$ref && hops < 8; hops += 1) {
    const name = node.$ref.split('/').pop();
    const { $ref, ...own } = node;
    node = { ...(components?.[name] ?? {}), ...own };
  }
  if (node.allOf?.length === 1) {
    const { allOf, ...own } = node;
    node = { ...resolve(allOf[0]), ...own };
  }
  return node;
}

const words = (name) => name.replaceAll('_', ' ');

function readOptions() {
  try {
    const value = JSON.parse($('options').value || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return null;
  }
}

// One field per option the schema describes as a number, a yes/no or one
// of a list; anything else (a table of rules) stays in the JSON.
function optionField(name, spec, value, onChange) {
  const enumValues = spec.enum ?? (spec.oneOf?.every((o) => o.const !== undefined || o.enum?.length === 1) ? spec.oneOf.map((o) => o.const ?? o.enum[0]) : null);
  const hint = (spec.description ?? '').split('\n').join(' ');
  const id = `option-${name}`;
  const row = document.createElement('div');
  row.className = 'option';
  row.dataset.option = name;
  const label = document.createElement('label');
  label.htmlFor = id;
  label.textContent = words(name);
  let input;
  if (enumValues) {
    input = document.createElement('select');
    for (const choice of enumValues) {
      const option = document.createElement('option');
      option.value = JSON.stringify(choice);
      option.textContent = typeof choice === 'string' ? words(choice) : String(choice);
      input.append(option);
    }
    input.value = JSON.stringify(value ?? spec.default ?? enumValues[0]);
    input.addEventListener('change', () => onChange(JSON.parse(input.value)));
  } else if (spec.type === 'boolean') {
    input = document.createElement('input');
    input.type = 'checkbox';
    input.checked = Boolean(value ?? spec.default);
    input.addEventListener('change', () => onChange(input.checked));
    row.classList.add('check');
  } else if (spec.type === 'integer' || spec.type === 'number') {
    input = document.createElement('input');
    input.type = 'number';
    input.step = spec.type === 'integer' ? '1' : 'any';
    if (spec.minimum !== undefined) input.min = String(spec.minimum);
    if (spec.maximum !== undefined) input.max = String(spec.maximum);
    input.value = String(value ?? spec.default ?? 0);
    input.addEventListener('input', () => { if (input.value !== '' && input.checkValidity()) onChange(Number(input.value)); });
  } else {
    return null;
  }
  input.id = id;
  const note = document.createElement('span');
  note.className = 'hint';
  note.textContent = hint;
  if (input.type === 'checkbox') label.prepend(input, ' ');
  row.append(label);
  if (input.type !== 'checkbox') row.append(input);
  if (hint) row.append(note);
  return row;
}

function showOptions(type) {
  const schema = resolve(typeof type.options_schema === 'string' ? { $ref: type.options_schema } : type.options_schema);
  const options = readOptions() ?? {};
  const rows = Object.entries(schema.properties ?? {})
    .map(([name, property]) => optionField(name, resolve(property), options[name], (value) => {
      const now = readOptions() ?? {};
      now[name] = value;
      $('options').value = JSON.stringify(now, null, 2);
    }))
    .filter(Boolean);
  const none = document.createElement('p');
  none.className = 'hint';
  const described = Object.keys(components ?? {}).length > 0;
  none.textContent = Object.keys(schema.properties ?? {}).length || !described
    ? 'This game\'s options are set in the JSON below.'
    : 'This game has no options to choose.';
  if (!described) $('options-advanced').open = true;
  $('option-list').replaceChildren(...(rows.length ? rows : [none]));
}

function showDefaults() {
  const type = chosen();
  if (!type) return;
  $('options').value = JSON.stringify(type.default_options, null, 2);
  $('seats').textContent = `Seats: ${type.seats.join(', ')}`;
  showOptions(type);
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
  await loadComponents();
  // Every name first, then the list at once (never a list half filled).
  const modules = await Promise.all(types.map((type) => loadGame(type.game)));
  types.forEach((type, i) => titles.set(type.game, modules[i].title));
  for (const type of types) {
    const option = document.createElement('option');
    option.value = type.game;
    option.textContent = titles.get(type.game);
    $('game').append(option);
  }
  showDefaults();
}

function request() {
  let options;
  try {
    options = JSON.parse($('options').value || '{}');
  } catch (error) {
    $('options-advanced').open = true;
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

// The umpire's link as a link (opened in this tab, which holds the token),
// with a Copy button.
function umpireLink(id) {
  const href = new URL(`/games/${id}`, location.origin).href;
  const row = document.createElement('li');
  const who = document.createElement('span');
  who.className = 'who';
  who.textContent = 'umpire';
  const link = document.createElement('a');
  link.id = 'umpire-link';
  link.href = href;
  link.textContent = href;
  link.className = 'link';
  const copy = document.createElement('button');
  copy.type = 'button';
  copy.textContent = 'Copy';
  copy.id = 'umpire-link-copy';
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(href);
      copy.textContent = 'Copied';
    } catch {
      copy.textContent = 'Select the link to copy it';
    }
    setTimeout(() => { copy.textContent = 'Copy'; }, 1500);
  });
  row.append(who, link, copy);
  return row;
}

function created(answer) {
  // The game's page reads the umpire's token from this tab's session.
  new Api(answer.id).token = answer.umpire_token;
  const umpire = $('umpire-links');
  umpire.replaceChildren(umpireLink(answer.id));
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
  // In the game's seat order (the answer's map is in the order of its
  // keys' spelling: "blue" before "red"); numbered seats by number.
  const order = (chosen()?.seats ?? []).map(String);
  const seatOrder = (seat) => {
    const at = order.indexOf(String(seat));
    return at < 0 ? order.length : at;
  };
  const invitations = Object.values(answer.invitations)
    .sort((a, b) => seatOrder(a.seat) - seatOrder(b.seat) || String(a.seat).localeCompare(String(b.seat), undefined, { numeric: true }));
  const seatLabel = (seat) => (/^\d+$/.test(String(seat)) ? `seat ${seat}` : String(seat));
  $('invitation-links').replaceChildren(
    ...invitations.map((invitation) => linkRow(seatLabel(invitation.seat), invitation.link, { id: `invitation-${invitation.seat}` })),
  );
  $('created').hidden = false;
  $('create-form').hidden = true;
  document.body.dataset.created = answer.id;
}

$('game').addEventListener('change', showDefaults);
$('options').addEventListener('change', () => { if (chosen() && readOptions()) showOptions(chosen()); });
$('clocked').addEventListener('change', () => { $('clock-fields').hidden = !$('clocked').checked; });
$('create-form').addEventListener('submit', create);
loadTypes().catch((error) => fail(error.message));
