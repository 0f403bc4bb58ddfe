//! Given/when/then tests for every rule and every violation code of the
//! Treeblox rule book.

use umpire_domain::testing::Table;
use umpire_domain::{Actor, Game, Viewer};
use umpire_treeblox::{
    codes, Treeblox, TreebloxAction, TreebloxCell, TreebloxCubeKind, TreebloxEndReason,
    TreebloxEvent, TreebloxLeafTally, TreebloxOptions, TreebloxPhase, TreebloxPlacement,
    TreebloxSeat, TreebloxTurnKind,
};

const DARK_SEAT: TreebloxSeat = TreebloxSeat::Dark;
const LIGHT_SEAT: TreebloxSeat = TreebloxSeat::Light;
const DARK: Actor<TreebloxSeat> = Actor::Seat(TreebloxSeat::Dark);
const LIGHT: Actor<TreebloxSeat> = Actor::Seat(TreebloxSeat::Light);
const UMPIRE: Actor<TreebloxSeat> = Actor::Umpire;

fn cell(x: i32, y: i32, z: i32) -> TreebloxCell {
    TreebloxCell::new(x, y, z)
}

fn leaf(x: i32, y: i32, z: i32) -> TreebloxPlacement {
    TreebloxPlacement::new(TreebloxCubeKind::Leaf, cell(x, y, z))
}

fn branch(x: i32, y: i32, z: i32) -> TreebloxPlacement {
    TreebloxPlacement::new(TreebloxCubeKind::Branch, cell(x, y, z))
}

fn grow(placements: &[TreebloxPlacement]) -> TreebloxAction {
    TreebloxAction::Grow {
        placements: placements.to_vec(),
    }
}

fn pass() -> TreebloxAction {
    grow(&[])
}

fn timeout(seat: TreebloxSeat) -> TreebloxAction {
    TreebloxAction::Timeout { seat }
}

/// Given a freshly set-up game.
fn new_game() -> Table<Treeblox> {
    Table::new(TreebloxOptions::default(), 2)
}

/// Given the first turn played: dark's leaf at (0,0,0), light's at (3,3,0).
fn after_first_turn() -> Table<Treeblox> {
    let mut table = new_game();
    table.accepts(DARK, grow(&[leaf(0, 0, 0)]));
    table.accepts(LIGHT, grow(&[leaf(3, 3, 0)]));
    table
}

/// Given a hand-made position: the standard supplies, these cubes placed,
/// and `next` starting a main turn at the growth rate its leaves give it.
fn position(cubes: &[(TreebloxSeat, TreebloxPlacement)], next: TreebloxSeat) -> Table<Treeblox> {
    let mut events = vec![TreebloxEvent::GameSetUp {
        branches_per_seat: 16,
        leaves_per_seat: 16,
        first_to_act: DARK_SEAT,
    }];
    events.extend(
        cubes
            .iter()
            .map(|(seat, placement)| TreebloxEvent::CubePlaced {
                seat: *seat,
                kind: placement.kind,
                cell: placement.cell,
            }),
    );
    let mut table = Table::<Treeblox>::from_events(TreebloxOptions::default(), events);
    let growth_rate = table.state.position.growth_rate(next);
    table.apply_all(&[TreebloxEvent::TurnStarted {
        seat: next,
        turn: TreebloxTurnKind::Main,
        growth_rate: Some(growth_rate),
    }]);
    table
}

fn active_leaves(table: &Table<Treeblox>, seat: TreebloxSeat) -> Vec<TreebloxCell> {
    table.state.position.active_leaf_cells(seat)
}

// ---------------------------------------------------------------- setup

#[test]
fn setup_records_only_that_the_game_was_set_up_and_dark_moves_first() {
    let table = new_game();
    assert_eq!(
        table.events,
        vec![TreebloxEvent::GameSetUp {
            branches_per_seat: 16,
            leaves_per_seat: 16,
            first_to_act: DARK_SEAT,
        }]
    );
    let status = Treeblox::status(&table.state);
    assert_eq!(status.to_act, vec![DARK_SEAT]);
    assert_eq!(status.phase, "first_turn");
    let view = table.view(Viewer::Spectator);
    assert_eq!(view["seats"][0]["remaining_branches"], 16);
    assert_eq!(view["seats"][1]["remaining_leaves"], 16);
}

// ---------------------------------------------------------------- first turn

#[test]
fn a_branch_in_the_first_turn_is_refused() {
    let mut table = new_game();
    table.refuses(
        DARK,
        grow(&[branch(0, 0, 0)]),
        codes::FIRST_TURN_MUST_BE_LEAF_ON_BOARD.code,
    );
    table.accepts(DARK, grow(&[leaf(0, 0, 0)]));
}

