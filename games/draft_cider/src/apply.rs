//! Folding events into the state. No rules here: every check was made by
//! `decide`; this code only records, and never panics on odd input.

use crate::batches::DraftCiderOrchard;
use crate::messages::DraftCiderEvent;
use crate::state::DraftCiderState;

pub fn apply(state: &mut DraftCiderState, event: &DraftCiderEvent) {
    match event {
        DraftCiderEvent::GameSetUp {
            options,
            players,
            rounds,
            cards_per_player,
        } => {
            state.options = options.clone();
            state.players = (*players).max(1);
            state.rounds_total = *rounds;
            state.cards_per_player = *cards_per_player;
            state.orchards = vec![DraftCiderOrchard::default(); usize::from(state.players)];
            state.round_first_picker = umpire_domain::SeatIndex(options.first_picker);
            state.picker = state.round_first_picker;
        }
        DraftCiderEvent::DeckShuffled { deck } => {
            state.deck = deck.clone();
        }
        DraftCiderEvent::RoundDealt {
            round,
            first_picker,
            cards,
        } => {
            state.round = *round;
            state.round_first_picker = *first_picker;
            state.picker = *first_picker;
            state.communal_hand = cards.clone();
            state.cards_dealt += cards.len();
        }
        DraftCiderEvent::CardPicked {
            seat, card, batch, ..
        } => {
            if let Some(position) = state.communal_hand.iter().position(|held| held == card) {
                // `remove`, not `swap_remove`: the hand keeps its deal order.
                state.communal_hand.remove(position);
            }
            if let Some(orchard) = state.orchards.get_mut(usize::from(seat.0)) {
                orchard.cards_mut(*batch).push(*card);
            }
            state.picker = state.next_clockwise(*seat);
        }
        DraftCiderEvent::GameFinished { .. } => {
            state.finished = true;
        }
    }
}
