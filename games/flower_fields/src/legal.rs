//! Legal actions: complete for the umpire, a varied sample of submissions
//! for a seat (a revealed piece multiplies the placements).

use umpire_domain::{Actor, SeatIndex};

use crate::flowers::{
    all_seats, field_due, FlowerFieldsFlower, FlowerFieldsPiece, LAST_REPLACEABLE_DEAL_ROUND,
    REPLACEMENT_GARNETS,
};
use crate::messages::{
    FlowerFieldsAction, FlowerFieldsPenalty, FlowerFieldsPenaltyChoices, FlowerFieldsPlacement,
    FlowerFieldsRuling,
};
use crate::state::{FieldState, FlowerFieldsPhase, FlowerFieldsState};

/// At most this many submissions are listed for one seat.
const MAXIMUM_SUBMISSIONS: usize = 120;
/// At most this many placements of a revealed piece are combined.
const MAXIMUM_REVEALED_PLACEMENTS: usize = 3;

pub fn legal_actions(
    state: &FlowerFieldsState,
    actor: Actor<SeatIndex>,
) -> Vec<FlowerFieldsAction> {
    match actor {
        Actor::Umpire => umpire_actions(state),
        Actor::Seat(seat) => seat_actions(state, seat),
    }
}

fn umpire_actions(state: &FlowerFieldsState) -> Vec<FlowerFieldsAction> {
    match state.phase {
        FlowerFieldsPhase::Submitting => {
            let mut actions: Vec<FlowerFieldsAction> = all_seats()
                .filter(|seat| state.is_pending(*seat))
                .map(|seat| FlowerFieldsAction::Timeout { seat })
                .collect();
            actions.push(FlowerFieldsAction::CloseRound);
            actions.push(FlowerFieldsAction::SetRuling {
                rule: FlowerFieldsRuling::PieceReplacement,
                enabled: !state.piece_replacement,
            });
            actions
        }
        FlowerFieldsPhase::ChoosingCandidate => state
            .result
            .iter()
            .flat_map(|result| result.candidates.iter())
            .map(|seat| FlowerFieldsAction::ChooseCandidate { seat: *seat })
            .collect(),
        FlowerFieldsPhase::Setup | FlowerFieldsPhase::Finished => Vec::new(),
    }
}

/// Every placement of a piece on a field: a domino both ways round on each
/// adjacent empty pair, or, when none is left, a break onto any two empty
/// cells.
pub fn placements(field: &FieldState, piece: FlowerFieldsPiece) -> Vec<FlowerFieldsPlacement> {
    let pairs = field.adjacent_empty_pairs();
    if pairs.is_empty() {
        let empty = field.empty_cells();
        let mut result = Vec::new();
        for first in &empty {
            for second in &empty {
                if first != second {
                    result.push(FlowerFieldsPlacement {
                        piece,
                        cells: [*first, *second],
                        broken: true,
                    });
                }
            }
        }
        return result;
    }
    pairs
        .into_iter()
        .flat_map(|[first, second]| {
            [
                FlowerFieldsPlacement {
                    piece,
                    cells: [first, second],
                    broken: false,
                },
                FlowerFieldsPlacement {
                    piece,
                    cells: [second, first],
                    broken: false,
                },
            ]
        })
        .collect()
}

fn penalty_variant(index: usize) -> FlowerFieldsPenaltyChoices {
    match index % 4 {
        0 => FlowerFieldsPenaltyChoices::default(),
        1 => FlowerFieldsPenaltyChoices {
            clockwise: Some(FlowerFieldsPenalty::Garnets),
            counterclockwise: Some(FlowerFieldsPenalty::Garnets),
        },
        2 => FlowerFieldsPenaltyChoices {
            clockwise: Some(FlowerFieldsPenalty::Points),
            counterclockwise: Some(FlowerFieldsPenalty::Points),
        },
        _ => FlowerFieldsPenaltyChoices {
            clockwise: Some(FlowerFieldsPenalty::Garnets),
            counterclockwise: Some(FlowerFieldsPenalty::Points),
        },
    }
}

/// Takes about `limit` items spread evenly over `items`.
fn spread<T: Clone>(items: &[T], limit: usize) -> Vec<T> {
    if items.len() <= limit || limit == 0 {
        return items.to_vec();
    }
    let step = items.len().div_ceil(limit);
    items.iter().step_by(step).cloned().collect()
}

fn seat_actions(state: &FlowerFieldsState, seat: SeatIndex) -> Vec<FlowerFieldsAction> {
    if state.phase != FlowerFieldsPhase::Submitting {
        return Vec::new();
    }
    let Some(seat_state) = state.seat(seat) else {
        return Vec::new();
    };
    if seat_state.missed_this_round {
        return Vec::new();
    }
    let round = state.round;
    let field = field_due(seat, round);
    let Some(field_state) = state.field(field) else {
        return Vec::new();
    };
    let already_submitted = seat_state.submission.is_some();
    // §2: an overdue piece is the only choice.
    let overdue = seat_state
        .oldest_position()
        .and_then(|position| seat_state.hand.get(position))
        .filter(|held| held.play_by_round <= round);
    let mut pieces: Vec<FlowerFieldsPiece> = match overdue {
        Some(held) => vec![held.piece],
        None => seat_state.hand.iter().map(|held| held.piece).collect(),
    };
    pieces.dedup_by(|a, b| a.same_piece_as(b));
    let pending = field_state
        .revealed
        .filter(|revealed| revealed.due_round == round);
    let revealed_options: Vec<Option<FlowerFieldsPlacement>> = match pending {
        Some(pending) => spread(
            &placements(field_state, pending.piece),
            MAXIMUM_REVEALED_PLACEMENTS,
        )
        .into_iter()
        .map(Some)
        .collect(),
        None => vec![None],
    };
    let mut candidates = Vec::new();
    for revealed in &revealed_options {
        let mut working = field_state.clone();
        if let Some(placement) = revealed {
            working.set(placement.cells[0], placement.piece.first);
            working.set(placement.cells[1], placement.piece.second);
        }
        for piece in &pieces {
            for placement in placements(&working, *piece) {
                candidates.push((*revealed, placement));
            }
        }
    }
    let mut actions: Vec<FlowerFieldsAction> = spread(&candidates, MAXIMUM_SUBMISSIONS)
        .into_iter()
        .enumerate()
        .map(
            |(index, (revealed, placement))| FlowerFieldsAction::Submit {
                field,
                piece: placement.piece,
                cells: placement.cells,
                broken: placement.broken,
                revealed,
                penalties: penalty_variant(index),
                replaces_previous: already_submitted,
            },
        )
        .collect();
    // §6: a few replacements while the ruling is in force.
    if !already_submitted
        && state.piece_replacement
        && seat_state.garnets.balance >= REPLACEMENT_GARNETS
    {
        for held in &seat_state.hand {
            if held.dealt_round <= LAST_REPLACEABLE_DEAL_ROUND {
                for with in [
                    FlowerFieldsPiece::new(FlowerFieldsFlower::Red, FlowerFieldsFlower::Red),
                    FlowerFieldsPiece::new(FlowerFieldsFlower::White, FlowerFieldsFlower::Blue),
                ] {
                    actions.push(FlowerFieldsAction::ReplacePiece {
                        piece: held.piece,
                        with,
                    });
                }
            }
        }
    }
    actions
}
