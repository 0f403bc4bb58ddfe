//! Invariants over random games: play never panics and ends, replay
//! reproduces the state, listed actions are accepted, and no viewer ever
//! sees another seat's secrets (§8), not even in the violation that refuses
//! one of its own actions.

use proptest::prelude::*;
use rand::seq::IndexedRandom;
use rand::Rng;
use serde_json::Value;
use umpire_domain::rng::rng_from_seed;
use umpire_domain::testing::{self, fold, play_random, spread, umpire_view_json, Decide};
use umpire_domain::{Actor, Game, SeatIndex, Viewer, Violation};
use umpire_flower_fields::flowers::{all_fields, field_due, manages, FlowerFieldsFlower};
use umpire_flower_fields::state::{FieldState, FlowerFieldsState, SeatState};
use umpire_flower_fields::{
    FlowerFields, FlowerFieldsAction, FlowerFieldsCell, FlowerFieldsEvent, FlowerFieldsOptions,
    FlowerFieldsPiece,
};

/// A random game where the umpire also acts now and then: timeouts, closed
/// rounds and ruling switches, which `play_random` never tries while seats
/// are waiting.
struct MixedGame {
    options: FlowerFieldsOptions,
    events: Vec<FlowerFieldsEvent>,
    /// The state after each event (index `i` = after `events[i]`).
    states: Vec<FlowerFieldsState>,
}

