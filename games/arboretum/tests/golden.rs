//! Golden replay: one whole game with a fixed seed and a deterministic
//! choice of actions, recorded in `tests/data/arboretum/full_game.json`
//! (its events, and the umpire's final view, score and summary folded from
//! them). The game played today must give that file byte for byte.
//! Re-bless with `UPDATE_EXPECT=1 cargo test -p umpire-arboretum golden`
//! and review the diff.

use expect_test::expect_file;
use serde_json::json;
use umpire_arboretum::{Arboretum, ArboretumEvent, ArboretumOptions};
use umpire_domain::rng::rng_from_seed;
use umpire_domain::testing::{fold, umpire_view_json};
use umpire_domain::{Actor, Game, Viewer};

const SEED: u64 = 20_150_001;

/// Plays the game: the first seat to act (else the umpire) plays the listed
/// action at a position that cycles through the list, so the game mixes
/// plants, takes, hires, digs, starts and skips.
fn play_fixed_game() -> (ArboretumOptions, Vec<ArboretumEvent>) {
    let options = ArboretumOptions::default();
    let mut state = Arboretum::initial_state(&options);
    let mut events = Arboretum::setup(&options, &mut rng_from_seed(SEED));
    for event in &events {
        Arboretum::apply(&mut state, event);
    }
    for step in 0..2_000usize {
        let status = Arboretum::status(&state);
        if status.finished {
            break;
        }
        // In bidding both seats are listed (a bid may be replaced); pick one
        // that has not bid yet so the round moves on.
        let actor = status
            .to_act
            .iter()
            .find(|seat| state.bids[seat.index()].is_none())
            .or(status.to_act.first())
            .copied()
            .map(Actor::Seat)
            .unwrap_or(Actor::Umpire);
        let legal = Arboretum::legal_actions(&state, actor);
        let (actor, legal) = if legal.is_empty() {
            (
                Actor::Umpire,
                Arboretum::legal_actions(&state, Actor::Umpire),
            )
        } else {
            (actor, legal)
        };
        let action = legal[(step * 7_919 + 13) % legal.len()].clone();
        let produced = Arboretum::decide(&state, actor, &action).expect("listed actions are legal");
        for event in &produced {
            Arboretum::apply(&mut state, event);
        }
        events.extend(produced);
    }
    (options, events)
}

#[test]
fn the_golden_game_replays_to_the_recorded_state_and_score() {
    let (options, events) = play_fixed_game();
    // Events in, state and score out: folded afresh, not the play's state.
    let state = fold::<Arboretum>(&options, &events);
    assert!(Arboretum::status(&state).finished, "the fixed game ends");
    let document = json!({
        "game": "arboretum",
        "seed": SEED,
        "options": options,
        "events": events,
        "final_view": umpire_view_json::<Arboretum>(&state),
        "score": Arboretum::score(&state, Viewer::Umpire),
        "summary": Arboretum::summary(&state),
    });
    // The rules still decide the same game the same way, and fold it to
    // the same view and score.
    expect_file!["../../../tests/data/arboretum/full_game.json"]
        .assert_eq(&(serde_json::to_string_pretty(&document).unwrap() + "\n"));
}
