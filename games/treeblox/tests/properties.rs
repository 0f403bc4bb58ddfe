//! Invariants of Treeblox under random legal play and arbitrary actions.

use std::collections::BTreeMap;

use proptest::prelude::*;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use umpire_domain::testing::{fold, play_random, umpire_view_json};
use umpire_domain::{Actor, Game, Viewer};
use umpire_treeblox::{
    Treeblox, TreebloxAction, TreebloxCell, TreebloxCubeKind, TreebloxEndReason, TreebloxEvent,
    TreebloxOptions, TreebloxPlacement, TreebloxSeat, TreebloxState,
};

/// Enough actions for any game: 64 cubes at one or more per placing turn,
/// plus passes and timeouts.
const MAX_ACTIONS: usize = 400;

/// Active leaves counted the slow way: a leaf is active when no cube of
/// either colour sits anywhere above it in its column.
fn brute_force_active_leaves(state: &TreebloxState, seat: TreebloxSeat) -> usize {
    let cubes = &state.position.cubes;
    cubes
        .iter()
        .filter(|(cell, cube)| {
            cube.owner == seat
                && cube.kind == TreebloxCubeKind::Leaf
                && !cubes
                    .keys()
                    .any(|other| other.x == cell.x && other.y == cell.y && other.z > cell.z)
        })
        .count()
}

/// Every state a random game went through, rebuilt from its events.
fn states_of(events: &[TreebloxEvent]) -> Vec<TreebloxState> {
    let mut state = Treeblox::initial_state(&TreebloxOptions::default());
    let mut states = vec![state.clone()];
    for event in events {
        Treeblox::apply(&mut state, event);
        states.push(state.clone());
    }
    states
}

fn arbitrary_cell() -> impl Strategy<Value = TreebloxCell> {
    prop_oneof![
        4 => (-3..7i32, -3..7i32, -2..5i32).prop_map(|(x, y, z)| TreebloxCell::new(x, y, z)),
        1 => (any::<i32>(), any::<i32>(), any::<i32>()).prop_map(|(x, y, z)| TreebloxCell::new(x, y, z)),
    ]
}

fn arbitrary_action() -> impl Strategy<Value = TreebloxAction> {
    let placement = (any::<bool>(), arbitrary_cell()).prop_map(|(is_leaf, cell)| {
        let kind = if is_leaf {
            TreebloxCubeKind::Leaf
        } else {
            TreebloxCubeKind::Branch
        };
        TreebloxPlacement::new(kind, cell)
    });
    prop_oneof![
        5 => prop::collection::vec(placement, 0..5)
            .prop_map(|placements| TreebloxAction::Grow { placements }),
        1 => any::<bool>().prop_map(|dark| TreebloxAction::Timeout {
            seat: if dark { TreebloxSeat::Dark } else { TreebloxSeat::Light },
        }),
    ]
}