#[test]
fn a_first_leaf_outside_the_board_holes_is_refused() {
    let mut table = new_game();
    table.refuses(
        DARK,
        grow(&[leaf(4, 0, 0)]),
        codes::FIRST_TURN_MUST_BE_LEAF_ON_BOARD.code,
    );
    table.refuses(
        DARK,
        grow(&[leaf(0, 0, 1)]),
        codes::FIRST_TURN_MUST_BE_LEAF_ON_BOARD.code,
    );
    table.refuses(
        DARK,
        grow(&[leaf(0, 0, -1)]),
        codes::FIRST_TURN_MUST_BE_LEAF_ON_BOARD.code,
    );
    table.accepts(DARK, grow(&[leaf(3, 0, 0)]));
}

#[test]
fn a_pass_or_two_leaves_in_the_first_turn_is_refused() {
    let mut table = new_game();
    table.refuses(DARK, pass(), codes::FIRST_TURN_MUST_BE_LEAF_ON_BOARD.code);
    table.refuses(
        DARK,
        grow(&[leaf(0, 0, 0), leaf(1, 1, 0)]),
        codes::FIRST_TURN_MUST_BE_LEAF_ON_BOARD.code,
    );
    table.accepts(DARK, grow(&[leaf(1, 1, 0)]));
}

#[test]
fn light_cannot_take_the_board_hole_dark_took_first() {
    let mut table = new_game();
    table.accepts(DARK, grow(&[leaf(0, 0, 0)]));
    table.refuses(LIGHT, grow(&[leaf(0, 0, 0)]), codes::CELL_OCCUPIED.code);
    let events = table.accepts(LIGHT, grow(&[leaf(3, 3, 0)]));
    assert_eq!(
        events.last(),
        Some(&TreebloxEvent::TurnStarted {
            seat: DARK_SEAT,
            turn: TreebloxTurnKind::Main,
            growth_rate: Some(1),
        })
    );
}

// ---------------------------------------------------------------- turn order and actors

#[test]
fn light_acting_on_darks_turn_is_refused() {
    let mut table = new_game();
    table.refuses(LIGHT, grow(&[leaf(3, 3, 0)]), codes::NOT_YOUR_TURN.code);
    table.accepts(DARK, grow(&[leaf(3, 3, 0)]));
    table.refuses(DARK, grow(&[leaf(0, 0, 0)]), codes::NOT_YOUR_TURN.code);
    table.accepts(LIGHT, grow(&[leaf(0, 0, 0)]));
}

#[test]
fn a_seat_sending_a_timeout_is_refused_and_the_umpire_may() {
    let mut table = after_first_turn();
    table.refuses(LIGHT, timeout(DARK_SEAT), codes::UMPIRE_ONLY.code);
    table.refuses(UMPIRE, timeout(LIGHT_SEAT), codes::NOT_YOUR_TURN.code);
    table.accepts(UMPIRE, timeout(DARK_SEAT));
}

#[test]
fn the_umpire_cannot_grow_a_tree() {
    let mut table = after_first_turn();
    table.refuses(
        UMPIRE,
        grow(&[branch(1, 0, 0)]),
        codes::NOT_A_SEAT_ACTION.code,
    );
    table.accepts(DARK, grow(&[branch(1, 0, 0)]));
}

#[test]
fn a_timeout_makes_the_seat_pass() {
    let mut table = after_first_turn();
    let events = table.accepts(UMPIRE, timeout(DARK_SEAT));
    assert_eq!(
        events[0],
        TreebloxEvent::TurnPassed {
            seat: DARK_SEAT,
            timed_out: true,
        }
    );
    assert_eq!(table.state.to_act, Some(LIGHT_SEAT));
    assert_eq!(table.state.consecutive_passes, 1);
}

#[test]
fn a_seat_timed_out_of_its_first_turn_starts_its_main_turn_leafless_and_loses() {
    let mut table = new_game();
    table.accepts(UMPIRE, timeout(DARK_SEAT));
    let events = table.accepts(LIGHT, grow(&[leaf(3, 3, 0)]));
    assert_eq!(
        events.last(),
        Some(&TreebloxEvent::GameEnded {
            reason: TreebloxEndReason::NoActiveLeavesAtTurnStart,
            winner: Some(LIGHT_SEAT),
            active_leaves: TreebloxLeafTally { dark: 0, light: 1 },
        })
    );
    table.refuses(DARK, grow(&[leaf(0, 0, 0)]), codes::GAME_OVER.code);
}

// ---------------------------------------------------------------- growth rate

#[test]
fn two_placements_at_growth_rate_one_are_refused() {
    let mut table = after_first_turn();
    assert_eq!(table.state.growth_rate, Some(1));
    table.refuses(
        DARK,
        grow(&[branch(1, 0, 0), leaf(1, 0, 1)]),
        codes::TOO_MANY_PLACEMENTS.code,
    );
    table.accepts(DARK, grow(&[branch(1, 0, 0)]));
}

