//! Every rule of Treeblox: an action becomes events or a violation.

use umpire_domain::{Actor, Violation};

use crate::board::Position;
use crate::codes;
use crate::model::{
    TreebloxAction, TreebloxCubeKind, TreebloxEndReason, TreebloxEvent, TreebloxLeafTally,
    TreebloxPlacement, TreebloxTurnKind,
};
use crate::seat::TreebloxSeat;
use crate::state::{TreebloxPhase, TreebloxState};

pub fn decide(
    state: &TreebloxState,
    actor: Actor<TreebloxSeat>,
    action: &TreebloxAction,
) -> Result<Vec<TreebloxEvent>, Violation> {
    if state.is_finished() {
        return Err(codes::GAME_OVER.with("The game is over; no further action is accepted."));
    }
    let Some(seat_to_act) = state.to_act else {
        return Err(codes::NOT_SET_UP.with("The game has not been set up yet."));
    };
    match action {
        TreebloxAction::Timeout { seat } => {
            if actor != Actor::Umpire {
                return Err(
                    codes::UMPIRE_ONLY.with(format!("Only the umpire may time out {seat}."))
                );
            }
            if *seat != seat_to_act {
                return Err(codes::TIMEOUT_NOT_THEIR_TURN.with(format!(
                    "{seat} cannot time out: it is {seat_to_act}'s turn."
                )));
            }
            Ok(pass_events(state, seat_to_act, true))
        }
        TreebloxAction::Grow { placements } => {
            let Actor::Seat(seat) = actor else {
                return Err(codes::NOT_A_SEAT_ACTION
                    .with("The umpire cannot grow a tree; only the seat to act can."));
            };
            if seat != seat_to_act {
                return Err(
                    codes::NOT_YOUR_TURN.with(format!("It is {seat_to_act}'s turn, not {seat}'s."))
                );
            }
            match state.phase {
                TreebloxPhase::FirstTurn => decide_first_turn(state, seat, placements),
                TreebloxPhase::Main => decide_main_turn(state, seat, placements),
                TreebloxPhase::FinalGrowth => decide_final_growth(state, seat, placements),
                TreebloxPhase::SettingUp | TreebloxPhase::Finished => {
                    Err(codes::NOT_SET_UP.with("No turn is in progress."))
                }
            }
        }
    }
}

/// First turn (treeblox §2): exactly one leaf into an empty board hole.
fn decide_first_turn(
    state: &TreebloxState,
    seat: TreebloxSeat,
    placements: &[TreebloxPlacement],
) -> Result<Vec<TreebloxEvent>, Violation> {
    let placement = match placements {
        [placement @ TreebloxPlacement {
            kind: TreebloxCubeKind::Leaf,
            cell,
        }] if cell.is_board_hole() => *placement,
        _ => {
            return Err(codes::FIRST_TURN_MUST_BE_LEAF_ON_BOARD.with(format!(
                "{seat}'s first turn must be exactly one leaf in a board hole, not {}.",
                describe_placements(placements)
            )))
        }
    };
    if let Some(cube) = state.position.cube_at(placement.cell) {
        return Err(codes::CELL_OCCUPIED.with(format!(
            "Board hole {} already holds a {} {}.",
            placement.cell,
            cube.owner,
            cube.kind.name()
        )));
    }
    let mut position = state.position.clone();
    position.place(seat, placement.kind, placement.cell);
    let mut events = vec![TreebloxEvent::CubePlaced {
        seat,
        kind: placement.kind,
        cell: placement.cell,
    }];
    events.extend(next_turn_events(&position, seat, TreebloxPhase::FirstTurn));
    Ok(events)
}

/// Main phase (treeblox §2): a pass, or up to the growth rate of placements.
fn decide_main_turn(
    state: &TreebloxState,
    seat: TreebloxSeat,
    placements: &[TreebloxPlacement],
) -> Result<Vec<TreebloxEvent>, Violation> {
    if placements.is_empty() {
        return Ok(pass_events(state, seat, false));
    }
    // The rate was fixed when the turn started and recorded in the state.
    let growth_rate = usize::from(state.growth_rate.unwrap_or(1));
    if placements.len() > growth_rate {
        return Err(codes::TOO_MANY_PLACEMENTS.with(format!(
            "{seat}'s growth rate this turn is {growth_rate} but the turn lists {} placements.",
            placements.len()
        )));
    }
    let grown = grow(&state.position, seat, placements)?;
    let mut events = grown.events;
    if !grown.game_ended {
        events.extend(next_turn_events(&grown.position, seat, TreebloxPhase::Main));
    }
    Ok(events)
}

