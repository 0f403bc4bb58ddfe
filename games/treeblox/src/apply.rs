//! Folding events into the state. No rules live here: every decision was
//! taken by `decide` and recorded in the events.

use crate::board::Supply;
use crate::model::TreebloxEvent;
use crate::state::{TreebloxOutcome, TreebloxPhase, TreebloxState};

pub fn apply(state: &mut TreebloxState, event: &TreebloxEvent) {
    match event {
        TreebloxEvent::GameSetUp {
            branches_per_seat,
            leaves_per_seat,
            first_to_act,
        } => {
            let supply = Supply {
                branches: *branches_per_seat,
                leaves: *leaves_per_seat,
            };
            state.position.supplies = [supply, supply];
            state.phase = TreebloxPhase::FirstTurn;
            state.to_act = Some(*first_to_act);
            state.growth_rate = Some(1);
            state.consecutive_passes = 0;
        }
        TreebloxEvent::CubePlaced { seat, kind, cell } => {
            state.position.place(*seat, *kind, *cell);
            state.consecutive_passes = 0;
        }
        TreebloxEvent::TurnPassed { .. } => {
            state.consecutive_passes = state.consecutive_passes.saturating_add(1);
        }
        TreebloxEvent::TurnStarted {
            seat,
            turn,
            growth_rate,
        } => {
            state.phase = TreebloxPhase::of_turn(*turn);
            state.to_act = Some(*seat);
            state.growth_rate = *growth_rate;
        }
        TreebloxEvent::GameEnded {
            reason,
            winner,
            active_leaves,
        } => {
            state.phase = TreebloxPhase::Finished;
            state.to_act = None;
            state.growth_rate = None;
            state.outcome = Some(TreebloxOutcome {
                reason: *reason,
                winner: *winner,
                active_leaves: *active_leaves,
            });
        }
    }
}