#[test]
fn three_active_leaves_give_a_growth_rate_of_two_but_not_three() {
    let mut table = position(
        &[
            (DARK_SEAT, leaf(0, 0, 0)),
            (DARK_SEAT, leaf(0, 1, 0)),
            (DARK_SEAT, leaf(0, 2, 0)),
            (LIGHT_SEAT, leaf(3, 3, 0)),
        ],
        DARK_SEAT,
    );
    assert_eq!(table.state.growth_rate, Some(2));
    table.refuses(
        DARK,
        grow(&[branch(1, 0, 0), leaf(1, 0, 1), leaf(1, 1, 0)]),
        codes::TOO_MANY_PLACEMENTS.code,
    );
    table.accepts(DARK, grow(&[branch(1, 0, 0), leaf(1, 0, 1)]));
}

#[test]
fn the_growth_rate_is_fixed_when_the_turn_starts() {
    // Dark starts with two active leaves (rate 1): a third leaf placed in the
    // turn does not allow a second placement in the same turn.
    let mut table = position(
        &[
            (DARK_SEAT, leaf(0, 0, 0)),
            (DARK_SEAT, leaf(0, 1, 0)),
            (LIGHT_SEAT, leaf(3, 3, 0)),
        ],
        DARK_SEAT,
    );
    assert_eq!(table.state.growth_rate, Some(1));
    table.refuses(
        DARK,
        grow(&[leaf(0, 2, 0), leaf(0, 3, 0)]),
        codes::TOO_MANY_PLACEMENTS.code,
    );
    table.accepts(DARK, grow(&[leaf(0, 2, 0)]));
    table.accepts(LIGHT, pass());
    assert_eq!(table.state.growth_rate, Some(2));
}

#[test]
fn shading_ones_own_leaf_mid_turn_does_not_cut_the_rate_of_that_turn() {
    let mut table = position(
        &[
            (DARK_SEAT, leaf(0, 0, 0)),
            (DARK_SEAT, leaf(0, 1, 0)),
            (DARK_SEAT, leaf(0, 2, 0)),
            (DARK_SEAT, branch(1, 2, 0)),
            (LIGHT_SEAT, leaf(3, 3, 0)),
        ],
        DARK_SEAT,
    );
    // The branch at (1,2,1) does not shade anything; the one at (0,2,1)
    // shades dark's own leaf at (0,2,0), leaving two active leaves, yet the
    // second placement of the turn still counts against a rate of 2.
    table.accepts(DARK, grow(&[branch(1, 2, 1), branch(0, 2, 1)]));
    assert_eq!(
        active_leaves(&table, DARK_SEAT),
        vec![cell(0, 0, 0), cell(0, 1, 0)]
    );
    table.accepts(LIGHT, pass());
    assert_eq!(table.state.growth_rate, Some(1));
}

// ---------------------------------------------------------------- geometry

#[test]
fn a_cube_in_an_occupied_cell_is_refused() {
    let mut table = after_first_turn();
    table.refuses(DARK, grow(&[branch(3, 3, 0)]), codes::CELL_OCCUPIED.code);
    table.refuses(DARK, grow(&[branch(0, 0, 0)]), codes::CELL_OCCUPIED.code);
    table.accepts(DARK, grow(&[branch(0, 1, 0)]));
}

#[test]
fn a_cell_touching_only_the_opponents_branch_is_not_reachable() {
    let mut table = position(
        &[
            (DARK_SEAT, leaf(0, 0, 0)),
            (LIGHT_SEAT, leaf(3, 3, 0)),
            (LIGHT_SEAT, branch(3, 2, 0)),
        ],
        DARK_SEAT,
    );
    table.refuses(DARK, grow(&[leaf(3, 2, 1)]), codes::CELL_NOT_REACHABLE.code);
    table.refuses(DARK, grow(&[leaf(4, 2, 0)]), codes::CELL_NOT_REACHABLE.code);
    table.accepts(DARK, grow(&[leaf(2, 2, 0)]));
    // Light's own branch does reach (4,2,0), outside the footprint.
    table.accepts(LIGHT, grow(&[leaf(4, 2, 0)]));
}

#[test]
fn nothing_is_placed_above_a_leaf() {
    let mut table = after_first_turn();
    table.refuses(DARK, grow(&[leaf(0, 0, 1)]), codes::CELL_NOT_REACHABLE.code);
    table.accepts(DARK, grow(&[branch(0, 1, 0)]));
}