/// Final growth (treeblox §2): no cap, but the list must be maximal.
fn decide_final_growth(
    state: &TreebloxState,
    seat: TreebloxSeat,
    placements: &[TreebloxPlacement],
) -> Result<Vec<TreebloxEvent>, Violation> {
    let grown = grow(&state.position, seat, placements)?;
    let mut events = grown.events;
    if grown.game_ended {
        return Ok(events);
    }
    if grown.position.can_place_any(seat) {
        let supply = grown.position.supply(seat);
        let example_cell = grown
            .position
            .available_cells(seat)
            .into_iter()
            .next()
            .map(|cell| cell.to_string())
            .unwrap_or_default();
        return Err(codes::FINAL_GROWTH_INCOMPLETE.with(format!(
                "{seat} still holds {} cubes and cell {example_cell} is available, so the final growth must go on.",
                supply.total()
            )));
    }
    events.push(game_ended(
        &grown.position,
        TreebloxEndReason::FinalGrowthCompleted,
        None,
    ));
    Ok(events)
}

/// The placements of one turn, tried out on a copy of the position.
pub struct Grown {
    pub position: Position,
    pub events: Vec<TreebloxEvent>,
    /// True when a placement left a seat without an active leaf: the turn
    /// stopped there and `events` ends with `game_ended`.
    pub game_ended: bool,
}

/// Applies placements in order, each checked against the position left by
/// the ones before it (so a later cube may hang from an earlier branch).
/// After every placement a seat without an active leaf loses at once and the
/// rest of the list is neither applied nor examined (treeblox §2).
pub fn grow(
    position: &Position,
    seat: TreebloxSeat,
    placements: &[TreebloxPlacement],
) -> Result<Grown, Violation> {
    let mut position = position.clone();
    let mut events = Vec::with_capacity(placements.len().min(64) + 1);
    for (index, placement) in placements.iter().enumerate() {
        check_placement(&position, seat, placement, index + 1)?;
        position.place(seat, placement.kind, placement.cell);
        events.push(TreebloxEvent::CubePlaced {
            seat,
            kind: placement.kind,
            cell: placement.cell,
        });
        if let Some(loser) = seat_left_without_active_leaf(&position, seat) {
            events.push(game_ended(
                &position,
                TreebloxEndReason::NoActiveLeaves,
                Some(loser.opponent()),
            ));
            return Ok(Grown {
                position,
                events,
                game_ended: true,
            });
        }
    }
    Ok(Grown {
        position,
        events,
        game_ended: false,
    })
}

/// The seat that has lost after a placement by `placer`, if any. The placer
/// is checked first: covering one's own last leaf loses (treeblox §2 ruling),
/// and one placement can shade at most one leaf, so both seats can never be
/// left bare by the same cube.
pub fn seat_left_without_active_leaf(
    position: &Position,
    placer: TreebloxSeat,
) -> Option<TreebloxSeat> {
    [placer, placer.opponent()]
        .into_iter()
        .find(|seat| position.active_leaf_count(*seat) == 0)
}

/// One placement against the current position (treeblox §1 and §2).
pub fn check_placement(
    position: &Position,
    seat: TreebloxSeat,
    placement: &TreebloxPlacement,
    ordinal: usize,
) -> Result<(), Violation> {
    let cell = placement.cell;
    let kind = placement.kind.name();
    if cell.is_below_ground() {
        return Err(codes::BELOW_GROUND.with(format!(
            "Placement {ordinal}: cell {cell} is below the board; nothing goes below z = 0."
        )));
    }
    if let Some(cube) = position.cube_at(cell) {
        return Err(codes::CELL_OCCUPIED.with(format!(
            "Placement {ordinal}: cell {cell} already holds a {} {}.",
            cube.owner,
            cube.kind.name()
        )));
    }
    if !cell.is_board_hole() && !position.touches_own_branch(seat, cell) {
        return Err(codes::CELL_NOT_REACHABLE.with(format!(
            "Placement {ordinal}: cell {cell} is neither a board hole nor next to a {seat} branch."
        )));
    }
    if position.supply(seat).of(placement.kind) == 0 {
        return Err(codes::NO_CUBES_OF_KIND.with(format!(
            "Placement {ordinal}: {seat} has no {kind} left to put into {cell}."
        )));
    }
    Ok(())
}

