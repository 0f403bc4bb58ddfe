//! Golden replay of one whole game (fixed seed, random legal actions),
//! recorded in `tests/data/treeblox/random_game_seed_2.json`: its actions,
//! its events, and the final view, score sheet and summary folded from them.
//! The game played today must give that file byte for byte. Re-bless with
//! `UPDATE_EXPECT=1 cargo test -p umpire-treeblox golden` and review the diff.

use expect_test::expect_file;
use serde_json::json;
use umpire_domain::testing::{fold, play_random};
use umpire_domain::{Actor, Game, Seat, Viewer};
use umpire_treeblox::{Treeblox, TreebloxOptions, TreebloxSeat};

const SEED: u64 = 2;

fn actor_name(actor: &Actor<TreebloxSeat>) -> String {
    match actor {
        Actor::Seat(seat) => seat.name(),
        Actor::Umpire => "umpire".into(),
    }
}

#[test]
fn the_golden_game_replays_to_the_recorded_state_and_score() {
    let game = play_random::<Treeblox>(TreebloxOptions::default(), SEED, 1000);
    assert!(game.finished, "the golden game must be a whole game");
    // Events in, state and score out: folded afresh, not the play's state.
    let state = fold::<Treeblox>(&game.options, &game.events);
    assert_eq!(state, game.state);
    let document = json!({
        "game_id": Treeblox::ID,
        "seed": SEED,
        "options": game.options,
        "actions": game.actions.iter().map(|(actor, action)| json!({
            "actor": actor_name(actor),
            "action": action,
        })).collect::<Vec<_>>(),
        "events": game.events,
        "final_view": Treeblox::view(&state, Viewer::Umpire),
        "score": Treeblox::score(&state, Viewer::Umpire),
        "summary": Treeblox::summary(&state),
    });
    // The rules still decide the same game the same way, and fold it to
    // the same view and score.
    expect_file!["../../../tests/data/treeblox/random_game_seed_2.json"]
        .assert_eq(&(serde_json::to_string_pretty(&document).expect("json") + "\n"));
}