#[test]
fn a_cube_below_the_board_is_refused() {
    let mut table = position(
        &[
            (DARK_SEAT, leaf(0, 0, 0)),
            (DARK_SEAT, branch(1, 0, 0)),
            (LIGHT_SEAT, leaf(3, 3, 0)),
        ],
        DARK_SEAT,
    );
    // The branch's downward face points below z = 0: there is no such cell.
    table.refuses(DARK, grow(&[leaf(1, 0, -1)]), codes::BELOW_GROUND.code);
    table.accepts(DARK, grow(&[leaf(1, 0, 1)]));
}

#[test]
fn absurd_coordinates_are_refused_without_panicking() {
    let mut table = after_first_turn();
    table.refuses(
        DARK,
        grow(&[leaf(i32::MAX, i32::MIN, i32::MAX)]),
        codes::CELL_NOT_REACHABLE.code,
    );
    table.refuses(
        DARK,
        grow(&[leaf(0, 0, i32::MIN)]),
        codes::BELOW_GROUND.code,
    );
    table.accepts(DARK, grow(&[leaf(1, 1, 0)]));
}

#[test]
fn a_leaf_with_none_of_that_kind_left_is_refused_and_a_branch_accepted() {
    let mut table = dark_one_branch_from_exhaustion();
    table.refuses(DARK, grow(&[leaf(2, -2, 0)]), codes::NO_CUBES_OF_KIND.code);
    table.accepts(DARK, grow(&[branch(2, -2, 0)]));
}

#[test]
fn growth_beyond_the_footprint_is_allowed_from_an_own_branch() {
    let mut table = position(
        &[
            (DARK_SEAT, leaf(0, 1, 0)),
            (DARK_SEAT, branch(0, 0, 0)),
            (LIGHT_SEAT, leaf(3, 3, 0)),
        ],
        DARK_SEAT,
    );
    table.refuses(
        DARK,
        grow(&[branch(-2, 0, 0)]),
        codes::CELL_NOT_REACHABLE.code,
    );
    table.accepts(DARK, grow(&[branch(-1, 0, 0)]));
    table.accepts(LIGHT, pass());
    table.accepts(DARK, grow(&[leaf(-2, 0, 0)]));
    assert_eq!(
        active_leaves(&table, DARK_SEAT),
        vec![cell(-2, 0, 0), cell(0, 1, 0)]
    );
}

#[test]
fn a_branch_offers_its_downward_hole() {
    // (-2,0,0) is outside the footprint; its only dark neighbour will be the
    // branch above it at (-2,0,1).
    let mut table = position(
        &[
            (DARK_SEAT, leaf(0, 1, 0)),
            (DARK_SEAT, branch(0, 0, 0)),
            (DARK_SEAT, branch(0, 0, 1)),
            (DARK_SEAT, branch(-1, 0, 1)),
            (LIGHT_SEAT, leaf(3, 3, 0)),
        ],
        DARK_SEAT,
    );
    table.refuses(
        DARK,
        grow(&[leaf(-2, 0, 0)]),
        codes::CELL_NOT_REACHABLE.code,
    );
    table.accepts(DARK, grow(&[branch(-2, 0, 1)]));
    table.accepts(LIGHT, pass());
    table.accepts(DARK, grow(&[leaf(-2, 0, 0)]));
    // The leaf below the branch is shaded by it: not active.
    assert_eq!(active_leaves(&table, DARK_SEAT), vec![cell(0, 1, 0)]);
}

#[test]
fn a_later_placement_may_hang_from_a_branch_placed_earlier_in_the_turn() {
    let mut table = position(
        &[
            (DARK_SEAT, leaf(0, 0, 0)),
            (DARK_SEAT, leaf(0, 1, 0)),
            (DARK_SEAT, leaf(0, 2, 0)),
            (LIGHT_SEAT, leaf(3, 3, 0)),
        ],
        DARK_SEAT,
    );
    // In the other order the leaf has nothing to hang from yet.
    table.refuses(
        DARK,
        grow(&[leaf(1, 0, 1), branch(1, 0, 0)]),
        codes::CELL_NOT_REACHABLE.code,
    );
    table.accepts(DARK, grow(&[branch(1, 0, 0), leaf(1, 0, 1)]));
}

#[test]
fn one_cube_per_cell_also_within_a_turn() {
    let mut table = position(
        &[
            (DARK_SEAT, leaf(0, 0, 0)),
            (DARK_SEAT, leaf(0, 1, 0)),
            (DARK_SEAT, leaf(0, 2, 0)),
            (LIGHT_SEAT, leaf(3, 3, 0)),
        ],
        DARK_SEAT,
    );
    table.refuses(
        DARK,
        grow(&[branch(1, 0, 0), leaf(1, 0, 0)]),
        codes::CELL_OCCUPIED.code,
    );
    table.accepts(DARK, grow(&[branch(1, 0, 0), leaf(1, 1, 0)]));
}

// ---------------------------------------------------------------- active leaves

