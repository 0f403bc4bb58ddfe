//! Folds events into the state. No rules here: every check happened in
//! `decide`; this code only records facts and never panics.

use crate::flowers::{planted_cells, Flower};
use crate::messages::{recorded_v1, Event, Penalty};
use crate::state::{
    BreakPayment, GameResult, GarnetAccount, HandPiece, LastPiece, PenaltyReason, Phase,
    PointPenalty, RevealedPiece, RulingChange, State,
};

pub fn apply(state: &mut State, event: &Event) {
    match event {
        Event::GameSetUp {
            starting_garnets,
            scoring,
            piece_replacement,
        } => {
            state.scoring = *scoring;
            state.piece_replacement = *piece_replacement;
            state.ruling_history = vec![RulingChange {
                round: 0,
                enabled: *piece_replacement,
                at_setup: true,
            }];
            for seat in &mut state.seats {
                seat.garnets = GarnetAccount {
                    starting: *starting_garnets,
                    balance: *starting_garnets,
                    ..GarnetAccount::default()
                };
            }
        }
        Event::BagsShuffled { bags } => state.bags = bags.clone(),
        Event::RoundStarted { round } => {
            state.round = *round;
            if *round >= 1 {
                state.phase = Phase::Submitting;
            }
        }
        Event::PieceDealt { seat, round, piece } => {
            if let Some(seat_state) = state.seat_mut(*seat) {
                seat_state.hand.push(HandPiece::new(*piece, *round));
            }
        }
        // The notice is derived from the field; views compute it afresh.
        Event::BreakNoticeGiven { .. } => {}
        Event::SubmissionMade {
            seat, submission, ..
        } => {
            if let Some(seat_state) = state.seat_mut(*seat) {
                seat_state.submission = Some(*submission);
            }
        }
        Event::PieceReplaced {
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
        Event::RulingSet { enabled, round, .. } => {
            state.piece_replacement = *enabled;
            state.ruling_history.push(RulingChange {
                round: *round,
                enabled: *enabled,
                at_setup: false,
            });
        }
        Event::SubmissionMissed {
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
                seat_state.penalties.push(PointPenalty {
                    round: *round,
                    reason: PenaltyReason::MissedSubmission,
                    points: points.unwrap_or(recorded_v1::MISSED_SUBMISSION_POINTS),
                });
            }
        }
        Event::PiecePlaced {
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
                field_state.last_piece = Some(LastPiece {
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
        Event::BreakPenaltyTaken {
            seat,
            round,
            break_field,
            penalty,
            amount,
        } => {
            let amount = amount.unwrap_or(penalty.recorded_v1_amount());
            if let Some(seat_state) = state.seat_mut(*seat) {
                seat_state.break_payments.push(BreakPayment {
                    round: *round,
                    break_field: *break_field,
                    penalty: *penalty,
                });
                match penalty {
                    Penalty::Garnets => {
                        seat_state.garnets.balance -= amount;
                        seat_state.garnets.spent_on_breaks += amount;
                    }
                    Penalty::Points => seat_state.penalties.push(PointPenalty {
                        round: *round,
                        reason: PenaltyReason::Break {
                            break_field: *break_field,
                        },
                        points: amount,
                    }),
                }
            }
        }
        Event::PieceRevealed {
            field,
            round,
            from_seat,
            piece,
            ..
        } => {
            if let Some(field_state) = state.field_mut(*field) {
                field_state.revealed = Some(RevealedPiece {
                    piece: *piece,
                    from_seat: *from_seat,
                    due_round: round.saturating_add(1),
                });
            }
        }
        Event::PieceDiscarded {
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
        Event::RoundResolved { .. } => {
            for seat in &mut state.seats {
                seat.submission = None;
                seat.missed_this_round = false;
                seat.missed_piece = None;
            }
        }
        Event::GameEnded => {
            state.ended = true;
            for field in &mut state.fields {
                for cell in &mut field.cells {
                    if cell.is_none() {
                        *cell = Some(Flower::Black);
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
        Event::GarnetsEarned { seat, garnets } => {
            if let Some(seat_state) = state.seat_mut(*seat) {
                seat_state.garnets.earned += garnets;
                seat_state.garnets.balance += garnets;
            }
        }
        Event::ResultDeclared { winner, candidates } => {
            let settled = match candidates.as_slice() {
                [only] => Some(*only),
                _ => None,
            };
            state.phase = if candidates.len() > 1 {
                Phase::ChoosingCandidate
            } else {
                Phase::Finished
            };
            state.result = Some(GameResult {
                winner: *winner,
                candidates: candidates.clone(),
                elimination_candidate: settled,
            });
        }
        Event::CandidateChosen { seat } => {
            if let Some(result) = state.result.as_mut() {
                result.elimination_candidate = Some(*seat);
            }
            state.phase = Phase::Finished;
        }
    }
}
