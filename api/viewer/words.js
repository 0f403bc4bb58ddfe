// Events in words, for the timeline ("red plants Q7 on D5"), and which
// events are bookkeeping (setup, deals, turn changes) that stepping may skip.

const BOOKKEEPING = {
  arboretum: ['deck_shuffled', 'round_started', 'cards_dealt', 'bids_revealed', 'round_ended', 'turn_skipped'],
  treeblox: ['game_set_up', 'turn_started'],
  draft_cider: ['game_set_up', 'deck_shuffled', 'round_dealt'],
  flower_fields: ['game_set_up', 'bags_shuffled', 'round_started', 'piece_dealt', 'break_notice_given', 'round_resolved', 'hidden'],
};

export function isBookkeeping(game, event) {
  return event.actor === 'system' || (BOOKKEEPING[game] ?? []).includes(event.type);
}

const list = (items) => (items ?? []).join(' ');
const seatName = (seat) => (/^\d+$/.test(String(seat)) ? `seat ${seat}` : String(seat));

const PHRASES = {
  arboretum: {
    deck_shuffled: (p) => `the deck of ${p.card_count} cards is shuffled`,
    starting_player_chosen: (p) => `${p.seat} is chosen to start`,
    round_started: (p) => `round ${p.round} starts, ${p.starting_player} first`,
    cards_dealt: (p) => (p.cards ? `round ${p.round}: ${list(p.cards)} dealt to the offering area` : `round ${p.round}: cards dealt`),
    bid_submitted: (p) => (p.groups
      ? `${p.seat} bids ${p.groups.map((g) => `${g.size} ${g.plan}`).join(', ')}${p.replaced ? ' (replacing the last bid)' : ''}`
      : `${p.seat} bids, sealed${p.replaced ? ' (replacing the last bid)' : ''}`),
    bids_revealed: (p) => `bids revealed for round ${p.round}`,
    card_planted: (p) => `${p.seat} plants ${p.card} on ${p.cell}`,
    card_dug: (p) => `${p.seat} digs ${p.card} onto ${p.cell}`,
    card_taken: (p) => `${p.seat} takes ${p.card}`,
    parrot_hired: (p) => `${p.seat} hires a parrot with ${list(p.cards)} (${p.parrots} parrots)`,
    start_taken: (p) => `${p.seat} takes the start`,
    turn_skipped: (p) => `${p.seat}'s turn ${p.turn} is ${p.reason}`,
    round_ended: (p) => `round ${p.round} ends${p.moved_to_refuse?.length ? `; ${list(p.moved_to_refuse)} to the refuse pile` : ''}`,
    game_ended: (p) => `the game ends: ${Object.entries(p.totals ?? {}).map(([s, t]) => `${s} ${t}`).join(', ')}; ${p.winner ?? 'no one'} wins`,
  },
  treeblox: {
    game_set_up: (p) => `set up: ${p.branches_per_seat} branches and ${p.leaves_per_seat} leaves each, ${p.first_to_act} first`,
    cube_placed: (p) => `${p.seat} places a ${p.kind} at [${p.cell.join(', ')}]`,
    turn_started: (p) => `${p.seat}'s turn (${p.turn.replace('_', ' ')}, growth ${p.growth_rate})`,
    turn_passed: (p) => `${p.seat} passes${p.timed_out ? ' (timed out)' : ''}`,
    game_ended: (p) => `the game ends (${p.reason.replaceAll('_', ' ')}): ${p.winner ?? 'a draw'}${p.winner ? ' wins' : ''}`,
  },
  draft_cider: {
    game_set_up: (p) => `set up for ${p.players} players, ${p.rounds} rounds`,
    deck_shuffled: () => 'the deck is shuffled',
    round_dealt: (p) => `round ${p.round} dealt${p.cards ? `: ${p.cards.join(', ')}` : ''}`,
    card_picked: (p) => `seat ${p.seat} picks ${p.card} into ${p.batch.replace('_', ' ')}${p.timed_out ? ' (timed out)' : ''}`,
    game_finished: (p) => `the game ends: ${(p.totals ?? []).map((t, i) => `seat ${i} ${t}`).join(', ')}; winner ${list((p.winners ?? []).map((w) => `seat ${w}`))}`,
  },
  flower_fields: {
    game_set_up: (p) => `set up: ${p.starting_garnets} garnets each, piece replacement ${p.piece_replacement ? 'on' : 'off'}`,
    bags_shuffled: () => 'the bags are shuffled',
    round_started: (p) => `round ${p.round} starts`,
    piece_dealt: (p) => `seat ${p.seat} is dealt ${p.piece ?? 'a piece'}`,
    break_notice_given: (p) => `field ${p.field} ${p.must_break ? 'must' : 'need not'} break in round ${p.round}`,
    submission_made: (p) => (p.submission
      ? `seat ${p.seat} submits ${p.submission.piece} for field ${p.submission.field} at ${list(p.submission.cells)}`
      : `seat ${p.seat} submits, face down`),
    piece_placed: (p) => `seat ${p.seat} places ${p.piece} on field ${p.field} at ${list(p.cells)}${p.broken ? ', broken' : ''}`,
    round_resolved: (p) => `round ${p.round} resolved`,
    break_penalty_taken: (p) => `seat ${p.seat} takes a ${p.penalty} penalty for breaking field ${p.break_field}`,
    garnets_earned: (p) => `seat ${p.seat} earns ${p.garnets} garnets`,
    ruling_set: (p) => `turns ${p.rule.replaceAll('_', ' ')} ${p.enabled ? 'on' : 'off'}`,
    game_ended: () => 'the game ends',
    result_declared: (p) => `seat ${p.winner} wins`,
  },
};

// A sentence for any event; events without a phrase are spelt out.
export function describe(game, event) {
  const phrase = PHRASES[game]?.[event.type];
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