#[test]
fn an_overhanging_branch_shades_the_opponents_leaf() {
    let mut table = position(
        &[
            (DARK_SEAT, leaf(0, 0, 0)),
            (DARK_SEAT, branch(2, 3, 0)),
            (DARK_SEAT, branch(2, 3, 1)),
            (DARK_SEAT, branch(2, 3, 2)),
            (LIGHT_SEAT, leaf(3, 3, 0)),
            (LIGHT_SEAT, leaf(3, 0, 0)),
        ],
        DARK_SEAT,
    );
    assert_eq!(
        active_leaves(&table, LIGHT_SEAT),
        vec![cell(3, 0, 0), cell(3, 3, 0)]
    );
    // Two cells above light's leaf, with (3,3,1) left empty.
    table.accepts(DARK, grow(&[branch(3, 3, 2)]));
    assert_eq!(active_leaves(&table, LIGHT_SEAT), vec![cell(3, 0, 0)]);
    let view = table.view(Viewer::Seat(LIGHT_SEAT));
    assert_eq!(view["seats"][1]["active_leaves"], 1);
    assert_eq!(Treeblox::status(&table.state).to_act, vec![LIGHT_SEAT]);
}

// ---------------------------------------------------------------- immediate loss

#[test]
fn shading_the_opponents_last_leaf_mid_turn_ends_the_game_at_once() {
    let mut table = position(
        &[
            (DARK_SEAT, leaf(0, 0, 0)),
            (DARK_SEAT, leaf(0, 1, 0)),
            (DARK_SEAT, leaf(0, 2, 0)),
            (DARK_SEAT, branch(2, 3, 0)),
            (DARK_SEAT, branch(2, 3, 1)),
            (LIGHT_SEAT, leaf(3, 3, 0)),
        ],
        DARK_SEAT,
    );
    // The second placement would be refused (occupied) if it were examined;
    // the game is already over after the first.
    let events = table.accepts(DARK, grow(&[branch(3, 3, 1), leaf(0, 0, 0)]));
    assert_eq!(
        events,
        vec![
            TreebloxEvent::CubePlaced {
                seat: DARK_SEAT,
                kind: TreebloxCubeKind::Branch,
                cell: cell(3, 3, 1),
            },
            TreebloxEvent::GameEnded {
                reason: TreebloxEndReason::NoActiveLeaves,
                winner: Some(DARK_SEAT),
                active_leaves: TreebloxLeafTally { dark: 3, light: 0 },
            },
        ]
    );
    assert_eq!(table.state.phase, TreebloxPhase::Finished);
    table.refuses(LIGHT, pass(), codes::GAME_OVER.code);
}

#[test]
fn the_placements_after_the_fatal_one_are_not_applied() {
    let mut table = position(
        &[
            (DARK_SEAT, leaf(0, 0, 0)),
            (DARK_SEAT, leaf(0, 1, 0)),
            (DARK_SEAT, leaf(0, 2, 0)),
            (DARK_SEAT, branch(2, 3, 0)),
            (DARK_SEAT, branch(2, 3, 1)),
            (LIGHT_SEAT, leaf(3, 3, 0)),
        ],
        DARK_SEAT,
    );
    table.accepts(DARK, grow(&[branch(3, 3, 1), leaf(1, 1, 0)]));
    assert!(!table.state.position.is_occupied(cell(1, 1, 0)));
    assert_eq!(table.state.position.supply(DARK_SEAT).leaves, 13);
}

#[test]
fn covering_ones_own_last_leaf_loses() {
    let mut table = after_first_turn();
    table.accepts(DARK, grow(&[branch(1, 0, 0)]));
    table.accepts(LIGHT, grow(&[branch(3, 2, 0)]));
    table.accepts(DARK, grow(&[branch(1, 0, 1)]));
    table.accepts(LIGHT, grow(&[branch(3, 2, 1)]));
    // A dark branch at (0,0,1) hangs from (1,0,1) and covers dark's only leaf.
    table.refuses(
        DARK,
        grow(&[branch(0, 0, 2)]),
        codes::CELL_NOT_REACHABLE.code,
    );
    let events = table.accepts(DARK, grow(&[branch(0, 0, 1)]));
    assert_eq!(
        events.last(),
        Some(&TreebloxEvent::GameEnded {
            reason: TreebloxEndReason::NoActiveLeaves,
            winner: Some(LIGHT_SEAT),
            active_leaves: TreebloxLeafTally { dark: 0, light: 1 },
        })
    );
    let score = Treeblox::score(&table.state, Viewer::Spectator);
    assert_eq!(score.winner, Some(LIGHT_SEAT));
    assert!(score.explanation.contains("dark has no active leaf"));
}

// ---------------------------------------------------------------- passes and the end