fn arbitrary_actor() -> impl Strategy<Value = Actor<TreebloxSeat>> {
    prop_oneof![
        Just(Actor::Seat(TreebloxSeat::Dark)),
        Just(Actor::Seat(TreebloxSeat::Light)),
        Just(Actor::Umpire),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_legal_play_never_panics_and_always_ends(seed in any::<u64>()) {
        let game = play_random::<Treeblox>(TreebloxOptions::default(), seed, MAX_ACTIONS);
        prop_assert!(game.finished, "not finished after {} actions", game.actions.len());
        let score = Treeblox::score(&game.state, Viewer::Spectator);
        prop_assert!(score.is_final);
        prop_assert!(score.end_reason.is_some());
    }

    #[test]
    fn folding_the_events_reproduces_the_state(seed in any::<u64>()) {
        let game = play_random::<Treeblox>(TreebloxOptions::default(), seed, MAX_ACTIONS);
        let folded = fold::<Treeblox>(&game.options, &game.events);
        prop_assert_eq!(&folded, &game.state);
        prop_assert_eq!(umpire_view_json::<Treeblox>(&folded), umpire_view_json::<Treeblox>(&game.state));
        // Events survive a JSON round trip unchanged.
        let text = serde_json::to_string(&game.events).unwrap();
        let parsed: Vec<TreebloxEvent> = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(parsed, game.events);
    }

    #[test]
    fn every_listed_legal_action_is_accepted(seed in any::<u64>()) {
        let game = play_random::<Treeblox>(TreebloxOptions::default(), seed, MAX_ACTIONS);
        // Every fourth state keeps the test fast while covering every phase.
        for (index, state) in states_of(&game.events).iter().enumerate() {
            let in_final_growth = state.phase == umpire_treeblox::TreebloxPhase::FinalGrowth;
            if index % 4 != 0 && !in_final_growth {
                continue;
            }
            for actor in [
                Actor::Seat(TreebloxSeat::Dark),
                Actor::Seat(TreebloxSeat::Light),
                Actor::Umpire,
            ] {
                for action in Treeblox::legal_actions(state, actor) {
                    if let Err(violation) = Treeblox::decide(state, actor, &action) {
                        prop_assert!(false, "{:?} by {:?} refused: {}", action, actor, violation);
                    }
                }
            }
        }
    }

    #[test]
    fn active_leaves_equal_a_brute_force_recount(seed in any::<u64>()) {
        let game = play_random::<Treeblox>(TreebloxOptions::default(), seed, MAX_ACTIONS);
        for state in states_of(&game.events) {
            for seat in TreebloxSeat::ALL {
                prop_assert_eq!(
                    state.position.active_leaf_count(seat) as usize,
                    brute_force_active_leaves(&state, seat)
                );
            }
            // At most one active leaf per column.
            let mut columns = BTreeMap::new();
            for (cell, _) in state.position.active_leaves() {
                prop_assert!(columns.insert((cell.x, cell.y), ()).is_none());
            }
        }
    }

    #[test]
    fn cubes_are_conserved_and_never_below_ground(seed in any::<u64>()) {
        let game = play_random::<Treeblox>(TreebloxOptions::default(), seed, MAX_ACTIONS);
        for seat in TreebloxSeat::ALL {
            let on_board = game.state.position.cubes.values().filter(|cube| cube.owner == seat).count();
            let in_hand = game.state.position.supply(seat).total() as usize;
            prop_assert_eq!(on_board + in_hand, 32);
        }
        prop_assert!(game.state.position.cubes.keys().all(|cell| cell.z >= 0));
    }

    #[test]
    fn everything_is_public_and_the_summary_is_deterministic(seed in any::<u64>()) {
        let game = play_random::<Treeblox>(TreebloxOptions::default(), seed, MAX_ACTIONS);
        let umpire_view = serde_json::to_value(Treeblox::view(&game.state, Viewer::Umpire)).unwrap();
        for viewer in [
            Viewer::Spectator,
            Viewer::Seat(TreebloxSeat::Dark),
            Viewer::Seat(TreebloxSeat::Light),
        ] {
            prop_assert_eq!(&serde_json::to_value(Treeblox::view(&game.state, viewer)).unwrap(), &umpire_view);
            for event in &game.events {
                let redacted = Treeblox::redact_event(&game.state, event, viewer);
                prop_assert_eq!(redacted.as_ref(), Some(event));
            }
        }
        let folded = fold::<Treeblox>(&game.options, &game.events);
        prop_assert_eq!(Treeblox::summary(&folded), Treeblox::summary(&game.state));
    }

    #[test]
    fn arbitrary_actions_never_panic_and_accepted_ones_apply(
        seed in any::<u64>(),
        stop_after in 0usize..80,
        attempts in prop::collection::vec((arbitrary_actor(), arbitrary_action()), 1..12),
    ) {
        let game = play_random::<Treeblox>(TreebloxOptions::default(), seed, stop_after);
        let mut state = game.state;
        for (actor, action) in attempts {
            if let Ok(events) = Treeblox::decide(&state, actor, &action) {
                for event in &events {
                    Treeblox::apply(&mut state, event);
                }
            }
            let _ = Treeblox::legal_actions(&state, actor);
            let _ = Treeblox::score(&state, Viewer::Spectator);
        }
    }
}

/// A random game that passes, times out and attacks active leaves far more
/// often than uniform play does, so every way of ending is reached.
/// Every action still comes from `legal_actions` and must be accepted.
fn play_restless(seed: u64) -> (TreebloxState, Vec<TreebloxEvent>) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let options = TreebloxOptions::default();
    let mut state = Treeblox::initial_state(&options);
    let mut events = Treeblox::setup(&options, &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    for event in &events {
        Treeblox::apply(&mut state, event);
    }
    for _ in 0..MAX_ACTIONS {
        let Some(seat) = state.to_act else { break };
        let roll: f64 = rng.random();
        let (actor, action) = if roll < 0.04 {
            (Actor::Umpire, TreebloxAction::Timeout { seat })
        } else {
            let legal = Treeblox::legal_actions(&state, Actor::Seat(seat));
            let shading: Vec<&TreebloxAction> = legal
                .iter()
                .filter(|action| match action {
                    TreebloxAction::Grow { placements } => placements.iter().any(|placement| {
                        state.position.active_leaves().iter().any(|(leaf, _)| {
                            leaf.x == placement.cell.x
                                && leaf.y == placement.cell.y
                                && leaf.z < placement.cell.z
                        })
                    }),
                    TreebloxAction::Timeout { .. } => false,
                })
                .collect();
            let pass = TreebloxAction::Grow {
                placements: Vec::new(),
            };
            let action = if roll < 0.12 && legal.contains(&pass) {
                pass
            } else if roll < 0.6 && !shading.is_empty() {
                (*shading.choose(&mut rng).expect("non-empty")).clone()
            } else {
                legal
                    .choose(&mut rng)
                    .cloned()
                    .expect("a seat to act has a legal action")
            };
            (Actor::Seat(seat), action)
        };
        let produced = Treeblox::decide(&state, actor, &action)
            .unwrap_or_else(|violation| panic!("{action:?} by {actor:?} refused: {violation}"));
        for event in &produced {
            Treeblox::apply(&mut state, event);
        }
        events.extend(produced);
    }
    (state, events)
}

#[test]
fn restless_random_games_end_in_every_way_and_keep_the_invariants() {
    let mut reasons = BTreeMap::new();
    for seed in 0..60u64 {
        let (state, events) = play_restless(seed);
        assert!(
            Treeblox::status(&state).finished,
            "seed {seed} did not finish"
        );
        assert_eq!(
            fold::<Treeblox>(&TreebloxOptions::default(), &events),
            state
        );
        for seat in TreebloxSeat::ALL {
            assert_eq!(
                state.position.active_leaf_count(seat) as usize,
                brute_force_active_leaves(&state, seat)
            );
        }
        let reason = state.outcome.map(|outcome| outcome.reason);
        *reasons.entry(format!("{reason:?}")).or_insert(0) += 1;
    }
    eprintln!("end reasons over 60 restless games: {reasons:?}");
    for reason in [
        TreebloxEndReason::FinalGrowthCompleted,
        TreebloxEndReason::NoActiveLeaves,
        TreebloxEndReason::TwoConsecutivePasses,
    ] {
        assert!(
            reasons.contains_key(&format!("{:?}", Some(reason))),
            "{reason:?} never happened"
        );
    }
}

#[test]
fn uniform_random_games_mostly_end_by_running_out_of_cubes() {
    let exhausted = (0..20u64)
        .filter(|seed| {
            let game = play_random::<Treeblox>(TreebloxOptions::default(), *seed, MAX_ACTIONS);
            game.state.outcome.map(|outcome| outcome.reason)
                == Some(TreebloxEndReason::FinalGrowthCompleted)
        })
        .count();
    assert!(
        exhausted >= 10,
        "only {exhausted} of 20 games ended by exhaustion"
    );
}

/// The umpire is shown every event whole, and every viewer the events of
/// `PUBLIC_EVENTS`, judged at any version (`Game::redact_event`'s contract,
/// on which the service relies instead of redacting them).
#[test]
fn the_umpire_sees_every_event_and_everyone_the_public_ones_whole() {
    for seed in 0..6 {
        let game = play_random::<Treeblox>(TreebloxOptions::default(), seed, MAX_ACTIONS);
        umpire_domain::testing::assert_unredacted_events_are_whole(&game);
    }
}

/// What the service keeps of a fold between folds (a snapshot of the
/// state) resumes the same match at every version of random games, and
/// folds on to the same end.
#[test]
fn a_snapshot_resumes_the_same_match_at_every_version() {
    for seed in 0..3 {
        let game = play_random::<Treeblox>(TreebloxOptions::default(), seed, MAX_ACTIONS);
        umpire_domain::testing::assert_snapshots_resume_every_state(&game);
    }
}