/// A pass, by choice or by timeout: two in a row end the game; a timeout in
/// the final growth ends it too (module docs).
fn pass_events(state: &TreebloxState, seat: TreebloxSeat, timed_out: bool) -> Vec<TreebloxEvent> {
    let mut events = vec![TreebloxEvent::TurnPassed { seat, timed_out }];
    if state.phase == TreebloxPhase::FinalGrowth {
        events.push(game_ended(
            &state.position,
            TreebloxEndReason::FinalGrowthCompleted,
            None,
        ));
    } else if state.consecutive_passes.saturating_add(1) >= 2 {
        events.push(game_ended(
            &state.position,
            TreebloxEndReason::TwoConsecutivePasses,
            None,
        ));
    } else {
        events.extend(next_turn_events(&state.position, seat, state.phase));
    }
    events
}

/// What follows a completed turn of `finished_seat` taken in `phase`.
fn next_turn_events(
    position: &Position,
    finished_seat: TreebloxSeat,
    phase: TreebloxPhase,
) -> Vec<TreebloxEvent> {
    let next = finished_seat.opponent();
    match phase {
        // Dark's first leaf is followed by light's first leaf.
        TreebloxPhase::FirstTurn if finished_seat == TreebloxSeat::Dark => {
            return vec![TreebloxEvent::TurnStarted {
                seat: next,
                turn: TreebloxTurnKind::FirstTurn,
                growth_rate: Some(1),
            }];
        }
        TreebloxPhase::FinalGrowth => {
            return vec![game_ended(
                position,
                TreebloxEndReason::FinalGrowthCompleted,
                None,
            )];
        }
        _ => {}
    }
    if position.active_leaf_count(next) == 0 {
        return vec![game_ended(
            position,
            TreebloxEndReason::NoActiveLeavesAtTurnStart,
            Some(finished_seat),
        )];
    }
    if phase == TreebloxPhase::Main && position.supply(finished_seat).total() == 0 {
        // The final growth with nothing to place is over before it starts:
        // there is no choice left for the seat to make.
        if !position.can_place_any(next) {
            return vec![game_ended(
                position,
                TreebloxEndReason::FinalGrowthCompleted,
                None,
            )];
        }
        return vec![TreebloxEvent::TurnStarted {
            seat: next,
            turn: TreebloxTurnKind::FinalGrowth,
            growth_rate: None,
        }];
    }
    vec![TreebloxEvent::TurnStarted {
        seat: next,
        turn: TreebloxTurnKind::Main,
        growth_rate: Some(position.growth_rate(next)),
    }]
}

/// The end of the game. `winner` is given for a loss by no active leaves;
/// otherwise more active leaves wins and equal is a draw (treeblox §2).
fn game_ended(
    position: &Position,
    reason: TreebloxEndReason,
    winner: Option<TreebloxSeat>,
) -> TreebloxEvent {
    let active_leaves = TreebloxLeafTally {
        dark: position.active_leaf_count(TreebloxSeat::Dark),
        light: position.active_leaf_count(TreebloxSeat::Light),
    };
    let winner = winner.or(match active_leaves.dark.cmp(&active_leaves.light) {
        std::cmp::Ordering::Greater => Some(TreebloxSeat::Dark),
        std::cmp::Ordering::Less => Some(TreebloxSeat::Light),
        std::cmp::Ordering::Equal => None,
    });
    TreebloxEvent::GameEnded {
        reason,
        winner,
        active_leaves,
    }
}

fn describe_placements(placements: &[TreebloxPlacement]) -> String {
    match placements {
        [] => "a pass".into(),
        [single] => format!("a {} at {}", single.kind.name(), single.cell),
        many => format!("{} placements", many.len()),
    }
}
