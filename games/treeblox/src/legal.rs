//! Legal actions: complete for the first turn and for single placements, a
//! deterministic sample of pairs, and several maximal final growths.

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use umpire_domain::Actor;

use crate::board::Position;
use crate::cell::TreebloxCell;
use crate::decide::{check_placement, seat_left_without_active_leaf};
use crate::model::{TreebloxAction, TreebloxCubeKind, TreebloxPlacement};
use crate::seat::TreebloxSeat;
use crate::state::{TreebloxPhase, TreebloxState};

/// How many first placements of a pair are sampled.
const PAIR_FIRST_SAMPLES: usize = 40;
/// How many second placements are sampled per first one.
const PAIR_SECOND_SAMPLES: usize = 3;
/// How many different maximal final growths are offered.
const FINAL_GROWTH_SAMPLES: usize = 6;

pub fn legal_actions(state: &TreebloxState, actor: Actor<TreebloxSeat>) -> Vec<TreebloxAction> {
    let Some(seat_to_act) = state.to_act else {
        return Vec::new();
    };
    if state.is_finished() {
        return Vec::new();
    }
    let seat = match actor {
        Actor::Umpire => return vec![TreebloxAction::Timeout { seat: seat_to_act }],
        Actor::Seat(seat) if seat == seat_to_act => seat,
        Actor::Seat(_) => return Vec::new(),
    };
    let mut rng = ChaCha8Rng::seed_from_u64(fingerprint(&state.position));
    match state.phase {
        TreebloxPhase::FirstTurn => first_turn_actions(&state.position),
        TreebloxPhase::Main => main_turn_actions(
            &state.position,
            seat,
            usize::from(state.growth_rate.unwrap_or(1)),
            &mut rng,
        ),
        TreebloxPhase::FinalGrowth => final_growth_actions(&state.position, seat, &mut rng),
        TreebloxPhase::SettingUp | TreebloxPhase::Finished => Vec::new(),
    }
}

fn grow(placements: Vec<TreebloxPlacement>) -> TreebloxAction {
    TreebloxAction::Grow { placements }
}

fn first_turn_actions(position: &Position) -> Vec<TreebloxAction> {
    TreebloxCell::board_holes()
        .filter(|hole| !position.is_occupied(*hole))
        .map(|hole| grow(vec![TreebloxPlacement::new(TreebloxCubeKind::Leaf, hole)]))
        .collect()
}

/// Every placement `seat` could make now, in a fixed order.
pub fn single_placements(position: &Position, seat: TreebloxSeat) -> Vec<TreebloxPlacement> {
    let supply = position.supply(seat);
    let cells = position.available_cells(seat);
    TreebloxCubeKind::ALL
        .into_iter()
        .filter(|kind| supply.of(*kind) > 0)
        .flat_map(|kind| {
            cells
                .iter()
                .map(move |cell| TreebloxPlacement::new(kind, *cell))
        })
        .collect()
}

/// The pass, every single placement and, at rate 2, a sample of pairs whose
/// second cube may hang from the first. Placing outnumbers passing by far,
/// so random play usually ends by running out of cubes.
fn main_turn_actions(
    position: &Position,
    seat: TreebloxSeat,
    growth_rate: usize,
    rng: &mut ChaCha8Rng,
) -> Vec<TreebloxAction> {
    let singles = single_placements(position, seat);
    let mut actions = vec![grow(Vec::new())];
    actions.extend(singles.iter().map(|placement| grow(vec![*placement])));
    if growth_rate < 2 {
        return actions;
    }
    let firsts: Vec<&TreebloxPlacement> =
        singles.choose_multiple(rng, PAIR_FIRST_SAMPLES).collect();
    for first in firsts {
        let mut after_first = position.clone();
        debug_assert!(check_placement(&after_first, seat, first, 1).is_ok());
        after_first.place(seat, first.kind, first.cell);
        // A fatal first cube ends the game; a second one would be ignored,
        // so such pairs add nothing over the single placement.
        if seat_left_without_active_leaf(&after_first, seat).is_some() {
            continue;
        }
        let seconds = single_placements(&after_first, seat);
        for second in seconds.choose_multiple(rng, PAIR_SECOND_SAMPLES) {
            actions.push(grow(vec![*first, *second]));
        }
    }
    actions
}

/// How a sampled final growth picks the kind of each cube.
#[derive(Clone, Copy)]
enum KindPolicy {
    BranchesFirst,
    LeavesFirst,
    Random,
}

/// Several maximal final growths: each places cubes until the seat has none
/// left or no cell is available, or until a placement ends the game.
fn final_growth_actions(
    position: &Position,
    seat: TreebloxSeat,
    rng: &mut ChaCha8Rng,
) -> Vec<TreebloxAction> {
    let policies = [
        KindPolicy::BranchesFirst,
        KindPolicy::LeavesFirst,
        KindPolicy::Random,
    ];
    let mut actions: Vec<TreebloxAction> = Vec::new();
    for sample in 0..FINAL_GROWTH_SAMPLES {
        let policy = policies[sample % policies.len()];
        let action = grow(maximal_growth(position, seat, policy, rng));
        if !actions.contains(&action) {
            actions.push(action);
        }
    }
    actions
}

fn maximal_growth(
    position: &Position,
    seat: TreebloxSeat,
    policy: KindPolicy,
    rng: &mut ChaCha8Rng,
) -> Vec<TreebloxPlacement> {
    let mut position = position.clone();
    let mut placements = Vec::new();
    loop {
        let supply = position.supply(seat);
        let preferred = match policy {
            KindPolicy::BranchesFirst => TreebloxCubeKind::Branch,
            KindPolicy::LeavesFirst => TreebloxCubeKind::Leaf,
            KindPolicy::Random => {
                if rng.random_bool(0.5) {
                    TreebloxCubeKind::Branch
                } else {
                    TreebloxCubeKind::Leaf
                }
            }
        };
        let kind = if supply.of(preferred) > 0 {
            preferred
        } else if preferred == TreebloxCubeKind::Branch && supply.leaves > 0 {
            TreebloxCubeKind::Leaf
        } else if preferred == TreebloxCubeKind::Leaf && supply.branches > 0 {
            TreebloxCubeKind::Branch
        } else {
            break;
        };
        let mut cells: Vec<TreebloxCell> = position.available_cells(seat).into_iter().collect();
        if cells.is_empty() {
            break;
        }
        cells.shuffle(rng);
        // Prefer a cell that keeps the seat alive; a fatal one still ends a
        // maximal list, since nothing after it is applied.
        let safe_cell = cells.iter().copied().find(|cell| {
            let mut trial = position.clone();
            trial.place(seat, kind, *cell);
            seat_left_without_active_leaf(&trial, seat) != Some(seat)
        });
        let cell = safe_cell.unwrap_or(cells[0]);
        position.place(seat, kind, cell);
        placements.push(TreebloxPlacement::new(kind, cell));
        if seat_left_without_active_leaf(&position, seat).is_some() {
            break;
        }
    }
    placements
}

/// A stable number summarising the position, so the sample is the same for
/// the same state on every machine (no `Hash`, whose output may change
/// between Rust releases).
fn fingerprint(position: &Position) -> u64 {
    let mut value: u64 = 0xcbf2_9ce4_8422_2325;
    for (cell, cube) in &position.cubes {
        for part in [
            i64::from(cell.x),
            i64::from(cell.y),
            i64::from(cell.z),
            cube.owner.index() as i64,
            i64::from(cube.kind == TreebloxCubeKind::Leaf),
        ] {
            value ^= part as u64;
            value = value.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    value
}
