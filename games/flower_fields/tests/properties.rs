//! Invariants over random games: play never panics and ends, replay
//! reproduces the state, listed actions are accepted, and no viewer ever
//! sees another seat's secrets (§8).

mod common;

use proptest::prelude::*;
use rand::seq::IndexedRandom;
use rand::Rng;
use serde_json::Value;
use umpire_domain::rng::rng_from_seed;
use umpire_domain::testing::{fold, play_random, umpire_view_json};
use umpire_domain::{Actor, Game, SeatIndex, Viewer};
use umpire_flower_fields::flowers::{all_fields, manages, Flower};
use umpire_flower_fields::state::{FieldState, SeatState, State};
use umpire_flower_fields::{Event, FlowerFields, Options};

/// A random game where the umpire also acts now and then: timeouts, closed
/// rounds and ruling switches, which `play_random` never tries while seats
/// are waiting.
struct MixedGame {
    options: Options,
    events: Vec<Event>,
    /// The state after each event (index `i` = after `events[i]`).
    states: Vec<State>,
}

fn mixed_game(seed: u64) -> MixedGame {
    let mut rng = rng_from_seed(seed);
    let options = Options {
        starting_garnets: rng.random_range(0..=12),
        piece_replacement: rng.random_bool(0.5),
        ..Options::default()
    };
    let mut state = FlowerFields::initial_state(&options);
    let mut events = Vec::new();
    let mut states = Vec::new();
    let mut record = |state: &mut State, produced: Vec<Event>| {
        for event in produced {
            FlowerFields::apply(state, &event);
            events.push(event);
            states.push(state.clone());
        }
    };
    let setup = FlowerFields::setup(&options, &mut rng_from_seed(seed.wrapping_add(1)));
    record(&mut state, setup);
    for _ in 0..3000 {
        let status = FlowerFields::status(&state);
        if status.finished {
            break;
        }
        let actor = match status.to_act.choose(&mut rng) {
            Some(seat) if !rng.random_bool(0.06) => Actor::Seat(*seat),
            _ => Actor::Umpire,
        };
        let legal = FlowerFields::legal_actions(&state, actor);
        let Some(action) = legal.choose(&mut rng) else {
            panic!("no legal action for {actor:?} in phase {}", status.phase);
        };
        if let Some(other) = legal.choose(&mut rng) {
            if let Err(violation) = FlowerFields::decide(&state, actor, other) {
                panic!("listed action {other:?} was refused: {violation}");
            }
        }
        let produced = FlowerFields::decide(&state, actor, action).unwrap_or_else(|violation| {
            panic!("listed action {action:?} by {actor:?} was refused: {violation}")
        });
        record(&mut state, produced);
    }
    MixedGame {
        options,
        events,
        states,
    }
}

/// Keys whose values are someone's secret during play.
const SECRET_KEYS: [&str; 16] = [
    "hand",
    "garnets",
    "submission",
    "penalties",
    "break_payments",
    "discarded",
    "cells",
    "last_piece",
    "next_must_break",
    "revealed_piece",
    "revealed",
    "piece",
    "with",
    "bags",
    "must_break",
    "flowers",
];

#[derive(Clone, Copy)]
enum Owner {
    Field(u64),
    Seat(u64),
}

/// Walks JSON and fails on a secret key whose enclosing owners (the
/// nearest objects naming a `field`, or else a `seat`/`owner`) are not all
/// visible to `viewer` (`None` = spectator). An object naming a field is
/// owned by the field: its two managers see it.
fn check_secrets(value: &Value, viewer: Option<u8>, owners: &mut Vec<Owner>, path: &str) {
    match value {
        Value::Object(map) => {
            let owner = if let Some(field) = map.get("field").and_then(Value::as_u64) {
                Some(Owner::Field(field))
            } else {
                map.get("seat")
                    .or_else(|| map.get("owner"))
                    .and_then(Value::as_u64)
                    .map(Owner::Seat)
            };
            if let Some(owner) = owner {
                owners.push(owner);
            }
            for (key, inner) in map {
                if SECRET_KEYS.contains(&key.as_str()) {
                    let allowed = !owners.is_empty()
                        && owners.iter().all(|owner| match (owner, viewer) {
                            (_, None) => false,
                            (Owner::Seat(seat), Some(viewer)) => *seat == u64::from(viewer),
                            (Owner::Field(field), Some(viewer)) => u8::try_from(*field)
                                .is_ok_and(|field| manages(SeatIndex(viewer), field)),
                        });
                    assert!(
                        allowed,
                        "viewer {viewer:?} sees secret `{key}` at {path}: {value}"
                    );
                }
                check_secrets(inner, viewer, owners, &format!("{path}.{key}"));
            }
            if owner.is_some() {
                owners.pop();
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                check_secrets(item, viewer, owners, &format!("{path}[{index}]"));
            }
        }
        _ => {}
    }
}