#[test]
fn two_consecutive_passes_end_the_game_and_equal_leaves_draw() {
    let mut table = after_first_turn();
    let events = table.accepts(DARK, pass());
    assert_eq!(events.len(), 2, "a pass and light's turn");
    let events = table.accepts(LIGHT, pass());
    assert_eq!(
        events.last(),
        Some(&TreebloxEvent::GameEnded {
            reason: TreebloxEndReason::TwoConsecutivePasses,
            winner: None,
            active_leaves: TreebloxLeafTally { dark: 1, light: 1 },
        })
    );
    let score = Treeblox::score(&table.state, Viewer::Umpire);
    assert!(score.is_final && score.draw);
    assert_eq!(
        score.end_reason,
        Some(TreebloxEndReason::TwoConsecutivePasses)
    );
    let summary = Treeblox::summary(&table.state);
    assert!(summary.winners.is_empty());
    assert_eq!(summary.totals["dark"], 1);
    table.refuses(DARK, grow(&[branch(1, 0, 0)]), codes::GAME_OVER.code);
    table.refuses(UMPIRE, timeout(DARK_SEAT), codes::GAME_OVER.code);
}

#[test]
fn a_placement_between_two_passes_keeps_the_game_going() {
    let mut table = after_first_turn();
    table.accepts(DARK, pass());
    table.accepts(LIGHT, grow(&[leaf(3, 0, 0)]));
    let events = table.accepts(DARK, pass());
    assert!(matches!(
        events.last(),
        Some(TreebloxEvent::TurnStarted {
            seat: LIGHT_SEAT,
            ..
        })
    ));
    let events = table.accepts(LIGHT, pass());
    assert_eq!(
        events.last(),
        Some(&TreebloxEvent::GameEnded {
            reason: TreebloxEndReason::TwoConsecutivePasses,
            winner: Some(LIGHT_SEAT),
            active_leaves: TreebloxLeafTally { dark: 1, light: 2 },
        })
    );
}

// ---------------------------------------------------------------- final growth

/// Dark has placed 31 cubes (16 leaves, 15 branches, mostly outside the
/// footprint along y < 0) and holds one branch; light has one leaf on the
/// board and 31 cubes in hand. Dark is to act with 16 active leaves.
fn dark_one_branch_from_exhaustion() -> Table<Treeblox> {
    let mut cubes = vec![(DARK_SEAT, leaf(0, 0, 0)), (LIGHT_SEAT, leaf(3, 3, 0))];
    for step in 0..15 {
        cubes.push((DARK_SEAT, branch(1, -step, 0)));
    }
    for step in 1..=14 {
        cubes.push((DARK_SEAT, leaf(0, -step, 0)));
    }
    cubes.push((DARK_SEAT, leaf(2, -1, 0)));
    let table = position(&cubes, DARK_SEAT);
    let dark_supply = table.state.position.supply(DARK_SEAT);
    assert_eq!((dark_supply.branches, dark_supply.leaves), (1, 0));
    table
}

#[test]
fn placing_the_last_cube_starts_the_opponents_final_growth() {
    let mut table = dark_one_branch_from_exhaustion();
    let events = table.accepts(DARK, grow(&[branch(2, -2, 0)]));
    assert_eq!(
        events.last(),
        Some(&TreebloxEvent::TurnStarted {
            seat: LIGHT_SEAT,
            turn: TreebloxTurnKind::FinalGrowth,
            growth_rate: None,
        })
    );
    assert_eq!(Treeblox::status(&table.state).phase, "final_growth");
}

#[test]
fn a_final_growth_that_stops_while_a_cell_is_available_is_refused() {
    let mut table = dark_one_branch_from_exhaustion();
    table.accepts(DARK, grow(&[branch(2, -2, 0)]));
    // Light has no branch, so only the 13 empty board holes are available:
    // 12 leaves leave one hole, 13 fill the board, beyond the growth-rate cap.
    let free_holes: Vec<TreebloxCell> = TreebloxCell::board_holes()
        .filter(|hole| !table.state.position.is_occupied(*hole))
        .collect();
    assert_eq!(free_holes.len(), 13);
    let leaves: Vec<TreebloxPlacement> = free_holes
        .iter()
        .map(|hole| TreebloxPlacement::new(TreebloxCubeKind::Leaf, *hole))
        .collect();
    table.refuses(
        LIGHT,
        grow(&leaves[..12]),
        codes::FINAL_GROWTH_INCOMPLETE.code,
    );
    table.refuses(LIGHT, pass(), codes::FINAL_GROWTH_INCOMPLETE.code);
    let events = table.accepts(LIGHT, grow(&leaves));
    assert_eq!(
        events.last(),
        Some(&TreebloxEvent::GameEnded {
            reason: TreebloxEndReason::FinalGrowthCompleted,
            winner: Some(DARK_SEAT),
            active_leaves: TreebloxLeafTally {
                dark: 16,
                light: 14
            },
        })
    );
    assert_eq!(table.state.position.supply(LIGHT_SEAT).total(), 31 - 13);
}

