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

const seconds = (ms) => `${Math.round(Number(ms) / 100) / 10} s`;

// The clock's events, in every game (docs/rules/clock.md).
const clockPhrases = {
  clock_set: (e) => `the clock is set: ${seconds(e.per_move_ms)} a move${Number(e.reserve_ms) ? `, ${seconds(e.reserve_ms)} in reserve` : ''}${e.start === 'when_seated' ? '; it starts when every seat has joined' : ''}`,
  // A seat sat down (its invitation redeemed, or its own clock_join).
  clock_seat_joined: (e) => `${seatName(e.seat)} joins the game`,
  clock_started: () => 'the clock starts',
  // Only the umpire sends these: the sentence names it, as its own action.
  clock_paused: () => 'umpire pauses the clock',
  clock_resumed: () => 'umpire resumes the clock',
  clock_time_added: (e) => `umpire gives ${seatName(e.seat)} ${seconds(e.ms)} more`,
  // The umpire's reissue of a seat's token (docs/rules/seats.md): never
  // the token itself, which is not in the log.
  seat_token_reissued: (e) => `umpire reissues ${seatName(e.seat)}'s token`,
  // The umpire's ruling on the record (docs/rules/umpire.md): its words
  // quoted, shown as text wherever a sentence is.
  ruling_recorded: (e) => `umpire rules: “${e.text}”`,
};

// The actions every game shares (the clock's, a reissue): in words, with
// no actor (the timeline names it).
const sharedActions = {
  clock_join: () => 'joins the game',
  clock_start: () => 'starts the clock',
  clock_pause: () => 'pauses the clock',
  clock_resume: () => 'resumes the clock',
  clock_add_time: (a) => `gives ${seatName(a.seat)} ${seconds(a.ms)} more`,
  reissue_seat_token: (a) => `reissues ${seatName(a.seat)}'s token`,
  record_ruling: (a) => `rules: “${a.text}”`,
};

export function sharedActionWords(action) {
  try {
    return sharedActions[action?.type]?.(action) ?? null;
  } catch {
    return null;
  }
}

// A sentence for any event; events without a phrase are spelt out.
export function describe(game, event) {
  const phrase = clockPhrases[event.type] ?? game.phrases?.[event.type];
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
  if (actor === 'clock') return 'clock';
  return seatName(actor.replace(/^seat:/, ''));
}