fn mixed_game(seed: u64) -> MixedGame {
    let mut rng = rng_from_seed(seed);
    let options = FlowerFieldsOptions {
        starting_garnets: rng.random_range(0..=12),
        piece_replacement: rng.random_bool(0.5),
        ..FlowerFieldsOptions::default()
    };
    let mut state = FlowerFields::initial_state(&options);
    let mut events = Vec::new();
    let mut states = Vec::new();
    let mut record = |state: &mut FlowerFieldsState, produced: Vec<FlowerFieldsEvent>| {
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
    for first in FlowerFieldsFlower::PLANTABLE {
        for second in FlowerFieldsFlower::PLANTABLE {
            names.push(format!("\"{first}-{second}\""));
        }
    }
    names
}

/// The state with everything `seat` may not see wiped out.
fn scrubbed_for(state: &FlowerFieldsState, seat: u8) -> FlowerFieldsState {
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

fn secret_pieces_for(state: &FlowerFieldsState, seat: u8) -> Vec<FlowerFieldsPiece> {
    let mut secrets = Vec::new();
    for (index, seat_state) in state.seats.iter().enumerate() {
        if index == usize::from(seat) {
            continue;
        }
        secrets.extend(seat_state.hand.iter().map(|held| held.piece));
        if let Some(submission) = seat_state.submission {
            secrets.push(submission.piece);
            secrets.extend(submission.revealed.map(|placement| placement.piece));
        }
        secrets.extend(seat_state.missed_piece);
        secrets.extend(seat_state.discarded.iter().copied());
        for (_, piece, with) in &seat_state.replacements {
            secrets.extend([*piece, *with]);
        }
    }
    for (index, bag) in state.bags.iter().enumerate() {
        // A seat's own bag is dealt one piece a round, from round 0 on.
        let known = if index == usize::from(seat) {
            usize::from(state.round) + 1
        } else {
            0
        };
        secrets.extend(bag.iter().skip(known).copied());
    }
    for field in all_fields() {
        if manages(SeatIndex(seat), field) {
            continue;
        }
        if let Some(field_state) = state.field(field) {
            secrets.extend(field_state.last_piece.map(|last| last.piece));
            secrets.extend(field_state.revealed.map(|revealed| revealed.piece));
        }
    }
    secrets
}

/// Both ways of writing a piece (`same_piece_as` treats them as one).
fn piece_spellings(piece: FlowerFieldsPiece) -> [String; 2] {
    [
        format!("{}-{}", piece.first, piece.second),
        format!("{}-{}", piece.second, piece.first),
    ]
}

/// Every piece written out in `text` (`red-blue`), in either order.
fn pieces_named_in(text: &str) -> Vec<FlowerFieldsPiece> {
    text.split(|character: char| !(character.is_ascii_alphabetic() || character == '-'))
        .filter_map(|word| word.parse::<FlowerFieldsPiece>().ok())
        .collect()
}

/// Fails when the refusal shown to `seat` names a piece that is secret to
/// it. A piece the seat can see anyway (its own hand or fields: `seen`) or
/// named itself in the action (`sent`) may be named: with 15 kinds of piece
/// in five bags every piece is also someone's secret, and echoing what the
/// seat sent or already sees tells it nothing. A message that depends on a
/// secret without naming it is caught by the blind-state comparison in
/// `assert_refusals_keep_secrets` instead.
fn assert_refusal_names_no_secret(
    violation: &Violation,
    secrets: &[FlowerFieldsPiece],
    seen: &str,
    sent: &str,
    context: &str,
) {
    // Code, message and rule, as the seat receives them.
    let shown = serde_json::to_string(violation).expect("violation");
    for named in pieces_named_in(&shown) {
        if !secrets.iter().any(|secret| secret.same_piece_as(&named)) {
            continue;
        }
        let known = piece_spellings(named)
            .iter()
            .any(|spelling| seen.contains(spelling.as_str()) || sent.contains(spelling.as_str()));
        assert!(
            known,
            "{context}: the refusal {shown} names the secret piece {named}"
        );
    }
}

/// Feeds `actions` to `decide` as `seat` and checks every refusal: the
/// violation passes `check_secrets`, names no piece secret to the seat,
/// and is exactly what the same action meets in the state with every
/// secret of other seats wiped out (`scrubbed_for`), so it cannot depend
/// on them. Whether the action is accepted at all must not depend on them
/// either.
fn assert_refusals_keep_secrets(
    state: &FlowerFieldsState,
    seat: u8,
    seen: &str,
    actions: &[FlowerFieldsAction],
    decide: Decide<FlowerFields>,
    context: &str,
) {
    let actor = Actor::Seat(SeatIndex(seat));
    let secrets = secret_pieces_for(state, seat);
    let blind = scrubbed_for(state, seat);
    testing::assert_refusals_keep_secrets::<FlowerFields>(
        decide,
        state,
        &[blind],
        actor,
        actions,
        context,
        |violation, sent, context| {
            let json = serde_json::to_value(violation).expect("violation");
            check_secrets(&json, Some(seat), &mut Vec::new(), context);
            assert_refusal_names_no_secret(violation, &secrets, seen, sent, context);
        },
    );
}

/// What each seat (0–4) and the umpire (5) may do at one state, a few
/// actions each, listed once and shared by every seat's probes.
fn listed_actions(state: &FlowerFieldsState) -> Vec<Vec<FlowerFieldsAction>> {
    let mut listed: Vec<Vec<FlowerFieldsAction>> = (0..5u8)
        .map(|seat| {
            spread(
                &FlowerFields::legal_actions(state, Actor::Seat(SeatIndex(seat))),
                4,
            )
        })
        .collect();
    listed.push(spread(
        &FlowerFields::legal_actions(state, Actor::Umpire),
        3,
    ));
    listed
}

/// The actions to try as `seat`: (a) what the other seats and the umpire
/// may do now (`listed`), (b) the seat's own listed actions with another
/// seat's or a bag's piece, another field or other cells, and (c) the
/// arbitrary ones.
fn probe_actions(
    state: &FlowerFieldsState,
    seat: SeatIndex,
    listed: &[Vec<FlowerFieldsAction>],
    arbitrary: &[FlowerFieldsAction],
) -> Vec<FlowerFieldsAction> {
    let mut probes = Vec::new();
    for (index, actions) in listed.iter().enumerate() {
        if index != usize::from(seat.0) {
            probes.extend(actions.iter().cloned());
        }
    }
    let mut own = spread(
        listed
            .get(usize::from(seat.0))
            .map_or(&[][..], Vec::as_slice),
        2,
    );
    if own.is_empty() {
        // Nothing is legal (missed, between rounds, over): still try a plain
        // submission into the due field.
        own.push(FlowerFieldsAction::Submit {
            field: field_due(seat, state.round),
            piece: FlowerFieldsPiece::new(FlowerFieldsFlower::White, FlowerFieldsFlower::Red),
            cells: ["A1".parse().expect("cell"), "A2".parse().expect("cell")],
            broken: false,
            revealed: None,
            penalties: Default::default(),
            replaces_previous: false,
        });
    }
    let secret_pieces = spread(&secret_pieces_for(state, seat.0), 4);
    let corner: FlowerFieldsCell = "E5".parse().expect("cell");
    for action in own {
        for secret in &secret_pieces {
            probes.push(with_piece(&action, *secret));
        }
        if let FlowerFieldsAction::Submit {
            field,
            piece,
            cells,
            broken,
            revealed,
            penalties,
            replaces_previous,
        } = action.clone()
        {
            for other_field in [(field + 1) % 5, 7] {
                probes.push(FlowerFieldsAction::Submit {
                    field: other_field,
                    piece,
                    cells,
                    broken,
                    revealed,
                    penalties,
                    replaces_previous,
                });
            }
            for moved in [[cells[0], cells[0]], [cells[0], corner]] {
                probes.push(FlowerFieldsAction::Submit {
                    field,
                    piece,
                    cells: moved,
                    broken: !broken,
                    revealed,
                    penalties,
                    replaces_previous: !replaces_previous,
                });
            }
        }
        probes.push(action);
    }
    probes.extend(arbitrary.iter().cloned());
    probes
}

/// The action with its own piece swapped for `piece` (a replacement swaps
/// the piece given up).
fn with_piece(action: &FlowerFieldsAction, piece: FlowerFieldsPiece) -> FlowerFieldsAction {
    let mut changed = action.clone();
    match &mut changed {
        FlowerFieldsAction::Submit { piece: own, .. }
        | FlowerFieldsAction::ReplacePiece { piece: own, .. } => {
            *own = piece;
        }
        _ => {}
    }
    changed
}

fn assert_no_leaks(game: &MixedGame, arbitrary_actions: &[FlowerFieldsAction]) {
    let viewers: Vec<Option<u8>> = vec![None, Some(0), Some(1), Some(2), Some(3), Some(4)];
    let pieces = piece_names();
    for (version, (event, state)) in game.events.iter().zip(&game.states).enumerate() {
        if state.ended {
            break;
        }
        let listed = listed_actions(state);
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
                    let probes = probe_actions(state, SeatIndex(*seat), &listed, arbitrary_actions);
                    assert_refusals_keep_secrets(
                        state,
                        *seat,
                        &view.to_string(),
                        &probes,
                        FlowerFields::decide,
                        &format!("v{version}"),
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
        let game = play_random::<FlowerFields>(FlowerFieldsOptions::default(), seed, 2000);
        prop_assert!(game.finished);
        let replayed = fold::<FlowerFields>(&game.options, &game.events);
        prop_assert_eq!(umpire_view_json::<FlowerFields>(&replayed), umpire_view_json::<FlowerFields>(&game.state));
        prop_assert_eq!(FlowerFields::summary(&replayed), FlowerFields::summary(&game.state));
        prop_assert!(FlowerFields::summary(&game.state).is_final);
    }

    #[test]
    fn arbitrary_actions_never_panic(seed in any::<u64>(), json in arbitrary_action_json()) {
        let game = play_random::<FlowerFields>(FlowerFieldsOptions::default(), seed, 25);
        if let Ok(action) = serde_json::from_value::<umpire_flower_fields::FlowerFieldsAction>(json) {
            for actor in [Actor::Umpire, Actor::Seat(SeatIndex(0)), Actor::Seat(SeatIndex(3)), Actor::Seat(SeatIndex(200))] {
                let _ = FlowerFields::decide(&game.state, actor, &action);
            }
        }
    }
}

/// A whole game with the umpire's actions mixed in ends, replays to its
/// last state, survives a JSON round trip, and shows no seat another's
/// secret, whatever actions are tried at it.
fn mixed_game_ends_replays_and_keeps_secrets(
    seed: u64,
    arbitrary: Vec<Value>,
) -> Result<(), TestCaseError> {
    let game = mixed_game(seed);
    let last = game.states.last().expect("events");
    prop_assert!(FlowerFields::status(last).finished);
    let replayed = fold::<FlowerFields>(&game.options, &game.events);
    prop_assert_eq!(&replayed, last);
    // Events survive a JSON round trip unchanged.
    let text = serde_json::to_string(&game.events).expect("events serialise");
    let parsed: Vec<FlowerFieldsEvent> = serde_json::from_str(&text).expect("events parse");
    prop_assert_eq!(&parsed, &game.events);
    let arbitrary_actions: Vec<FlowerFieldsAction> = arbitrary
        .into_iter()
        .filter_map(|json| serde_json::from_value(json).ok())
        .collect();
    assert_no_leaks(&game, &arbitrary_actions);
    Ok(())
}

// The same property in two halves of 8 cases, which the test harness runs
// side by side: each whole game is checked for leaks at every version by
// every viewer, and 16 in one test were this binary's last 40 s alone.
proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn games_with_umpire_actions_end_replay_and_keep_secrets(
        seed in any::<u64>(),
        arbitrary in proptest::collection::vec(arbitrary_action_json(), 0..6),
    ) {
        mixed_game_ends_replays_and_keeps_secrets(seed, arbitrary)?;
    }

    #[test]
    fn more_games_with_umpire_actions_end_replay_and_keep_secrets(
        seed in any::<u64>(),
        arbitrary in proptest::collection::vec(arbitrary_action_json(), 0..6),
    ) {
        mixed_game_ends_replays_and_keeps_secrets(seed, arbitrary)?;
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
    let first = play_random::<FlowerFields>(FlowerFieldsOptions::default(), 7, 2000);
    let second = play_random::<FlowerFields>(FlowerFieldsOptions::default(), 7, 2000);
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

/// A state in the middle of `mixed_game(3)` and a seat for which another
/// seat holds a piece the seat neither holds nor sees.
fn a_state_with_a_foreign_secret() -> (FlowerFieldsState, u8, FlowerFieldsPiece) {
    let game = mixed_game(3);
    for state in game.states.iter().skip(game.states.len() / 3) {
        for seat in 0..5u8 {
            let seen =
                serde_json::to_string(&FlowerFields::view(state, Viewer::Seat(SeatIndex(seat))))
                    .expect("view");
            let foreign = state
                .seats
                .iter()
                .enumerate()
                .filter(|(index, _)| *index != usize::from(seat))
                .flat_map(|(_, other)| other.hand.iter().map(|held| held.piece))
                .find(|piece| {
                    piece_spellings(*piece)
                        .iter()
                        .all(|spelling| !seen.contains(spelling.as_str()))
                });
            if let Some(piece) = foreign {
                return (state.clone(), seat, piece);
            }
        }
    }
    panic!("no seat lacks sight of some foreign piece in mixed_game(3)");
}

#[test]
fn the_refusal_check_catches_a_message_naming_another_seats_piece() {
    let (state, seat, piece) = a_state_with_a_foreign_secret();
    let seen = serde_json::to_string(&FlowerFields::view(&state, Viewer::Seat(SeatIndex(seat))))
        .expect("view");
    let leaky = umpire_flower_fields::codes::NOT_IN_HAND
        .with(format!("That piece is {piece}, held by another seat."));
    let caught = std::panic::catch_unwind(|| {
        assert_refusal_names_no_secret(
            &leaky,
            &secret_pieces_for(&state, seat),
            &seen,
            "{}",
            "fabricated",
        )
    });
    assert!(
        caught.is_err(),
        "a foreign piece in a message went unnoticed"
    );
}

/// Refuses like `decide`, then tells the seat how many pieces the next seat
/// holds: a leak that names no piece.
fn decide_revealing_the_next_hand(
    state: &FlowerFieldsState,
    actor: Actor<SeatIndex>,
    action: &FlowerFieldsAction,
) -> Result<Vec<FlowerFieldsEvent>, Violation> {
    FlowerFields::decide(state, actor, action).map_err(|mut violation| {
        if let Actor::Seat(seat) = actor {
            let next = state.seat(SeatIndex((seat.0 + 1) % 5));
            let held = next.map_or(0, |next| next.hand.len());
            violation.message = format!(
                "{} (seat {} holds {held})",
                violation.message,
                (seat.0 + 1) % 5
            );
        }
        violation
    })
}

#[test]
fn the_refusal_check_catches_a_message_that_depends_on_a_hidden_hand() {
    let (state, seat, _) = a_state_with_a_foreign_secret();
    let seen = serde_json::to_string(&FlowerFields::view(&state, Viewer::Seat(SeatIndex(seat))))
        .expect("view");
    let probes = probe_actions(&state, SeatIndex(seat), &listed_actions(&state), &[]);
    // The honest rules pass the same probes.
    assert_refusals_keep_secrets(&state, seat, &seen, &probes, FlowerFields::decide, "honest");
    let caught = std::panic::catch_unwind(|| {
        assert_refusals_keep_secrets(
            &state,
            seat,
            &seen,
            &probes,
            decide_revealing_the_next_hand,
            "leaky",
        )
    });
    assert!(
        caught.is_err(),
        "a refusal revealing a hand size went unnoticed"
    );
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

/// The umpire is shown every event whole, and every viewer the events of
/// `PUBLIC_EVENTS`, judged at any version (`Game::redact_event`'s contract,
/// on which the service relies instead of redacting them).
#[test]
fn the_umpire_sees_every_event_and_everyone_the_public_ones_whole() {
    for seed in 0..6 {
        let game = play_random::<FlowerFields>(FlowerFieldsOptions::default(), seed, 2000);
        umpire_domain::testing::assert_unredacted_events_are_whole(&game);
    }
}

/// What the service keeps of a fold between folds (a snapshot of the
/// state) resumes the same match at every version of random games, and
/// folds on to the same end.
#[test]
fn a_snapshot_resumes_the_same_match_at_every_version() {
    for seed in 0..3 {
        let game = play_random::<FlowerFields>(FlowerFieldsOptions::default(), seed, 2000);
        umpire_domain::testing::assert_snapshots_resume_every_state(&game);
    }
}
