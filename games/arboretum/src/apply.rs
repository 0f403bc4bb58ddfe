//! Folds events into the state. No rules here: every check happened in
//! `decide`. Written defensively so that no event can make it panic.

use crate::cards::ArboretumCard;
use crate::model::{ArboretumEvent, ArboretumSkipReason};
use crate::state::{ArboretumPhase, ArboretumSpecials, ArboretumState};

/// Removes one copy of `card` from `cards`, if present.
fn remove_card(cards: &mut Vec<ArboretumCard>, card: ArboretumCard) -> bool {
    match cards.iter().position(|held| *held == card) {
        Some(position) => {
            cards.remove(position);
            true
        }
        None => false,
    }
}

pub fn apply(state: &mut ArboretumState, event: &ArboretumEvent) {
    match event {
        ArboretumEvent::DeckShuffled { deck, .. } => {
            // A redacted copy (no deck) carries nothing to fold.
            if let Some(deck) = deck {
                state.deck = deck.clone();
                state.dealt = 0;
            }
        }
        ArboretumEvent::StartingPlayerChosen { seat } => {
            state.starting_player = Some(*seat);
        }
        ArboretumEvent::RoundStarted {
            round,
            starting_player,
        } => {
            state.round = *round;
            state.starting_player = Some(*starting_player);
            state.phase = ArboretumPhase::Bidding;
            state.bids = [None, None];
            state.turn_order.clear();
            state.dropped_turns.clear();
            state.next_turn = 0;
            state.forfeited = [false, false];
            state.specials = ArboretumSpecials::default();
        }
        ArboretumEvent::CardsDealt { cards, .. } => {
            state.offering_area.extend(cards.iter().copied());
            state.dealt = state.dealt.saturating_add(cards.len());
        }
        ArboretumEvent::BidSubmitted { seat, groups, .. } => {
            // A redacted copy still records that the seat has bid.
            state.bids[seat.index()] = Some(groups.clone().unwrap_or_default());
        }
        ArboretumEvent::BidTimedOut { seat, .. } => {
            state.bids[seat.index()] = Some(Vec::new());
        }
        ArboretumEvent::BidsRevealed {
            bids,
            turn_order,
            dropped_turns,
            ..
        } => {
            state.bids = [Some(bids.red.clone()), Some(bids.blue.clone())];
            state.turn_order = turn_order.clone();
            state.dropped_turns = dropped_turns.clone();
            state.next_turn = 0;
            state.phase = ArboretumPhase::Playing;
        }
        ArboretumEvent::CardPlanted { seat, card, cell } => {
            remove_card(&mut state.offering_area, *card);
            state.player_mut(*seat).arboretum.insert(*cell, *card);
            state.next_turn = state.next_turn.saturating_add(1);
        }
        ArboretumEvent::CardDug { seat, card, cell } => {
            remove_card(&mut state.refuse_pile, *card);
            state.player_mut(*seat).arboretum.insert(*cell, *card);
            state.specials.dig_taken_by = Some(*seat);
            state.next_turn = state.next_turn.saturating_add(1);
        }
        ArboretumEvent::CardTaken {
            seat,
            card,
            discard,
        } => {
            remove_card(&mut state.offering_area, *card);
            let board = &mut state.player_mut(*seat).ad_board;
            board.push(*card);
            if let Some(discard) = discard {
                if remove_card(board, *discard) {
                    state.offering_area.push(*discard);
                }
            }
            state.next_turn = state.next_turn.saturating_add(1);
        }
        ArboretumEvent::ParrotHired {
            seat,
            cards,
            parrots,
        } => {
            let mut returned = Vec::new();
            let player = state.player_mut(*seat);
            for card in cards {
                if remove_card(&mut player.ad_board, *card) {
                    returned.push(*card);
                }
            }
            player.parrots = *parrots;
            state.offering_area.extend(returned);
            state.specials.hire_taken_by = Some(*seat);
            state.next_turn = state.next_turn.saturating_add(1);
        }
        ArboretumEvent::StartTaken { seat } => {
            state.specials.start_taken_by = Some(*seat);
            state.next_turn = state.next_turn.saturating_add(1);
        }
        ArboretumEvent::TurnSkipped { seat, reason, .. } => {
            if *reason != ArboretumSkipReason::Forfeited {
                state.forfeited[seat.index()] = true;
            }
            state.next_turn = state.next_turn.saturating_add(1);
        }
        ArboretumEvent::RoundEnded {
            next_starting_player,
            ..
        } => {
            let refuse = std::mem::take(&mut state.refuse_pile);
            state.out_of_game.extend(refuse);
            state.refuse_pile = std::mem::take(&mut state.offering_area);
            state.starting_player = Some(*next_starting_player);
            state.phase = ArboretumPhase::RoundOver;
        }
        ArboretumEvent::GameEnded { .. } => {
            state.phase = ArboretumPhase::Finished;
        }
    }
}
