//! Golden replays of whole games: events in, umpire view and score sheet out.
//! Re-bless with `UPDATE_GOLDEN=1 cargo test -p umpire-draft-cider --test golden`.

use serde_json::{json, Value};
use umpire_domain::testing::{fold, umpire_view_json, Table};
use umpire_domain::{Actor, Game, Seat, SeatIndex, Viewer};
use umpire_draft_cider::score::score_sheet;
use umpire_draft_cider::{DraftCider, DraftCiderAction, DraftCiderEvent, DraftCiderOptions};

fn golden_path(name: &str) -> String {
    format!(
        "{}/../../tests/data/draft_cider/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn actor_name(actor: &Actor<SeatIndex>) -> String {
    match actor {
        Actor::Seat(seat) => seat.name(),
        Actor::Umpire => "umpire".to_string(),
    }
}

fn parse_actor(name: &str) -> Actor<SeatIndex> {
    if name == "umpire" {
        Actor::Umpire
    } else {
        Actor::Seat(SeatIndex::parse(name).expect("a seat name"))
    }
}

/// A deterministic greedy player: the legal pick that most raises its own
/// provisional total, the first listed on ties. The umpire times out the
/// picks listed in `timeouts` (by pick number).
fn play_greedy(
    options: DraftCiderOptions,
    seed: u64,
    timeouts: &[usize],
) -> (Table<DraftCider>, Vec<(Actor<SeatIndex>, DraftCiderAction)>) {
    let mut table = Table::<DraftCider>::new(options, seed);
    let mut actions = Vec::new();
    let mut pick_number = 0;
    while !table.state.finished {
        let picker = table.state.picker;
        let (actor, action) = if timeouts.contains(&pick_number) {
            (Actor::Umpire, DraftCiderAction::Timeout { seat: picker })
        } else {
            let legal = DraftCider::legal_actions(&table.state, Actor::Seat(picker));
            let mut best: Option<(i64, DraftCiderAction)> = None;
            for action in legal {
                let mut after = table.state.clone();
                for event in
                    DraftCider::decide(&table.state, Actor::Seat(picker), &action).expect("legal")
                {
                    DraftCider::apply(&mut after, &event);
                }
                let total = score_sheet(&after).seats[usize::from(picker.0)].total;
                if best
                    .as_ref()
                    .is_none_or(|(best_total, _)| total > *best_total)
                {
                    best = Some((total, action));
                }
            }
            (Actor::Seat(picker), best.expect("a legal pick").1)
        };
        table.accepts(actor, action.clone());
        actions.push((actor, action));
        pick_number += 1;
    }
    (table, actions)
}

fn check_golden(name: &str, options: DraftCiderOptions, seed: u64, timeouts: &[usize]) {
    let (table, actions) = play_greedy(options.clone(), seed, timeouts);
    let path = golden_path(name);
    if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
        let document = json!({
            "game": "draft_cider",
            "options": options,
            "seed": seed,
            "actions": actions.iter().map(|(actor, action)| json!({"actor": actor_name(actor), "action": action})).collect::<Vec<_>>(),
            "events": table.events,
            "view": umpire_view_json::<DraftCider>(&table.state),
            "score": DraftCider::score(&table.state, Viewer::Umpire),
        });
        let text = serde_json::to_string_pretty(&document).expect("json") + "\n";
        std::fs::write(&path, text).expect("write golden file");
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{path}: {error} (run with UPDATE_GOLDEN=1)"));
    let document: Value = serde_json::from_str(&text).expect("golden file is JSON");
    let options: DraftCiderOptions =
        serde_json::from_value(document["options"].clone()).expect("options");
    let events: Vec<DraftCiderEvent> =
        serde_json::from_value(document["events"].clone()).expect("events");

    // Re-folding the stored events gives the stored state and score.
    let state = fold::<DraftCider>(&options, &events);
    assert_eq!(
        umpire_view_json::<DraftCider>(&state),
        document["view"],
        "{name}: view"
    );
    assert_eq!(
        serde_json::to_value(DraftCider::score(&state, Viewer::Umpire)).expect("json"),
        document["score"],
        "{name}: score"
    );
    assert!(DraftCider::status(&state).finished);

    // Re-deciding the stored actions gives the stored events: the rules did not drift.
    let mut replay = Table::<DraftCider>::new(options, document["seed"].as_u64().expect("seed"));
    for entry in document["actions"].as_array().expect("actions") {
        let actor = parse_actor(entry["actor"].as_str().expect("actor"));
        let action: DraftCiderAction =
            serde_json::from_value(entry["action"].clone()).expect("action");
        replay.accepts(actor, action);
    }
    assert_eq!(replay.events, events, "{name}: events");
    // And today's deterministic player still plays the same game.
    assert_eq!(table.events, events, "{name}: greedy play changed");
}

#[test]
fn a_whole_three_player_game_replays_to_its_golden_state_and_score() {
    let options = DraftCiderOptions {
        players: 3,
        first_picker: 1,
        ..DraftCiderOptions::default()
    };
    check_golden("three_players_classic", options, 20_240_604, &[4, 13]);
}

#[test]
fn a_whole_solo_game_replays_to_its_golden_state_and_score() {
    let options = DraftCiderOptions {
        players: 1,
        ..DraftCiderOptions::default()
    };
    check_golden("solo_classic", options, 4_004, &[]);
}
