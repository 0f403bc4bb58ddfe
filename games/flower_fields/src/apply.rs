//! Folds events into the state. No rules here: every check happened in
//! `decide`; this code only records facts and never panics.

use crate::flowers::{planted_cells, FlowerFieldsFlower};
use crate::messages::{recorded_v1, FlowerFieldsEvent, FlowerFieldsPenalty};
use crate::state::{
    FlowerFieldsBreakPayment, FlowerFieldsGarnets, FlowerFieldsHandPiece, FlowerFieldsLastPiece,
    FlowerFieldsPenaltyReason, FlowerFieldsPhase, FlowerFieldsPointPenalty, FlowerFieldsResult,
    FlowerFieldsRevealedPiece, FlowerFieldsRulingChange, FlowerFieldsState,
};

pub fn apply(state: &mut FlowerFieldsState, event: &FlowerFieldsEvent) {
    match event {
        FlowerFieldsEvent::GameSetUp {
            starting_garnets,
            scoring,
            piece_replacement,
        } => {
            state.scoring = *scoring;
            state.piece_replacement = *piece_replacement;
            state.ruling_history = vec![FlowerFieldsRulingChange {
                round: 0,
                enabled: *piece_replacement,
                at_setup: true,
            }];
            for seat in &mut state.seats {
                seat.garnets = FlowerFieldsGarnets {
                    starting: *starting_garnets,
                    balance: *starting_garnets,
                    ..FlowerFieldsGarnets::default()
                };
            }
        }
        FlowerFieldsEvent::BagsShuffled { bags } => state.bags = bags.clone(),
        FlowerFieldsEvent::RoundStarted { round } => {
            state.round = *round;
            if *round >= 1 {
                state.phase = FlowerFieldsPhase::Submitting;
            }
        }
        FlowerFieldsEvent::PieceDealt { seat, round, piece } => {
            if let Some(seat_state) = state.seat_mut(*seat) {
                seat_state
                    .hand
                    .push(FlowerFieldsHandPiece::new(*piece, *round));
            }
        }
        // The notice is derived from the field; views compute it afresh.
        FlowerFieldsEvent::BreakNoticeGiven { .. } => {}
        FlowerFieldsEvent::SubmissionMade {
            seat, submission, ..
        } => {
            if let Some(seat_state) = state.seat_mut(*seat) {
                seat_state.submission = Some(*submission);
            }
        }
        FlowerFieldsEvent::PieceReplaced {
            seat,
            round,
            piece,
            with,
            dealt_round,
            garnets,
        } => {
            if let Some(seat_state) = state.seat_mut(*seat) {
                let held = seat_state.hand.iter_mut().find(|held| {
                    held.dealt_round == *dealt_round && held.piece.same_piece_as(piece)
                });
                if let Some(held) = held {
                    // The replacement keeps the deal round: the hold limit
                    // and the rounds 0–3 window still follow the original.
                    held.piece = *with;
                }
                let garnets = garnets.unwrap_or(recorded_v1::REPLACEMENT_GARNETS);
                seat_state.garnets.balance -= garnets;
                seat_state.garnets.spent_on_replacements += garnets;
                seat_state.replacements.push((*round, *piece, *with));
            }
        }
        FlowerFieldsEvent::RulingSet { enabled, round, .. } => {
            state.piece_replacement = *enabled;
            state.ruling_history.push(FlowerFieldsRulingChange {
                round: *round,
                enabled: *enabled,
                at_setup: false,
            });
        }
        FlowerFieldsEvent::SubmissionMissed {
            seat,
            round,
            piece,
            points,
            ..
        } => {
            if let Some(seat_state) = state.seat_mut(*seat) {
                seat_state.missed_this_round = true;
                seat_state.missed_piece = *piece;
                if let Some(piece) = piece {
                    if let Some(position) = seat_state.oldest_position() {
                        if seat_state
                            .hand
                            .get(position)
                            .is_some_and(|held| held.piece == *piece)
                        {
                            seat_state.hand.remove(position);
                        }
                    }
                }
                seat_state.penalties.push(FlowerFieldsPointPenalty {
                    round: *round,
                    reason: FlowerFieldsPenaltyReason::MissedSubmission,
                    points: points.unwrap_or(recorded_v1::MISSED_SUBMISSION_POINTS),
                });
            }
        }
        FlowerFieldsEvent::PiecePlaced {
            field,
            round,
            seat,
            piece,
            cells,
            broken,
            revealed_from,
        } => {
            if let Some(field_state) = state.field_mut(*field) {
                for (cell, flower) in planted_cells(*piece, *cells) {
                    field_state.set(cell, flower);
                }
                field_state.last_piece = Some(FlowerFieldsLastPiece {
                    round: *round,
                    placed_by: *seat,
                    piece: *piece,
                    cells: *cells,
                    broken: *broken,
                });
                if revealed_from.is_some() {
                    field_state.revealed = None;
                }
            }
            if revealed_from.is_none() {
                if let Some(seat_state) = state.seat_mut(*seat) {
                    if let Some(position) = seat_state.hand_position_of(piece) {
                        seat_state.hand.remove(position);
                    }
                }
            }
        }
        FlowerFieldsEvent::BreakPenaltyTaken {
            seat,
            round,
            break_field,
            penalty,
            amount,
        } => {
            let amount = amount.unwrap_or(penalty.recorded_v1_amount());
            if let Some(seat_state) = state.seat_mut(*seat) {
                seat_state.break_payments.push(FlowerFieldsBreakPayment {
                    round: *round,
                    break_field: *break_field,
                    penalty: *penalty,
                });
                match penalty {
                    FlowerFieldsPenalty::Garnets => {
                        seat_state.garnets.balance -= amount;
                        seat_state.garnets.spent_on_breaks += amount;
                    }
                    FlowerFieldsPenalty::Points => {
                        seat_state.penalties.push(FlowerFieldsPointPenalty {
                            round: *round,
                            reason: FlowerFieldsPenaltyReason::Break {
                                break_field: *break_field,
                            },
                            points: amount,
                        })
                    }
                }
            }
        }
        FlowerFieldsEvent::PieceRevealed {
            field,
            round,
            from_seat,
            piece,
            ..
        } => {
            if let Some(field_state) = state.field_mut(*field) {
                field_state.revealed = Some(FlowerFieldsRevealedPiece {
                    piece: *piece,
                    from_seat: *from_seat,
                    due_round: round.saturating_add(1),
                });
            }
        }
        FlowerFieldsEvent::PieceDiscarded {
            owner,
            piece,
            field,
            ..
        } => {
            if let Some(field) = field {
                if let Some(field_state) = state.field_mut(*field) {
                    field_state.revealed = None;
                }
            }
            if let Some(seat_state) = state.seat_mut(*owner) {
                seat_state.discarded.push(*piece);
            }
        }
        FlowerFieldsEvent::RoundResolved { .. } => {
            for seat in &mut state.seats {
                seat.submission = None;
                seat.missed_this_round = false;
                seat.missed_piece = None;
            }
        }
        FlowerFieldsEvent::GameEnded => {
            state.ended = true;
            for field in &mut state.fields {
                for cell in &mut field.cells {
                    if cell.is_none() {
                        *cell = Some(FlowerFieldsFlower::Black);
                    }
                }
                field.revealed = None;
            }
            // §2: the unplayed 13th piece is discarded.
            for seat in &mut state.seats {
                let leftover: Vec<_> = seat.hand.drain(..).map(|held| held.piece).collect();
                seat.discarded.extend(leftover);
            }
        }
        FlowerFieldsEvent::GarnetsEarned { seat, garnets } => {
            if let Some(seat_state) = state.seat_mut(*seat) {
                seat_state.garnets.earned += garnets;
                seat_state.garnets.balance += garnets;
            }
        }
        FlowerFieldsEvent::ResultDeclared { winner, candidates } => {
            let settled = match candidates.as_slice() {
                [only] => Some(*only),
                _ => None,
            };
            state.phase = if candidates.len() > 1 {
                FlowerFieldsPhase::ChoosingCandidate
            } else {
                FlowerFieldsPhase::Finished
            };
            state.result = Some(FlowerFieldsResult {
                winner: *winner,
                candidates: candidates.clone(),
                elimination_candidate: settled,
            });
        }
        FlowerFieldsEvent::CandidateChosen { seat } => {
            if let Some(result) = state.result.as_mut() {
                result.elimination_candidate = Some(*seat);
            }
            state.phase = FlowerFieldsPhase::Finished;
        }
    }
}