fn viewer_of(seat: Option<u8>) -> Viewer<SeatIndex> {
    seat.map_or(Viewer::Spectator, |seat| Viewer::Seat(SeatIndex(seat)))
}

/// Every piece name in both orders, quoted as it appears in JSON.
fn piece_names() -> Vec<String> {
    let mut names = Vec::new();
    for first in Flower::PLANTABLE {
        for second in Flower::PLANTABLE {
            names.push(format!("\"{first}-{second}\""));
        }
    }
    names
}

/// The state with everything `seat` may not see wiped out.
fn scrubbed_for(state: &State, seat: u8) -> State {
    let mut scrubbed = state.clone();
    for field in all_fields() {
        if !manages(SeatIndex(seat), field) {
            if let Some(field_state) = scrubbed.field_mut(field) {
                *field_state = FieldState::empty();
            }
        }
    }
    for other in 0..5u8 {
        if other != seat {
            if let Some(seat_state) = scrubbed.seat_mut(SeatIndex(other)) {
                *seat_state = SeatState::default();
            }
        }
    }
    scrubbed.bags.clear();
    scrubbed
}

fn assert_no_leaks(game: &MixedGame) {
    let viewers: Vec<Option<u8>> = vec![None, Some(0), Some(1), Some(2), Some(3), Some(4)];
    let pieces = piece_names();
    for (version, (event, state)) in game.events.iter().zip(&game.states).enumerate() {
        if state.ended {
            break;
        }
        for viewer in &viewers {
            let as_viewer = viewer_of(*viewer);
            let view = serde_json::to_value(FlowerFields::view(state, as_viewer)).expect("view");
            let score = serde_json::to_value(FlowerFields::score(state, as_viewer)).expect("score");
            let redacted = FlowerFields::redact_event(state, event, as_viewer);
            let event_json = serde_json::to_value(&redacted).expect("event");
            for (what, json) in [("view", &view), ("score", &score), ("event", &event_json)] {
                check_secrets(
                    json,
                    *viewer,
                    &mut Vec::new(),
                    &format!("v{version}.{what}"),
                );
            }
            match viewer {
                None => {
                    let text = format!("{view}{score}{event_json}");
                    for piece in &pieces {
                        assert!(
                            !text.contains(piece.as_str()),
                            "spectator sees {piece} at v{version}"
                        );
                    }
                    assert!(
                        !text.contains("\"A1\""),
                        "spectator sees a cell at v{version}"
                    );
                }
                Some(seat) => {
                    // The provisional score uses only what the seat sees.
                    let scrubbed = scrubbed_for(state, *seat);
                    assert_eq!(
                        serde_json::to_value(FlowerFields::score(&scrubbed, as_viewer))
                            .expect("score"),
                        score,
                        "seat {seat}'s score depends on hidden information at v{version}"
                    );
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn random_legal_play_ends_and_replays_to_the_same_state(seed in any::<u64>()) {
        let game = play_random::<FlowerFields>(Options::default(), seed, 2000);
        prop_assert!(game.finished);
        let replayed = fold::<FlowerFields>(&game.options, &game.events);
        prop_assert_eq!(umpire_view_json::<FlowerFields>(&replayed), umpire_view_json::<FlowerFields>(&game.state));
        prop_assert_eq!(FlowerFields::summary(&replayed), FlowerFields::summary(&game.state));
        prop_assert!(FlowerFields::summary(&game.state).is_final);
    }

    #[test]
    fn games_with_umpire_actions_end_replay_and_keep_secrets(seed in any::<u64>()) {
        let game = mixed_game(seed);
        let last = game.states.last().expect("events");
        prop_assert!(FlowerFields::status(last).finished);
        let replayed = fold::<FlowerFields>(&game.options, &game.events);
        prop_assert_eq!(&replayed, last);
        // Events survive a JSON round trip unchanged.
        let text = serde_json::to_string(&game.events).expect("events serialise");
        let parsed: Vec<Event> = serde_json::from_str(&text).expect("events parse");
        prop_assert_eq!(&parsed, &game.events);
        assert_no_leaks(&game);
    }

    #[test]
    fn arbitrary_actions_never_panic(seed in any::<u64>(), json in arbitrary_action_json()) {
        let game = play_random::<FlowerFields>(Options::default(), seed, 25);
        if let Ok(action) = serde_json::from_value::<umpire_flower_fields::Action>(json) {
            for actor in [Actor::Umpire, Actor::Seat(SeatIndex(0)), Actor::Seat(SeatIndex(3)), Actor::Seat(SeatIndex(200))] {
                let _ = FlowerFields::decide(&game.state, actor, &action);
            }
        }
    }
}

fn arbitrary_action_json() -> impl Strategy<Value = Value> {
    let flower = prop::sample::select(vec!["white", "red", "yellow", "blue", "purple", "orange"]);
    let piece = (flower.clone(), flower).prop_map(|(first, second)| format!("{first}-{second}"));
    let cell =
        (0u8..5, 1u8..6).prop_map(|(column, row)| format!("{}{row}", char::from(b'A' + column)));
    let field = 0u8..7;
    (piece.clone(), piece, cell.clone(), cell.clone(), cell.clone(), cell, field, any::<bool>(), 0u8..8).prop_map(
        |(piece, other, first, second, third, fourth, field, broken, kind)| match kind {
            0 => serde_json::json!({"type": "submit", "field": field, "piece": piece, "cells": [first, second], "broken": broken}),
            1 => serde_json::json!({"type": "submit", "field": field, "piece": piece, "cells": [first, second],
                "revealed": {"piece": other, "cells": [third, fourth], "broken": broken}, "replaces_previous": true}),
            2 => serde_json::json!({"type": "replace_piece", "piece": piece, "with": other}),
            3 => serde_json::json!({"type": "timeout", "seat": field}),
            4 => serde_json::json!({"type": "close_round"}),
            5 => serde_json::json!({"type": "set_ruling", "rule": "piece_replacement", "enabled": broken}),
            6 => serde_json::json!({"type": "choose_candidate", "seat": field}),
            _ => serde_json::json!({"type": "submit", "field": field, "piece": piece, "cells": [first, first],
                "penalties": {"clockwise": "garnets"}}),
        },
    )
}

#[test]
fn the_summary_is_deterministic_for_a_seed() {
    let first = play_random::<FlowerFields>(Options::default(), 7, 2000);
    let second = play_random::<FlowerFields>(Options::default(), 7, 2000);
    assert_eq!(
        FlowerFields::summary(&first.state),
        FlowerFields::summary(&second.state)
    );
    assert_eq!(
        serde_json::to_value(&first.events).expect("json"),
        serde_json::to_value(&second.events).expect("json")
    );
}

#[test]
fn the_leak_check_catches_a_leak() {
    // The checker must be able to fail: a foreign hand is a leak.
    let game = mixed_game(3);
    let state = &game.states[game.states.len() / 3];
    let umpire_view =
        serde_json::to_value(FlowerFields::view(state, Viewer::Umpire)).expect("view");
    let caught = std::panic::catch_unwind(|| {
        check_secrets(&umpire_view, Some(0), &mut Vec::new(), "umpire")
    });
    assert!(caught.is_err());
}

#[test]
fn mixed_games_exercise_every_kind_of_event() {
    let mut kinds = std::collections::BTreeSet::new();
    for seed in 0..12 {
        for event in mixed_game(seed).events {
            let json = serde_json::to_value(&event).expect("json");
            kinds.insert(json["type"].as_str().unwrap_or_default().to_string());
        }
    }
    for expected in [
        "piece_revealed",
        "break_penalty_taken",
        "piece_replaced",
        "submission_missed",
        "piece_discarded",
        "ruling_set",
        "result_declared",
    ] {
        assert!(kinds.contains(expected), "no {expected} in {kinds:?}");
    }
}