#[test]
fn a_final_growth_must_go_on_while_branches_open_cells() {
    let mut table = dark_one_branch_from_exhaustion();
    table.accepts(DARK, grow(&[branch(2, -2, 0)]));
    // A branch opens cells beyond the board: filling the holes is no longer
    // maximal.
    let mut placements = vec![branch(3, 2, 0)];
    placements.extend(
        TreebloxCell::board_holes()
            .filter(|hole| !table.state.position.is_occupied(*hole) && *hole != cell(3, 2, 0))
            .map(|hole| TreebloxPlacement::new(TreebloxCubeKind::Leaf, hole)),
    );
    table.refuses(
        LIGHT,
        grow(&placements),
        codes::FINAL_GROWTH_INCOMPLETE.code,
    );
    let listed = Treeblox::legal_actions(&table.state, LIGHT);
    assert!(!listed.is_empty());
    let TreebloxAction::Grow { placements } = listed[0].clone() else {
        panic!("a grow action is listed");
    };
    assert!(
        placements.len() > 13,
        "the sample uses branches to go further"
    );
    table.accepts(LIGHT, listed[0].clone());
    assert!(Treeblox::status(&table.state).finished);
}

#[test]
fn a_timeout_during_the_final_growth_ends_the_game() {
    let mut table = dark_one_branch_from_exhaustion();
    table.accepts(DARK, grow(&[branch(2, -2, 0)]));
    table.refuses(UMPIRE, timeout(DARK_SEAT), codes::NOT_YOUR_TURN.code);
    let events = table.accepts(UMPIRE, timeout(LIGHT_SEAT));
    assert_eq!(
        events.last(),
        Some(&TreebloxEvent::GameEnded {
            reason: TreebloxEndReason::FinalGrowthCompleted,
            winner: Some(DARK_SEAT),
            active_leaves: TreebloxLeafTally { dark: 16, light: 1 },
        })
    );
}

// ---------------------------------------------------------------- worked case

#[test]
fn the_worked_case_of_section_four_plays_as_described() {
    // 1. First turn.
    let mut table = new_game();
    table.accepts(DARK, grow(&[leaf(0, 0, 0)]));
    table.accepts(LIGHT, grow(&[leaf(3, 3, 0)]));
    assert_eq!(table.state.growth_rate, Some(1));
    // 2. Branches in board holes.
    table.accepts(DARK, grow(&[branch(1, 0, 0)]));
    assert_eq!(
        table.state.growth_rate,
        Some(1),
        "light has one active leaf"
    );
    table.accepts(LIGHT, grow(&[branch(3, 2, 0)]));
    // 3. Dark's leaf on top of its branch.
    table.accepts(DARK, grow(&[leaf(1, 0, 1)]));
    assert_eq!(
        active_leaves(&table, DARK_SEAT),
        vec![cell(0, 0, 0), cell(1, 0, 1)]
    );
    table.refuses(
        LIGHT,
        grow(&[leaf(3, 3, 1)]),
        codes::CELL_NOT_REACHABLE.code,
    );
    table.accepts(LIGHT, grow(&[branch(3, 2, 1)]));
    // 4. Outside the footprint, and light shading its own leaf.
    table.accepts(DARK, grow(&[branch(1, -1, 0)]));
    table.accepts(LIGHT, grow(&[leaf(3, 3, 1)]));
    assert_eq!(active_leaves(&table, LIGHT_SEAT), vec![cell(3, 3, 1)]);
    assert_eq!(
        active_leaves(&table, DARK_SEAT),
        vec![cell(0, 0, 0), cell(1, 0, 1)]
    );
    assert_eq!(table.state.to_act, Some(DARK_SEAT));
    let view = table.view(Viewer::Spectator);
    assert_eq!(
        view["seats"][1]["active_leaf_cells"],
        serde_json::json!([[3, 3, 1]])
    );
    assert_eq!(view["cubes"].as_array().map(Vec::len), Some(8));
}

// ---------------------------------------------------------------- view, score, legal actions

#[test]
fn the_view_shows_cubes_supplies_leaves_rate_and_who_acts() {
    let mut table = after_first_turn();
    table.accepts(DARK, grow(&[branch(1, 0, 0)]));
    let view = table.view(Viewer::Spectator);
    assert_eq!(view["phase"], "main");
    assert_eq!(view["to_act"], "light");
    assert_eq!(view["growth_rate"], 1);
    assert_eq!(
        view["cubes"][1],
        serde_json::json!({"cell": [1, 0, 0], "kind": "branch", "colour": "dark"})
    );
    assert_eq!(view["seats"][0]["remaining_branches"], 15);
    assert_eq!(view["seats"][0]["remaining_leaves"], 15);
    assert_eq!(
        view["seats"][0]["active_leaf_cells"],
        serde_json::json!([[0, 0, 0]])
    );
    // Everything is public: every viewer sees the same.
    assert_eq!(view, table.view(Viewer::Seat(DARK_SEAT)));
    assert_eq!(view, table.view(Viewer::Umpire));
}

