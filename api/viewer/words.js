// Events in words, for the timeline ("red plants Q7 on D5"), and which
// events are bookkeeping (setup, deals, turn changes) that stepping may skip.
// What is particular to a game — its phrases, its bookkeeping — is in its
// module (games/<game>.js, see game.js); an event it has no phrase for, or
// any event of a game without a module, is spelt out from its own payload.

export const list = (items) => (items ?? []).join(' ');
const seatName = (seat) => (/^\d+$/.test(String(seat)) ? `seat ${seat}` : String(seat));

// Setup's events always are; a game names its own others.
export function isBookkeeping(game, event) {
  return event.actor === 'system' || (game.bookkeeping ?? []).includes(event.type);
}

// A sentence for any event; events without a phrase are spelt out.
export function describe(game, event) {
  const phrase = game.phrases?.[event.type];
  if (phrase) {
    try {
      return phrase(event.payload ?? {});
    } catch {
      // A payload shaped otherwise (redacted, newer rules) is spelt out.
    }
  }
  const fields = Object.entries(event.payload ?? {})
    .filter(([key]) => key !== 'type')
    .map(([key, value]) => `${key.replaceAll('_', ' ')} ${typeof value === 'object' ? JSON.stringify(value) : value}`);
  return `${event.type.replaceAll('_', ' ')}${fields.length ? `: ${fields.join(', ')}` : ''}`;
}

export function actorName(actor) {
  if (actor === 'system') return 'setup';
  if (actor === 'umpire') return 'umpire';
  return seatName(actor.replace(/^seat:/, ''));
}
