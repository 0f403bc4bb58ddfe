//! The score sheet: every batch of every seat with its cards, points and why,
//! the totals and the winners with the tie-breaker named (rule book §3, §4).

use std::collections::BTreeMap;

use serde::Serialize;
use umpire_domain::{ScoreSummary, Seat, SeatIndex};

use crate::batches::{batch_points, DraftCiderBatch, DraftCiderOrchard};
use crate::cards::DraftCiderCard;
use crate::messages::DraftCiderDecidedBy;
use crate::state::DraftCiderState;

/// One batch on the score sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct DraftCiderBatchScore {
    pub batch: DraftCiderBatch,
    /// The batch's cards in placement order.
    pub cards: Vec<DraftCiderCard>,
    pub points: i64,
    /// Why the batch scores what it does.
    pub reason: String,
}

/// One seat on the score sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct DraftCiderSeatScore {
    pub seat: SeatIndex,
    /// All eight batches in the rule book's order.
    pub batches: Vec<DraftCiderBatchScore>,
    pub total: i64,
    /// Batches holding at least one card: the tie-breaker (§4).
    pub non_empty_batches: u8,
}

/// The whole score sheet. Everything on it is public (§5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct DraftCiderScore {
    /// True once the last round is over and the score is final.
    #[serde(rename = "final")]
    pub is_final: bool,
    pub seats: Vec<DraftCiderSeatScore>,
    /// The winners; empty while the game is running and in a solo game.
    pub winners: Vec<SeatIndex>,
    /// How the winners were decided; absent while the game is running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<DraftCiderDecidedBy>,
}

/// The score of one orchard, batch by batch.
pub fn seat_score(
    state: &DraftCiderState,
    seat: SeatIndex,
    orchard: &DraftCiderOrchard,
) -> DraftCiderSeatScore {
    let batches: Vec<DraftCiderBatchScore> = DraftCiderBatch::ALL
        .iter()
        .map(|batch| {
            let (points, reason) = batch_points(orchard, *batch, &state.options);
            DraftCiderBatchScore {
                batch: *batch,
                cards: orchard.cards(*batch).to_vec(),
                points,
                reason,
            }
        })
        .collect();
    DraftCiderSeatScore {
        seat,
        total: batches.iter().map(|batch| batch.points).sum(),
        batches,
        non_empty_batches: orchard.non_empty_batches(),
    }
}

pub fn seat_scores(state: &DraftCiderState) -> Vec<DraftCiderSeatScore> {
    state
        .seats()
        .zip(state.orchards.iter())
        .map(|(seat, orchard)| seat_score(state, seat, orchard))
        .collect()
}

/// Winners by §4: highest total; tie → most non-empty batches; still tied →
/// shared. A solo game has no winner: its result is the total.
pub fn winners(seats: &[DraftCiderSeatScore]) -> (Vec<SeatIndex>, DraftCiderDecidedBy) {
    if seats.len() <= 1 {
        return (Vec::new(), DraftCiderDecidedBy::Solo);
    }
    let Some(best_total) = seats.iter().map(|seat| seat.total).max() else {
        return (Vec::new(), DraftCiderDecidedBy::Solo);
    };
    let leaders: Vec<&DraftCiderSeatScore> = seats
        .iter()
        .filter(|seat| seat.total == best_total)
        .collect();
    if let [only] = leaders.as_slice() {
        return (vec![only.seat], DraftCiderDecidedBy::HighestTotal);
    }
    let most_batches = leaders
        .iter()
        .map(|seat| seat.non_empty_batches)
        .max()
        .unwrap_or(0);
    let after_tie_breaker: Vec<SeatIndex> = leaders
        .iter()
        .filter(|seat| seat.non_empty_batches == most_batches)
        .map(|seat| seat.seat)
        .collect();
    let decided_by = if after_tie_breaker.len() == 1 {
        DraftCiderDecidedBy::MostNonEmptyBatches
    } else {
        DraftCiderDecidedBy::SharedWin
    };
    (after_tie_breaker, decided_by)
}

/// The score sheet; provisional (no winners) until the game is finished.
pub fn score_sheet(state: &DraftCiderState) -> DraftCiderScore {
    let seats = seat_scores(state);
    let (winners, decided_by) = if state.finished {
        let (winners, decided_by) = winners(&seats);
        (winners, Some(decided_by))
    } else {
        (Vec::new(), None)
    };
    DraftCiderScore {
        is_final: state.finished,
        seats,
        winners,
        decided_by,
    }
}

pub fn summary(state: &DraftCiderState) -> ScoreSummary {
    let sheet = score_sheet(state);
    ScoreSummary {
        totals: sheet
            .seats
            .iter()
            .map(|seat| (seat.seat.name(), seat.total))
            .collect::<BTreeMap<_, _>>(),
        winners: sheet.winners.iter().map(Seat::name).collect(),
        is_final: sheet.is_final,
    }
}
