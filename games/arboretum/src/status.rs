//! Who the game is waiting for.

use umpire_domain::Status;

use crate::model::ArboretumSeat;
use crate::state::{ArboretumPhase, ArboretumState};

/// Bidding waits on the seats that have not bid yet (one that has may still
/// replace its bid until the other's arrives, but the game is not waiting for
/// it: listing it made naive clients re-bid forever); choosing the start waits
/// on the DM Advantage holder; play waits on the seat whose turn it is.
pub fn to_act(state: &ArboretumState) -> Vec<ArboretumSeat> {
    match state.phase {
        ArboretumPhase::ChoosingStart => vec![state.options.dm_advantage],
        ArboretumPhase::Bidding => ArboretumSeat::BOTH
            .into_iter()
            .filter(|seat| state.bids[seat.index()].is_none())
            .collect(),
        ArboretumPhase::Playing => state
            .current_turn()
            .map(|turn| turn.seat)
            .into_iter()
            .collect(),
        ArboretumPhase::RoundOver | ArboretumPhase::Finished => Vec::new(),
    }
}

pub fn status(state: &ArboretumState) -> Status<ArboretumSeat> {
    Status {
        to_act: to_act(state),
        phase: state.phase.name(),
        finished: state.phase == ArboretumPhase::Finished,
    }
}