#[test]
fn the_provisional_score_lists_active_leaves_with_their_cells() {
    let table = after_first_turn();
    let score = serde_json::to_value(Treeblox::score(&table.state, Viewer::Spectator)).unwrap();
    assert_eq!(score["final"], false);
    assert_eq!(score["winner"], serde_json::Value::Null);
    assert_eq!(score["seats"][1]["active_leaves"], 1);
    assert_eq!(
        score["seats"][1]["active_leaf_cells"],
        serde_json::json!([[3, 3, 0]])
    );
}

#[test]
fn the_umpire_may_only_time_out_the_seat_to_act() {
    let table = after_first_turn();
    assert_eq!(
        Treeblox::legal_actions(&table.state, UMPIRE),
        vec![timeout(DARK_SEAT)]
    );
    assert!(Treeblox::legal_actions(&table.state, LIGHT).is_empty());
    let dark_actions = Treeblox::legal_actions(&table.state, DARK);
    assert!(dark_actions.contains(&pass()));
    assert!(dark_actions.contains(&grow(&[branch(1, 0, 0)])));
}

#[test]
fn the_first_turn_lists_a_leaf_in_every_free_hole() {
    let mut table = new_game();
    assert_eq!(Treeblox::legal_actions(&table.state, DARK).len(), 16);
    table.accepts(DARK, grow(&[leaf(2, 2, 0)]));
    let light_actions = Treeblox::legal_actions(&table.state, LIGHT);
    assert_eq!(light_actions.len(), 15);
    assert!(!light_actions.contains(&grow(&[leaf(2, 2, 0)])));
}

#[test]
fn any_action_after_the_end_is_refused_though_it_was_legal_before() {
    let mut before_the_end = after_first_turn();
    before_the_end.accepts(DARK, pass());
    before_the_end.accepts(LIGHT, grow(&[leaf(3, 0, 0)]));

    let mut ended = after_first_turn();
    ended.accepts(DARK, pass());
    ended.accepts(LIGHT, pass());
    ended.refuses(LIGHT, grow(&[leaf(3, 0, 0)]), codes::GAME_OVER.code);
    ended.refuses(UMPIRE, timeout(LIGHT_SEAT), codes::GAME_OVER.code);
    assert!(Treeblox::legal_actions(&ended.state, LIGHT).is_empty());
    assert!(Treeblox::legal_actions(&ended.state, UMPIRE).is_empty());
}

#[test]
fn an_action_before_setup_is_refused() {
    let mut table = Table::<Treeblox>::from_events(TreebloxOptions::default(), Vec::new());
    table.refuses(DARK, grow(&[leaf(0, 0, 0)]), codes::NOT_SET_UP.code);
    assert_eq!(Treeblox::status(&table.state).phase, "setting_up");
    table.apply_all(&Treeblox::setup(
        &TreebloxOptions::default(),
        &mut umpire_domain::rng::rng_from_seed(0),
    ));
    table.accepts(DARK, grow(&[leaf(0, 0, 0)]));
}

#[test]
fn both_seats_timed_out_of_the_first_turn_draw_on_two_passes() {
    let mut table = new_game();
    table.accepts(UMPIRE, timeout(DARK_SEAT));
    let events = table.accepts(UMPIRE, timeout(LIGHT_SEAT));
    assert_eq!(
        events.last(),
        Some(&TreebloxEvent::GameEnded {
            reason: TreebloxEndReason::TwoConsecutivePasses,
            winner: None,
            active_leaves: TreebloxLeafTally { dark: 0, light: 0 },
        })
    );
}

#[test]
fn a_seat_timed_out_of_its_first_turn_loses_at_the_opponents_next_placement() {
    let mut table = new_game();
    table.accepts(DARK, grow(&[leaf(0, 0, 0)]));
    table.accepts(UMPIRE, timeout(LIGHT_SEAT));
    assert_eq!(table.state.to_act, Some(DARK_SEAT));
    let events = table.accepts(DARK, grow(&[branch(1, 0, 0)]));
    assert_eq!(
        events.last(),
        Some(&TreebloxEvent::GameEnded {
            reason: TreebloxEndReason::NoActiveLeaves,
            winner: Some(DARK_SEAT),
            active_leaves: TreebloxLeafTally { dark: 1, light: 0 },
        })
    );
}
