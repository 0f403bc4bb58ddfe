//! Golden replay: one whole game with a fixed seed and a deterministic
//! choice of actions. `UPDATE_GOLDEN=1` rewrites the file; otherwise its
//! events are re-folded and must give the recorded final view and score,
//! and replaying the same choices must give the same events.

use std::path::PathBuf;

use serde_json::{json, Value};
use umpire_arboretum::{Arboretum, ArboretumEvent, ArboretumOptions};
use umpire_domain::rng::rng_from_seed;
use umpire_domain::testing::{fold, umpire_view_json};
use umpire_domain::{Actor, Game, Viewer};

const SEED: u64 = 20_150_001;

fn golden_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/arboretum/full_game.json")
}

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
    let state = fold::<Arboretum>(&options, &events);
    assert!(Arboretum::status(&state).finished, "the fixed game ends");
    let path = golden_path();
    if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
        let file = json!({
            "game": "arboretum",
            "seed": SEED,
            "options": options,
            "events": events,
            "final_view": umpire_view_json::<Arboretum>(&state),
            "score": Arboretum::score(&state, Viewer::Umpire),
            "summary": Arboretum::summary(&state),
        });
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(&file).unwrap() + "\n").unwrap();
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}; run with UPDATE_GOLDEN=1", path.display()));
    let file: Value = serde_json::from_str(&text).unwrap();
    let recorded_options: ArboretumOptions =
        serde_json::from_value(file["options"].clone()).unwrap();
    let recorded_events: Vec<ArboretumEvent> =
        serde_json::from_value(file["events"].clone()).unwrap();
    let refolded = fold::<Arboretum>(&recorded_options, &recorded_events);
    assert_eq!(umpire_view_json::<Arboretum>(&refolded), file["final_view"]);
    assert_eq!(
        serde_json::to_value(Arboretum::score(&refolded, Viewer::Umpire)).unwrap(),
        file["score"]
    );
    assert_eq!(
        serde_json::to_value(Arboretum::summary(&refolded)).unwrap(),
        file["summary"]
    );
    // The rules still decide the same game the same way.
    assert_eq!(
        recorded_events, events,
        "the fixed game now plays differently"
    );
}
