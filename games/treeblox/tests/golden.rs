//! Golden replay of one whole game. With `UPDATE_GOLDEN=1` the game is played
//! afresh (fixed seed, random legal actions) and written to
//! `tests/data/treeblox/`; otherwise the file is read, its actions are
//! re-decided and its events re-folded, and both must reproduce the recorded
//! events, final view and score sheet.

use serde_json::{json, Value};
use umpire_domain::testing::{fold, play_random};
use umpire_domain::{Actor, Game, Seat, Viewer};
use umpire_treeblox::{Treeblox, TreebloxAction, TreebloxEvent, TreebloxOptions, TreebloxSeat};

const SEED: u64 = 2;

fn golden_path() -> String {
    format!(
        "{}/../../tests/data/treeblox/random_game_seed_{SEED}.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn actor_name(actor: &Actor<TreebloxSeat>) -> String {
    match actor {
        Actor::Seat(seat) => seat.name(),
        Actor::Umpire => "umpire".into(),
    }
}

fn parse_actor(name: &str) -> Actor<TreebloxSeat> {
    if name == "umpire" {
        Actor::Umpire
    } else {
        Actor::Seat(TreebloxSeat::parse(name).expect("a seat name"))
    }
}

fn record() -> Value {
    let game = play_random::<Treeblox>(TreebloxOptions::default(), SEED, 1000);
    assert!(game.finished, "the golden game must be a whole game");
    json!({
        "game_id": Treeblox::ID,
        "seed": SEED,
        "options": game.options,
        "actions": game.actions.iter().map(|(actor, action)| json!({
            "actor": actor_name(actor),
            "action": action,
        })).collect::<Vec<_>>(),
        "events": game.events,
        "final_view": Treeblox::view(&game.state, Viewer::Umpire),
        "score": Treeblox::score(&game.state, Viewer::Umpire),
        "summary": Treeblox::summary(&game.state),
    })
}

#[test]
fn the_golden_game_replays_to_the_recorded_state_and_score() {
    let path = golden_path();
    if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
        let text = serde_json::to_string_pretty(&record()).expect("golden serialises");
        std::fs::write(&path, text + "\n").expect("golden file written");
    }
    let text =
        std::fs::read_to_string(&path).expect("golden file exists (UPDATE_GOLDEN=1 writes it)");
    let golden: Value = serde_json::from_str(&text).expect("golden file is JSON");
    let options: TreebloxOptions = serde_json::from_value(golden["options"].clone()).unwrap();
    let events: Vec<TreebloxEvent> = serde_json::from_value(golden["events"].clone()).unwrap();

    // Folding the recorded events gives the recorded view and score.
    let state = fold::<Treeblox>(&options, &events);
    assert!(Treeblox::status(&state).finished);
    assert_eq!(
        serde_json::to_value(Treeblox::view(&state, Viewer::Umpire)).unwrap(),
        golden["final_view"]
    );
    assert_eq!(
        serde_json::to_value(Treeblox::score(&state, Viewer::Umpire)).unwrap(),
        golden["score"]
    );
    assert_eq!(
        serde_json::to_value(Treeblox::summary(&state)).unwrap(),
        golden["summary"]
    );

    // Re-deciding the recorded actions produces exactly the recorded events.
    let mut replayed = fold::<Treeblox>(&options, &events[..1]);
    let mut produced = events[..1].to_vec();
    for entry in golden["actions"].as_array().expect("actions") {
        let actor = parse_actor(entry["actor"].as_str().expect("actor name"));
        let action: TreebloxAction = serde_json::from_value(entry["action"].clone()).unwrap();
        let new_events = Treeblox::decide(&replayed, actor, &action)
            .unwrap_or_else(|violation| panic!("recorded {action:?} refused: {violation}"));
        for event in &new_events {
            Treeblox::apply(&mut replayed, event);
        }
        produced.extend(new_events);
    }
    assert_eq!(produced, events);
    assert_eq!(replayed, state);
}
